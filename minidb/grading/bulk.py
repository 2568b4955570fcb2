"""Bulk grading: every submission of a folder graded in its own pytest process, into one grades.csv.

``minidb grade SUBMISSIONS_DIR --exercise 01 --out grades.csv`` runs, for each student, the command a student or
Gradescope runs for one submission, with the submission's code sandboxed (``sandbox.py``)::

    python -m pytest PRIVATE_COPY_OF_THE_EXERCISE --student SUBMISSION --sandbox --gradescope-json results.json

Each run gets a private folder (only root, or the grader's user, may enter it) holding a copy of the exercise, its
hidden tests included, and a copy of the submission: the instructor's tree and the other students' files are never
handed to it. As root, grading refuses to start while another user (a sandbox's) could read one of the
exercise's hidden tests in the instructor's tree (``sandbox.require_private_hidden_tests``). The run is a process of its own, in a session of its own, with a wall-clock limit (``--timeout``)
that kills its whole process group, and its output goes to an unlinked file of which only the end is read.

The grader trusts nothing the run's process reports beyond the test names and scores of its results.json, and
clamps those: a test that is not in the exercise's list (``graded_tests``, from a run on the stub) is ignored, and
no test earns more than its points. The sandbox (``sandbox.py``) is what makes the scores themselves honest.

Submissions come in the layouts ``submissions.py`` reads (one entry per student, Canvas's download, Gradescope's
export); grades join to a roster (``roster.py``), lose points by a late policy (``late.py``), and can be written
as per-student feedback (``feedback.py``) and merged across exercises (``lms.py``).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .activation import plugin_args
from .exercise import Exercise
from .feedback import feedback_markdown, write_feedback
from .gradescope import read_results
from .late import LatePolicy
from .limits import UID_BASE, kill_user
from .roster import Student, match
from .sandbox import require_private_hidden_tests
from .submissions import Submission, find_submissions  # noqa: F401 - re-exported: the grader's inputs
from .timelimit import DEFAULT_SUBMISSION_TIMEOUT, DEFAULT_TEST_TIMEOUT

if TYPE_CHECKING:  # pandas and tqdm serve the class's table only: an autograder grading one submission needs neither
    import pandas as pd

OUTPUT_TAIL = 300  # characters of a failed run's output kept as the reason
OUTPUT_READ = 64 << 10  # bytes of a run's output ever read back: a flood of output stays on disk
COPY_IGNORE = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "*.ipynb", ".pytest_cache")


@dataclass
class Grade:
    """One row of grades.csv."""

    student: str  # the submission's key (Submission.student)
    scores: dict[str, float] = field(default_factory=dict)  # points earned per graded test, by test name
    total: float = 0.0  # points after the late policy
    max_score: float = 0.0  # points possible
    error: str = ""  # why points were lost without a test failing: the submission error, timeouts, a crash
    raw: float = 0.0  # points earned before the late policy
    student_id: str = ""
    name: str = ""
    email: str = ""
    submitted: str = ""  # ISO time the submission was handed in
    days_late: int = 0
    results: dict | None = None  # the run's results.json, for feedback


@dataclass(frozen=True)
class GradedTests:
    """The graded tests of an exercise, in order, with their points: what every row of grades.csv lists."""

    points: dict[str, float]  # max points by test name

    @property
    def max_score(self) -> float:
        """Points possible."""
        return sum(self.points.values())


def pytest_command(folder: Path, student: Path, results: Path, test_timeout: float) -> list[str]:
    """The command that grades ``student`` on the exercise in ``folder`` (sandboxed) and writes ``results``."""
    return [
        sys.executable, "-m", "pytest", str(folder), *plugin_args(), "--sandbox",
        "--student", str(student), "--gradescope-json", str(results), "--grading-timeout", f"{test_timeout:g}",
        "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
    ]


def run_pytest(command: list[str], cwd: Path, timeout: float) -> tuple[int | None, str]:
    """Run ``command`` in ``cwd``: (exit code, or None if it ran past ``timeout`` seconds and was killed; the end
    of its output)."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # no __pycache__ in submissions or exercises
    with tempfile.TemporaryFile() as output:
        # A session of its own, so a timeout kills the whole process group.
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=output,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = None
        if os.geteuid() == 0:
            kill_user(UID_BASE + proc.pid)  # the run's sandbox, if it outlived the run (limits.sandbox_user)
        size = output.seek(0, os.SEEK_END)
        output.seek(max(0, size - OUTPUT_READ))
        return code, output.read().decode("utf-8", "replace")


