"""Grading one submission: ``grade_submission``, the single entry point ``minidb grade``, the Gradescope autograder
(and, for a student's own check, ``minidb check``) share, so a submission is graded the same way everywhere.

Each submission is graded by a pytest process of its own, in a folder of its own that only the grader may enter
(``tempfile.mkdtemp``: mode 0700)::

    PRIVATE/exercise/pytest.ini          the grader's own configuration: the run's ``-c`` and ``--rootdir``
    PRIVATE/exercise/NN_topic/           a copy of the exercise, hidden tests included
    PRIVATE/submission/                  a copy of the submission (links refused: ``safecopy.py``)
    PRIVATE/results/results.json         what the run writes

    PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 \\
    python -I -B -m pytest PRIVATE/exercise/NN_topic -c PRIVATE/exercise/pytest.ini --rootdir PRIVATE/exercise \\
        -p minidb.grading.plugin -p _hypothesis_pytestplugin --sandbox --student PRIVATE/submission ...

Nothing the student wrote configures that process: its configuration file and root folder are the grader's own (a
``pytest.ini`` or ``conftest.py`` in the submission, or left in ``/tmp`` by an earlier submission, is never read),
``-I`` keeps the working folder and ``PYTHON*`` variables off its import path, and the submission is not on it
either: its code runs only in the sandbox (``sandbox.py``). Of the installed pytest plugins, the run loads only the
two the graded tests use, the grader's and hypothesis's. The run has a wall-clock limit that kills its whole
process group, and its output goes to an unlinked file of which only the end is read.

The grader trusts nothing the run reports beyond the test names and scores of its results.json, and clamps those:
a test that is not in the exercise's list (``graded_tests``, from a run on the stub) is ignored, and no test earns
more than its points.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .exercise import HIDDEN_TESTS, Exercise
from .gradescope import read_results
from .isolation import UNSAFE_FLAG
from .limits import RUN_ENV, UID_BASE, kill_marked, kill_user, remove_files
from .one_cpu import CPU_ENV
from .submissions import Submission
from .timelimit import DEFAULT_SUBMISSION_TIMEOUT, DEFAULT_TEST_TIMEOUT

OUTPUT_TAIL = 300  # characters of a failed run's output kept as the reason
OUTPUT_READ = 64 << 10  # bytes of a run's output ever read back: a flood of output stays on disk
COPY_IGNORED = ("__pycache__", ".ipynb_checkpoints", "*.ipynb", ".pytest_cache")  # never copied from an exercise
WAIT_STEP = 0.2  # seconds between a waiting run's calls to its ``waiting``
# The grading run's plugins, named rather than loaded from every installed package's entry points. That also keeps
# pytest from rewriting the asserts of the installed plugins' packages, the whole of minidb among them: a run with
# -B keeps no cache of that rewrite, so every submission paid for it again (about half a second).
PLUGINS = ("minidb.grading.plugin", "_hypothesis_pytestplugin")
PYTEST_INI = "[pytest]\n# The grader's own configuration: nothing from a submission or a folder above configures the run.\n"


@dataclass
class Grade:
    """One submission's grade: one row of grades.csv."""

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
    note: str = ""  # what else the student handed in (handins.py), when one of several was graded
    results: dict | None = None  # the run's results.json, for feedback


@dataclass(frozen=True)
class GradedTests:
    """The graded tests of an exercise, in order, with their points: what every row of grades.csv lists."""

    points: dict[str, float]  # max points by test name

    @property
    def max_score(self) -> float:
        """Points possible."""
        return sum(self.points.values())


def pytest_command(folder: Path, student: Path, results: Path, test_timeout: float, unsafe: bool = False,
                   events: Path | None = None) -> list[str]:
    """The command that grades ``student`` on the exercise copy in ``folder`` (sandboxed) and writes ``results``
    (and each test's start and end to ``events``, if given); the configuration is ``pytest.ini`` beside ``folder``,
    its root ``folder``'s parent (``private_copy``)."""
    return [
        sys.executable, "-I", "-B", "-m", "pytest", str(folder), "-c", str(folder.parent / "pytest.ini"),
        "--rootdir", str(folder.parent), *(arg for plugin in PLUGINS for arg in ("-p", plugin)),
        "--sandbox", *([UNSAFE_FLAG] if unsafe else []),
        "--student", str(student), "--gradescope-json", str(results), "--grading-timeout", f"{test_timeout:g}",
        *(["--grading-events", str(events)] if events is not None else []),
        "-q", "-p", "no:cacheprovider",
    ]


