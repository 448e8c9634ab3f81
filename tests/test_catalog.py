"""The conformance catalog as pytest items: one test per case, device and dtype.

``pytest tests/test_catalog.py --impl torch -k retain_graph``; the same test ships in the package
as ``conformance.testsuite`` (``pytest --pyargs conformance.testsuite --impl mypkg``). See
``conformance.pytest_plugin`` (registered in ``tests/conftest.py``, or by the package's pytest11
entry point) for the options and how outcomes map to pass/skip/fail.
"""

from conformance.testsuite import test_case

__all__ = ["test_case"]
