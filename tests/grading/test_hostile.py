"""Hostile submissions graded beside honest ones, by ``minidb grade`` and by the Gradescope autograder: none raises
its score, none disturbs another student's grade, none leaves anything behind.

The attacks (``hostile.py``), by the class of hole each tries:

* **the verdicts**: a forged results.json, patching pytest and the plugin, atexit hooks, ``os._exit``, an object
  equal to everything;
* **the grader's configuration**: its own ``pytest.ini``, ``conftest.py`` and plugin in the submission
  (``configures_pytest``); a conftest.py and pytest.ini left in every folder it may write to for the runs after
  it, and a daemon rewriting grades files (``poisons_tmp``);
* **copies that follow links**: a link to the hidden test beside a right module (``links_hidden``), a module that
  is a link to a classmate's (``links_classmate``): refused, with a message;
* **what the sandbox may read and reach**: the hidden tests (``reads_hidden``, ``edits_hidden``), a classmate's
  world-readable module (``copies_classmate``), a listener on this machine sent every call's arguments
  (``phones_home``, whose answers are right: it earns them, and the listener must hear nothing);
* **the machine**: killing every process in sight, a daemon, unbounded memory and output, an infinite loop that
  swallows interrupts, a fork bomb, a disk filler.

Each is graded by ``minidb grade``'s code (two at a time, between two honest students and a wrong one graded after
the poisoner) and by ``run_autograder`` in a folder laid out like Gradescope's /autograder, and must score
exactly what its honest answers deserve (``HONEST_POINTS``, else 0). The exercise sits where any user could read
it, as in an instructor's checkout; the submissions too, as an LMS download unpacks them.

The guarantees rest on the sandbox's own user id and namespaces, which need root (as on Gradescope); elsewhere
this module is skipped, since the process-killing submission would then kill the test run itself.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from minidb.grading import bulk, grader
from minidb.grading.exercise import load_exercise
from minidb.grading.isolation import confinement
from minidb.grading.limits import SHARED_FOLDERS, UID_BASE
from minidb.grading.release import GRADED_TESTS, RUN_AUTOGRADER
from minidb.grading.sandbox import ExposedHiddenTests
from minidb.grading.submissions import find_submissions

from .hostile import (GOOD, HONEST_POINTS, HOSTILE, MAX_POINTS, SECRET, WRONG, hostile_folders, write_exercise,
                      write_submission)

# Seconds per graded test. An honest test here (sandbox start and import included) takes well under a second on an
# idle machine and a few under a heavy load; test_course.py grades the same exercise in the same suite at 4 s. A
# larger limit proves nothing more about the attacks and costs its seconds of spinning CPU for each test the
# infinite loop is given (three per grading path).
TEST_TIMEOUT = 6  # minidb grade, two submissions at a time
GRADESCOPE_TEST_TIMEOUT = 5  # the same through run_autograder, one submission per run as on Gradescope
HONEST = {"aaron": GOOD, "zed": GOOD, "wrong": WRONG}  # aaron is graded first, wrong and zed after the poisoner

pytestmark = [pytest.mark.skipif(os.geteuid() != 0, reason="sandboxes get a uid of their own only under root"),
              pytest.mark.xdist_group("hostile")]  # its module fixtures run once, on one worker


class Listener:
    """A TCP server on this machine's loopback that records whatever reaches it."""

    def __init__(self) -> None:
        self.heard: list[bytes] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                self.heard.append(conn.recv(4096))


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


def left_behind() -> list[str]:
    """Files the attacks would leave in the folders every user may write to."""
    names = ("minidb-filler-", "conftest.py", "pytest.ini")
    found = []
    for folder in SHARED_FOLDERS:
        for path in Path(folder).glob("*"):
            try:
                owner = path.lstat().st_uid
            except OSError:
                continue
            if path.name.startswith(names) and owner >= UID_BASE:
                found.append(str(path))
    return found


