"""The -k expression parser of ``conformance.selection``: words, and/or/not, parentheses, errors."""

from __future__ import annotations

import json

import pytest

from conformance.case import Case, Doc
from conformance.selection import SelectionError, compile_expression

DOC = Doc("https://pytorch.org/docs/stable/autograd.html", "test")
CASES = [
    Case("hooks.tensor_hook_runs", "t", DOC, lambda torch, rec: None, tags=("seed",)),
    Case("hooks.post_accumulate_hook", "t", DOC, lambda torch, rec: None, tags=("hard",)),
    Case("retain_graph.second_backward_raises", "t", DOC, lambda torch, rec: None, tags=("error", "seed")),
    Case("leaf.nonleaf_grad_warns", "t", DOC, lambda torch, rec: None, tags=("warning",)),
    Case("higher_order.create_graph_double_backward", "t", DOC, lambda torch, rec: None,
         features=("autograd.grad", "higher-order")),
]


def selected(expression: str) -> list[str]:
    predicate = compile_expression(expression)
    return [c.id for c in CASES if predicate(c)]


@pytest.mark.parametrize(("expression", "expected"), [
    ("hooks", ["hooks.tensor_hook_runs", "hooks.post_accumulate_hook"]),
    ("HOOKS", ["hooks.tensor_hook_runs", "hooks.post_accumulate_hook"]),  # case-insensitive
    ("graph", ["retain_graph.second_backward_raises", "higher_order.create_graph_double_backward"]),
    ("leaf.nonleaf_grad_warns", ["leaf.nonleaf_grad_warns"]),  # a whole id
    ("seed", ["hooks.tensor_hook_runs", "retain_graph.second_backward_raises"]),  # a tag
    ("warn", ["leaf.nonleaf_grad_warns"]),  # a part of a tag, or of an id
    ("hooks and not post_accumulate", ["hooks.tensor_hook_runs"]),
    ("retain_graph or create_graph", ["retain_graph.second_backward_raises",
                                      "higher_order.create_graph_double_backward"]),
    ("not hooks and not graph", ["leaf.nonleaf_grad_warns"]),
    ("not not leaf", ["leaf.nonleaf_grad_warns"]),
    # precedence: not binds tighter than and, and tighter than or
    ("leaf or hooks and hard", ["hooks.post_accumulate_hook", "leaf.nonleaf_grad_warns"]),
    ("(leaf or hooks) and hard", ["hooks.post_accumulate_hook"]),
    ("not leaf and seed", ["hooks.tensor_hook_runs", "retain_graph.second_backward_raises"]),
    ("not (leaf or seed)", ["hooks.post_accumulate_hook", "higher_order.create_graph_double_backward"]),
    ("((hooks))", ["hooks.tensor_hook_runs", "hooks.post_accumulate_hook"]),
    ("(hooks)and(seed)", ["hooks.tensor_hook_runs"]),
    ("  error  ", ["retain_graph.second_backward_raises"]),
    ("no_such_word", []),
    ("higher-order", ["higher_order.create_graph_double_backward"]),  # a declared feature
    ("autograd.grad and not hooks", ["higher_order.create_graph_double_backward"]),
])
def test_expression_selects(expression, expected):
    assert selected(expression) == expected


@pytest.mark.parametrize(("expression", "message"), [
    ("", "-k: the expression is empty"),
    ("   ", "-k: the expression is empty"),
    ("hooks and", "-k 'hooks and': the expression ends too early"),
    ("not", "-k 'not': the expression ends too early"),
    ("(hooks", "-k '(hooks': the expression ends too early"),
    ("(hooks leaf", "-k '(hooks leaf': a parenthesis is not closed"),
    ("hooks)", "-k 'hooks)': unexpected ')'"),
    ("()", "-k '()': unexpected ')'"),
    ("and hooks", "-k 'and hooks': unexpected 'and'"),
    ("hooks or or leaf", "-k 'hooks or or leaf': unexpected 'or'"),
    ("hooks leaf", "-k 'hooks leaf': unexpected 'leaf'"),
    ("hooks AND leaf", "-k 'hooks AND leaf': unexpected 'AND'"),  # operators are lower case
])
def test_malformed_expression_raises(expression, message):
    with pytest.raises(SelectionError) as raised:
        compile_expression(expression)
    assert str(raised.value) == message


def test_selection_error_is_a_value_error():
    assert issubclass(SelectionError, ValueError)


def test_run_dtype_keeps_the_items_in_the_dtypes_named_and_refuses_an_unknown_one_in_one_line(run_cli, tmp_path):
    done = run_cli("run", "--impl", "torch", "--device", "cpu", "--dtype", "float64,complex128", "-k", "op.sin.default",
                   "--no-progress", "--report-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "results.json").read_text())
    assert sorted(r["dtype"] for r in result["cases"]) == ["complex128", "float64"]
    assert result["selection"]["dtypes"] == ["float64", "complex128"]
    refused = run_cli("run", "--impl", "torch", "--dtype", "float9", "--report-dir", str(tmp_path / "other"))
    assert refused.returncode == 2 and refused.stderr.strip().count("\n") == 0 and "'float9'" in refused.stderr
