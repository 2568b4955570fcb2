"""The CPU cost model: arithmetic, overrides, errors, and a source for every constant."""

import pytest

from minidb.sim.cpu import COSTS, CostModel, io_work
from minidb.storage import IOCounts


def test_seconds_is_the_sum_of_count_times_unit_cost():
    model = CostModel()
    work = {"key_compares": 1000, "rows_encoded": 10}
    expected = 1000 * COSTS["key_compares"].seconds + 10 * COSTS["rows_encoded"].seconds
    assert model.seconds(work) == pytest.approx(expected)
    assert model.breakdown(work)["key_compares"] == pytest.approx(1000 * COSTS["key_compares"].seconds)
    assert model.seconds({}) == 0


def test_overrides_replace_single_units():
    model = CostModel(key_compares=1e-6)
    assert model.seconds({"key_compares": 3}) == pytest.approx(3e-6)
    assert model.costs["page_visits"] == COSTS["page_visits"].seconds


def test_io_work_charges_every_moved_byte_once():
    io = IOCounts(reads=2, read_bytes=8192, writes=1, write_bytes=4096, syncs=1)
    assert io_work(io) == {"crc32_bytes": 12288, "copy_bytes": 12288}


@pytest.mark.parametrize("call, message", [
    (lambda: CostModel(nonsense=1.0), "unknown CPU cost unit 'nonsense'"),
    (lambda: CostModel(key_compares=-1.0), "must be >= 0"),
    (lambda: CostModel().seconds({"nonsense": 1}), "unknown CPU cost unit"),
    (lambda: CostModel().seconds({"key_compares": -1}), "must be >= 0"),
])
def test_bad_units_and_counts_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_every_constant_cites_its_measurement():
    for unit, cost in COSTS.items():
        assert cost.seconds > 0, unit
        assert "benchmarks/measure_cpu_costs.py" in cost.source, unit