def private_copy(exercise: Exercise, dest: Path) -> Path:
    """Copy the exercise folder (hidden tests included) into ``dest``; the copy's folder."""
    folder = dest / exercise.folder.name
    shutil.copytree(exercise.folder, folder, ignore=COPY_IGNORE)
    return folder


def grade_submission(
    exercise: Exercise,
    submission: Submission,
    tests: GradedTests,
    test_timeout: float = DEFAULT_TEST_TIMEOUT,
    submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
    results_dir: Path | None = None,
) -> Grade:
    """Grade one submission in its own pytest process; a submission that cannot be graded gets zero and why."""
    grade = Grade(submission.student, {name: 0.0 for name in tests.points}, 0.0, tests.max_score)
    with tempfile.TemporaryDirectory(prefix="minidb-grade-") as tmp:
        tmp = Path(tmp)  # mode 0700: neither the sandbox's user nor other users may enter
        try:
            student = submission.materialize(tmp / "submission")
        except (ValueError, OSError) as e:
            grade.error = str(e)
            return grade
        results_path = tmp / "results" / "results.json"
        folder = private_copy(exercise, tmp / "exercise")
        code, output = run_pytest(pytest_command(folder, student, results_path, test_timeout), tmp,
                                  submission_timeout)
        if code is None:
            grade.error = f"grading stopped after {submission_timeout:g} s (an infinite loop?)"
            return grade
        if code not in (0, 1) or not results_path.exists():
            grade.error = _run_failure(code, output)
            return grade
        try:
            results = read_results(results_path)
        except ValueError as e:
            grade.error = str(e)
            return grade
        if results_dir is not None:
            results_dir.mkdir(parents=True, exist_ok=True)
            (results_dir / f"{submission.student}.json").write_text(results_path.read_text(encoding="utf-8"))
    grade.results = results
    for test in results["tests"]:
        name = test.get("name")
        if name in tests.points:  # clamped: a test not in the exercise earns nothing, none more than its points
            grade.scores[name] = min(max(float(test.get("score", 0.0)), 0.0), tests.points[name])
    grade.raw = grade.total = sum(grade.scores.values())
    extra = results.get("extra_data", {})
    reasons = [str(e) for e in extra.get("submission_errors", [])]
    if extra.get("timed_out"):
        reasons.append("timed out: " + ", ".join(map(str, extra["timed_out"])))
    reasons += [f"collection error: {e}" for e in extra.get("collection_errors", [])]
    grade.error = "; ".join(reasons)
    return grade


def _run_failure(code: int, output: str) -> str:
    """Why a grading run ended without results: a signal, or pytest's exit code and the end of its output."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the grading process crashed ({name})"
    reason = f"the grading process ended with exit code {code} before writing results"
    tail = " ".join(output.strip().split())[-OUTPUT_TAIL:]
    # pytest -q prints a dot per test: only a tail with words in it says anything.
    return f"{reason}: {tail}" if any(c.isalpha() for c in tail) else reason


def graded_tests(exercise: Exercise, test_timeout: float = DEFAULT_TEST_TIMEOUT) -> GradedTests:
    """The exercise's graded tests and points, found by grading its stub; RuntimeError if that run fails."""
    with tempfile.TemporaryDirectory(prefix="minidb-tests-") as tmp:
        tmp = Path(tmp)
        results_path = tmp / "results.json"
        folder = private_copy(exercise, tmp / "exercise")
        code, output = run_pytest(pytest_command(folder, folder / exercise.stub.name, results_path, test_timeout),
                                  tmp, DEFAULT_SUBMISSION_TIMEOUT)
        if code not in (0, 1) or not results_path.exists():
            raise RuntimeError(f"grading the stub of {exercise.folder.name} failed (exit code {code}):\n{output}")
        results = read_results(results_path)
    if not results["tests"]:
        raise RuntimeError(f"{exercise.folder.name} has no graded tests (none marked @pytest.mark.points)")
    return GradedTests({t["name"]: float(t["max_score"]) for t in results["tests"]})


