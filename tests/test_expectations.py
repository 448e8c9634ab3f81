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


def fuzz_entries(text: str, tmp_path) -> tuple:
    path = tmp_path / "expectations.toml"
    path.write_text(text)
    return expectations.load_file(path).fuzz


NODE_DIFF = {"where": "step 3: t4.grad_fn", "aspect": "node-name", "reference": "AddBackward1",
             "implementation": "AddBackward0"}
VALUE_DIFF = {"where": "step 5: t6", "aspect": "value", "reference": "[1.0]", "implementation": "[2.0]"}


def test_a_fuzz_entry_explains_a_program_only_when_it_explains_every_difference_that_counts(tmp_path):
    [entry] = fuzz_entries('[[fuzz]]\naspect = "node-name"\ntorch = "Backward1$"\nimplementation = "Backward0$"\n'
                           'reason = "scalar overloads"\n', tmp_path)
    assert entry.explains(NODE_DIFF) and not entry.explains(VALUE_DIFF)
    assert not entry.explains({**NODE_DIFF, "implementation": "MulBackward1"})
    assert expectations.explained([NODE_DIFF, NODE_DIFF], [entry], "drop-in") is entry
    assert expectations.explained([NODE_DIFF, VALUE_DIFF], [entry], "drop-in") is None
    assert expectations.explained([VALUE_DIFF], [entry], "drop-in") is None
    # a node name does not count at semantics: nothing left to explain there, so no entry is the reason
    assert expectations.explained([NODE_DIFF], [entry], "semantics") is None
    assert expectations.explained([], [entry], "drop-in") is None


DEVICE_DIFF = {"where": "step 1: t1: device", "aspect": "device", "step": 1, "reference": "'cpu'",
               "implementation": "unsupported: Tensor.device", "unsupported": "Tensor.device"}
RAISED_DIFF = {"where": "step 2", "aspect": "raised", "step": 2, "reference": "observed 't2'",
               "implementation": "s2: t2 = torch.floor(t1) raised AttributeError", "unsupported": "torch.floor"}
LATER_DIFF = {**VALUE_DIFF, "step": 3}


def test_an_unsupported_program_is_explained_by_the_entry_that_explains_its_missing_name(tmp_path):
    [entry] = fuzz_entries('[[fuzz]]\nunsupported = "^torch\\\\."\nreason = "no translation"\n', tmp_path)
    assert entry.explains(RAISED_DIFF) and not entry.explains(DEVICE_DIFF) and not entry.explains(VALUE_DIFF)
    # the earliest difference that counts names the missing name; nothing past it is compared
    record = {"outcome": "unsupported", "detail": "unsupported: torch.floor", "diff": [LATER_DIFF, RAISED_DIFF]}
    assert expectations.explained_unsupported(record, [entry], "semantics") is entry
    assert expectations.explained_unsupported({**record, "outcome": "fail"}, [entry], "semantics") is None
    # at the api level the tensor's missing device comes first: that name is not explained
    at_api = {**record, "detail": "unsupported: Tensor.device", "diff": [DEVICE_DIFF, LATER_DIFF, RAISED_DIFF]}
    assert expectations.explained_unsupported(at_api, [entry], "api") is None
    assert expectations.explained_unsupported(at_api, [entry], "semantics") is None


@pytest.mark.parametrize(("text", "message"), [
    ('[[fuzz]]\naspect = "node-name"\n', "lacks reason"),
    ('[[fuzz]]\nreason = "anything"\n', "matches every difference"),
    ('[[fuzz]]\naspect = "colour"\nreason = "r"\n', "has aspect 'colour'"),
    ('[[fuzz]]\nwhere = "t[0"\nreason = "r"\n', "where is not a regular expression"),
    ('[[fuzz]]\nunsupported = "(torch"\nreason = "r"\n', "unsupported is not a regular expression"),
    ('[[fuzz]]\ncase = "x.*"\nreason = "r"\n', "unknown key 'case'"),
    ('fuzz = "x"\n', "must be an array of tables"),
])
def test_malformed_fuzz_entries_are_refused_with_one_line(tmp_path, text, message):
    with pytest.raises(expectations.ExpectationError, match=message):
        fuzz_entries(text, tmp_path)


def test_myautograds_file_explains_the_fuzzers_finding_of_torchs_jvp_tangent_dtype():
    """The [[fuzz]] entry of torch's bug pytorch/pytorch#90065 (a float64 tangent under func.jvp of a
    0-d float32 tensor and a Python number): the fuzzer meets it in CI's 30-second run (seed 2026),
    and an entry lost from the file shows there only when that program happens to be drawn."""
    entries = expectations.load_file(expectations.builtin_path("myautograd")).fuzz
    diff = {"aspect": "dtype", "where": "step 2: vmap(jvp) of f1 at t9, t12: per-sample (output, tangent)[1][0]",
            "reference": "'torch.float64'", "implementation": "'torch.float32'"}
    entry = expectations.explained([diff], entries, "drop-in")
    assert entry is not None and "pytorch/pytorch#90065" in entry.reason
