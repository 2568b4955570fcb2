"""Both real engines run every workload at tiny scale, and the same seed gives the same summary."""

import importlib

import pytest

from minidb.workloads import DataSetup, RunSetup, insert_benchmark, linkbench, sysbench, tpcc

RUNNERS = [insert_benchmark, sysbench, tpcc, linkbench]


def available(module: str, opener: str) -> bool:
    try:
        return hasattr(importlib.import_module(module), opener)
    except ImportError:
        return False


ENGINES = [pytest.param("btree", marks=pytest.mark.skipif(not available("minidb.btree", "open_btree"),
                                                           reason="the B+tree engine is not built")),
           pytest.param("lsm", marks=pytest.mark.skipif(not available("minidb.lsm", "open_lsm"),
                                                         reason="the LSM engine is not built"))]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("runner", RUNNERS, ids=lambda r: r.__name__)
def test_every_workload_runs_on_both_engines_deterministically(engine, runner):
    first = runner(RunSetup(DataSetup(engine, scale="tiny", seed=11)))
    again = runner(RunSetup(DataSetup(engine, scale="tiny", seed=11)))
    assert first.summary == again.summary
    s = first.summary
    assert s["engine"] == engine and s["ops"] > 0 and s["ops_per_sec"] > 0 and s["db_bytes"] > 0
    assert s["wkb_per_op"] > 0 and s["write_amp"] >= 1
    assert 0 <= s["cache_hit_rate"] <= 1
    assert first.intervals["ops"].sum() == pytest.approx(s["ops"])
