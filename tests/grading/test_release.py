"""The students' copy (``minidb release``) and the Gradescope autograder (``minidb autograder``), end to end.

The copy is the session's (``students_copy``, installed and built): its exercises are graded with its own Python,
on its engine, whose modules that answer an exercise are compiled only (test_hidden_answers.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
import zipfile
from pathlib import Path

import pytest

from minidb.cli import main
from minidb.grading.exercise import default_root, discover
from minidb.grading.release import write_notebooks

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


def test_autograder_zip_layout(autograder_zip):
    names = zipfile.ZipFile(autograder_zip).namelist()
    assert {"setup.sh", "run_autograder", "pyproject.toml", "setup.py"} <= set(names)
    assert "exercises/01_bloom/test_bloom_hidden.py" in names
    assert not [n for n in names if "solutions" in n or n.startswith(("book/", "exercises/02", "tests/"))]
    assert not [n for n in names if n.endswith((".so", ".whl"))], "no compiled file unless asked (--wheel)"
    setup = zipfile.ZipFile(autograder_zip).read("setup.sh").decode()
    assert '"$SOURCE[grading]"' in setup and "--no-build-isolation" not in setup
    for script in ("setup.sh", "run_autograder"):
        info = zipfile.ZipFile(autograder_zip).getinfo(script)
        assert info.external_attr >> 16 & 0o111, f"{script} is not executable"


def test_lean_extra_leaves_out_the_book_the_lab_and_the_cluster():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lean = " ".join(extras["dependencies"] + extras["optional-dependencies"]["grading"])
    for heavy in ("jupyter", "altair", "dask", "rocksdict", "apsw", "jupyterlab", "vl-convert"):
        assert heavy not in lean
    assert {"grading", "book", "lab", "real", "cluster"} <= set(extras["optional-dependencies"])
    makefile = (ROOT / "Makefile").read_text()
    installed = re.search(r"^EXTRAS := (.*)$", makefile, flags=re.M).group(1).split(",")
    assert set(installed) == set(extras["optional-dependencies"]), "make book and make test install every extra"


def test_setup_sh_is_valid_bash(autograder_zip, tmp_path):
    zipfile.ZipFile(autograder_zip).extract("setup.sh", tmp_path)
    subprocess.run(["bash", "-n", str(tmp_path / "setup.sh")], check=True)
