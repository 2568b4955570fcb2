"""``minidb run WORKLOAD``: the summary printed, as text and as JSON, and one-line errors."""

import json

import pytest

from minidb.experiments.calibration import calibrated_server
from minidb.workloads import DataSetup, RunSetup, insert_benchmark, tpcc

from .conftest import assert_usage_error

TINY = {  # each workload's size options at a size that runs in about a second
    "insert-benchmark": ["--rows", "3e3"],
    "sysbench": ["--rows", "2e3", "--transactions", "200"],
    "tpcc": ["--warehouses", "1", "--transactions", "100"],
    "linkbench": ["--nodes", "2000", "--requests", "300"],
}


@pytest.mark.parametrize("workload", sorted(TINY))
@pytest.mark.parametrize("engine", ["lsm", "btree"])
def test_json_summary_parses_and_names_the_run(cli, workload, engine):
    code, out, err = cli("run", workload, "--engine", engine, "--scale", "tiny", "--json", *TINY[workload])
    assert code == 0, err
    summary = json.loads(out)
    assert summary["engine"] == engine
    assert summary["workload"] == workload.replace("-", "_")
    for field in ("ops", "ops_per_sec", "rkb_per_op", "wkb_per_op", "write_amp", "db_bytes"):
        assert field in summary
    assert summary["db_bytes"] > 0


def test_options_reach_the_workload_and_match_the_library(cli):
    argv = ["run", "insert-benchmark", "--engine", "btree", "--rows", "2e3", "--cache", "6MiB", "--seed", "3",
            "--device", "slow-ssd", "--secondary-indexes", "1", "--json"]
    code, out, _ = cli(*argv)
    assert code == 0
    summary = json.loads(out)
    setup = RunSetup(DataSetup("btree", seed=3), cache_bytes=6 * 1024**2, device="slow-ssd",
                     server_model=calibrated_server())
    direct = insert_benchmark(setup, 2000, secondary_indexes=1).summary
    assert summary["rows"] == 2000 and summary["cache_bytes"] == 6 * 1024**2
    assert summary["device"] == "slow-ssd" and summary["seed"] == 3
    assert summary["wkb_per_op"] == pytest.approx(direct["wkb_per_op"])
    assert summary["ops_per_sec"] == pytest.approx(direct["ops_per_sec"])


def test_a_tpcc_warmup_reaches_the_workload_and_is_left_out_of_the_summary(cli):
    code, out, _ = cli("run", "tpcc", "--scale", "tiny", "--warehouses", "1", "--transactions", "50", "--warmup",
                       "1e2", "--json")
    assert code == 0
    summary = json.loads(out)
    setup = RunSetup(DataSetup("lsm", scale="tiny"), server_model=calibrated_server())
    direct = tpcc(setup, 1, 50, warmup=100).summary
    assert summary["ops"] == 50 == sum(direct["by_type"].values())
    assert summary["rkb_per_op"] == pytest.approx(direct["rkb_per_op"])
    assert summary["ops_per_sec"] == pytest.approx(direct["ops_per_sec"])


def test_text_summary_has_one_aligned_line_per_field(cli):
    code, out, _ = cli("run", "insert-benchmark", "--rows", "1000", "--scale", "tiny")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["workload", "insert_benchmark"]
    assert any(line.split()[:2] == ["rows", "1,000"] for line in lines)
    assert len({line.index(line.split()[1]) for line in lines}) == 1  # values start in one column


def test_nan_becomes_null_in_json(cli):
    # An LSM whose reads all hit the memtable reports no cache lookups: its hit rate is NaN, which JSON lacks.
    code, out, _ = cli("run", "insert-benchmark", "--rows", "500", "--json")
    assert code == 0
    assert "NaN" not in out
    assert json.loads(out)["cache_hit_rate"] is None


@pytest.mark.parametrize("argv, fragment", [
    (["run", "nosuch"], "invalid choice: 'nosuch'"),
    (["run", "insert-benchmark", "--rows", "many"], "bad count 'many'"),
    (["run", "insert-benchmark", "--rows", "1.5"], "bad count"),
    (["run", "insert-benchmark", "--cache", "64XB"], "bad size '64XB'"),
    (["run", "insert-benchmark", "--engine", "heap"], "invalid choice: 'heap'"),
    (["run", "tpcc", "--device", "floppy"], "invalid choice: 'floppy'"),
    (["run", "sysbench", "--mode", "olap"], "invalid choice: 'olap'"),
    (["run", "insert-benchmark", "--rows", "0"], "argument --rows: bad count '0': must be between 1 and"),
    (["run", "insert-benchmark", "--rows", "10", "--secondary-indexes", "4"],
     "argument --secondary-indexes: bad integer '4': must be between 0 and 3"),
    (["run"], "required"),
])
def test_bad_arguments_exit_2_with_one_line(cli, argv, fragment):
    assert_usage_error(cli(*argv), fragment)


@pytest.mark.parametrize("argv", [["run", "--help"], ["run", "linkbench", "--help"], ["run", "sysbench", "-h"]])
def test_help(cli, argv):
    code, out, _ = cli(*argv)
    assert code == 0
    assert out.startswith("usage: minidb run")
    assert "--engine" in out or "WORKLOAD" in out
