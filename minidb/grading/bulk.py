"""Bulk grading: every student's submission graded on its own (``grader.grade_submission``), into one grades.csv.

``minidb grade SUBMISSIONS_DIR --exercise 01 --out grades.csv`` grades each student as Gradescope's autograder does:
a pytest process of its own, in a private folder with a copy of the exercise, the submission's code in a confined
sandbox (``sandbox.py``). Before anything is graded, it refuses (one line, ValueError):

* where sandboxes cannot be confined (not root, or no namespaces: ``isolation.py``), unless told ``unsafe``;
* while another user (a sandbox's) could read one of the exercise's hidden tests in the instructor's tree
  (``sandbox.require_private_hidden_tests``);
* when two submissions belong to one student, or a late policy meets a submission with no recorded time
  (``handins.py``).

Submissions come in the layouts ``submissions.py`` reads (one entry per student, Canvas's download, Gradescope's
export); grades join to a roster (``roster.py``), lose points by a late policy (``late.py``), and can be written
as per-student feedback (``feedback.py``) and merged across exercises for an LMS (``lms.py``).
"""

from __future__ import annotations

import queue
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .exercise import Exercise
from .feedback import feedback_markdown, write_feedback
from .grader import Grade, GradedTests, grade_submission, graded_tests
from .handins import Handin, handins, missing_times
from .isolation import confinement
from .late import LatePolicy
from .one_cpu import spread
from .roster import Student
from .sandbox import require_private_hidden_tests
from .submissions import Submission, find_submissions  # noqa: F401 - re-exported: the grader's inputs
from .timelimit import DEFAULT_SUBMISSION_TIMEOUT, DEFAULT_TEST_TIMEOUT

if TYPE_CHECKING:  # pandas and tqdm serve the class's table only: an autograder grading one submission needs neither
    import pandas as pd


def apply_late(grade: Grade, handin: Handin, late: LatePolicy | None) -> None:
    """Record when the submission was handed in and take off the late policy's share of the points."""
    if handin.submitted is not None:
        grade.submitted = handin.submitted.isoformat(timespec="seconds")
    if late is not None:  # handins without a time were refused before grading
        grade.days_late = late.days_late(handin.submitted)
        grade.total = grade.raw * late.factor(handin.submitted)


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
    submitted: dict[str, datetime] | None = None,
    latest: bool = False,
    unsafe: bool = False,
) -> pd.DataFrame:
    """Grade every student's submission, ``jobs`` at a time: one row per student (ids, test columns, total, max,
    error, note). ValueError before anything is graded if sandboxes cannot be confined here (unless ``unsafe``),
    the hidden tests are readable by others, two submissions belong to one student (unless ``latest``), or a late
    policy meets a submission with no recorded time (``submitted``: times by student, as ``handins.py`` says)."""
    from tqdm import tqdm

    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    found = handins(submissions, roster, submitted or {}, latest)
    undated = missing_times(found) if late is not None else []
    if undated:
        raise ValueError(f"no recorded submission time for {', '.join(undated)}: the late policy needs the LMS's "
                         "or Gradescope's record, or --submitted (files' times are the student's to set)")
    confined = confinement()
    if not confined.full and not unsafe:
        raise ValueError(confined.refusal())
    require_private_hidden_tests(exercise.folder)  # ExposedHiddenTests (a ValueError) if others may read them
    tests = graded_tests(exercise, test_timeout, unsafe)
    grades: list[Grade] = []
    # Threads are enough: each one only waits for its pytest process. Each job keeps its runs to a CPU of its own
    # (one_cpu.py), taken from ``cpus`` while it grades, so that the jobs spread over the machine.
    cpus: queue.SimpleQueue = queue.SimpleQueue()
    for cpu in spread(jobs):
        cpus.put(cpu)

    def graded(submission: Submission) -> Grade:
        cpu = cpus.get()
        try:
            return grade_submission(exercise, submission, tests, test_timeout, submission_timeout, results_dir,
                                    unsafe, cpu=cpu)
        finally:
            cpus.put(cpu)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(graded, h.submission): h for h in found}
        with tqdm(total=len(futures), desc=f"grading {exercise.folder.name}", unit="submission",
                  disable=not progress) as bar:
            for future in as_completed(futures):
                handin, grade = futures[future], future.result()
                grade.student_id, grade.name, grade.email, grade.note = (handin.student_id, handin.name,
                                                                         handin.email, handin.note)
                if not handin.in_roster:
                    grade.error = "; ".join(filter(None, [grade.error, "not found in the roster"]))
                apply_late(grade, handin, late)
                if feedback_dir is not None:
                    note = f"Handed in {grade.days_late} day(s) late: points kept {grade.total:g} of " \
                           f"{grade.raw:g}." if grade.days_late else ""
                    write_feedback(feedback_dir, grade.student,
                                   feedback_markdown(exercise.title, grade.student, grade.results, grade.error,
                                                     note))
                grades.append(grade)
                bar.update()
    return grades_frame(grades, tests, exercise.folder.name)


def grades_frame(grades: list[Grade], tests: GradedTests, exercise: str = "") -> pd.DataFrame:
    """The grades as a table: exercise, student and ids, one column per graded test, raw, total, max, error, note."""
    import pandas as pd

    columns = ["exercise", "student", "student_id", "name", "email", "submitted", "days_late", *tests.points,
               "raw", "total", "max", "error", "note"]
    rows = [
        {"exercise": exercise, "student": g.student, "student_id": g.student_id, "name": g.name, "email": g.email,
         "submitted": g.submitted, "days_late": g.days_late,
         **{name: g.scores.get(name, 0.0) for name in tests.points},
         "raw": g.raw, "total": g.total, "max": g.max_score, "error": g.error, "note": g.note}
        for g in sorted(grades, key=lambda g: g.student)
    ]
    return pd.DataFrame(rows, columns=columns)


def write_grades(frame: pd.DataFrame, out: str | Path) -> None:
    """Write the grades table as CSV (points as 2 or 1.5, not 2.0)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False, float_format="%g")
