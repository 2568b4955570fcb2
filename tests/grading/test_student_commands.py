"""``minidb check`` and ``minidb submit`` on a student's copy of an exercise, in a folder a browser renamed."""

from __future__ import annotations

import csv
import os
import shutil
import zipfile

import pytest

from minidb.cli import main
from minidb.commands import check
from minidb.grading.exercise import default_root, find_exercise

pytest_plugins = ["pytester"]

BLOOM = find_exercise(default_root(), "01")


@pytest.fixture
def renamed(tmp_path, monkeypatch):
    """Exercise 01 as a student's download renamed it, holding the solution and a helper; cwd is its parent."""
    folder = tmp_path / "exercises" / "01_bloom (1)"
    shutil.copytree(BLOOM.folder, folder, ignore=shutil.ignore_patterns("__pycache__", "*_hidden.py"))
    shutil.copy(BLOOM.solution / "bloom.py", folder / "bloom.py")
    (folder / "my_helpers.py").write_text("SEED = 0xBC9F1D34\n")
    monkeypatch.chdir(tmp_path)
    return folder


def test_check_passes_on_the_solution_under_any_folder_name(renamed, capsys):
    assert main(["check", str(renamed)]) == 0
    out = capsys.readouterr().out
    assert "FAILED" not in out and out.rstrip().splitlines()[-1].startswith("total 23 / 23 points")


def test_check_fails_with_what_was_expected(renamed, capsys):
    (renamed / "bloom.py").write_text((BLOOM.solution / "bloom.py").read_text().replace(
        'return "leveldb.BuiltinBloomFilter2"', 'return "mine"'))
    assert main(["check", str(renamed)]) == 1
    out = capsys.readouterr().out
    assert "FAILED  0/1  test_bloom.py::test_name" in out and "total 22 / 23 points" in out
    assert "AssertionError: assert 'mine' == 'leveldb.BuiltinBloomFilter2'" in out


def test_submit_packs_the_module_and_helpers_only(renamed, tmp_path, capsys):
    assert main(["submit", str(renamed), "-o", str(tmp_path / "out.zip")]) == 0
    assert sorted(zipfile.ZipFile(tmp_path / "out.zip").namelist()) == ["bloom.py", "my_helpers.py"]
    assert main(["submit", str(renamed), "-o", str(tmp_path / "out.zip")]) == 2
    assert "already exists" in capsys.readouterr().err


def test_submit_refuses_code_that_does_not_compile(renamed, tmp_path, capsys):
    (renamed / "my_helpers.py").write_text("def broken(:\n")
    assert main(["submit", str(renamed), "-o", str(tmp_path / "out.zip")]) == 2
    assert "my_helpers.py, line 1" in capsys.readouterr().err
    assert not (tmp_path / "out.zip").exists()


def test_submit_without_the_module_says_so(renamed, tmp_path, capsys):
    (renamed / "bloom.py").unlink()
    assert main(["submit", str(renamed)]) == 2
    assert "no bloom.py" in capsys.readouterr().err


