"""Every bad argument and environment value: one line naming the option (or variable), exit code 2, before any
work; a database that cannot be read: one line, exit code 1. A few cases drive the real ``minidb`` command in a
subprocess; the rest run in-process."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from minidb.lsm import open_lsm
from minidb.storage import DirDevice

from .conftest import assert_usage_error

ROOT = Path(__file__).resolve().parents[2]


def minidb(*argv, env=None, timeout=60):
    """Run the real command: (exit code, stdout, stderr). The timeout proves an error came before any work."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    p = subprocess.run([sys.executable, "-m", "minidb.cli", *map(str, argv)], capture_output=True, text=True,
                       env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


# -- counts and sizes: bounded, overflow-safe -------------------------------------------------------------------
@pytest.mark.parametrize("argv, fragment", [
    (["run", "insert-benchmark", "--rows", "1e12"], "argument --rows: bad count '1e12': must be between 1 and "
                                                    "100,000,000"),
    (["run", "insert-benchmark", "--rows", "1e400"], "argument --rows: bad count '1e400'"),
    (["run", "insert-benchmark", "--rows", "100000001"], "argument --rows"),  # the bound + 1
    (["run", "sysbench", "--transactions", "1e8"], "argument --transactions: bad count '1e8': must be between 1 "
                                                   "and 10,000,000"),
    (["run", "tpcc", "--warehouses", "101"], "argument --warehouses: bad count '101': must be between 1 and 100"),
    (["run", "tpcc", "--warmup", "-1"], "argument --warmup: bad count '-1': must be a whole number >= 0"),
    (["run", "linkbench", "--nodes", "-5"], "argument --nodes: bad count '-5'"),
    (["stats", "--rows", "1e9"], "argument --rows: bad count '1e9'"),
])
def test_counts_have_upper_bounds(cli, argv, fragment):
    assert_usage_error(cli(*argv), fragment)


def test_a_count_at_its_bound_is_accepted_by_the_parser():
    from minidb.cli import build_parser

    args = build_parser().parse_args(["run", "tpcc", "--warehouses", "100", "--transactions", "1e7"])
    assert args.warehouses == 100 and args.transactions == 10_000_000


@pytest.mark.parametrize("argv, fragment", [
    (["run", "tpcc", "--cache", "2TiB"], "argument --cache: bad size '2TiB': must be between 1 B and 1 TiB"),
    (["run", "tpcc", "--cache", "1e30GiB"], "argument --cache: bad size '1e30GiB'"),
    (["run", "tpcc", "--cache", "1e400"], "argument --cache: bad size '1e400': too large"),
    (["run", "tpcc", "--cache", "0"], "argument --cache: bad size '0': must be between 1 B"),
])
def test_sizes_have_bounds_and_never_overflow(cli, argv, fragment):
    assert_usage_error(cli(*argv), fragment)


@pytest.mark.parametrize("argv, fragment", [
    (["run", "tpcc", "--seed", "-1"], "argument --seed: bad integer '-1': must be between 0 and 4,294,967,295"),
    (["run", "tpcc", "--seed", str(2**64)], "argument --seed"),
    (["run", "tpcc", "--seed", "1e3"], "argument --seed: bad integer '1e3'"),
    (["run", "sysbench", "--tables", "0"], "argument --tables: bad integer '0': must be between 1 and 64"),
    (["run", "insert-benchmark", "--query-threads", "65"], "argument --query-threads"),
])
def test_integers_have_bounds(cli, argv, fragment):
    assert_usage_error(cli(*argv), fragment)


