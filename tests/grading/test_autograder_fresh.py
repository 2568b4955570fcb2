"""The Gradescope autograder, built and run as Gradescope does, in an environment that has nothing of ours.

One module-scoped run: ``minidb autograder 01 --wheel`` builds the zip; it is unpacked into an empty folder laid
out like Gradescope's ``/autograder``; ``setup.sh`` runs with ``python3`` being the oldest Python the project
supports (``requires-python``), making its virtual environment with that Python's own pip and setuptools; then
``run_autograder`` grades a solution, the stub and a half answer, each in a folder of its own (as each Gradescope
submission gets a container of its own) sharing that environment. Every results.json is checked against
Gradescope's specification (docs/specs.md of gradescope/autograder_samples: a top-level ``score``, and ``tests``
entries with ``name``, ``score``, ``max_score``, ``visibility`` and ``output``).

The zip ships the engine compiled for this Python, which setup.sh installs with its dependencies from the package
index (the lean ``[grading]`` extra: seconds with pip's cache). Where no shipped wheel fits, setup.sh compiles the
source; ``test_the_source_builds_with_the_fresh_pip`` checks that path's packaging (the one the old setuptools of
a fresh environment broke) without compiling: the extensions are the same files the wheel carries.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from minidb.cli import main
from minidb.grading.exercise import default_root, find_exercise

pytestmark = pytest.mark.xdist_group("autograder-fresh")  # its module fixture runs once, on one worker

ROOT = default_root().parent
BLOOM = find_exercise(default_root(), "01")
VISIBILITIES = {"visible", "hidden", "after_due_date", "after_published"}
HALF = """

def _not_written(self, *args):
    raise NotImplementedError("the other half")


BloomFilterPolicy.create_filter = _not_written
BloomFilterPolicy.key_may_match = _not_written
"""


def oldest_python() -> Path | None:
    """An interpreter of the oldest Python pyproject.toml accepts, with its headers and venv module, or None."""
    spec = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    major, minor = map(int, re.fullmatch(r">=\s*(\d+)\.(\d+)", spec).groups())
    name = f"python{major}.{minor}"
    for candidate in (Path(sys.base_prefix) / "bin" / name, shutil.which(name)):
        if candidate and Path(candidate).is_file():
            ok = subprocess.run([str(candidate), "-c", "import ensurepip, sysconfig, os, sys; sys.exit(not os.path."
                                 "exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))"])
            if ok.returncode == 0:
                return Path(candidate)
    return None


def unpack(zip_path: Path, root: Path, submission: dict[str, str]) -> Path:
    """A Gradescope /autograder laid out under ``root``: source/ (the zip), submission/, results/."""
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(root / "source")
    (root / "submission").mkdir(parents=True)
    for name, text in submission.items():
        (root / "submission" / name).write_text(text)
    (root / "results").mkdir()
    return root


def run_autograder(root: Path, python: Path) -> tuple[dict, str]:
    """Run ``root``'s run_autograder as Gradescope does (from /autograder, as root): (results.json, its stdout)."""
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=str(python))
    unsafe = [] if os.geteuid() == 0 else ["--unsafe-no-sandbox"]  # without root the autograder refuses
    run = subprocess.run(["bash", str(root / "source" / "run_autograder"), *unsafe], env=env, cwd=root,
                         capture_output=True, text=True, timeout=600)
    results = root / "results" / "results.json"
    assert results.exists(), run.stdout + run.stderr
    return json.loads(results.read_text()), run.stdout


