"""Expectation entries: matching by case pattern, device and reference release."""

from __future__ import annotations

import pytest

from conformance import expectations


def entries(text: str, tmp_path) -> list:
    path = tmp_path / "expectations.toml"
    path.write_text(text)
    return expectations.load(path)


@pytest.mark.parametrize(("version", "text", "inside"), [
    ("2.11.0+cu130", "<2.13", True),
    ("2.13.0+cpu", "<2.13", False),
    ("2.13.0", "<=2.13", True),
    ("2.13.1", ">=2.10, <2.13.1", False),
    ("2.12", ">=2.10, <2.13", True),
    ("2.9.1", ">=2.10", False),
    ("2.13", "==2.13.0", True),
])
def test_reference_ranges(version, text, inside):
    assert expectations.in_range(version, expectations.parse_range(text)) is inside


@pytest.mark.parametrize("text", ["2.13", "~=2.13", "<", "<2.x", ">=2.10; <2.13"])
def test_malformed_ranges_are_refused(text):
    with pytest.raises(ValueError, match="is not a comparison"):
        expectations.parse_range(text)


def test_an_entry_with_a_reference_range_applies_only_to_those_releases(tmp_path):
    [entry] = entries('[[expected]]\ncase = "inplace.*"\noutcome = "fail"\nreason = "older message"\n'
                      'reference = "<2.13"\n', tmp_path)
    failing = {"id": "inplace.saved_exp_output_modified", "device": "cpu", "outcome": "fail"}
    assert expectations.apply(dict(failing), [entry], "2.11.0+cu130")["outcome"] == "xfail"
    assert expectations.apply(dict(failing), [entry], "2.13.0+cpu")["outcome"] == "fail"
    passing = {**failing, "outcome": "pass"}
    assert expectations.apply(dict(passing), [entry], "2.13.0+cpu") == passing
    assert expectations.apply(dict(passing), [entry], "2.12.0")["outcome"] == "xpass"


def test_an_entry_without_a_reference_range_applies_to_every_release(tmp_path):
    [entry] = entries('[[expected]]\ncase = "hooks.*"\noutcome = "unsupported"\nreason = "no hooks"\n', tmp_path)
    record = {"id": "hooks.tensor_hook", "device": "cuda", "outcome": "unsupported"}
    for version in ("1.13.1", "2.13.0+cpu", "3.0"):
        assert expectations.apply(dict(record), [entry], version)["outcome"] == "xfail"
