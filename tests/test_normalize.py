"""The normalisation rules: each documented example holds, and nothing else is rewritten."""

from __future__ import annotations

import pytest

import conformance.normalize as normalize_module
from conformance.compare import compared_warnings
from conformance.normalize import (
    COMMON_RULES,
    IGNORED_WARNINGS,
    Normalizer,
    device_rules,
    is_ignored_warning,
    module_name_rule,
)

RULES = [*COMMON_RULES, module_name_rule("myautograd"), *device_rules("cuda:0")]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_rule_example(rule):
    assert rule.apply(rule.example) == rule.expected


def test_each_rule_is_documented_in_the_module_docstring():
    import conformance.normalize as module

    for rule in RULES:
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


@pytest.mark.parametrize("rule", IGNORED_WARNINGS, ids=lambda r: r.name)
def test_ignored_warning_example_is_dropped_from_the_comparison(rule):
    category, message = rule.example.split(": ", 1)
    assert is_ignored_warning(category, message)
    assert f"``{rule.name}``" in normalize_module.__doc__
    step = {"label": "y.backward()", "warnings": [{"category": category, "message": message}]}
    assert compared_warnings(step) == []


def test_other_warnings_stay_in_the_comparison():
    kept = {"category": "UserWarning", "message": "Attempting to run cuBLAS later"}
    other_category = {"category": "RuntimeWarning", "message": IGNORED_WARNINGS[0].message_prefix}
    assert compared_warnings({"warnings": [kept, other_category]}) == [kept, other_category]
