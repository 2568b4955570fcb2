"""The benchmark history: one JSON file per run, named by date and commit, that reads back in date order."""

import datetime as dt
import json
import re

from benchmarks import history


def test_record_names_the_file_by_date_and_commit_and_keeps_the_ratios(tmp_path):
    now = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    path = history.record({"lsm_load": {"ratio": 2.5}}, ["--rows", "10"], folder=tmp_path, now=now)
    assert re.fullmatch(r"2026-01-02-([0-9a-f]{10}(-dirty)?|unknown)\.json", path.name), path.name
    doc = json.loads(path.read_text())
    assert doc["benchmarks"] == {"lsm_load": {"ratio": 2.5}}
    assert doc["date"] == "2026-01-02T03:04:05Z" and doc["args"] == ["--rows", "10"]
    assert doc["machine"]["cores"] >= 1


def test_a_second_run_of_one_commit_on_one_day_keeps_both(tmp_path):
    now = dt.datetime(2026, 1, 2, tzinfo=dt.timezone.utc)
    first = history.record({"b": {"ratio": 1.0}}, [], folder=tmp_path, now=now)
    second = history.record({"b": {"ratio": 2.0}}, [], folder=tmp_path, now=now + dt.timedelta(hours=1))
    assert first != second and second.name.endswith("-2.json")
    assert [d["benchmarks"]["b"]["ratio"] for d in history.load(tmp_path)] == [1.0, 2.0]
