"""The course gradebook: one row per student across exercises, in a CSV an LMS imports.

``minidb gradebook grades-01.csv grades-02.csv --roster roster.csv --out gradebook.csv`` reads the grades files
``minidb grade`` wrote (one per exercise) and writes one row per student of the roster: ``student_id``, ``name``,
``email``, one score column per exercise (after the late policy), ``total``, ``max`` and ``percent``. A student with
no submission to an exercise gets 0 for it; a graded submission that matched nobody in the roster is an error,
since its points would otherwise be lost silently.
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
