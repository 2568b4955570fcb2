"""Per-interval throughput: steps spread over intervals, stalls counted where they begin."""

import pytest

from minidb.sim import Step, intervals


def step(start, end, ops):
    return Step(start, end, ops, 0.0, 0.0, 0.0, "cpu")


def test_steps_are_spread_evenly_over_the_intervals_they_cover():
    df = intervals([step(0.0, 1.5, 300), step(1.5, 2.0, 100)], width=1.0)
    assert list(df.columns) == ["start", "ops", "ops_per_sec", "stalls", "stalled_seconds"]
    assert df["start"].tolist() == [0.0, 1.0]
    assert df["ops"].tolist() == pytest.approx([200, 200])
    assert df["ops_per_sec"].tolist() == pytest.approx([200, 200])


def test_stalls_are_counted_where_they_begin_and_timed_where_they_last():
    df = intervals([step(0.0, 0.5, 50), step(2.5, 3.0, 50)], stalls=[(0.5, 2.5)], width=1.0)
    assert df["stalls"].tolist() == [1, 0, 0]
    assert df["stalled_seconds"].tolist() == pytest.approx([0.5, 1.0, 0.5])
    assert df["ops"].tolist() == pytest.approx([50, 0, 50])


def test_start_offset_instants_and_a_partial_last_interval():
    df = intervals([step(9.0, 10.0, 10), step(10.0, 10.0, 5), step(10.0, 12.5, 25)], width=2.0, start=10.0)
    assert df["start"].tolist() == [0.0, 2.0]
    assert df["ops"].tolist() == pytest.approx([5 + 20, 5])
    assert df["ops_per_sec"].tolist() == pytest.approx([12.5, 10.0])  # the last interval is 0.5 s long


def test_bad_width_is_refused():
    with pytest.raises(ValueError, match="width"):
        intervals([], width=0)
