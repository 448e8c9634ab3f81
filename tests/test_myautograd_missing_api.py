"""torch API that myautograd lacks raises one clear AttributeError naming it (``myautograd/_missing.py``).

The error is raised by the module's ``__getattr__``, one lookup frame below the reader's line, with
``name`` and ``obj`` set: the suite's ``conformance/surface.py`` still calls such an item
``unsupported``, in torch's spelling.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import myautograd
from conformance.surface import Surface

# The public modules a torch script reaches, with their torch spelling.
MODULES = ["myautograd", "myautograd.autograd", "myautograd.autograd.graph", "myautograd.autograd.function",
           "myautograd.autograd.functional", "myautograd.autograd.forward_ad", "myautograd.autograd.anomaly_mode",
           "myautograd.autograd.gradcheck", "myautograd.autograd.variable", "myautograd.nn", "myautograd.nn.functional",
           "myautograd.nn.init", "myautograd.nn.parameter", "myautograd.nn.utils", "myautograd.nn.modules",
           "myautograd.optim", "myautograd.optim.lr_scheduler", "myautograd.func", "myautograd.utils",
           "myautograd.utils.data", "myautograd.utils.hooks", "myautograd.cuda", "myautograd.backends",
           "myautograd.accelerator", "myautograd.fft"]


@pytest.mark.parametrize("module_name", MODULES)
def test_a_missing_name_raises_one_clear_error_in_torch_spelling(module_name):
    module = importlib.import_module(module_name)
    spelled = "torch" + module_name[len("myautograd"):]
    with pytest.raises(AttributeError) as raised:
        module.no_such_api  # noqa: B018 - the lookup is the test
    assert str(raised.value) == f"myautograd does not implement {spelled}.no_such_api (see docs/myautograd.md)"
    assert raised.value.name == "no_such_api" and raised.value.obj is module


def test_every_public_package_has_the_clear_error():
    packages = ["myautograd"] + [info.name for info in pkgutil.walk_packages(myautograd.__path__, "myautograd.")
                                 if info.ispkg and not any(part.startswith("_") for part in info.name.split("."))]
    for name in packages:
        assert "__getattr__" in vars(importlib.import_module(name)), name


def test_lookups_that_expect_absence_still_work():
    assert not hasattr(myautograd, "distributions")
    assert getattr(myautograd.autograd.graph, "no_such_api", "default") == "default"
    with pytest.raises(AttributeError, match="has no attribute '__wrapped__'"):
        myautograd.__wrapped__  # noqa: B018 - tools probe special names: Python's own message
    from myautograd.nn import functional  # a submodule import goes through the module's attributes
    assert functional is myautograd.nn.functional


def test_an_item_reaching_a_missing_name_is_still_unsupported():
    def scenario(torch):
        return torch.autograd.graph.no_such_api

    with pytest.raises(AttributeError) as raised:
        scenario(myautograd)
    this_file = scenario.__code__.co_filename
    found = Surface(myautograd).missing(raised.value, lambda filename, line: filename == this_file)
    assert found == {"name": "torch.autograd.graph.no_such_api", "kind": "attribute"}


def test_a_script_run_as_torch_gets_the_clear_error(tmp_path):
    script = tmp_path / "uses_distributions.py"
    script.write_text("import torch\nprint(torch.distributions.Normal(0.0, 1.0))\n")
    done = subprocess.run([sys.executable, "-m", "myautograd", str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0
    assert "AttributeError: myautograd does not implement torch.distributions (see docs/myautograd.md)" in done.stderr
