"""The students' copy (``minidb release``) and the Gradescope autograder (``minidb autograder``), end to end.

The copy is the session's (``students_copy``, installed and built): its exercises are graded with its own Python,
on its engine, whose modules that answer an exercise are compiled only (test_hidden_answers.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from minidb.cli import main
from minidb.grading.exercise import default_root, discover
from minidb.grading.release import write_notebooks

from .hostile import HOSTILE
from .students_copy import released_files, student_env

ROOT = default_root().parent
EXERCISES = discover(default_root())


@pytest.fixture(scope="module")
def release(students_copy) -> Path:
    return students_copy


def test_release_holds_no_solution_and_no_hidden_test(release):
    files = released_files(release)
    assert not (release / "exercises" / "solutions").exists()
    assert not [p for p in files if p.name.endswith("_hidden.py")]
    solutions = {p.read_bytes() for e in EXERCISES for p in e.solution.rglob("*.py")}
    hidden = {p.read_bytes() for e in EXERCISES for p in e.folder.glob("test_*_hidden.py")}
    assert solutions and hidden
    assert not [p for p in files if p.read_bytes() in solutions | hidden]
    # Nor a hidden test's body pasted elsewhere.
    for e in EXERCISES:
        for test in e.folder.glob("test_*_hidden.py"):
            name = next(line for line in test.read_text().splitlines() if line.startswith("def test_"))
            assert not [p for p in files if p.suffix in (".py", ".md") and name in p.read_text()]


def test_release_has_the_engine_the_book_and_notebooks(release):
    assert (release / "minidb" / "lsm").is_dir() and (release / "book" / "_toc.yml").is_file()
    for e in EXERCISES:
        folder = release / "exercises" / e.folder.name
        assert (folder / e.stub.name).read_text() == e.stub.read_text()
        notebook = json.loads(next(folder.glob("*.ipynb")).read_text())
        assert notebook["nbformat"] == 4 and len(notebook["cells"]) > 3


def test_notebooks_are_written_only_where_missing(tmp_path):
    shutil.copytree(EXERCISES[0].folder, tmp_path / EXERCISES[0].folder.name,
                    ignore=shutil.ignore_patterns("*.ipynb", "__pycache__"))
    (written,) = write_notebooks(tmp_path)
    assert written.suffix == ".ipynb" and json.loads(written.read_text())["nbformat"] == 4
    written.write_text("the student's work")
    assert write_notebooks(tmp_path) == [] and written.read_text() == "the student's work"
    written.unlink()  # deleted, to start afresh
    assert write_notebooks(tmp_path) == [written]


def test_release_refuses_to_overwrite(release, capsys):
    assert main(["release", str(release)]) == 2
    assert "already exists" in capsys.readouterr().err


def run_pytest(folder: Path, student: Path | None, tmp: Path, python: Path) -> dict:
    results = tmp / "results.json"
    args = [str(python), "-m", "pytest", str(folder), "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
            "--gradescope-json", str(results)]
    if student is not None:
        args += ["--student", str(student)]
    subprocess.run(args, cwd=tmp, capture_output=True, check=False, env=student_env())
    return json.loads(results.read_text())


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder.name)
def test_released_public_tests_fail_on_the_starter_and_pass_on_the_solution(release, exercise, tmp_path):
    folder = release / "exercises" / exercise.folder.name
    python = release / ".venv" / "bin" / "python"
    on_stub = run_pytest(folder, None, tmp_path, python)
    assert on_stub["tests"] and on_stub["score"] == 0
    assert not [t for t in on_stub["tests"] if t["visibility"] != "visible"], "no hidden test in the release"
    on_solution = run_pytest(folder, exercise.solution, tmp_path, python)
    assert on_solution["score"] == on_solution["extra_data"]["max_score"] > 0


# -- the autograder ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("autograder") / "bloom.zip"
    assert main(["autograder", "01", "-o", str(out)]) == 0
    return out


def gradescope_root(zip_path: Path, root: Path, submission: dict[str, str]) -> Path:
    """A folder laid out like Gradescope's /autograder: source/ (the unzipped autograder), submission/, results/.

    setup.sh's install is replaced by this checkout's compiled extensions, copied beside their sources."""
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(root / "source")
    for built in ROOT.glob("minidb/**/*.so"):
        target = root / "source" / built.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)
    (root / "submission").mkdir()
    for name, text in submission.items():
        (root / "submission" / name).write_text(text)
    (root / "results").mkdir()
    return root


def run_autograder(root: Path) -> dict:
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable,
               PYTHONPATH=str(root / "source"))
    subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True, check=False,
                   timeout=600)
    return json.loads((root / "results" / "results.json").read_text())


def test_autograder_zip_layout(autograder_zip):
    names = zipfile.ZipFile(autograder_zip).namelist()
    assert {"setup.sh", "run_autograder", "requirements-grading.txt"} <= set(names)
    assert "exercises/01_bloom/test_bloom_hidden.py" in names
    assert not [n for n in names if "solutions" in n or n.startswith(("book/", "exercises/02", "tests/"))]
    requirements = zipfile.ZipFile(autograder_zip).read("requirements-grading.txt").decode()
    assert "pytest" in requirements and "jupyter" not in requirements and "altair" not in requirements
    for script in ("setup.sh", "run_autograder"):
        info = zipfile.ZipFile(autograder_zip).getinfo(script)
        assert info.external_attr >> 16 & 0o111, f"{script} is not executable"


def test_setup_sh_is_valid_bash(autograder_zip, tmp_path):
    zipfile.ZipFile(autograder_zip).extract("setup.sh", tmp_path)
    subprocess.run(["bash", "-n", str(tmp_path / "setup.sh")], check=True)


def test_run_autograder_grades_the_solution_in_full(autograder_zip, tmp_path):
    solution = (EXERCISES[0].solution / "bloom.py").read_text()
    results = run_autograder(gradescope_root(autograder_zip, tmp_path, {"bloom.py": solution}))
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) == 25
    hidden = [t for t in results["tests"] if t["name"].startswith("test_bloom_hidden.py")]
    assert hidden and all(t["visibility"] == "after_published" for t in hidden)


def test_run_autograder_gives_a_hostile_submission_nothing(autograder_zip, tmp_path):
    results = run_autograder(gradescope_root(autograder_zip, tmp_path, {"bloom.py": HOSTILE["writes_results"]}))
    assert results["score"] == 0 and len(results["tests"]) > 5
    assert "importing bloom failed" in results["output"]
