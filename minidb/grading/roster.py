"""The class roster: who the students are, so that grades join to the LMS's ids whatever the submissions are named.

A roster is a CSV file with the columns ``student_id``, ``name`` and ``email``; optional columns: ``login`` (the
Canvas login, its "SIS Login ID"), ``canvas_id`` (Canvas's user "ID") and ``section``, which the Canvas gradebook
file carries (``lms.py``). Other columns are ignored. A submission is matched to a roster row by, in order: its student id (a
Gradescope sid, a Canvas user id), its email, its key compared with the login or the e-mail's local part, and its
key compared with the name written as Canvas makes logins (last name then first names, lower case, letters only:
Jane Doe -> ``doejane``) or as a folder often is (``jane_doe``, ``Jane Doe``); failing all that, the one student
one of whose keys the submission's key starts with (``jdoe (1)``, ``jdoe-final``: names a download lengthened).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

REQUIRED = ("student_id", "name", "email")
OPTIONAL = ("login", "canvas_id", "section")  # in Student's order


@dataclass(frozen=True)
class Student:
    """One roster row."""

    student_id: str
    name: str
    email: str
    login: str = ""
    canvas_id: str = ""
    section: str = ""


def read_roster(path: str | Path) -> list[Student]:
    """The roster in the CSV ``path``; ValueError naming the file and column if it is not one."""
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:  # -sig: a spreadsheet's byte-order mark
            rows = list(csv.DictReader(f))
            columns = rows[0].keys() if rows else []
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ValueError(f"roster {path}: cannot read it as CSV ({e})") from None
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise ValueError(f"roster {path}: missing columns {missing} (needs {', '.join(REQUIRED)})")
    students = [Student(*(str(row.get(c) or "").strip() for c in (*REQUIRED, *OPTIONAL))) for row in rows]
    ids = [s.student_id for s in students]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        raise ValueError(f"roster {path}: student_id listed twice: {duplicated}")
    return students


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def keys_of(student: Student) -> set[str]:
    """The forms a submission's key may take for ``student``, normalised to lower-case letters and digits."""
    words = re.findall(r"[a-z0-9]+", student.name.lower())
    keys = {_letters(student.login), _letters(student.email.split("@")[0]), _letters(student.name)}
    if len(words) > 1:
        keys.add(_letters(words[-1] + "".join(words[:-1])))  # Canvas: last name, then first names
    return keys - {""}


def match(roster: list[Student], key: str, student_id: str = "", email: str = "") -> Student | None:
    """The roster row of a submission (its key, and the id and email its export gives), or None."""
    for wanted, field in ((student_id, "student_id"), (email.lower(), "email")):
        if wanted:
            for student in roster:
                if getattr(student, field).lower() == wanted:
                    return student
    key = _letters(key)
    found = [s for s in roster if key in keys_of(s)]
    if not found:
        # A name a browser or the student lengthened ("jdoe (1)", "jdoe-final"): the one roster key it starts with.
        found = [s for s in roster if any(key.startswith(k) for k in keys_of(s))]
    return found[0] if len(found) == 1 else None