@pytest.fixture(scope="module")
def autograded(tmp_path_factory, record_testsuite_property):
    """Setup once, three submissions graded: (results by submission, stdout by submission, setup's seconds, the
    environment's python)."""
    python = oldest_python()
    if python is None:
        pytest.skip("no interpreter of the oldest supported Python with its headers and venv module here")
    tmp = tmp_path_factory.mktemp("gradescope")
    zip_path = tmp / "autograder.zip"
    assert main(["autograder", "01", "-o", str(zip_path), "--wheel"]) == 0
    (tmp / "bin").mkdir()
    (tmp / "bin" / "python3").symlink_to(python)
    first = unpack(zip_path, tmp / "solution", {"bloom.py": (BLOOM.solution / "bloom.py").read_text()})
    start = time.monotonic()
    setup = subprocess.run(["bash", str(first / "source" / "setup.sh")], capture_output=True, text=True,
                           env=dict(os.environ, PATH=f"{tmp / 'bin'}:/usr/bin:/bin", AUTOGRADER_ROOT=str(first)),
                           timeout=900)
    seconds = time.monotonic() - start
    assert setup.returncode == 0, setup.stdout + setup.stderr
    record_testsuite_property("gradescope_setup_seconds", round(seconds, 1))
    venv_python = first / "venv" / "bin" / "python"
    roots = {
        "solution": first,
        "stub": unpack(zip_path, tmp / "stub", {"bloom.py": BLOOM.stub.read_text()}),
        "half": unpack(zip_path, tmp / "half", {"bloom.py": (BLOOM.solution / "bloom.py").read_text() + HALF}),
    }
    with ThreadPoolExecutor(max_workers=3) as pool:
        runs = dict(zip(roots, pool.map(lambda r: run_autograder(r, venv_python), roots.values())))
    return {k: r for k, (r, _) in runs.items()}, {k: out for k, (_, out) in runs.items()}, seconds, venv_python


def test_setup_made_its_own_environment_from_the_oldest_python(autograded):
    *_, seconds, venv_python = autograded
    version = subprocess.run([str(venv_python), "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout
    assert version.strip() == str(tuple(map(int, re.findall(r"\d+", tomllib.loads(
        (ROOT / "pyproject.toml").read_text())["project"]["requires-python"]))))
    pip = subprocess.run([str(venv_python), "-m", "pip", "list", "--format=json"], capture_output=True, text=True,
                         check=True).stdout
    installed = {p["name"].lower() for p in json.loads(pip)}
    assert {"minidb-workbench", "pytest", "hypothesis", "numpy"} <= installed
    assert not installed & {"jupyter-book", "altair", "jupyterlab", "dask", "rocksdict", "apsw"}, "not lean"
    print(f"setup.sh took {seconds:.0f} s")


@pytest.mark.parametrize("which", ["solution", "stub", "half"])
def test_results_follow_gradescope_spec(autograded, which):
    results, *_ = autograded
    r = results[which]
    assert isinstance(r["score"], (int, float)) and isinstance(r["tests"], list) and r["tests"]
    for test in r["tests"]:
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
        assert 0 <= test["score"] <= test["max_score"]
        assert test["visibility"] in VISIBILITIES
        assert isinstance(test["output"], str)
    assert r["score"] == pytest.approx(sum(t["score"] for t in r["tests"]))
    json.dumps(r)  # plain JSON all through


def test_solution_stub_and_half_answer_score_what_they_deserve(autograded):
    results, stdout, *_ = autograded
    full = sum(t["max_score"] for t in results["solution"]["tests"])
    assert results["solution"]["score"] == full == 25
    assert results["stub"]["score"] == 0
    half = {t["name"]: t["score"] for t in results["half"]["tests"]}
    assert half["test_bloom.py::test_leveldb_hash"] == 2 and half["test_bloom.py::test_name"] == 1
    assert half["test_bloom.py::test_no_false_negatives"] == 0
    assert 0 < results["half"]["score"] < full
    hidden = [t for t in results["solution"]["tests"] if t["name"].startswith("test_bloom_hidden.py")]
    assert hidden and all(t["visibility"] == "after_published" for t in hidden)
    if os.geteuid() == 0:
        assert all(r["extra_data"]["confinement"] == "full" for r in results.values()), stdout


def test_the_source_builds_with_the_fresh_pip(autograded, tmp_path):
    # What setup.sh does when no shipped wheel fits: pip builds the source, in an isolated environment that gets
    # the setuptools pyproject.toml asks for (the fresh environment's own is too old for its license field).
    *_, venv_python = autograded
    source = venv_python.parents[2] / "source"
    run = subprocess.run([str(venv_python), "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir",
                          str(tmp_path), str(source)], capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, MINIDB_EXTENSIONS="0"))
    assert run.returncode == 0, run.stderr
    assert list(tmp_path.glob("minidb_workbench-*.whl"))
