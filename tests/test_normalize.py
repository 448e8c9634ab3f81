"""The normalisation rules: each documented example holds, and nothing else is rewritten."""

from __future__ import annotations

import pytest

from conformance.normalize import COMMON_RULES, Normalizer, module_name_rule


@pytest.mark.parametrize("rule", [*COMMON_RULES, module_name_rule("myautograd")], ids=lambda r: r.name)
def test_rule_example(rule):
    assert rule.apply(rule.example) == rule.expected


def test_each_rule_is_documented_in_the_module_docstring():
    import conformance.normalize as module

    for rule in [*COMMON_RULES, module_name_rule("x")]:
        assert f"``{rule.name}``" in module.__doc__


def test_reference_side_keeps_its_module_names():
    assert Normalizer()("<class 'myautograd.Tensor'>") == "<class 'myautograd.Tensor'>"


def test_implementation_module_name_only_as_a_whole_word():
    normalize = Normalizer("mygrad")
    assert normalize("mygrad.tensor") == "torch.tensor"
    assert normalize("mygradient") == "mygradient"


def test_torch_as_implementation_changes_nothing_more():
    assert [r.name for r in Normalizer("torch").rules] == [r.name for r in COMMON_RULES]


def test_messages_without_variable_parts_are_untouched():
    text = "element 0 of tensors does not require grad and does not have a grad_fn"
    assert Normalizer("myautograd")(text) == text


def test_only_the_trailing_triggered_suffix_goes():
    text = "first (Triggered internally at a.cpp:1.) middle"
    assert Normalizer()(text) == text
