"""The gradebook files LMSs import, checked against each LMS's documented layout.

Canvas (Instructor Guide, "How do I import grades in the Gradebook?", and the layout of its gradebook export): the
header ``Student, ID, SIS User ID, SIS Login ID, Section`` then one column per assignment, a second row starting
``Points Possible``, and no other column (each would become a new assignment). Moodle (docs, "Grade import", and its
grade export's columns): ``First name, Last name, ID number, Email address``, then one column per grade item.
"""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from minidb.cli import main

CANVAS_IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDENTITY = ["First name", "Last name", "ID number", "Email address"]


@pytest.fixture
def course(tmp_path):
    (tmp_path / "roster.csv").write_text(
        "student_id,name,email,login,canvas_id,section\n"
        "S1,Jane Doe,jdoe@uni.example,jdoe,101,Lab A\n"
        "S2,Ann Mary Lee,alee@uni.example,alee,102,Lab B\n")
    for exercise, maximum, rows in [("01_bloom", 25, [("S1", 25), ("S2", 12.5)]), ("02_btree_split", 27, [("S1", 20)])]:
        pd.DataFrame([{"exercise": exercise, "student": sid.lower(), "student_id": sid, "total": total,
                       "max": maximum} for sid, total in rows]).to_csv(tmp_path / f"{exercise}.csv", index=False)
    return tmp_path


def gradebook(course, fmt: str) -> list[list[str]]:
    out = course / f"{fmt}.csv"
    assert main(["gradebook", str(course / "01_bloom.csv"), str(course / "02_btree_split.csv"), "--roster",
                 str(course / "roster.csv"), "--format", fmt, "--out", str(out)]) == 0
    with out.open(newline="") as f:
        return list(csv.reader(f))


def test_canvas_file_has_canvas_header_points_row_and_no_extra_column(course):
    rows = gradebook(course, "canvas")
    assert rows[0] == CANVAS_IDENTITY + ["01_bloom", "02_btree_split"]
    assert rows[1][0].strip() == "Points Possible" and rows[1][1:5] == ["", "", "", ""]
    assert rows[1][5:] == ["25", "27"]
    assert rows[2:] == [["Jane Doe", "101", "S1", "jdoe", "Lab A", "25", "20"],
                        ["Ann Mary Lee", "102", "S2", "alee", "Lab B", "12.5", "0"]]


def test_moodle_file_has_moodle_identity_columns_and_one_per_grade_item(course):
    rows = gradebook(course, "moodle")
    assert rows[0] == MOODLE_IDENTITY + ["01_bloom", "02_btree_split"]
    assert rows[1:] == [["Jane", "Doe", "S1", "jdoe@uni.example", "25", "20"],
                        ["Ann Mary", "Lee", "S2", "alee@uni.example", "12.5", "0"]]


def test_plain_csv_keeps_totals(course):
    rows = gradebook(course, "csv")
    assert rows[0] == ["student_id", "name", "email", "01_bloom", "02_btree_split", "total", "max", "percent"]
    assert rows[1] == ["S1", "Jane Doe", "jdoe@uni.example", "25", "20", "45", "52", "86.5"]


def test_a_student_twice_in_one_grades_file_is_an_error(course, capsys):
    frame = pd.read_csv(course / "01_bloom.csv", dtype=str)
    frame = pd.concat([frame, frame.iloc[[0]].assign(student="jdoe (1)", total="0")])
    frame.to_csv(course / "01_bloom.csv", index=False)
    assert main(["gradebook", str(course / "01_bloom.csv"), "--roster", str(course / "roster.csv"), "--out",
                 str(course / "out.csv")]) == 2
    assert "student S1 has two rows (s1, jdoe (1))" in capsys.readouterr().err
