"""Hidden graded tests of exercise 06, the device model: they count toward the grade, their output is withheld.

Only instructors have this file: ``minidb release`` leaves it out of the students' copy, and the Gradescope
autograder (``minidb autograder``) carries it. Students see each test's name and points once grades are published.
"""

from __future__ import annotations

import pytest

KIB = 1024
DEVICE = {"iops": 3000, "bandwidth": 125_000_000, "max_io_bytes": 256 * KIB, "read_latency": 1e-3,
          "write_latency": 2e-3, "sync_latency": 4e-3}
IO = {"reads": 10, "writes": 20, "syncs": 5, "read_bytes": 10 * 4096, "write_bytes": 20 * 4096}


@pytest.mark.points(2)
@pytest.mark.hidden
def test_edge_cases(device_model):
    """Each latency counts for its own kind of request, syncs cost latency only, and bad arguments are refused."""
    times = device_model.resource_times(0.0, dict(IO), dict(DEVICE), 4, 1)
    transfer = 30 * 4096 / 125_000_000
    assert times["latency"] == pytest.approx(10e-3 + 40e-3 + 20e-3 + transfer)
    assert times["iops"] == pytest.approx(30 / 3000)
    assert device_model.io_units({**IO, "read_bytes": 0, "write_bytes": 1}, 1) == 30
    with pytest.raises(ValueError):
        device_model.io_units(dict(IO), 0)
    with pytest.raises(ValueError):
        device_model.resource_times(1.0, dict(IO), dict(DEVICE), 0, 16)
    with pytest.raises(ValueError):
        device_model.resource_times(1.0, dict(IO), dict(DEVICE), 4, 0)