def identify(grade: Grade, submission: Submission, roster: list[Student] | None) -> None:
    """Fill the grade's student id, name and email from the roster (or the export); note a student not found."""
    grade.student_id, grade.name, grade.email = submission.student_id, submission.name, submission.email
    if roster is None:
        grade.student_id = grade.student_id or submission.student
        return
    student = match(roster, submission.student, submission.student_id, submission.email)
    if student is None:
        grade.student_id = ""
        grade.error = "; ".join(filter(None, [grade.error, "not found in the roster"]))
        return
    grade.student_id, grade.name, grade.email = student.student_id, student.name, student.email


def apply_late(grade: Grade, submission: Submission, late: LatePolicy | None) -> None:
    """Record when the submission was handed in and take off the late policy's share of the points."""
    when = submission.submitted_time()
    grade.submitted = when.isoformat(timespec="seconds")
    if late is not None:
        grade.days_late = late.days_late(when)
        grade.total = grade.raw * late.factor(when)


def grade_all(
    exercise: Exercise,
    submissions: list[Submission],
    jobs: int = 1,
    test_timeout: float = DEFAULT_TEST_TIMEOUT,
    submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
    results_dir: Path | None = None,
    progress: bool = True,
    roster: list[Student] | None = None,
    late: LatePolicy | None = None,
    feedback_dir: Path | None = None,
) -> pd.DataFrame:
    """Grade every submission, ``jobs`` at a time: one row per student (ids, test columns, total, max, error)."""
    from tqdm import tqdm

    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    require_private_hidden_tests(exercise.folder)  # ExposedHiddenTests (a ValueError) if others may read them
    tests = graded_tests(exercise, test_timeout)
    grades: list[Grade] = []
    # Threads are enough: each one only waits for its pytest process.
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {
            pool.submit(grade_submission, exercise, s, tests, test_timeout, submission_timeout, results_dir): s
            for s in submissions
        }
        with tqdm(total=len(futures), desc=f"grading {exercise.folder.name}", unit="submission",
                  disable=not progress) as bar:
            for future in as_completed(futures):
                submission, grade = futures[future], future.result()
                identify(grade, submission, roster)
                apply_late(grade, submission, late)
                if feedback_dir is not None:
                    note = f"Handed in {grade.days_late} day(s) late: points kept {grade.total:g} of " \
                           f"{grade.raw:g}." if grade.days_late else ""
                    write_feedback(feedback_dir, submission.student,
                                   feedback_markdown(exercise.title, submission.student, grade.results,
                                                     grade.error, note))
                grades.append(grade)
                bar.update()
    return grades_frame(grades, tests, exercise.folder.name)


def grades_frame(grades: list[Grade], tests: GradedTests, exercise: str = "") -> pd.DataFrame:
    """The grades as a table: exercise, student and ids, one column per graded test, raw, total, max, error."""
    import pandas as pd

    columns = ["exercise", "student", "student_id", "name", "email", "submitted", "days_late", *tests.points,
               "raw", "total", "max", "error"]
    rows = [
        {"exercise": exercise, "student": g.student, "student_id": g.student_id, "name": g.name, "email": g.email,
         "submitted": g.submitted, "days_late": g.days_late,
         **{name: g.scores.get(name, 0.0) for name in tests.points},
         "raw": g.raw, "total": g.total, "max": g.max_score, "error": g.error}
        for g in sorted(grades, key=lambda g: g.student)
    ]
    return pd.DataFrame(rows, columns=columns)


def write_grades(frame: pd.DataFrame, out: str | Path) -> None:
    """Write the grades table as CSV (points as 2 or 1.5, not 2.0)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False, float_format="%g")
