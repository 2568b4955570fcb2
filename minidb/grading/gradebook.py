"""The gradebook of one pytest run: each graded test's outcome and points, built from pytest's reports.

pytest reports each test in up to three phases (setup, call, teardown). A graded test earns its points only if it
passed as a whole: its call passed and no phase failed. The gradebook reads only reports, not test items, so it works
the same when pytest-xdist runs the tests in other processes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from .points import GradedTest

if TYPE_CHECKING:
    import pytest

TIMED_OUT = "minidb_grading_timeout"  # user_properties key set on a report whose phase ran past the time limit
OUTPUT_LIMIT = 6000  # characters of failure text kept per test: the end, where the assertion is

# Outcomes of a graded test. Only "passed" earns points.
PASSED, FAILED, ERROR, TIMEOUT, SKIPPED, NOT_RUN = "passed", "failed", "error", "timeout", "skipped", "not run"


@dataclass
class TestGrade:
    """One graded test: what it is worth and how it went."""

    __test__ = False  # a data class, not a test for pytest to collect

    nodeid: str  # pytest's id, e.g. exercises/01_bloom/test_bloom.py::test_size[10]
    graded: GradedTest  # points, visibility, description
    outcome: str = NOT_RUN  # one of the outcomes above
    output: str = ""  # why it failed (traceback, captured output), or why it was skipped
    duration: float = 0.0  # seconds spent in its setup, call and teardown

    @property
    def name(self) -> str:
        """The short id shown in tables and results: ``test_bloom.py::test_size[10]``."""
        return short_name(self.nodeid)

    @property
    def score(self) -> float:
        """Points earned: all of them if the test passed, none otherwise."""
        return self.graded.points if self.outcome == PASSED else 0.0


@dataclass
class Gradebook:
    """Every graded test of a run, plus what stopped tests from being collected or the submission from loading."""

    tests: dict[str, TestGrade] = field(default_factory=dict)  # by nodeid, in the order they first reported
    collection_errors: list[str] = field(default_factory=list)  # files that failed to collect: their graded
    # tests are missing from the book, so the possible total is too low
    submission_errors: list[str] = field(default_factory=list)  # why a submission's module could not be used

    def record(self, report: pytest.TestReport) -> None:
        """Fold one phase's report into its test's grade (ordinary tests are ignored)."""
        graded = GradedTest.from_properties(report.user_properties)
        if graded is None:
            return
        grade = self.tests.setdefault(report.nodeid, TestGrade(report.nodeid, graded))
        grade.duration += report.duration
        undecided = grade.outcome in (NOT_RUN, PASSED)
        if report.failed:
            if undecided:
                timed_out = any(name == TIMED_OUT for name, _ in report.user_properties)
                grade.outcome = TIMEOUT if timed_out else FAILED if report.when == "call" else ERROR
            grade.output += _failure_text(report)
        elif report.skipped and undecided:
            grade.outcome = SKIPPED
            grade.output = _skip_reason(report)
        elif report.passed and report.when == "call" and grade.outcome == NOT_RUN:
            grade.outcome = PASSED

    def record_collection(self, report: pytest.CollectReport) -> None:
        """Note a file that failed to collect (an ImportError in a test module, say)."""
        if report.failed:
            self.collection_errors.append(f"{report.nodeid or '.'}: {_last_line(report.longreprtext)}")

    @property
    def score(self) -> float:
        """Points earned in this run."""
        return sum(t.score for t in self.tests.values())

    @property
    def max_score(self) -> float:
        """Points possible in this run."""
        return sum(t.graded.points for t in self.tests.values())

    def table(self) -> list[str]:
        """The grade as text lines: one row per test (points earned / possible, why not), then the total."""
        rows = [(t.name + (" (hidden)" if t.graded.hidden else ""), t) for t in self.tests.values()]
        width = max([len("total")] + [len(label) for label, _ in rows])
        lines = [f"{'test':<{width}}  {'score':>5} / max"]
        for label, t in rows:
            why = "" if t.outcome == PASSED else f"  {t.outcome}"
            lines.append(f"{label:<{width}}  {fmt(t.score):>5} / {fmt(t.graded.points)}{why}")
        lines.append("-" * (width + 16))
        lines.append(f"{'total':<{width}}  {fmt(self.score):>5} / {fmt(self.max_score)}")
        lines += [f"submission error: {e}" for e in self.submission_errors]
        lines += [f"collection error (its tests are missing from the total): {e}" for e in self.collection_errors]
        return lines


def short_name(nodeid: str) -> str:
    """A nodeid without its folders: ``a/b/test_x.py::test_y[1]`` -> ``test_x.py::test_y[1]``."""
    path, sep, rest = nodeid.partition("::")
    return PurePosixPath(path).name + sep + rest


def fmt(points: float) -> str:
    """Points as people write them: 2, 1.5, 0.33."""
    return f"{points:g}" if points == round(points, 2) else f"{points:.2f}"


def _failure_text(report: pytest.TestReport) -> str:
    """What the student needs to see of a failed phase: the traceback and any printed output, the end kept."""
    text = report.longreprtext
    if report.when != "call":
        text = f"[{report.when}] {text}"
    for title, content in report.sections:
        if content.strip() and ("stdout" in title or "stderr" in title):
            text += f"\n----- {title} -----\n{content}"
    if len(text) > OUTPUT_LIMIT:
        text = "... (cut)\n" + text[-OUTPUT_LIMIT:]
    return text + "\n"


def _skip_reason(report: pytest.TestReport) -> str:
    """The reason a test was skipped, from pytest's (file, line, reason) skip report."""
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return str(report.longrepr[2])
    return report.longreprtext


def _last_line(text: str) -> str:
    """The last non-empty line of a traceback: the error itself."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "unknown error"