def world_readable(root: Path) -> None:
    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The exercise (world-readable, in a folder of its own under /tmp where the attacks look), every submission
    (world-readable) and the listener: (exercise folder, submissions folder, listener)."""
    root = Path(tempfile.mkdtemp(prefix="minidb-hostile-", dir="/tmp"))
    folder = write_exercise(root)
    subs = root / "submissions"
    subs.mkdir()
    listener = Listener()
    for name, source in {**HONEST, **HOSTILE}.items():
        (subs / f"{name}.py").write_text(source)
    for name, files in hostile_folders(subs / "aaron.py", folder / "test_demo_hidden.py", listener.port).items():
        write_submission(subs / name, files)
    world_readable(root)
    yield folder, subs, listener
    listener.server.close()
    shutil.rmtree(root)


def deserved(name: str) -> float:
    return MAX_POINTS if name in ("aaron", "zed") else HONEST_POINTS.get(name, 0)


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory):
    """The class graded once with minidb grade's code: (grades by student, results folder, feedback folder, the
    sandbox uids its runs used, seconds).

    Grading refuses to start until the exercise's hidden test is made private with the chmod the error gives."""
    folder, subs, _ = course
    root = tmp_path_factory.mktemp("hostile")
    hidden = folder / "test_demo_hidden.py"
    with pytest.raises(ExposedHiddenTests, match=re.escape(f"chmod o-r {hidden}")):
        bulk.grade_all(load_exercise(folder), [], progress=False)
    hidden.chmod(0o640)  # what the error says to run: chmod o-r
    uids = []  # each run's sandbox uid, as the grader kills what is left of it (grader.run_pytest)

    def kill_user(uid):
        uids.append(uid)
        real_kill_user(uid)

    real_kill_user = grader.kill_user
    start = time.monotonic()
    # An infinite loop still ends at its limit (TEST_TIMEOUT), while on a heavily loaded machine starting the sandbox
    # and importing a submission (which count against the first test's limit) fit in it with room to spare.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(grader, "kill_user", kill_user)
        frame = bulk.grade_all(load_exercise(folder), find_submissions(subs), jobs=2, test_timeout=TEST_TIMEOUT,
                               submission_timeout=180, results_dir=root / "results", progress=False,
                               feedback_dir=root / "feedback")
    seconds = time.monotonic() - start
    return frame.set_index("student"), root / "results", root / "feedback", uids, seconds


def autograde_one(folder: Path, tests: str, submission: Path, root: Path) -> tuple[dict, str]:
    """Grade ``submission`` (a .py or a folder, links kept as an unzip makes them) with run_autograder in a
    Gradescope layout under ``root``, the exercise's graded tests listed as the zip lists them: (results.json,
    stdout)."""
    source = root / "source"
    shutil.copytree(folder, source / "exercises" / folder.name)
    (source / GRADED_TESTS).write_text(tests)
    (source / "run_autograder").write_text(RUN_AUTOGRADER.format(exercise=folder.name, tests=GRADED_TESTS))
    if submission.is_dir():
        shutil.copytree(submission, root / "submission", symlinks=True)
    else:
        (root / "submission").mkdir()
        shutil.copy(submission, root / "submission" / "demo.py")
    (root / "results").mkdir()
    world_readable(source)  # as unzipped: run_autograder makes it private itself
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable)
    run = subprocess.run(["bash", str(source / "run_autograder"), "--test-timeout", str(GRADESCOPE_TEST_TIMEOUT),
                          "--timeout", "120"], env=env, cwd=root, capture_output=True, text=True, timeout=300)
    results = root / "results" / "results.json"
    assert results.exists(), f"{submission.name}: {run.stdout}{run.stderr}"
    return json.loads(results.read_text()), run.stdout


@pytest.fixture(scope="module")
def autograded(course, graded, tmp_path_factory):
    """Every submission through the Gradescope path, two at a time: results by student."""
    folder, subs, _ = course
    base = tmp_path_factory.mktemp("gradescope")
    entries = sorted(subs.iterdir())
    tests = json.dumps(grader.graded_tests(load_exercise(folder), unsafe=True).points)
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda p: autograde_one(folder, tests, p, base / p.stem), entries))
    return {p.stem: results for p, (results, _) in zip(entries, runs)}


