"""Hidden tests another user could read are refused, never graded: the sandbox's user is such a user.

An instructor's checkout made with the default umask leaves every file readable by others. As root, ``minidb
grade``, ``pytest --sandbox`` and the Gradescope autograder refuse to grade such an exercise, naming the files and
the ``chmod`` to run, and leave the instructor's permissions as they are; Gradescope's ``run_autograder``, which owns
its container, makes its source folder private itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from minidb.cli import main
from minidb.grading import autograde
from minidb.grading.activation import plugin_args
from minidb.grading.exercise import load_exercise
from minidb.grading.grader import graded_tests
from minidb.grading.release import GRADED_TESTS, RUN_AUTOGRADER
from minidb.grading.sandbox import exposed_hidden_tests, readable_by_others

from .hostile import GOOD, MAX_POINTS, write_exercise

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the check guards a sandbox's own uid: root only")


@pytest.fixture
def open_exercise():
    """The demo exercise in a folder of its own under /tmp, every folder 0755 and every file 0644."""
    root = Path(tempfile.mkdtemp(prefix="minidb-exposed-", dir="/tmp"))
    folder = write_exercise(root)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    yield folder
    shutil.rmtree(root)


def test_readable_means_the_file_and_every_folder_above_it(open_exercise):
    hidden = open_exercise / "test_demo_hidden.py"
    assert readable_by_others(hidden)
    assert exposed_hidden_tests(open_exercise) == [hidden]
    open_exercise.chmod(0o750)  # a folder others cannot enter hides what is in it
    assert exposed_hidden_tests(open_exercise) == []
    open_exercise.chmod(0o755)
    hidden.chmod(0o640)
    assert exposed_hidden_tests(open_exercise) == []


def test_minidb_grade_refuses_naming_the_file_and_the_chmod(open_exercise, tmp_path, capsys):
    hidden = open_exercise / "test_demo_hidden.py"
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "alice.py").write_text(GOOD)
    args = ["grade", str(tmp_path / "subs"), "--exercise", "05", "--exercises-dir", str(open_exercise.parent),
            "--out", str(tmp_path / "grades.csv"), "--no-progress"]
    assert main(args) == 2
    error = capsys.readouterr().err
    assert f"chmod o-r {hidden}" in error and error.count("\n") == 1, error
    assert not (tmp_path / "grades.csv").exists()
    assert hidden.stat().st_mode & 0o777 == 0o644, "the instructor's permissions were changed"
    hidden.chmod(0o640)  # as the error says
    assert main(args) == 0
    assert "alice" in (tmp_path / "grades.csv").read_text()


def test_pytest_sandbox_refuses(open_exercise, pytester):
    student = pytester.path / "alice.py"
    student.write_text(GOOD)
    result = pytester.runpytest_inprocess(str(open_exercise), *plugin_args(), "--sandbox", "--student",
                                          str(student), "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"chmod o-r {open_exercise / 'test_demo_hidden.py'}" in result.stderr.str()


def test_autograde_refuses_but_run_autograder_makes_its_source_private(open_exercise, capsys):
    # Laid out as Gradescope's /autograder: the exercise under source/exercises, world-readable as unzipped.
    root = open_exercise.parent.parent
    source = root / "source"
    source.mkdir()
    (open_exercise.parent).rename(source / "exercises")
    exercise = source / "exercises" / open_exercise.name
    (root / "submission").mkdir()
    (root / "submission" / "demo.py").write_text(GOOD)
    results = root / "results" / "results.json"
    for path in [source, root / "submission"]:
        path.chmod(0o755)
    argv = ["--exercise", str(exercise), "--submission", str(root / "submission"), "--results", str(results)]
    assert autograde.main(argv) == 2
    assert "chmod o-r" in capsys.readouterr().err
    assert not results.exists()
    script = root / "run_autograder"
    script.write_text(RUN_AUTOGRADER.format(exercise=exercise.name, tests=GRADED_TESTS))
    (source / GRADED_TESTS).write_text(json.dumps(graded_tests(load_exercise(exercise), unsafe=True).points))
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable)
    run = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert json.loads(results.read_text())["score"] == MAX_POINTS
    assert exposed_hidden_tests(exercise) == []