@pytest.mark.parametrize("flag, value, fragment", [
    ("--jobs", "0", "argument --jobs: bad integer '0': must be between 1 and 64"),
    ("--jobs", "1000", "argument --jobs"),
    ("--timeout", "nan", "argument --timeout: bad number 'nan': not a number"),
    ("--timeout", "inf", "argument --timeout: bad number 'inf': must be between 1 and 86400"),
    ("--test-timeout", "0", "argument --test-timeout"),
    ("--late-penalty", "1.5", "argument --late-penalty: bad number '1.5': must be between 0 and 1"),
    ("--late-penalty", "lots", "argument --late-penalty: bad number 'lots'"),
])
def test_grading_limits_have_bounds(cli, tmp_path, flag, value, fragment):
    assert_usage_error(cli("grade", str(tmp_path), "--exercise", "01", flag, value), fragment)


# -- the environment ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["run", "tpcc"], ["stats"], ["experiment", "f1"]])
def test_an_unknown_minidb_scale_is_a_usage_error_naming_the_variable(cli, monkeypatch, argv):
    monkeypatch.setenv("MINIDB_SCALE", "huge")
    assert_usage_error(cli(*argv), "$MINIDB_SCALE 'huge'", "tiny, small, large")


def test_an_explicit_scale_overrides_a_bad_environment(cli, monkeypatch):
    monkeypatch.setenv("MINIDB_SCALE", "huge")
    code, out, err = cli("stats", "--scale", "tiny", "--rows", "200", "--engine", "btree", "--json")
    assert code == 0, err


def test_the_real_command_reports_a_bad_scale_in_one_line():
    code, out, err = minidb("run", "tpcc", env={"MINIDB_SCALE": "HUGE"})
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "$MINIDB_SCALE 'HUGE'" in err and "Traceback" not in err


# -- outputs, checked before the run -----------------------------------------------------------------------------
def test_out_pointing_at_a_directory_fails_before_the_experiment_runs(tmp_path):
    # A real f1 run takes minutes: answering within the timeout shows nothing ran.
    code, out, err = minidb("experiment", "f1", "--out", tmp_path, timeout=30)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "argument --out" in err and "is a directory" in err


@pytest.mark.parametrize("make, fragment", [
    (lambda d: d / "a-file" / "x.csv", "is a file, not a directory"),
    (lambda d: Path("/proc/no/such/x.csv"), "cannot write"),
])
def test_out_in_an_unwritable_place(cli, tmp_path, make, fragment):
    (tmp_path / "a-file").write_text("")
    assert_usage_error(cli("experiment", "f1", "--out", make(tmp_path)), "argument --out", fragment)


def test_a_bad_default_out_fails_before_the_experiment_runs(cli, tmp_path, monkeypatch):
    from minidb.experiments import f1_insert_benchmark

    (tmp_path / "f1_insert_benchmark.csv").mkdir()  # where the default output would go
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(f1_insert_benchmark, "run", lambda scale=None: pytest.fail("the experiment ran"))
    assert_usage_error(cli("experiment", "f1"), "f1_insert_benchmark.csv", "is a directory")


# -- stats on a database that cannot be read: exit 1, one line, nothing changed ------------------------------------
def lsm_dir(path):
    device = DirDevice(path)
    db = open_lsm(device)
    for i in range(200):
        db.put("ks", i.to_bytes(4, "big"), b"x" * 40)
    db.close()
    device.close()


def test_stats_on_a_database_without_current_is_exit_1_and_deletes_nothing(tmp_path):
    lsm_dir(tmp_path)
    (tmp_path / "CURRENT").unlink()
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, out, err = minidb("stats", "--dir", tmp_path)
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "cannot read the database" in err and "but no CURRENT" in err and str(tmp_path) in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_stats_on_a_damaged_database_is_exit_1(cli, tmp_path):
    lsm_dir(tmp_path)
    (tmp_path / "CURRENT").write_text("garbage")
    code, out, err = cli("stats", "--dir", tmp_path)
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "CURRENT does not name a MANIFEST" in err


def test_stats_opens_read_only_and_changes_no_file(cli, tmp_path):
    lsm_dir(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, _, err = cli("stats", "--dir", tmp_path, "--json")
    assert code == 0, err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
