"""Bulk grading: ``minidb grade`` on a folder of submissions, each graded in its own process with time limits."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import zipfile

import pandas as pd
import pytest

from minidb.cli import main
from minidb.grading.grader import GradedTests, grade_submission
from minidb.grading.submissions import Submission, extract_zip, find_submissions
from minidb.grading.exercise import default_root, find_exercise

BLOOM = find_exercise(default_root(), "01")
NOT_ROOT = os.geteuid() != 0  # sandboxes are confined only as root: elsewhere these tests grade without the walls
UNSAFE = ["--unsafe-no-sandbox"] if NOT_ROOT else []
SOLUTION = (BLOOM.solution / "bloom.py").read_text()
NAME_LINE = 'return "leveldb.BuiltinBloomFilter2"'
SHORT_FILTER_LINE = "if len(filter) < 2:"


def variant(old: str, new: str, source: str = SOLUTION) -> str:
    """The reference solution with one line changed (the line must be there, or this test is stale)."""
    assert old in source, f"the reference solution no longer contains {old!r}"
    return source.replace(old, new)


@pytest.fixture
def class_folder(tmp_path):
    """A class's submissions: correct (folder), partial (zip), broken (syntax error), looping, crashing."""
    subs = tmp_path / "submissions"
    (subs / "alice").mkdir(parents=True)
    (subs / "alice" / "bloom.py").write_text(SOLUTION)
    # Partial: a wrong name, and short filters crash key_may_match (only the hidden test tries one).
    partial = variant(NAME_LINE, 'return "my.bloom"', variant(SHORT_FILTER_LINE, "if len(filter) < 0:"))
    with zipfile.ZipFile(subs / "bob.zip", "w") as z:
        z.writestr("bob/bloom.py", partial)
    (subs / "carol.py").write_text("def leveldb_hash(data, seed)\n    return 0\n")
    (subs / "dave").mkdir()
    (subs / "dave" / "bloom.py").write_text(variant(NAME_LINE, "while True: pass"))
    (subs / "eve.py").write_text(variant("nbits = max(64", "import os; os._exit(3)\n        nbits = max(64"))
    (subs / ".DS_Store").write_text("not a submission")
    return subs


def test_minidb_grade_writes_the_right_grades(class_folder, tmp_path, capsys):
    out = tmp_path / "grades.csv"
    start = time.monotonic()
    # A copy of the exercise in the test's private folder: as root, the checkout's world-readable hidden tests would
    # be refused (test_exposed.py).
    exercises = tmp_path / "exercises"
    shutil.copytree(BLOOM.folder, exercises / BLOOM.folder.name, ignore=shutil.ignore_patterns("__pycache__"))
    code = main([
        "grade", str(class_folder), "--exercise", "01", "--exercises-dir", str(exercises), "--out", str(out),
        "--jobs", "2",
        "--test-timeout", "5", "--timeout", "120", "--results-dir", str(tmp_path / "results"), *UNSAFE,
    ])
    elapsed = time.monotonic() - start
    assert code == 0
    assert elapsed < 100, f"bulk grading took {elapsed:.0f} s"
    grades = pd.read_csv(out, keep_default_na=False).set_index("student")
    assert list(grades.index) == ["alice", "bob", "carol", "dave", "eve"]
    tests = [c for c in grades.columns if "::" in c]
    assert "test_bloom.py::test_no_false_negatives" in tests
    full = grades["max"]["alice"]
    assert full == grades.loc["alice", tests].sum() and (grades["max"] == full).all()

    assert grades.loc["alice", "total"] == full and grades.loc["alice", "error"] == ""

    bob = grades.loc["bob"]
    lost = {t for t in tests if bob[t] == 0}
    assert lost == {"test_bloom.py::test_name", "test_bloom_hidden.py::test_leveldb_format"}
    assert bob["total"] == full - 1 - 2 and bob["error"] == ""

    carol = grades.loc["carol"]
    assert carol["total"] == 0 and (carol[tests] == 0).all()
    assert "SyntaxError" in carol["error"] and "carol.py, line 1" in carol["error"]

    dave = grades.loc["dave"]
    # dave's `name` loops: it costs the test of `name` and the engine test, since the engine stores the name.
    looped = {"test_bloom.py::test_name", "test_bloom_in_lsm.py::test_filter_saves_block_reads"}
    assert {t for t in tests if dave[t] == 0} == looped
    assert dave["total"] == full - sum(grades.loc["alice", t] for t in looped)
    assert dave["error"].startswith("timed out:") and all(t in dave["error"] for t in looped)

    # eve's create_filter ends its process: every test that builds a filter fails, the others pass (honestly).
    eve = grades.loc["eve"]
    assert {t for t in tests if eve[t] > 0} == {"test_bloom.py::test_leveldb_hash", "test_bloom.py::test_name"}
    eve_results = (tmp_path / "results" / "eve.json").read_text()
    assert "exited with code 3" in eve_results

    kept = sorted(p.name for p in (tmp_path / "results").iterdir())
    assert kept == ["alice.json", "bob.json", "carol.json", "dave.json", "eve.json"]
    printed = capsys.readouterr()
    # eve's crashes restart its sandbox at every Hypothesis example: that test may also run out of time.
    assert eve["error"] == "" or eve["error"].startswith("timed out: test_bloom.py::test_no_false_negatives")
    errors = int((grades["error"] != "").sum())
    assert "graded 5 submissions to exercise 01 (Bloom filter)" in printed.out
    assert f"{errors} with errors" in printed.out and errors in (2, 3)
    assert "grading 01_bloom" in printed.err, "the progress bar"


