"""The catalog as a test module shipped in the package, for engines' own repositories.

With the suite installed (``pip install autograd-conformance``; its ``pytest11`` entry point
loads ``conformance.pytest_plugin``), from any directory::

    pytest --pyargs conformance.testsuite --impl mypkg --level api -n auto

runs one test per case, device and dtype against ``mypkg``, judged at the level given (see
``conformance.pytest_plugin`` for the options and how outcomes become pass, skip and fail).
"""

import pytest

from conformance.pytest_plugin import catalog_items


@pytest.mark.parametrize("item", catalog_items())
def test_case(item, conformance):
    conformance(item)
