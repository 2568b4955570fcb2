"""The grading plugin for pytest: points per test, a grade table, Gradescope's results.json, a time limit per test.

Graded tests carry ``@pytest.mark.points(n)`` (and maybe ``@pytest.mark.hidden``, see ``points.py``). With no graded
test collected the plugin does nothing, so it can stay active for every pytest run of the project. Options:

``--student PATH``
    Grade a submission: the exercise's module comes from PATH (the module's file, or a folder holding it) instead of
    the stub. Tests receive the module through the fixture the exercise's ``conftest.py`` defines (``fixture.py``).
``--gradescope-json PATH``
    Write Gradescope's results.json to PATH at the end of the run.
``--sandbox``
    Run the submission's code in a sandbox process (``sandbox.py``): the tests get a stand-in for the module, and
    nothing the submission does can change the verdicts. ``minidb grade`` and the Gradescope autograder use it.
    The run is refused (a usage error, one line) where sandboxes cannot be confined: not root, or no namespaces
    (``isolation.py``). As root, it is also refused (naming the files) if another user could read a hidden test of
    the exercise: the sandbox's user could (``sandbox.require_private_hidden_tests``).
``--unsafe-no-sandbox``
    With ``--sandbox``: grade even where sandboxes cannot be confined. The submission still runs in a process of
    its own with limits, but sees what that user may see and reaches the network: for your own code only.
``--grading-timeout SECONDS``
    Each graded test (its setup, where the submission is imported, and its call) gets this much wall-clock time;
    past it, the test fails as "timeout" and the run goes on. 0 turns the limit off.
``--grading-events PATH``
    Append a JSON line to PATH when a graded test starts (``{"event": "start", "name", "limit"}``) and when it is
    over (``{"event": "end"}`` and the test's entry as results.json will hold it), so that a program running the
    tests (``minidb check``) can show each result as it comes and say which test is running.

A failure that passed through the student's code carries a note, ``in your code:``, listing the lines of their
files it went through (``student.your_code``): where their code raised, or where it was looping when its time was
up. In a sandbox the sandbox writes that note.

Grade one submission::

    pytest exercises/01_bloom --student submissions/alice/ --gradescope-json results.json
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import ModuleType

import pytest

from .exercise import Exercise, exercise_of
from .gradebook import PASSED, TIMED_OUT, Gradebook, TestGrade, fmt, short_name
from .gradescope import WITHHELD, write_results
from .isolation import UNSAFE_FLAG, confinement
from .points import MARKERS, graded_test
from .sandbox import ExposedHiddenTests, Sandbox, require_private_hidden_tests
from .student import YOUR_CODE, LoadedModule, SubmissionError, load, locate, your_code
from .timelimit import DEFAULT_TEST_TIMEOUT, GradingTimeout, enforceable, time_limit

SESSION = "minidb-grading-session"  # the name the per-run GradingSession is registered under
SUBMISSION_ERROR = "minidb_grading_submission_error"  # user_properties key: why the submission did not load
DEADLINE = pytest.StashKey[float]()  # when the running graded test's time is up (time.monotonic())


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("minidb-grading", "grading of minidb exercises")
    group.addoption("--student", metavar="PATH", help="grade this submission (a module file, or a folder holding it)")
    group.addoption("--sandbox", action="store_true",
                    help="run the submission in a sandbox process, for code you do not trust")
    group.addoption(UNSAFE_FLAG, action="store_true",
                    help="with --sandbox: grade even where the sandbox cannot be confined (not root, no namespaces)")
    group.addoption("--gradescope-json", metavar="PATH", help="write Gradescope's results.json to PATH")
    group.addoption(
        "--grading-timeout", type=float, default=DEFAULT_TEST_TIMEOUT, metavar="SECONDS",
        help=f"wall-clock limit per graded test, 0 for none (default {DEFAULT_TEST_TIMEOUT:g})",
    )
    group.addoption("--grading-events", metavar="PATH",
                    help="append a JSON line to PATH as each graded test starts and ends")


def pytest_configure(config: pytest.Config) -> None:
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    config.pluginmanager.register(GradingSession(config), SESSION)


class GradingSession:
    """The grading state of one pytest run: the submission's modules, the time limit, the gradebook."""

    def __init__(self, config: pytest.Config) -> None:
        student = config.getoption("student")
        self.student = Path(student).resolve() if student else None  # the submission, or None for the stubs
        if self.student is not None and not self.student.exists():
            raise pytest.UsageError(f"--student {student}: no such file or folder")
        self.timeout = config.getoption("grading_timeout")  # seconds per graded test, 0 for no limit
        if not self.timeout >= 0:
            raise pytest.UsageError(f"--grading-timeout must be >= 0 seconds, got {self.timeout!r}")
        results = config.getoption("gradescope_json")
        self.results_path = Path(results) if results else None  # where to write results.json, if asked
        # Under pytest-xdist, workers run tests and the controller reports: only the controller writes results.
        self.is_worker = hasattr(config, "workerinput")
        self.book = Gradebook()
        self.loaded: dict[Path, LoadedModule] = {}  # by exercise folder: the module its tests use
        self.failed: dict[Path, SubmissionError] = {}  # by exercise folder: why its module could not be used
        self.sandboxed = bool(config.getoption("sandbox"))  # the submission's code runs in a Sandbox process
        if self.sandboxed and not config.getoption("unsafe_no_sandbox") and not confinement().full:
            raise pytest.UsageError(f"--sandbox: {confinement().refusal()}")
        self.sandboxes: dict[Path, Sandbox] = {}  # by exercise folder, when sandboxed
        self.start = time.monotonic()
        events = config.getoption("grading_events")
        self.events = Path(events) if events else None  # where to append the tests' start and end, if asked

    # -- the module under test ---------------------------------------------------------------------------------

    def module_for(self, exercise: Exercise) -> ModuleType:
        """The module ``exercise``'s tests use: the submission's (``--student``) or the stub, imported once."""
        key = exercise.folder
        if key in self.failed:
            raise self.failed[key]
        if key in self.sandboxes:
            return self.sandboxes[key].root()
        if key not in self.loaded:
            source = exercise.stub
            try:
                source = locate(self.student or exercise.stub, exercise.module)
                if self.sandboxed:
                    self.sandboxes[key] = Sandbox(exercise.module, source)
                    return self.sandboxes[key].root()
                self.loaded[key] = load(exercise.module, source)
            except SubmissionError as e:
                self.failed[key] = e
                raise
            except GradingTimeout as e:
                self.failed[key] = SubmissionError(
                    f"importing {exercise.module} from {source.name} did not finish within the time limit"
                )
                raise self.failed[key] from e
        return self.loaded[key].module

    def pytest_unconfigure(self) -> None:
        for loaded in self.loaded.values():
            loaded.unload()
        for sandbox in self.sandboxes.values():
            sandbox.stop()

    # -- collection: which tests are graded ----------------------------------------------------------------------

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        folders: dict[Path, Path] = {}
        for item in items:
            graded = graded_test(item)
            if graded is not None:
                item.user_properties.append(graded.as_property())
                folders.setdefault(item.path.parent, item.path)  # one test file per folder is enough
        if self.sandboxed:  # as root, hidden tests a sandbox's user could read: refuse before any student code runs
            checked = {exercise.folder for exercise in map(exercise_of, folders.values()) if exercise is not None}
            for folder in sorted(checked):
                try:
                    require_private_hidden_tests(folder)
                except ExposedHiddenTests as e:
                    raise pytest.UsageError(f"--sandbox: {e}") from None

    # -- the time limit --------------------------------------------------------------------------------------------

    def _limited(self, item: pytest.Item) -> bool:
        """Whether ``item`` runs under the time limit: a graded test, a limit set, and a way to enforce it."""
        return self.timeout > 0 and item.get_closest_marker("points") is not None and enforceable()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item):
        if item.get_closest_marker("points") is not None:
            self._event({"event": "start", "name": short_name(item.nodeid), "limit": self.timeout})
        if not self._limited(item):
            return (yield)
        # One budget for setup and call together: importing a submission (in setup) counts against its test.
        item.stash[DEADLINE] = time.monotonic() + self.timeout
        with time_limit(self.timeout, self._timeout_message(item)):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        if not self._limited(item):
            return (yield)
        left = item.stash.get(DEADLINE, time.monotonic() + self.timeout) - time.monotonic()
        with time_limit(max(left, 1e-3), self._timeout_message(item)):
            return (yield)

    def _timeout_message(self, item: pytest.Item) -> str:
        return f"{item.name} ran past its time limit of {self.timeout:g} s (an infinite loop?)"

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        if call.excinfo is not None:
            self._note_your_code(item, call.excinfo.value)  # before the report is made: it shows the notes
        report = yield
        if call.excinfo is not None:
            chain = _exception_chain(call.excinfo.value)
            if any(isinstance(e, GradingTimeout) for e in chain):
                report.user_properties.append((TIMED_OUT, self.timeout))
            if isinstance(call.excinfo.value, SubmissionError):
                report.user_properties.append((SUBMISSION_ERROR, str(call.excinfo.value)))
                # One line, not a traceback through the grader's modules repeated in every test.
                report.longrepr = f"your module could not be used: {call.excinfo.value}"
        return report

    # -- the gradebook ------------------------------------------------------------------------------------------

    def _note_your_code(self, item: pytest.Item, error: BaseException) -> None:
        """Add the lines of the student's code that ``error`` passed through to it, as a note (see the docstring)."""
        exercise = exercise_of(item.path)
        loaded = self.loaded.get(exercise.folder) if exercise is not None else None
        if loaded is None or any(str(n).startswith(YOUR_CODE) for n in getattr(error, "__notes__", ())):
            return  # not the student's module (a sandbox notes its own errors), or noted already
        note = your_code(error, loaded.folder)
        if note is not None:
            error.add_note(note)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.book.record(report)
        for name, value in report.user_properties:
            if name == SUBMISSION_ERROR and value not in self.book.submission_errors:
                self.book.submission_errors.append(value)
        if report.when == "teardown" and report.nodeid in self.book.tests:
            self._event({"event": "end", **_entry(self.book.tests[report.nodeid])})

    def _event(self, event: dict) -> None:
        if self.events is not None:
            with self.events.open("a", encoding="utf-8") as f:
                f.write(json.dumps(event) + "\n")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.book.record_collection(report)

    def pytest_sessionfinish(self) -> None:
        if self.results_path is not None and not self.is_worker:
            write_results(self.results_path, self.book, time.monotonic() - self.start)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.book.tests:
            return
        write = terminalreporter.write_line
        terminalreporter.write_sep("=", f"grade: {fmt(self.book.score)} / {fmt(self.book.max_score)} points")
        for line in self.book.table():
            write(line)
        if self.timeout > 0 and not enforceable():
            write("note: the per-test time limit is not enforced here (no SIGALRM, or not on the main thread)")
        if self.results_path is not None:
            write(f"Gradescope results written to {self.results_path}")


def _entry(grade: TestGrade) -> dict:
    """A graded test as results.json holds it (``gradescope.results``), with its outcome (passed, failed, error,
    timeout...)."""
    output = WITHHELD if grade.graded.hidden else "\n".join(
        part for part in (grade.graded.description, grade.output.strip()) if part)
    return {"name": grade.name, "score": grade.score, "max_score": grade.graded.points,
            "status": "passed" if grade.outcome == PASSED else "failed", "output": output,
            "visibility": grade.graded.visibility, "outcome": grade.outcome}


def _exception_chain(error: BaseException) -> list[BaseException]:
    """``error`` and the exceptions it was raised from or during, outermost first."""
    chain: list[BaseException] = []
    while error is not None and error not in chain:
        chain.append(error)
        error = error.__cause__ or error.__context__
    return chain