def test_wall_clock_limit_stops_what_the_test_limit_cannot(tmp_path, monkeypatch):
    # The per-test limit is generous here; the submission's whole run is not.
    # It swallows every alarm, so only killing the process stops it: its sandbox's folder must go all the same.
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("TMPDIR", str(temp))
    (tmp_path / "mallory.py").write_text(
        "import time\nwhile True:\n    try:\n        time.sleep(100)\n    except BaseException:\n        pass\n"
    )
    roster = GradedTests({"test_bloom.py::test_name": 1.0})
    start = time.monotonic()
    grade = grade_submission(BLOOM, Submission("mallory", (tmp_path / "mallory.py",)), roster, test_timeout=30,
                             submission_timeout=4, unsafe=NOT_ROOT)
    assert time.monotonic() - start < 20
    assert (grade.total, grade.max_score, grade.scores) == (0, 1.0, {"test_bloom.py::test_name": 0.0})
    assert grade.error == "grading stopped after 4 s (an infinite loop?)"
    assert list(temp.iterdir()) == []


def test_find_submissions(tmp_path):
    (tmp_path / "zoe").mkdir()
    (tmp_path / "yan.zip").write_bytes(b"")
    (tmp_path / "xia.py").write_text("")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / ".hidden").mkdir()
    assert [(s.student, s.path.name) for s in find_submissions(tmp_path)] == [
        ("xia", "xia.py"), ("yan", "yan.zip"), ("zoe", "zoe"),
    ]
    (tmp_path / "zoe.py").write_text("")
    with pytest.raises(ValueError, match="two submissions for 'zoe'"):
        find_submissions(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        find_submissions(tmp_path / "nowhere")


def test_unsafe_or_broken_zips_are_refused(tmp_path):
    with zipfile.ZipFile(tmp_path / "slip.zip", "w") as z:
        z.writestr("../../escaped.py", "x = 1\n")
    with pytest.raises(ValueError, match="points outside the archive"):
        extract_zip(tmp_path / "slip.zip", tmp_path / "out")
    assert not (tmp_path / "escaped.py").exists()
    (tmp_path / "junk.zip").write_bytes(b"not a zip at all")
    grade = grade_submission(BLOOM, Submission("junk", (tmp_path / "junk.zip",)), GradedTests({"t": 2.0}))
    assert (grade.total, grade.max_score) == (0, 2.0) and "not a valid zip file" in grade.error


def test_cli_errors_are_one_line_with_exit_code_2(tmp_path, capsys):
    (tmp_path / "subs").mkdir()
    assert main(["grade", str(tmp_path / "subs"), "--exercise", "99"]) == 2
    assert "no exercise '99'" in capsys.readouterr().err
    assert main(["grade", str(tmp_path / "subs"), "--exercise", "01"]) == 2
    assert "no submissions" in capsys.readouterr().err
    assert main(["grade", str(tmp_path / "missing"), "--exercise", "01"]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:  # argparse refuses it before any work
        main(["grade", str(tmp_path / "subs"), "--exercise", "01", "--jobs", "0"])
    assert exit_.value.code == 2
    assert "argument --jobs: bad integer '0'" in capsys.readouterr().err


def test_broken_exercise_is_reported_not_graded(tmp_path, capsys):
    # An exercise whose own test file does not import: every student would get zero, so nobody is graded.
    exercises = tmp_path / "exercises"
    shutil.copytree(BLOOM.folder, exercises / BLOOM.folder.name, ignore=shutil.ignore_patterns("__pycache__"))
    (exercises / BLOOM.folder.name / "test_broken.py").write_text("import no_such_module_anywhere\n")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "alice.py").write_text(SOLUTION)
    code = main(["grade", str(tmp_path / "subs"), "--exercise", "01", "--exercises-dir", str(exercises),
                 "--out", str(tmp_path / "g.csv"), "--no-progress", *UNSAFE])
    assert code == 1
    assert "grading the stub of 01_bloom failed" in capsys.readouterr().err
    assert not (tmp_path / "g.csv").exists()
