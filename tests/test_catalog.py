"""The conformance catalog as pytest items: one test per case and device.

``pytest tests/test_catalog.py --impl torch -k retain_graph``; see ``conformance.pytest_plugin``
(registered in ``tests/conftest.py``) for the options and how outcomes map to pass/skip/fail.
"""

import pytest

from conformance.pytest_plugin import catalog_items


@pytest.mark.parametrize("item", catalog_items())
def test_case(item, conformance):
    conformance(item)
