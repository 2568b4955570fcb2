"""A whole class, end to end: 30 generated submissions graded into one LMS CSV, joined to a roster.

The class (``make_class``) mixes every case an instructor meets: right, wrong and partial answers, late ones, code
that does not import, folders renamed by a browser, a Canvas download (prefixed names, a helper module, a
re-submission), and hostile code (an infinite loop, ``os._exit``, a flood of output, writes to the tests, a forged
results file, an object equal to everything, killing every process in sight). Grading runs ``minidb grade`` and
``minidb gradebook`` as an instructor would. Like ``test_hostile.py``, the class needs a root grader.
"""

from __future__ import annotations

import csv
import json
import os
import time
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest

from minidb.cli import main
from minidb.grading.late import LatePolicy, parse_deadline
from minidb.grading.lms import gradebook, read_grades
from minidb.grading.roster import Student, match, read_roster
from minidb.grading.submissions import find_submissions

from .hostile import GOOD, HOSTILE, MAX_POINTS, WRONG, write_exercise

pytestmark = pytest.mark.xdist_group("course")  # its module fixture runs once, on one worker

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="sandboxes get a uid of their own only under root")
DEADLINE = datetime(2026, 11, 20, 23, 59, tzinfo=timezone.utc)
PENALTY = 0.25  # a quarter of the points per started day late
ON_TIME = DEADLINE - timedelta(hours=2)
PARTIAL = "def add(a, b):\n    return a + b\ndef mul(a, b):\n    return a + b\n"  # add's 2 and the hidden 5
BROKEN_SYNTAX = "def add(a, b)\n    return a + b\n"
BROKEN_IMPORT = "import no_such_module_for_sure\n"
USES_HELPER = "from helpers import plus\ndef add(a, b):\n    return plus(a, b)\ndef mul(a, b):\n    return a * b\n"
HELPERS = "def plus(a, b):\n    return a + b\n"


FILE_TIME = datetime(2020, 1, 1, tzinfo=timezone.utc)  # what every file's time says: the records must win


def _touch(path: Path) -> None:
    for p in [path, *path.rglob("*")] if path.is_dir() else [path]:
        os.utime(p, (FILE_TIME.timestamp(), FILE_TIME.timestamp()))


def write_times(times: dict[str, datetime], path: Path) -> None:
    """The --submitted CSV: when each submission was handed in, by its name."""
    path.write_text("student,submitted\n" + "".join(f"{k},{v.isoformat()}\n" for k, v in times.items()))


def make_class(folder: Path) -> tuple[list[Student], dict[str, float], dict[str, datetime]]:
    """Write 30 submissions into ``folder``, every file dated 2020; the roster, each student's expected points after
    the late policy (by student id), and when each submission was handed in (by its name)."""
    folder.mkdir(parents=True)
    roster: list[Student] = []
    expected: dict[str, float] = {}
    times: dict[str, datetime] = {}

    def student(key: str, name: str, points: float) -> str:
        sid = f"S{len(roster) + 1:03d}"
        roster.append(Student(sid, name, f"{key}@uni.example"))
        expected[sid] = points
        return sid

    def entry(key: str, source: str, kind: str = "py", when: datetime = ON_TIME) -> None:
        if kind == "py":
            path = folder / f"{key}.py"
            path.write_text(source)
        elif kind == "folder":
            path = folder / key
            (path / "work").mkdir(parents=True)
            (path / "work" / "demo.py").write_text(source)
        else:
            path = folder / f"{key}.zip"
            with zipfile.ZipFile(path, "w") as z:
                z.writestr(f"{key}-final/demo.py", source)
        _touch(path)
        times[key] = when

    # Right answers, in every layout: 9 students.
    for i, kind in enumerate(["py", "py", "py", "folder", "folder", "folder", "zip", "zip", "zip"]):
        key = f"right{i}"
        student(key, f"Right Student{i}", MAX_POINTS)
        entry(key, GOOD, kind)
    # Wrong and partial: 4.
    for i in range(2):
        student(f"wrong{i}", f"Wrong Student{i}", 0)
        entry(f"wrong{i}", WRONG)
        student(f"partial{i}", f"Partial Student{i}", 7)
        entry(f"partial{i}", PARTIAL, "folder")
    # Late: 1 hour (one started day), 30 hours (two), 5 days (nothing left): 3.
    for i, (late, kept) in enumerate([(timedelta(hours=1), 0.75), (timedelta(hours=30), 0.5),
                                      (timedelta(days=5), 0.0)]):
        student(f"late{i}", f"Late Student{i}", MAX_POINTS * kept)
        entry(f"late{i}", GOOD, "folder", DEADLINE + late)
    # Broken: 2.
    student("broken0", "Broken Student0", 0)
    entry("broken0", BROKEN_SYNTAX)
    student("broken1", "Broken Student1", 0)
    entry("broken1", BROKEN_IMPORT, "zip")
    # Renamed by a browser download: 2 (the key is the roster's e-mail local part, the name around it differs).
    student("renamed0", "Renamed Student0", MAX_POINTS)
    entry("renamed0 (1)", GOOD, "folder")
    student("renamed1", "Renamed Student1", MAX_POINTS)
    entry("renamed1-final", GOOD, "zip")
    # Canvas download: a module and its helper; a late one; a re-submission: 3.
    for login, name, late, files in [
        ("doejane", "Jane Doe", False, {"demo.py": USES_HELPER, "helpers.py": HELPERS}),
        ("roesmith", "Smith Roe", True, {"demo-1.py": GOOD}),
        ("kimlee", "Lee Kim", False, {"demo.py": PARTIAL}),
    ]:
        sid = student(login, name, {"doejane": MAX_POINTS, "roesmith": MAX_POINTS * 0.75, "kimlee": 7}[login])
        for file, text in files.items():
            path = folder / f"{login}{'_late' if late else ''}_{sid[1:]}9_{sid[1:]}77_{file}"
            path.write_text(text)
            _touch(path)
        times[login] = DEADLINE + timedelta(hours=3) if late else ON_TIME
    # Hostile: 7.
    for key in ["infinite_loop", "os_exit", "huge_output", "edits_hidden", "writes_results", "always_equal",
                "kills_parent"]:
        student(f"hostile_{key}", f"Hostile {key.replace('_', ' ').title()}", 0)
        entry(f"hostile_{key}", HOSTILE[key])
    assert len(roster) == 30
    return roster, expected, times


