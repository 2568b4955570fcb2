"""Bulk grading: every submission of a folder graded in its own pytest process, into one grades.csv.

``minidb grade SUBMISSIONS_DIR --exercise 01 --out grades.csv`` runs, for each student, the same command a student
or Gradescope runs for one submission::

    python -m pytest exercises/01_bloom --student SUBMISSION --gradescope-json results.json --grading-timeout T

and reads the results.json back. A submission is a folder, a ``.zip`` (extracted to a temporary folder first) or a
single ``.py`` file; the student's name is its name without the extension.

Each run is a separate process for two reasons: a submission's module, its global state and its crashes stay in its
own process, and the process can be killed. Each test has the plugin's time limit; the whole run has a wall-clock
limit on top (``submission_timeout``), for what the per-test alarm cannot stop (a loop in C code, a submission that
swallows the alarm). A submission that cannot be graded (no module, a syntax or import error, a crash, the wall-clock
limit) gets zero and the reason in the ``error`` column.

The list of graded tests and their points comes from grading the stub first: every row has the same columns, even
the row of a submission whose run produced nothing.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from .activation import plugin_args
from .exercise import Exercise
from .gradescope import read_results
from .timelimit import DEFAULT_SUBMISSION_TIMEOUT, DEFAULT_TEST_TIMEOUT

MAX_UNZIPPED_BYTES = 50 * 2**20  # a zip expanding past this is refused (a zip bomb, or not a code submission)
OUTPUT_TAIL = 300  # characters of a failed run's output kept as the reason


@dataclass(frozen=True)
class Submission:
    """One student's submission."""

    student: str  # the student's name: the folder's or the file's name without extension
    path: Path  # a folder, a .zip or a .py file


@dataclass
class Grade:
    """One row of grades.csv."""

    student: str  # as in Submission
    scores: dict[str, float] = field(default_factory=dict)  # points earned per graded test, by test name
    total: float = 0.0  # points earned
    max_score: float = 0.0  # points possible
    error: str = ""  # why points were lost without a test failing: the submission error, timeouts, a crash


@dataclass(frozen=True)
class Roster:
    """The graded tests of an exercise, in order, with their points: what every row of grades.csv lists."""

    points: dict[str, float]  # max points by test name

    @property
    def max_score(self) -> float:
        """Points possible."""
        return sum(self.points.values())


def find_submissions(folder: str | Path) -> list[Submission]:
    """The submissions in ``folder``: its sub-folders, .zip and .py files, by student; ValueError on duplicates."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"submissions folder {folder} does not exist or is not a folder")
    found: dict[str, Submission] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith((".", "_")):
            continue
        if path.is_dir() or path.suffix in (".zip", ".py"):
            student = path.name if path.is_dir() else path.stem
            if student in found:
                other = found[student].path.name
                raise ValueError(f"{folder}: two submissions for {student!r}: {other} and {path.name}")
            found[student] = Submission(student, path)
    return list(found.values())


def extract_zip(archive: Path, dest: Path) -> Path:
    """Extract ``archive`` into ``dest`` and return ``dest``; ValueError if it is not a safe, sane zip."""
    try:
        with zipfile.ZipFile(archive) as z:
            members = z.infolist()
            if sum(m.file_size for m in members) > MAX_UNZIPPED_BYTES:
                raise ValueError(f"{archive.name}: expands past {MAX_UNZIPPED_BYTES // 2**20} MiB")
            for m in members:
                target = (dest / m.filename).resolve()
                # A member named ../x or /x would write outside the folder ("zip slip").
                if not target.is_relative_to(dest.resolve()):
                    raise ValueError(f"{archive.name}: member {m.filename!r} points outside the archive")
            z.extractall(dest)
    except zipfile.BadZipFile as e:
        raise ValueError(f"{archive.name}: not a valid zip file ({e})") from None
    return dest


def pytest_command(exercise: Exercise, student: Path, results: Path, test_timeout: float) -> list[str]:
    """The command that grades ``student`` on ``exercise`` and writes ``results``."""
    return [
        sys.executable, "-m", "pytest", str(exercise.folder), *plugin_args(),
        "--student", str(student), "--gradescope-json", str(results), "--grading-timeout", f"{test_timeout:g}",
        "-q", "--tb=short", "-p", "no:cacheprovider",
    ]


def run_pytest(command: list[str], cwd: Path, timeout: float) -> tuple[int | None, str]:
    """Run ``command`` in ``cwd``: (exit code, or None if it ran past ``timeout`` seconds and was killed; output)."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # no __pycache__ in submissions or exercises
    # A session of its own, so a timeout kills the whole process group (anything the submission started too).
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=timeout)
        return proc.returncode, output
    except subprocess.TimeoutExpired:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
        output, _ = proc.communicate()
        return None, output


