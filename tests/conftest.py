"""Test-suite settings shared by every folder of tests."""

import os

from hypothesis import HealthCheck, settings

# Simulated engines are deterministic but a single example may take milliseconds: no per-example deadline.
settings.register_profile(
    "default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", deadline=None, max_examples=1000, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("MINIDB_HYPOTHESIS", "default"))
