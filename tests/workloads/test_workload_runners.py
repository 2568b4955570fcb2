"""Every runner at tiny scale on the dict double: the summary fields, determinism, and the interval series."""

import math

import pandas as pd
import pytest

from minidb.sim.server import BINLOG_FILE, ServerModel
from minidb.workloads import DataSetup, RunSetup, insert_benchmark, linkbench, sysbench, tpcc


def setup(opener, seed: int = 0, scale: str | None = None, **run) -> RunSetup:
    """A setup on ``opener`` (the dict double) with the measured run's ``run`` options."""
    return RunSetup(DataSetup(opener, scale=scale, seed=seed), **run)


RUNNERS = {
    "insert_benchmark": lambda opener, seed, **kw: insert_benchmark(setup(opener, seed, **kw), 3000),
    "sysbench": lambda opener, seed, **kw: sysbench(setup(opener, seed, **kw), 2000, 100),
    "tpcc": lambda opener, seed, **kw: tpcc(setup(opener, seed, "tiny", **kw), transactions=60),
    "linkbench": lambda opener, seed, **kw: linkbench(setup(opener, seed, **kw), 500, 300),
}
FIELDS = ["rows", "ops", "ops_per_sec", "rkb_per_op", "wkb_per_op", "reads_per_op", "writes_per_op", "write_amp",
          "db_bytes", "cache_hit_rate", "seconds", "stalls", "stalled_seconds", "bottleneck", "engine", "seed"]


@pytest.mark.parametrize("name", RUNNERS)
def test_summary_has_the_issue_fields_with_sane_values(name, dict_opener):
    result = RUNNERS[name](dict_opener, seed=1)
    s = result.summary
    for field in FIELDS:
        assert field in s, field
    assert s["ops"] > 0 and s["rows"] > 0 and s["seconds"] > 0
    assert s["ops_per_sec"] == pytest.approx(s["ops"] / s["seconds"])
    assert s["write_amp"] >= 1  # the double logs every batch and rewrites everything when it flushes
    device = dict_opener.engines[-1].device  # the engine's files, and the server's binlog if it keeps one
    binlog = device.size(BINLOG_FILE) if device.exists(BINLOG_FILE) else 0
    assert s["db_bytes"] == device.used - binlog
    assert 0 <= s["cache_hit_rate"] <= 1
    assert s["engine"] == "dict" and s["seed"] == 1
    assert result.workload == name and name in repr(result)


@pytest.mark.parametrize("name", RUNNERS)
def test_the_same_seed_gives_the_same_result(name, dict_opener):
    a, b = RUNNERS[name](dict_opener, seed=7), RUNNERS[name](dict_opener, seed=7)
    assert a.summary == b.summary
    pd.testing.assert_frame_equal(a.intervals, b.intervals)
    c = RUNNERS[name](dict_opener, seed=8)
    assert c.summary != a.summary


@pytest.mark.parametrize("name", RUNNERS)
def test_intervals_add_up_to_the_run(name, dict_opener):
    result = RUNNERS[name](dict_opener, seed=1, interval=0.001)
    df = result.intervals
    assert list(df.columns) == ["start", "ops", "ops_per_sec", "stalls", "stalled_seconds"]
    assert df["ops"].sum() == pytest.approx(result.summary["ops"])
    assert df["stalls"].sum() == result.summary["stalls"]
    assert len(df) == math.ceil(result.summary["seconds"] / 0.001 - 1e-9)


def test_a_slower_device_gives_a_lower_rate(dict_opener):
    fast = RUNNERS["sysbench"](dict_opener, seed=1, device="nvme").summary
    slow = RUNNERS["sysbench"](dict_opener, seed=1, device="gp2").summary
    assert slow["ops_per_sec"] < fast["ops_per_sec"]
    assert slow["reads_per_op"] == fast["reads_per_op"]  # the same IO, counted the same: only time differs


def test_flush_stalls_show_in_the_summary(dict_opener):
    # a tiny flush threshold and a slow device: each flush waits for the previous one (no server costs, which
    # would slow the inserts enough for the flushes to keep up)
    data = DataSetup(dict_opener, engine_options={"flush_bytes": 4096})
    s = insert_benchmark(RunSetup(data, device="gp2", server_model=ServerModel.none()), 3000).summary
    assert s["stalls"] > 0 and s["stalled_seconds"] > 0


def test_bad_arguments_are_refused(dict_opener):
    with pytest.raises(ValueError, match="unknown sysbench mode"):
        sysbench(setup(dict_opener), mode="nope")
    with pytest.raises(ValueError, match="rows >= 1"):
        insert_benchmark(setup(dict_opener), 0)
    with pytest.raises(ValueError, match="interval"):
        insert_benchmark(setup(dict_opener, interval=0), 10)
    with pytest.raises(ValueError, match="nodes >= 2"):
        linkbench(setup(dict_opener), 1)
    with pytest.raises(ValueError, match="transactions >= 1"):
        tpcc(setup(dict_opener, scale="tiny"), transactions=0)
    with pytest.raises(ValueError, match="bad device"):
        insert_benchmark(setup(dict_opener, device=42), 10)
