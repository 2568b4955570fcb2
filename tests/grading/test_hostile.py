"""Hostile submissions graded beside honest ones: none raises its score, none disturbs the class's grading.

The attacks (``hostile.py``): a forged results.json, patching pytest and the plugin, atexit hooks, ``os._exit``,
reading and editing the hidden tests, killing every process in sight, a daemon, unbounded memory and output, an
infinite loop that swallows interrupts, an object equal to everything, a fork bomb. They are graded with ``minidb
grade``'s code, two at a time, between two honest students whose grades must come out whole.
The exercise itself sits where any user could read it, as in an instructor's checkout: grading must refuse to
start until its hidden test is made private, and the attacks then look for that original as well as the copies.

The guarantees that need a user id of the sandbox's own hold only when the grader is root (as on Gradescope);
elsewhere this module is skipped, since the process-killing submission would then kill the test run itself.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest

from minidb.grading import bulk
from minidb.grading.exercise import load_exercise
from minidb.grading.sandbox import ExposedHiddenTests
from minidb.grading.submissions import find_submissions

from .hostile import GOOD, HONEST_POINTS, HOSTILE, MAX_POINTS, SECRET, WRONG, write_exercise

TEST_TIMEOUT = 15  # seconds per graded test

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="sandboxes get a uid of their own only under root")


def sandbox_processes(uids) -> list[int]:
    """Pids of live processes running as one of the sandbox ``uids`` (other tests may grade at the same time)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            uid_line = next(line for line in (proc / "status").read_text().splitlines() if line.startswith("Uid:"))
        except (OSError, StopIteration):
            continue
        if int(uid_line.split()[1]) in uids:
            found.append(int(proc.name))
    return found


def world_readable_exercise() -> Path:
    """The demo exercise where any user may read it, as in an instructor's checkout with the default umask: in a
    folder of its own right under /tmp (where the attacks look), every folder 0755 and every file 0644."""
    root = Path(tempfile.mkdtemp(prefix="minidb-hostile-", dir="/tmp"))
    folder = write_exercise(root)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded once: (grades by student, results folder, feedback folder, exercise folder, the sandbox
    uids its runs used, seconds).

    The exercise is world-readable (whatever pytest's --basetemp): grading refuses to start until its hidden test
    is made private with the chmod the error gives, and the attacks then run against that original too."""
    root = tmp_path_factory.mktemp("hostile")
    folder = world_readable_exercise()
    hidden = folder / "test_demo_hidden.py"
    with pytest.raises(ExposedHiddenTests, match=re.escape(f"chmod o-r {hidden}")):
        bulk.grade_all(load_exercise(folder), [], progress=False)
    hidden.chmod(0o640)  # what the error says to run: chmod o-r
    subs = root / "submissions"
    subs.mkdir()
    # "aaron" is graded first and "zed" last: an attack in between must not change either.
    for name, source in {"aaron": GOOD, "zed": GOOD, "wrong": WRONG, **HOSTILE}.items():
        (subs / f"{name}.py").write_text(source)
    uids = []  # each run's sandbox uid, as the grader kills what is left of it (bulk.run_pytest)

    def kill_user(uid):
        uids.append(uid)
        real_kill_user(uid)

    real_kill_user = bulk.kill_user
    start = time.monotonic()
    # 15 s per test: an infinite loop still ends at its limit, while on a heavily loaded machine starting the
    # sandbox and importing a submission (which count against the first test's limit) fit in it with room to spare.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bulk, "kill_user", kill_user)
        frame = bulk.grade_all(load_exercise(folder), find_submissions(subs), jobs=2, test_timeout=TEST_TIMEOUT,
                               submission_timeout=180, results_dir=root / "results", progress=False,
                               feedback_dir=root / "feedback")
    seconds = time.monotonic() - start
    yield frame.set_index("student"), root / "results", root / "feedback", folder, uids, seconds
    shutil.rmtree(folder.parent.parent)


def test_honest_students_are_graded_whole(graded):
    grades, *_ = graded
    assert grades.loc["aaron", "total"] == grades.loc["zed", "total"] == MAX_POINTS
    assert grades.loc["wrong", "total"] == 0
    assert (grades["max"] == MAX_POINTS).all()


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_submission_earns_only_what_it_answers_right(graded, name):
    grades, *_ = graded
    assert grades.loc[name, "total"] == HONEST_POINTS.get(name, 0), grades.loc[name].to_dict()


def test_why_the_attacks_failed_is_reported(graded):
    grades, results, *_ = graded
    assert "importing demo failed" in grades.loc["writes_results", "error"]
    assert grades.loc["infinite_loop", "error"].startswith("timed out:")
    flooded = json.loads((results / "huge_output.json").read_text())
    assert "File too large" in flooded["tests"][0]["output"], "its output stopped at the cap"
    memory = json.loads((results / "memory.json").read_text())
    assert "MemoryError" in memory["tests"][0]["output"]
    for path in results.iterdir():
        assert "minidb/grading" not in path.read_text(), f"{path.name}: grader internals in a traceback"


def test_hidden_tests_stay_hidden_and_unchanged(graded):
    grades, results, feedback, folder, *_ = graded
    assert (folder / "test_demo_hidden.py").stat().st_mode & 0o777 == 0o640, "only its 'other' read bit removed"
    assert SECRET in (folder / "test_demo_hidden.py").read_text(), "the hidden test was edited"
    assert "500" not in (folder / "test_demo_hidden.py").read_text()
    shown = (results / "reads_hidden.json").read_text()
    assert SECRET not in shown
    assert "Permission denied" in shown, "the attack found the private copy's path, and was refused"
    for path in [*results.iterdir(), *feedback.iterdir()]:
        assert SECRET not in path.read_text(), f"{path.name} shows the hidden test's data"


def test_no_process_outlives_its_grading(graded):
    grades, *_, uids, _ = graded
    assert len(set(uids)) >= len(grades), "every run's sandbox was looked for"
    assert sandbox_processes(set(uids)) == []


def test_timing_is_reported(graded, record_property):
    grades, *_, seconds = graded
    record_property("seconds", round(seconds, 1))
    print(f"graded {len(grades)} submissions (hostile ones included) in {seconds:.1f} s, 2 at a time")
    assert seconds < 240


def test_grades_table_has_one_row_per_submission(graded):
    grades, *_ = graded
    assert isinstance(grades, pd.DataFrame) and len(grades) == len(HOSTILE) + 3