def run_pytest(command: list[str], cwd: Path, timeout: float, waiting: Callable[[], None] | None = None,
               cpu: int | None = None) -> tuple[int | None, str]:
    """Run ``command`` in ``cwd``: (exit code, or None if it ran past ``timeout`` seconds and was killed; the end
    of its output); ``waiting`` is called every fraction of a second while it runs, and ``cpu`` is the CPU the run
    and its sandbox keep to (``one_cpu.py``; None: the one it starts on). The run's temporary files go when it ends,
    even if it was killed; as root, whatever its sandboxes left (processes, files in shared folders) goes too."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", CPU_ENV)}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the command names its plugins (PLUGINS)
    env[RUN_ENV] = run = os.urandom(8).hex()  # its sandboxes' markers start with it (limits.kill_marked)
    if cpu is not None:
        env[CPU_ENV] = str(cpu)
    with tempfile.TemporaryFile() as output, _scratch() as scratch:
        env["TMPDIR"] = scratch  # the sandboxes' folders too: a run killed before it cleans up leaves them there
        # A session of its own, so a timeout kills the whole process group.
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=output,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = _wait(proc, timeout, waiting)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = None
        if os.geteuid() == 0:  # the run's sandboxes ran as this uid (limits.sandbox_user)
            kill_user(UID_BASE + proc.pid)
            remove_files(UID_BASE + proc.pid)
        kill_marked(run)  # sandboxes that share our uid: a killed run never stopped them, and they left its session
        size = output.seek(0, os.SEEK_END)
        output.seek(max(0, size - OUTPUT_READ))
        return code, output.read().decode("utf-8", "replace")


@contextlib.contextmanager
def _scratch() -> Iterator[str]:
    """A temporary folder for one grading run, removed with all in it when the run ends, however it ends. Mode
    0711: a sandbox that runs as its own user reaches its own folder inside, but no one lists what is there."""
    with tempfile.TemporaryDirectory(prefix="minidb-run-", ignore_cleanup_errors=True) as path:
        os.chmod(path, 0o711)
        yield path


def _wait(proc: subprocess.Popen, timeout: float, waiting: Callable[[], None] | None) -> int:
    """``proc``'s exit code, calling ``waiting`` every ``WAIT_STEP`` seconds meanwhile; TimeoutExpired after
    ``timeout`` seconds."""
    if waiting is None:
        return proc.wait(timeout=timeout)
    deadline = time.monotonic() + timeout
    while True:
        try:
            return proc.wait(timeout=min(WAIT_STEP, max(deadline - time.monotonic(), 0.0)))
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                raise
            waiting()


def private_copy(exercise: Exercise, dest: Path, public_only: bool = False) -> Path:
    """Copy the exercise folder (hidden tests included, unless ``public_only``) into ``dest``, with the grader's
    ``pytest.ini`` beside it; the copy's folder."""
    folder = dest / exercise.folder.name
    ignore = shutil.ignore_patterns(*COPY_IGNORED, *([HIDDEN_TESTS] if public_only else []))
    shutil.copytree(exercise.folder, folder, ignore=ignore)
    (dest / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
    return folder


def grade_submission(
    exercise: Exercise,
    submission: Submission,
    tests: GradedTests,
    test_timeout: float = DEFAULT_TEST_TIMEOUT,
    submission_timeout: float = DEFAULT_SUBMISSION_TIMEOUT,
    results_dir: Path | None = None,
    unsafe: bool = False,
    events: Path | None = None,
    waiting: Callable[[], None] | None = None,
    public_only: bool = False,
    cpu: int | None = None,
) -> Grade:
    """Grade one submission in its own pytest process and sandbox; a submission that cannot be graded gets zero and
    why. ``unsafe``: grade even where sandboxes cannot be confined (``isolation.py``); otherwise the run refuses
    there, and every test scores zero with that reason. ``minidb check`` also passes ``events`` (a file each test's
    start and end is appended to as it happens), ``waiting`` (called every fraction of a second) and
    ``public_only`` (the hidden tests left out); the bulk grader passes ``cpu`` (``run_pytest``)."""
    grade = Grade(submission.student, {name: 0.0 for name in tests.points}, 0.0, tests.max_score)
    with tempfile.TemporaryDirectory(prefix="minidb-grade-") as tmp:
        tmp = Path(tmp)  # mode 0700: neither the sandbox's user nor other users may enter
        try:
            student = submission.materialize(tmp / "submission")
        except (ValueError, OSError) as e:
            grade.error = str(e)
            return grade
        results_path = tmp / "results" / "results.json"
        folder = private_copy(exercise, tmp / "exercise", public_only)
        code, output = run_pytest(pytest_command(folder, student, results_path, test_timeout, unsafe, events),
                                  folder.parent, submission_timeout, waiting, cpu)
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


def graded_tests(exercise: Exercise, test_timeout: float = DEFAULT_TEST_TIMEOUT, unsafe: bool = False) -> GradedTests:
    """The exercise's graded tests and points, found by grading its stub; RuntimeError if that run fails."""
    with tempfile.TemporaryDirectory(prefix="minidb-tests-") as tmp:
        tmp = Path(tmp)
        results_path = tmp / "results.json"
        folder = private_copy(exercise, tmp / "exercise")
        command = pytest_command(folder, folder / exercise.stub.name, results_path, test_timeout, unsafe)
        code, output = run_pytest(command, folder.parent, DEFAULT_SUBMISSION_TIMEOUT)
        if code not in (0, 1) or not results_path.exists():
            raise RuntimeError(f"grading the stub of {exercise.folder.name} failed (exit code {code}):\n{output}")
        results = read_results(results_path)
    if not results["tests"]:
        raise RuntimeError(f"{exercise.folder.name} has no graded tests (none marked @pytest.mark.points)")
    return GradedTests({t["name"]: float(t["max_score"]) for t in results["tests"]})
