"""The long fuzzing campaign runs only when asked for: ``pytest -m fuzz_long tests/damage``."""

import pytest


def pytest_collection_modifyitems(config, items):
    if "fuzz_long" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="thousands of damage cases: run with -m fuzz_long")
    for item in items:
        if "fuzz_long" in item.keywords:
            item.add_marker(skip)