def test_the_machine_confines_sandboxes():
    assert confinement().full, confinement().why_not


def test_honest_students_are_graded_whole(graded):
    grades, *_ = graded
    assert grades.loc["aaron", "total"] == grades.loc["zed", "total"] == MAX_POINTS
    assert grades.loc["wrong", "total"] == 0, "a stub graded after the poisoner stays at 0"
    assert (grades["max"] == MAX_POINTS).all()


@pytest.mark.parametrize("name", sorted({*HOSTILE, *hostile_folders(Path(), Path(), 0)}))
def test_minidb_grade_gives_an_attack_only_what_it_answers_right(graded, name):
    grades, *_ = graded
    assert grades.loc[name, "total"] == deserved(name), grades.loc[name].to_dict()


def test_gradescope_gives_every_submission_what_it_deserves(autograded):
    scores = {name: results["score"] for name, results in autograded.items()}
    assert scores == {name: deserved(name) for name in scores}
    assert len(scores) == len(HONEST) + len(HOSTILE) + len(hostile_folders(Path(), Path(), 0))
    for name, results in autograded.items():
        assert results["extra_data"]["confinement"] == "full", name


def test_why_the_attacks_failed_is_reported(graded, autograded):
    grades, results, *_ = graded
    assert "importing demo failed" in grades.loc["writes_results", "error"]
    assert grades.loc["infinite_loop", "error"].startswith("timed out:")
    flooded = json.loads((results / "huge_output.json").read_text())
    assert "File too large" in flooded["tests"][0]["output"], "its output stopped at the cap"
    memory = json.loads((results / "memory.json").read_text())
    assert "MemoryError" in memory["tests"][0]["output"]
    for path in results.iterdir():
        assert "minidb/grading" not in path.read_text(), f"{path.name}: grader internals in a traceback"
    for name in ("links_hidden", "links_classmate"):
        assert "is a symbolic link" in grades.loc[name, "error"], grades.loc[name, "error"]
        assert "is a symbolic link" in autograded[name]["output"]


def test_hidden_tests_stay_hidden_and_unchanged(course, graded, autograded):
    folder, *_ = course
    grades, results, feedback, *_ = graded
    assert (folder / "test_demo_hidden.py").stat().st_mode & 0o777 == 0o640, "only its 'other' read bit removed"
    assert SECRET in (folder / "test_demo_hidden.py").read_text(), "the hidden test was edited"
    assert "500" not in (folder / "test_demo_hidden.py").read_text()
    shown = (results / "reads_hidden.json").read_text()
    assert SECRET not in shown
    assert "No such file or directory: '/proc'" in shown, "the sandbox cannot see the grader's command lines"
    for path in [*results.iterdir(), *feedback.iterdir()]:
        assert SECRET not in path.read_text(), f"{path.name} shows the hidden test's data"
    for name, r in autograded.items():
        assert SECRET not in json.dumps(r), f"{name}: the hidden test's data in results.json"


def test_nothing_reaches_the_network(course, graded, autograded):
    *_, listener = course
    time.sleep(0.5)  # a connection in flight would have been accepted by now
    assert listener.heard == []


def test_nothing_outlives_its_grading(graded, autograded):
    grades, *_, uids, _ = graded
    refused = sum("is a symbolic link" in e for e in grades["error"])  # refused before any run
    assert refused == 2 and len(set(uids)) >= len(grades) - refused, "every run's sandbox was looked for"
    assert sandbox_processes(set(uids)) == []
    assert left_behind() == []


def test_timing_is_reported(graded, record_property):
    grades, *_, seconds = graded
    record_property("seconds", round(seconds, 1))
    print(f"graded {len(grades)} submissions (hostile ones included) in {seconds:.1f} s, 2 at a time")
    assert seconds < 300


def test_grades_table_has_one_row_per_submission(graded):
    grades, *_ = graded
    assert isinstance(grades, pd.DataFrame)
    assert len(grades) == len(HONEST) + len(HOSTILE) + len(hostile_folders(Path(), Path(), 0))