def test_check_and_submit_need_no_argument_inside_an_exercise(renamed, monkeypatch, capsys):
    monkeypatch.chdir(renamed)
    assert main(["check"]) == 0
    assert capsys.readouterr().out.startswith("Bloom filter (01_bloom (1)): public tests of bloom")
    assert main(["submit"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert zipfile.ZipFile(renamed / "bloom-submission.zip").namelist() == ["bloom.py", "my_helpers.py"]
    monkeypatch.chdir(renamed.parent.parent)  # the course folder: no exercise here
    assert main(["check"]) == 2
    assert "name the exercise" in capsys.readouterr().err


def test_check_shows_the_line_of_your_code_that_raised(renamed, capsys):
    (renamed / "bloom.py").write_text((BLOOM.solution / "bloom.py").read_text().replace(
        "        nbits = (len(filter) - 1) * 8\n", "        nbits = (len(filter) - 1) * 8\n        nbits //= 0\n"))
    assert main(["check", str(renamed)]) == 1
    out = capsys.readouterr().out
    line = next(i for i, text in enumerate((renamed / "bloom.py").read_text().splitlines(), 1) if "//= 0" in text)
    assert "ZeroDivisionError: integer division or modulo by zero" in out
    assert f"raised in your code at bloom.py, line {line}, in key_may_match\n              nbits //= 0" in out


LOOPS = '''
def add(a, b):
    return a + b
def mul(a, b):
    while a:
        a = a + 1 - 1
    return 0
def spin():
    return "done"
'''
LONG = "x" * 400  # an error message longer than any screen line


def test_check_says_which_test_runs_and_where_it_was_looping(demo, monkeypatch, capsys):
    (demo / "demo.py").write_text(LOOPS)
    monkeypatch.setattr(check, "ANNOUNCE_AFTER", 0.5)
    assert main(["check", str(demo), "--timeout", "1.5"]) == 1
    out = capsys.readouterr().out
    assert "  ...     test_demo.py::test_mul[2]: running for 1 s of its 1.5" in out
    assert "TIMEOUT 0/1.5  test_demo.py::test_mul[2]" in out
    assert "looping in your code at demo.py, line 5, in mul\n              while a:" in out or (
        "looping in your code at demo.py, line 6, in mul\n              a = a + 1 - 1" in out)
    assert "passed  2/2  test_demo.py::test_add" in out


def test_check_never_cuts_a_message_short(demo, capsys):
    (demo / "demo.py").write_text(f"def add(a, b):\n    raise ValueError({LONG!r})\n")
    main(["check", str(demo)])
    assert f"ValueError: {LONG}\n" in capsys.readouterr().out


def test_check_and_grade_give_the_same_score(renamed, tmp_path, capsys):
    """``check`` grades what ``submit`` hands in as ``grade`` does: a module importing the engine, which once got
    full marks from one and none from the other, scores the same in both."""
    wrong = (BLOOM.solution / "bloom.py").read_text().replace('return "leveldb.BuiltinBloomFilter2"', 'return "mine"')
    (renamed / "bloom.py").write_text(wrong + "\nimport minidb.units  # the engine, in the sandbox too\n")
    main(["check", str(renamed)])
    checked = capsys.readouterr().out.rstrip().splitlines()[-1]
    (tmp_path / "handed-in").mkdir()
    assert main(["submit", str(renamed), "-o", str(tmp_path / "handed-in" / "alice.zip")]) == 0
    sandbox = [] if os.geteuid() == 0 else ["--unsafe-no-sandbox"]  # as root, the jailed sandbox `grade` uses
    main(["grade", str(tmp_path / "handed-in"), "--exercise", "01", "--exercises-dir", str(renamed.parent),
          "--out", str(tmp_path / "grades.csv"), "--no-progress", *sandbox])
    with open(tmp_path / "grades.csv", newline="") as f:
        (row,) = csv.DictReader(f)
    assert checked == "total 22 / 23 points (hidden tests count too when you are graded)"
    assert float(row["total"]) == 22, row


def test_a_looping_line_is_read_only_from_the_students_own_files(tmp_path):
    """The stack a timed-out sandbox prints names files, and its folder can hold links: a name leading out of the
    folder, through ``..`` or a link, gives no line rather than another file's."""
    from minidb.grading.sandbox import _line_of

    folder, secret = tmp_path / "submission", tmp_path / "secret.txt"
    folder.mkdir()
    secret.write_text("the grader's secret\n")
    (folder / "bloom.py").write_text("x = 1\nwhile True:\n    pass\n")
    (folder / "link.py").symlink_to(secret)
    assert _line_of(folder, "bloom.py", 2) == "while True:"
    assert _line_of(folder, "bloom.py", 9) == "" and _line_of(folder, "bloom.py", 0) == ""
    assert _line_of(folder, "../secret.txt", 1) == "" and _line_of(folder, "link.py", 1) == ""
