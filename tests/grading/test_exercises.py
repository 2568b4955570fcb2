"""The tests of the tests: every exercise's graded tests fail on its stub and pass on its reference solution.

Exercises are discovered (every ``exercises/NN_topic/exercise.toml``), so a new exercise is covered by adding it.
A graded test that passes on the stub gives points for nothing; one that fails on the solution takes them for
nothing. Each exercise's notebook must also run from top to bottom against the solution.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

# The exercises plug into the engines, whose C extensions (and numpy under them) load once per process; the
# in-process inner pytest runs below restore sys.modules after each run, so the engines are imported here first.
import minidb.btree  # noqa: F401
import minidb.experiments.f4_cloud_iops  # noqa: F401  (pandas, numpy: exercise 06 runs chapter 6's experiment)
import minidb.lsm  # noqa: F401
from minidb.grading.activation import plugin_args
from minidb.grading.exercise import default_root, discover, load_exercise

pytest_plugins = ["pytester"]

EXERCISES = discover(default_root())


def test_exercises_are_found():
    assert [e.folder.name for e in EXERCISES][:1] == ["01_bloom"]


def grade(pytester: pytest.Pytester, exercise, student: Path | None, *extra: str) -> tuple[pytest.RunResult, dict]:
    """Grade ``student`` (None: the stub) on ``exercise`` in this process: the run and its results.json."""
    results = pytester.path / "results.json"
    args = [str(exercise.folder), *plugin_args(), "--gradescope-json", str(results), "-p", "no:cacheprovider",
            *extra]
    if student is not None:
        args += ["--student", str(student)]
    return pytester.runpytest_inprocess(*args), json.loads(results.read_text())


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder.name)
def test_layout(exercise):
    assert exercise.stub.is_file(), f"{exercise.folder.name}: no stub {exercise.stub.name}"
    assert (exercise.solution / exercise.stub.name).is_file(), f"{exercise.folder.name}: no reference solution"
    assert (exercise.folder / "conftest.py").is_file()
    notebooks = list(exercise.folder.glob("*.md"))
    assert len(notebooks) == 1 and notebooks[0].read_text().startswith("---\njupytext:"), "one MyST notebook"
    assert "NotImplementedError" in exercise.stub.read_text()


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder.name)
def test_every_graded_test_fails_on_the_stub_and_passes_on_the_solution(pytester, exercise):
    # One run of each: the stub's run also says which tests are graded, which must be the solution's.
    result, on_stub = grade(pytester, exercise, None)
    assert on_stub["tests"], "no graded tests collected"
    passing = [t["name"] for t in on_stub["tests"] if t["status"] != "failed" or t["score"] != 0]
    assert not passing, f"graded tests that give points to the stub: {passing}"
    assert on_stub["score"] == 0
    result.stdout.fnmatch_lines([f"*= grade: 0 / {sum(t['max_score'] for t in on_stub['tests']):g} points =*"])

    result, results = grade(pytester, exercise, exercise.solution)
    failing = {t["name"]: t["output"] for t in results["tests"] if t["status"] != "passed"}
    assert not failing, f"graded tests the reference solution fails: {failing}"
    max_score = sum(t["max_score"] for t in results["tests"])
    assert results["score"] == max_score > 0
    assert results["extra_data"]["max_score"] == max_score
    result.stdout.fnmatch_lines([
        f"*= grade: {max_score:g} / {max_score:g} points =*", f"total * {max_score:g} / {max_score:g}",
    ])
    # The same tests are graded whatever the module: the stub's run lists them all too.
    assert [t["name"] for t in on_stub["tests"]] == [t["name"] for t in results["tests"]]
    assert [t["max_score"] for t in on_stub["tests"]] == [t["max_score"] for t in results["tests"]]


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder.name)
def test_solution_as_a_single_file_in_the_sandbox(pytester, exercise):
    # --student also takes the module file itself, whatever it is called; and the tests pass through the sandbox's
    # stand-in module (sandbox.Remote) as they do on the module itself.
    renamed = pytester.path / f"alice_{exercise.module}.py"
    shutil.copy(exercise.solution / exercise.stub.name, renamed)
    # Graded from a copy in the test's private folder, as minidb grade does: as root, --sandbox refuses the
    # checkout's own hidden tests while other users may read them (test_exposed.py).
    copy = pytester.path / "exercises" / exercise.folder.name
    shutil.copytree(exercise.folder, copy, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    unsafe = ["--unsafe-no-sandbox"] if os.geteuid() != 0 else []  # confined only as root
    _, results = grade(pytester, load_exercise(copy), renamed, "--sandbox", *unsafe)
    assert results["score"] == sum(t["max_score"] for t in results["tests"])


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder.name)
def test_notebook_runs_against_the_solution(tmp_path, exercise):
    jupytext = pytest.importorskip("jupytext")
    nbclient = pytest.importorskip("nbclient")
    # The notebook imports the module beside it: run it in a folder where that module is the solution.
    shutil.copy(exercise.solution / exercise.stub.name, tmp_path)
    (notebook,) = exercise.folder.glob("*.md")
    nb = jupytext.read(notebook)
    nbclient.NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