def grade_submission(
    exercise: Exercise,
    submission: Submission,
    roster: Roster,
    test_timeout: float = DEFAULT_TEST_TIMEOUT,
    submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
    results_dir: Path | None = None,
) -> Grade:
    """Grade one submission in its own pytest process; a submission that cannot be graded gets zero and why."""
    grade = Grade(submission.student, {name: 0.0 for name in roster.points}, 0.0, roster.max_score)
    with tempfile.TemporaryDirectory(prefix="minidb-grade-") as tmp:
        tmp = Path(tmp)
        try:
            student = submission.path
            if student.suffix == ".zip":
                student = extract_zip(student, tmp / "submission")
        except ValueError as e:
            grade.error = str(e)
            return grade
        results_path = tmp / "results.json"
        command = pytest_command(exercise, student.resolve(), results_path, test_timeout)
        code, output = run_pytest(command, tmp, submission_timeout)
        if code is None:
            grade.error = f"grading stopped after {submission_timeout:g} s (an infinite loop?)"
            return grade
        if code not in (0, 1) or not results_path.exists():
            grade.error = _run_failure(code, output)
            return grade
        results = read_results(results_path)
        if results_dir is not None:
            results_dir.mkdir(parents=True, exist_ok=True)
            (results_dir / f"{submission.student}.json").write_text(results_path.read_text(encoding="utf-8"))
    for test in results["tests"]:
        grade.scores[test["name"]] = float(test["score"])
    grade.total = float(results["score"])
    extra = results.get("extra_data", {})
    reasons = list(extra.get("submission_errors", []))
    if extra.get("timed_out"):
        reasons.append("timed out: " + ", ".join(extra["timed_out"]))
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
    reason = f"the grading process ended with exit code {code} before writing results (did the submission end it?)"
    tail = " ".join(output.strip().split())[-OUTPUT_TAIL:]
    # pytest -q prints a dot per test: only a tail with words in it says anything.
    return f"{reason}: {tail}" if any(c.isalpha() for c in tail) else reason


def roster_of(exercise: Exercise, test_timeout: float = DEFAULT_TEST_TIMEOUT) -> Roster:
    """The exercise's graded tests and points, found by grading its stub; RuntimeError if that run fails."""
    with tempfile.TemporaryDirectory(prefix="minidb-roster-") as tmp:
        results_path = Path(tmp) / "results.json"
        code, output = run_pytest(pytest_command(exercise, exercise.stub, results_path, test_timeout), Path(tmp),
                                  DEFAULT_SUBMISSION_TIMEOUT)
        if code not in (0, 1) or not results_path.exists():
            raise RuntimeError(f"grading the stub of {exercise.folder.name} failed (exit code {code}):\n{output}")
        results = read_results(results_path)
    if not results["tests"]:
        raise RuntimeError(f"{exercise.folder.name} has no graded tests (none marked @pytest.mark.points)")
    return Roster({t["name"]: float(t["max_score"]) for t in results["tests"]})


def grade_all(
    exercise: Exercise,
    submissions: list[Submission],
    jobs: int = 1,
    test_timeout: float = DEFAULT_TEST_TIMEOUT,
    submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
    results_dir: Path | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Grade every submission, ``jobs`` at a time: one row per student (test columns, total, max, error)."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    roster = roster_of(exercise, test_timeout)
    grades: list[Grade] = []
    # Threads are enough: each one only waits for its pytest process.
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(grade_submission, exercise, s, roster, test_timeout, submission_timeout, results_dir)
            for s in submissions
        ]
        with tqdm(total=len(futures), desc=f"grading {exercise.folder.name}", unit="submission",
                  disable=not progress) as bar:
            for future in as_completed(futures):
                grades.append(future.result())
                bar.update()
    return grades_frame(grades, roster)


def grades_frame(grades: list[Grade], roster: Roster) -> pd.DataFrame:
    """The grades as a table: student, one column per graded test, total, max, error; sorted by student."""
    columns = ["student", *roster.points, "total", "max", "error"]
    rows = [
        {"student": g.student, **{name: g.scores.get(name, 0.0) for name in roster.points},
         "total": g.total, "max": g.max_score, "error": g.error}
        for g in sorted(grades, key=lambda g: g.student)
    ]
    return pd.DataFrame(rows, columns=columns)


def write_grades(frame: pd.DataFrame, out: str | Path) -> None:
    """Write the grades table as CSV (points as 2 or 1.5, not 2.0)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False, float_format="%g")
