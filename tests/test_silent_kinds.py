"""The hand-written cases where torch's sample databases are silent (issue 23, item 4): printing, nested grad and
anomaly modes, saved-tensor hooks over two backwards, non-square Jacobians.

Each planted bug of ``tests/mutants`` written for these kinds is caught by one named item, judged against torch
as a run judges it; myautograd unchanged passes the same item (the control). The mutant's patch is applied in a
child forked from the test process only.
"""

from __future__ import annotations

import warnings

import pytest

from conformance.catalog import load
from conformance.implementations import REFERENCE, resolve
from conformance.item import Item
from conformance.judge import judge
from conformance.recorder import observe
from conformance.worker import warm_up
from tests.support.sides import isolated, judged

REGISTRY = load()
with warnings.catch_warnings():  # torch's lazy imports (the forward-mode decompositions warn), done before any fork
    warnings.simplefilter("ignore")
    warm_up()

CAUGHT = [
    ("sci_threshold_off_by_ten", "printing.scientific_notation_threshold", "float32"),
    ("set_printoptions_keeps_sci_mode", "printing.set_printoptions_precision_and_sci_mode", "float32"),
    ("nested_anomaly_not_restored", "anomaly.nested_anomaly_modes_restored", "float32"),
    ("packed_values_not_freed", "hooks.saved_tensors_hooks_packed_values_freed_with_the_graph", "float32"),
    ("jacfwd_rows_not_moved", "func_transforms.jacobians_of_non_square_functions", "float64"),
]


def observed_under_mutant(name: str, case, dtype: str) -> dict:
    """What myautograd with the mutant ``name`` observes on ``case``, in a forked child."""
    def task():
        import myautograd
        import tests.mutants as mutants

        mutants.apply(name)
        return observe(case, myautograd, "cpu", dtype)

    return isolated(task)


@pytest.mark.parametrize(("mutant", "case_id", "dtype"), CAUGHT)
def test_planted_bug_is_caught_and_myautograd_passes(mutant, case_id, dtype):
    case = REGISTRY.get(case_id)
    item = Item(case, "cpu", dtype)
    reference = isolated(lambda: observe(case, resolve(REFERENCE).namespace, "cpu", dtype))
    caught = judge(item, reference, observed_under_mutant(mutant, case, dtype), "myautograd").as_dict()
    assert caught["outcome"] == "fail", caught
    control = judged(case, resolve(REFERENCE), resolve("myautograd"), dtype=dtype)
    assert control["outcome"] == "pass", control


def test_detect_anomaly_is_no_decorator_and_restores_the_mode_of_its_making():
    """As torch's: ``detect_anomaly`` cannot decorate, and its exit restores the mode of when it was made."""
    import myautograd

    autograd = myautograd.autograd
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        context = autograd.detect_anomaly(check_nan=False)
    with pytest.raises(TypeError, match="'detect_anomaly' object is not callable"):
        context(lambda: None)
    autograd.set_detect_anomaly(True)
    try:
        with context:
            assert (myautograd.is_anomaly_enabled(), myautograd.is_anomaly_check_nan_enabled()) == (True, False)
        assert (myautograd.is_anomaly_enabled(), myautograd.is_anomaly_check_nan_enabled()) == (False, True)
    finally:
        autograd.set_detect_anomaly(False)
