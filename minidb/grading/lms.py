"""The course gradebook: one row per student across exercises, in the file an LMS imports.

``minidb gradebook grades-01.csv grades-02.csv --roster roster.csv --format canvas --out gradebook.csv`` reads the
grades files ``minidb grade`` wrote (one per exercise) and writes one row per student of the roster, one score column
per exercise (after the late policy). A student with no submission to an exercise gets 0 for it; a graded
submission that matched nobody in the roster is an error, since its points would otherwise be lost silently; so is
a student listed twice in one grades file.

Formats (``FORMATS``):

* ``canvas``: Canvas's gradebook CSV, as its import reads it (Canvas Instructor Guide, "How do I import grades in
  the Gradebook?"; the layout of Canvas's own gradebook export): the columns ``Student``, ``ID``, ``SIS User ID``,
  ``SIS Login ID``, ``Section``, then one column per assignment; a second row whose first cell is
  ``Points Possible`` gives each assignment's points. Canvas matches students by ``ID`` (its user id, the roster's
  ``canvas_id`` column), ``SIS User ID`` (the roster's ``student_id``) or ``SIS Login ID`` (``login``). Every other
  column would be imported as a new assignment, so the file has no total, maximum or percentage. A column named
  after an exercise creates that assignment; to fill one that exists, name it as Canvas's export does
  (``Title (assignment id)``) in Canvas after the first import.
* ``moodle``: Moodle's grade import CSV (Moodle docs, "Grade import"; the columns of Moodle's own grade export):
  ``First name``, ``Last name``, ``ID number``, ``Email address``, then one column per grade item. On import,
  "Map from" ``Email address`` (or ``ID number``) to the user field of that name, and each exercise column to its
  grade item. Again no total: Moodle computes the course total itself.
* ``csv``: a plain table for a spreadsheet: ``student_id``, ``name``, ``email``, the exercises, ``total``, ``max``,
  ``percent``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .roster import Student


def read_grades(path: str | Path) -> pd.DataFrame:
    """One exercise's grades CSV as ``minidb grade`` writes it; ValueError naming the file if it is not one."""
    path = Path(path)
    try:
        frame = pd.read_csv(path, dtype={"student_id": str, "student": str}, keep_default_na=False)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise ValueError(f"grades {path}: cannot read it as CSV ({e})") from None
    missing = [c for c in ("exercise", "student", "student_id", "total", "max") if c not in frame.columns]
    if missing or frame.empty:
        raise ValueError(f"grades {path}: not a grades file of minidb grade (missing {missing or 'rows'})")
    if frame["exercise"].nunique() != 1:
        raise ValueError(f"grades {path}: holds more than one exercise")
    return frame


def gradebook(grades: list[pd.DataFrame], roster: list[Student]) -> pd.DataFrame:
    """One row per roster student: ids, one column per exercise, total, max, percent."""
    rows = {s.student_id: {"student_id": s.student_id, "name": s.name, "email": s.email} for s in roster}
    maxima: dict[str, float] = {}
    for frame in grades:
        twice = frame["student_id"][frame["student_id"].duplicated() & (frame["student_id"] != "")]
        if not twice.empty:
            raise ValueError(f"exercise {frame['exercise'].iloc[0]}: student {twice.iloc[0]} has two rows "
                             f"({', '.join(frame['student'][frame['student_id'] == twice.iloc[0]])})")
        exercise = str(frame["exercise"].iloc[0])
        if exercise in maxima:
            raise ValueError(f"two grades files for exercise {exercise}")
        maxima[exercise] = float(frame["max"].iloc[0])
        unmatched = frame[~frame["student_id"].isin(rows)]
        if not unmatched.empty:
            raise ValueError(f"exercise {exercise}: submissions not in the roster: "
                             f"{', '.join(unmatched['student'])} (add them, or fix their names)")
        for row in rows.values():
            row[exercise] = 0.0
        for student_id, total in zip(frame["student_id"], frame["total"]):
            rows[student_id][exercise] = float(total)
    table = pd.DataFrame(list(rows.values()), columns=["student_id", "name", "email", *maxima])
    table["total"] = table[list(maxima)].sum(axis=1) if maxima else 0.0
    table["max"] = sum(maxima.values())
    table["percent"] = (100 * table["total"] / table["max"]).round(1) if maxima else 0.0
    return table.sort_values("student_id", kind="stable").reset_index(drop=True)


FORMATS = ("canvas", "moodle", "csv")
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS_ROW = "Points Possible"
MOODLE_COLUMNS = ["First name", "Last name", "ID number", "Email address"]


def write_gradebook(table: pd.DataFrame, roster: list[Student], maxima: dict[str, float], fmt: str,
                    out: str | Path) -> None:
    """Write ``table`` (``gradebook``'s) to ``out`` in the LMS format ``fmt`` (one of ``FORMATS``); ``maxima``:
    each exercise's points possible."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        table.to_csv(out, index=False, float_format="%g")
        return
    by_id = {s.student_id: s for s in roster}
    exercises = list(maxima)
    if fmt == "canvas":
        header = CANVAS_COLUMNS + exercises
        rows = [[CANVAS_POINTS_ROW, "", "", "", "", *maxima.values()]]
        rows += [[r["name"], by_id[r["student_id"]].canvas_id, r["student_id"], by_id[r["student_id"]].login,
                  by_id[r["student_id"]].section, *(r[e] for e in exercises)] for r in table.to_dict("records")]
    elif fmt == "moodle":
        header = MOODLE_COLUMNS + exercises
        rows = [[*_first_last(r["name"]), r["student_id"], r["email"], *(r[e] for e in exercises)]
                for r in table.to_dict("records")]
    else:
        raise ValueError(f"unknown gradebook format {fmt!r} (one of {', '.join(FORMATS)})")
    pd.DataFrame(rows, columns=header).to_csv(out, index=False, float_format="%g")


def _first_last(name: str) -> tuple[str, str]:
    """A full name as Moodle's first and last name: the last word, and the words before it."""
    words = name.split()
    return (" ".join(words[:-1]), words[-1]) if len(words) > 1 else ("", name)
