"""Test-suite settings shared by every folder of tests."""

import os

import pytest
from hypothesis import HealthCheck, settings

# Simulated engines are deterministic but a single example may take milliseconds: no per-example deadline.
settings.register_profile(
    "default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", deadline=None, max_examples=1000, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("MINIDB_HYPOTHESIS", "default"))


@pytest.fixture(autouse=True, scope="session")
def _sweep_cache_in_the_tests_temp(tmp_path_factory):
    """Sweeps that use the default cache (the server calibration, a chapter's runs) write it under the session's
    temporary folder, not in the repository, unless ``MINIDB_CACHE`` names one. Under pytest-xdist every worker
    shares one folder (the run's, above each worker's own), so a point one worker ran (a chapter's, the magnitude
    table's) is not run again by the other; the cache writes each point atomically."""
    if "MINIDB_CACHE" not in os.environ:
        if os.environ.get("PYTEST_XDIST_WORKER"):
            shared = tmp_path_factory.getbasetemp().parent / "minidb-cache"
            shared.mkdir(exist_ok=True)
            os.environ["MINIDB_CACHE"] = str(shared)
        else:
            os.environ["MINIDB_CACHE"] = str(tmp_path_factory.mktemp("minidb-cache"))
    yield
