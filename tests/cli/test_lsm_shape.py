"""``minidb lsm-shape``: the compaction viewer on the command line."""

import pandas as pd
import pytest

from .conftest import assert_usage_error


def test_prints_each_job_what_why_and_the_levels(cli):
    code, out, err = cli("lsm-shape", "--rows", "6e3", "--limit", "4")
    assert code == 0, err
    assert out.startswith("#1 at ") and out.count("why:") == 4
    assert "flush -> L0" in out and "write-amp so far" in out
    last = out.splitlines()[-1]
    assert "flushes" in last and "compactions" in last and "write-amp" in last


def test_every_and_csv(cli, tmp_path):
    path = tmp_path / "shape.csv"
    code, out, _ = cli("lsm-shape", "--rows", "6000", "--every", "2", "--csv", path)
    assert code == 0
    frame = pd.read_csv(path)
    jobs = frame.event.nunique()
    assert out.count("why:") == jobs // 2
    assert {"event", "level", "files", "bytes", "kind", "reason", "write_amp"} <= set(frame.columns)


@pytest.mark.parametrize("argv, fragment", [
    (["--rows", "lots"], "--rows"),
    (["--compaction", "tiered"], "--compaction"),
    (["--device", "floppy"], "--device"),
    (["--slowdown-trigger", "40", "--stop-trigger", "30"], "level0_slowdown_writes_trigger"),
    (["--every", "0"], "--every"),
    (["--rows", "10"], "never filled a memtable"),
])
def test_bad_arguments_give_one_line_and_exit_2(cli, argv, fragment):
    assert_usage_error(cli("lsm-shape", *argv), fragment)
