"""Fixtures of the LSM tests (helpers live in lsm_helpers.py)."""

import pytest

from .lsm_helpers import TINY


@pytest.fixture
def tiny():
    """The TINY options as a fresh dict."""
    return dict(TINY)