def write_roster(roster: list[Student], path: Path) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["student_id", "name", "email"])
        for s in roster:
            writer.writerow([s.student_id, s.name, s.email])


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The class graded with minidb grade and merged with minidb gradebook: (root, expected, seconds)."""
    root = tmp_path_factory.mktemp("course")
    exercise = write_exercise(root)
    roster, expected, times = make_class(root / "submissions")
    write_roster(roster, root / "roster.csv")
    write_times(times, root / "submitted.csv")
    start = time.monotonic()
    code = main(["grade", str(root / "submissions"), "--exercise", str(exercise), "--out", str(root / "grades.csv"),
                 "--roster", str(root / "roster.csv"), "--deadline", DEADLINE.isoformat(), "--late-penalty",
                 str(PENALTY), "--submitted", str(root / "submitted.csv"), "--feedback-dir", str(root / "feedback"), "--jobs", "2", "--test-timeout", "4",
                 "--timeout", "60", "--no-progress"])
    seconds = time.monotonic() - start
    assert code == 0
    assert main(["gradebook", str(root / "grades.csv"), "--roster", str(root / "roster.csv"), "--format", "csv",
                 "--out", str(root / "lms.csv")]) == 0
    return root, expected, seconds


@needs_root
def test_thirty_submissions_grade_into_one_lms_csv(course):
    root, expected, seconds = course
    lms = pd.read_csv(root / "lms.csv", dtype={"student_id": str}).set_index("student_id")
    assert list(lms.columns) == ["name", "email", "05_demo", "total", "max", "percent"]
    assert len(lms) == 30
    got = lms["05_demo"].to_dict()
    assert got == pytest.approx(expected), {k: (got[k], v) for k, v in expected.items() if got[k] != v}
    assert (lms["max"] == MAX_POINTS).all()
    assert lms["percent"].to_dict() == pytest.approx({k: round(100 * v / MAX_POINTS, 1) for k, v in expected.items()})
    print(f"graded 30 submissions into one LMS CSV in {seconds:.1f} s (2 at a time)")


@needs_root
def test_grades_explain_lateness_and_errors(course):
    root, *_ = course
    grades = pd.read_csv(root / "grades.csv", keep_default_na=False, dtype=str).set_index("student")
    assert grades.loc["late1", "days_late"] == "2" and grades.loc["late1", "raw"] == str(MAX_POINTS)
    assert grades.loc["roesmith", "days_late"] == "1"
    assert "SyntaxError" in grades.loc["broken0", "error"]
    assert "no_such_module_for_sure" in grades.loc["broken1", "error"]
    assert grades.loc["hostile_infinite_loop", "error"].startswith("timed out:")


@needs_root
def test_feedback_files_explain_each_failure(course):
    root, *_ = course
    partial = (root / "feedback" / "partial0.md").read_text()
    assert "**7 / 10 points**" in partial and "## `test_demo.py::test_mul`" in partial
    assert "mul multiplies two numbers." in partial and "assert 7 == 12" in partial
    assert "minidb/grading" not in partial and "sandbox" not in partial, "no grader internals"
    broken = (root / "feedback" / "broken0.md").read_text()
    assert broken.count("SyntaxError") >= 1 and "Traceback" not in broken
    late = (root / "feedback" / "late0.md").read_text()
    assert "1 day(s) late" in late


def test_canvas_download_is_one_student_per_login(tmp_path):
    for name in ["doejane_12345_67890_bloom.py", "doejane_12345_67890_helpers.py",
                 "roesmith_late_222_333_bloom-1.py"]:
        (tmp_path / name).write_text("x = 1\n")
    subs = find_submissions(tmp_path)
    assert [(s.student, s.student_id, s.late) for s in subs] == [("doejane", "12345", False),
                                                                ("roesmith", "222", True)]
    out = subs[0].materialize(tmp_path / "out")
    assert sorted(p.name for p in out.iterdir()) == ["bloom.py", "helpers.py"]
    assert sorted(p.name for p in subs[1].materialize(tmp_path / "out2").iterdir()) == ["bloom.py"]


def test_gradescope_export_gives_ids_and_times(tmp_path):
    (tmp_path / "submission_101").mkdir()
    (tmp_path / "submission_101" / "bloom.py").write_text("x = 1\n")
    (tmp_path / "submission_metadata.yml").write_text(
        "submission_101:\n"
        "  :submitters:\n"
        "  - :name: Jane Doe\n"
        "    :sid: '4242'\n"
        "    :email: jane@uni.example\n"
        "  :created_at: 2026-11-21 10:30:00.000000000 +00:00\n"
    )
    (sub,) = find_submissions(tmp_path)
    assert (sub.student, sub.name, sub.email, sub.student_id) == ("4242", "Jane Doe", "jane@uni.example", "4242")
    assert sub.submitted == datetime(2026, 11, 21, 10, 30, tzinfo=timezone.utc)
    assert LatePolicy(DEADLINE, 0.1).days_late(sub.submitted) == 1


def test_roster_matching_and_errors(tmp_path):
    roster = [Student("1", "Jane Doe", "jd@uni.example"), Student("2", "Ann Lee", "al@uni.example", "annlee")]
    assert match(roster, "doejane").student_id == "1"
    assert match(roster, "whoever", email="JD@uni.example").student_id == "1"
    assert match(roster, "annlee").student_id == match(roster, "Ann Lee").student_id == "2"
    assert match(roster, "x", student_id="2").student_id == "2"
    assert match(roster, "nobody") is None
    assert match(roster, "annlee (1)").student_id == "2" and match(roster, "jd-final").student_id == "1"
    (tmp_path / "bad.csv").write_text("id,name\n1,x\n")
    with pytest.raises(ValueError, match="missing columns"):
        read_roster(tmp_path / "bad.csv")
    (tmp_path / "dup.csv").write_text("student_id,name,email\n1,a,a@x\n1,b,b@x\n")
    with pytest.raises(ValueError, match="listed twice"):
        read_roster(tmp_path / "dup.csv")


@pytest.mark.parametrize("late, kept", [(timedelta(0), 1.0), (timedelta(seconds=1), 0.9),
                                        (timedelta(days=1), 0.9), (timedelta(days=1, seconds=1), 0.8),
                                        (timedelta(days=20), 0.0)])
def test_late_policy_at_its_boundaries(late, kept):
    assert LatePolicy(DEADLINE, 0.1).factor(DEADLINE + late) == pytest.approx(kept)


def test_bad_deadlines_name_the_option():
    with pytest.raises(ValueError, match="--deadline"):
        parse_deadline("next friday")
    with pytest.raises(ValueError, match="timezone"):
        parse_deadline("2026-11-20T23:59")


def test_gradebook_merges_exercises_one_row_per_student(tmp_path):
    roster = [Student("1", "A", "a@x"), Student("2", "B", "b@x")]
    for exercise, rows in {"01_bloom": [("1", 25)], "02_btree_split": [("1", 20), ("2", 27)]}.items():
        pd.DataFrame([{"exercise": exercise, "student": sid, "student_id": sid, "total": t,
                       "max": 25 if exercise == "01_bloom" else 27} for sid, t in rows]).to_csv(
            tmp_path / f"{exercise}.csv", index=False)
    book = gradebook([read_grades(tmp_path / f"{e}.csv") for e in ("01_bloom", "02_btree_split")], roster)
    assert book.to_dict("records") == [
        {"student_id": "1", "name": "A", "email": "a@x", "01_bloom": 25.0, "02_btree_split": 20.0, "total": 45.0,
         "max": 52.0, "percent": 86.5},
        {"student_id": "2", "name": "B", "email": "b@x", "01_bloom": 0.0, "02_btree_split": 27.0, "total": 27.0,
         "max": 52.0, "percent": 51.9},
    ]
    pd.DataFrame([{"exercise": "01_bloom", "student": "zz", "student_id": "99", "total": 1, "max": 25}]).to_csv(
        tmp_path / "stranger.csv", index=False)
    with pytest.raises(ValueError, match="not in the roster: zz"):
        gradebook([read_grades(tmp_path / "stranger.csv")], roster)


def one_student_twice(folder: Path) -> Path:
    """A class where jdoe handed in twice (a folder renamed by a download, and a file) and the roster knows her once."""
    subs = folder / "subs"
    (subs / "jdoe (1)").mkdir(parents=True)
    (subs / "jdoe (1)" / "demo.py").write_text(WRONG)
    (subs / "jdoe.py").write_text(GOOD)
    (folder / "roster.csv").write_text("student_id,name,email\nS1,Jane Doe,jdoe@uni.example\n")
    return subs


def grade_args(folder: Path, *extra: str) -> list[str]:
    return ["grade", str(folder / "subs"), "--exercise", str(folder / "exercises" / "05_demo"), "--roster",
            str(folder / "roster.csv"), "--out", str(folder / "grades.csv"), "--no-progress", *extra]


def test_two_submissions_for_one_student_are_refused_naming_both(tmp_path, capsys):
    write_exercise(tmp_path)
    one_student_twice(tmp_path)
    assert main(grade_args(tmp_path)) == 2
    error = capsys.readouterr().err
    assert "two submissions for S1 (Jane Doe): jdoe, jdoe (1)" in error and error.count("\n") == 1, error
    assert not (tmp_path / "grades.csv").exists()
    # --latest needs the records to say which came last: file times do not count.
    assert main(grade_args(tmp_path, "--latest")) == 2
    assert "needs a distinct recorded time" in capsys.readouterr().err


@needs_root
def test_latest_grades_the_submission_handed_in_last(tmp_path):
    write_exercise(tmp_path)
    subs = one_student_twice(tmp_path)
    _touch(subs / "jdoe.py")  # dated 2020: ignored
    write_times({"jdoe": DEADLINE - timedelta(days=1), "jdoe (1)": DEADLINE - timedelta(hours=1)},
                tmp_path / "submitted.csv")
    assert main(grade_args(tmp_path, "--latest", "--submitted", str(tmp_path / "submitted.csv"))) == 0
    grades = pd.read_csv(tmp_path / "grades.csv", keep_default_na=False)
    assert grades["student"].tolist() == ["jdoe (1)"] and grades["total"].tolist() == [0]
    assert grades["note"].tolist() == ["the latest of 2; not graded: jdoe"]


def test_a_late_policy_without_recorded_times_is_refused(tmp_path, capsys):
    write_exercise(tmp_path)
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "alice.py").write_text(GOOD)
    _touch(tmp_path / "subs" / "alice.py")  # 2020: on time, if file times counted
    (tmp_path / "roster.csv").write_text("student_id,name,email\nS1,Alice Liddell,alice@uni.example\n")
    assert main(grade_args(tmp_path, "--deadline", DEADLINE.isoformat())) == 2
    assert "no recorded submission time for alice" in capsys.readouterr().err


def test_gradescope_autograder_layout_gives_the_recorded_time(tmp_path):
    (tmp_path / "ann" / "submission").mkdir(parents=True)
    (tmp_path / "ann" / "submission" / "bloom.py").write_text("x = 1\n")
    (tmp_path / "ann" / "submission_metadata.json").write_text(json.dumps(
        {"id": 1, "created_at": "2026-11-22T10:00:00.000000-07:00",
         "users": [{"email": "ann@uni.example", "id": 7, "name": "Ann Lee"}]}))
    _touch(tmp_path / "ann")
    (sub,) = find_submissions(tmp_path)
    assert (sub.student, sub.name, sub.email) == ("ann", "Ann Lee", "ann@uni.example")
    assert sub.submitted == datetime(2026, 11, 22, 17, 0, tzinfo=timezone.utc)
    assert sub.paths == (tmp_path / "ann" / "submission",)
