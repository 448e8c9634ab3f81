"""The disk cache (``conformance.cache``) of the rendered operator table (``conformance.operators.cases``)
and of the documented surface: a cached load gives the cases an uncached one gives, an edit of what
rendering reads is never served from an old file, and a damaged file or an unwritable directory costs
only the time."""

from __future__ import annotations

import pickle

import pytest

from conformance import cache
from conformance.operators import cases, operators

# a few entries of different families: enough to compare, quick to render
SOME = [op for op in operators() if op.name in ("sin", "add", "var_mean", "fft_fft", "angle")]


def described(case) -> tuple:
    return (case.id, case.title, case.source, case.features, case.optional_features, case.tags, case.dtypes,
            case.tolerances, case.location, case.scenario.__code__.co_code)


def test_a_cached_load_gives_the_cases_an_uncached_load_gives(tmp_path):
    first = [described(c) for c in cases.build_all(SOME, directory=tmp_path)]   # renders, writes the file
    (written,) = tmp_path.glob("operators-*.pickle")
    again = [described(c) for c in cases.build_all(SOME, directory=tmp_path)]   # reads it
    fresh = [described(cases.build(op, variant)) for op in SOME for variant in op.variants]
    assert first == again == fresh and len(fresh) >= 5
    assert written.name == f"operators-{cases.fingerprint()}.pickle"


def test_what_the_file_holds_is_what_runs(tmp_path):
    cases.build_all(SOME, directory=tmp_path)
    (path,) = tmp_path.glob("operators-*.pickle")
    stored = pickle.loads(path.read_bytes())
    case_id = "op.sin.default"
    rendering, code = stored[case_id]
    stored[case_id] = ((rendering[0], rendering[1], "a title from the file", *rendering[3:]), code)
    path.write_bytes(pickle.dumps(stored))
    sin = next(c for c in cases.build_all(SOME, directory=tmp_path) if c.id == case_id)
    assert sin.title == "a title from the file"


def test_an_edit_of_what_rendering_reads_names_another_file(tmp_path, monkeypatch):
    cases.build_all(SOME, directory=tmp_path)
    monkeypatch.setattr(cases, "fingerprint", lambda: "edited")
    cases.build_all(SOME, directory=tmp_path)
    assert sorted(p.name for p in tmp_path.glob("operators-*.pickle"))[-1] == "operators-edited.pickle"
    assert len(list(tmp_path.glob("operators-*.pickle"))) == 2


def test_the_fingerprint_follows_the_sources(tmp_path, monkeypatch):
    package = tmp_path / "conformance"
    (package / "operators").mkdir(parents=True)
    for name in ("features.py", "case.py", "operators/spec.py"):
        (package / name).write_text("x = 1\n")
    monkeypatch.setattr(cases, "_PACKAGE", package)
    before = cases.fingerprint()
    (package / "operators" / "spec.py").write_text("x = 2\n")
    assert cases.fingerprint() != before


@pytest.mark.parametrize("damage", [b"", b"not a pickle", pickle.dumps(["a", "list"])])
def test_a_damaged_file_is_a_miss_and_is_written_again(tmp_path, damage):
    path = tmp_path / f"operators-{cases.fingerprint()}.pickle"
    path.write_bytes(damage)
    built = cases.build_all(SOME, directory=tmp_path)
    assert len(built) >= 5 and isinstance(pickle.loads(path.read_bytes()), dict)


def test_an_unwritable_directory_or_off_leaves_the_cache_out(tmp_path, monkeypatch):
    blocked = tmp_path / "a file, not a directory"
    blocked.write_text("")
    assert len(cases.build_all(SOME, directory=blocked / "cache")) >= 5
    monkeypatch.setenv(cache.CACHE_ENV, "off")
    assert cache.directory() is None
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "chosen"))
    assert cache.directory() == tmp_path / "chosen"


def test_the_surface_of_this_interpreters_torch_is_read_once(tmp_path, monkeypatch):
    from conformance import documented

    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    first = documented.derived()
    assert len(list(tmp_path.glob("surface-*.pickle"))) == 1 and first["names"]

    def no_child(python, timeout):
        raise AssertionError("the cached surface was not used")

    monkeypatch.setattr(documented, "_derived_in_child", no_child)
    assert documented.derived() == first
    with pytest.raises(AssertionError):  # another interpreter's torch is always read
        documented.derived(python="/another/python")
