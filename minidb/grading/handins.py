"""Which submission counts for each student, and when it was handed in: settled before anything is graded.

* **Who.** Each submission is matched to its roster row (``roster.match``: the export's id or email, else its
  name). Two submissions that land on one student (``jdoe`` and ``jdoe (1)``, a folder and a zip) are an error
  naming both, since keeping either silently could throw away the better one; with ``latest=True`` the one handed
  in last is graded and the other is named in its row's note.
* **When.** A submission's time comes from the course's records only: the LMS's or Gradescope's (a Gradescope
  export's ``submission_metadata.yml``, or the ``submission_metadata.json`` beside a submission folder), or the
  instructor's ``--submitted`` CSV (columns ``student`` and ``submitted``: the submission's name, as grades.csv's
  ``student`` column shows it, or the roster's student id, and an ISO time with its timezone). Never from the
  files' modification times, which the student sets. With a late policy, a submission with no recorded time is an
  error naming it.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from .roster import Student, match
from .submissions import Submission, parse_time


@dataclass(frozen=True)
class Handin:
    """One submission to grade, with the student it belongs to and when it was handed in."""

    submission: Submission
    student_id: str  # the roster's id ("" if the roster has no such student), else the export's id or the key
    name: str
    email: str
    submitted: datetime | None  # from the course's records; None if they do not say
    in_roster: bool = True  # False: graded, but flagged "not found in the roster"
    note: str = ""  # what else was handed in for the student (with latest=True)


def read_submitted(path: str | Path) -> dict[str, datetime]:
    """The ``--submitted`` CSV: submission time by student (submission name or student id); ValueError naming the
    file and row if it is not one."""
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ValueError(f"--submitted {path}: cannot read it as CSV ({e})") from None
    if not rows or not {"student", "submitted"} <= set(rows[0]):
        raise ValueError(f"--submitted {path}: needs the columns student and submitted")
    times = {}
    for number, row in enumerate(rows, start=2):
        try:
            times[str(row["student"]).strip()] = parse_time(str(row["submitted"]))
        except ValueError as e:
            raise ValueError(f"--submitted {path}, line {number}: {e}") from None
    return times


def handins(submissions: list[Submission], roster: list[Student] | None, submitted: dict[str, datetime],
            latest: bool = False) -> list[Handin]:
    """One Handin per student; ValueError naming the submissions when two belong to one student (unless
    ``latest`` and their times tell which came last)."""
    found = [_identify(s, roster, submitted) for s in submissions]
    by_student: dict[str, list[Handin]] = {}
    for handin in found:
        key = handin.student_id if handin.in_roster else f"\0{handin.submission.student}"
        by_student.setdefault(key, []).append(handin)
    kept = []
    for group in by_student.values():
        if len(group) == 1:
            kept.append(group[0])
            continue
        names = ", ".join(h.submission.student for h in group)
        who = f"{group[0].student_id} ({group[0].name})" if group[0].name else group[0].student_id
        if not latest:
            raise ValueError(f"two submissions for {who}: {names}; keep one, or grade the latest with --latest")
        if any(h.submitted is None for h in group) or len({h.submitted for h in group}) < len(group):
            raise ValueError(f"two submissions for {who}: {names}; --latest needs a distinct recorded time for "
                             "each (an export's metadata, or --submitted)")
        group.sort(key=lambda h: h.submitted)
        others = ", ".join(h.submission.student for h in group[:-1])
        kept.append(replace(group[-1], note=f"the latest of {len(group)}; not graded: {others}"))
    return sorted(kept, key=lambda h: h.submission.student)


def missing_times(found: list[Handin]) -> list[str]:
    """The submissions whose hand-in time the records do not give."""
    return [h.submission.student for h in found if h.submitted is None]


def _identify(submission: Submission, roster: list[Student] | None, submitted: dict[str, datetime]) -> Handin:
    when = submission.submitted or submitted.get(submission.student)
    if roster is None:
        sid = submission.student_id or submission.student
        return Handin(submission, sid, submission.name, submission.email, when or submitted.get(sid))
    student = match(roster, submission.student, submission.student_id, submission.email)
    if student is None:
        return Handin(submission, "", submission.name, submission.email, when, in_roster=False)
    return Handin(submission, student.student_id, student.name, student.email,
                  when or submitted.get(student.student_id))
