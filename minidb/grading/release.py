"""What leaves the instructor's tree: the students' copy (``minidb release``) and a Gradescope autograder zip.

The instructor's tree holds everything: the engine, the book, the exercises with their stubs, public tests, hidden
tests (``test_*_hidden.py``) and, in ``exercises/solutions/``, the reference solutions.

* ``build_release(root, out)`` copies the project's files into ``out`` minus what only instructors may have: the
  solutions, the hidden tests, and the source of the engine modules that answer an exercise (its ``answered_by``),
  which the copy holds as C only (``compiled_answers.py``). Every exercise notebook (MyST Markdown) also gets an
  ``.ipynb`` beside it, for students whose tools do not read MyST.
* ``build_autograder(root, exercise, zip_path)`` packs what Gradescope needs for one exercise: the engine's and the
  grader's source (installed by ``setup.sh`` with pyproject.toml's ``[grading]`` extra: no book, no Jupyter), that
  exercise with its hidden tests (no solution), ``setup.sh`` and ``run_autograder``.

Exercises are found by their ``exercise.toml`` (``exercise.discover``), so a new exercise is released with no change
here.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath

from .compiled_answers import compile_answers, cython_version, pin_cython
from .exercise import HIDDEN_TESTS, Exercise, discover

GRADED_TESTS = "graded-tests.json"  # in the autograder: the exercise's graded tests and points, from its stub's run
SOLUTIONS = "solutions"  # exercises/solutions/: the reference solutions, instructors' only
RELEASED = ("minidb", "book", "data", "exercises", "README.md", "pyproject.toml", "setup.py", "Makefile", ".gitignore")
AUTOGRADED = ("minidb", "data", "README.md", "pyproject.toml", "setup.py")  # plus the one exercise
NEVER = ("*.so", "*.pyc", "__pycache__", ".ipynb_checkpoints", "_build", ".pytest_cache", ".hypothesis", "*.egg-info")

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
# Base image: Ubuntu 22.04, Gradescope's default, whose python3 is 3.10: Ubuntu's python3.11 package is installed
# beside it. An image whose python3 is 3.11 or newer (Ubuntu 24.04: 3.12) uses its own. The engine and the grader
# (pyproject.toml's [grading] extra: no book, no Jupyter) go into a virtual environment of their own, ROOT/venv,
# built from this folder with that Python's own pip, their C extensions compiled here.
# AUTOGRADER_ROOT (default /autograder) exists for trying it elsewhere.
set -euo pipefail
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="${AUTOGRADER_ROOT:-/autograder}"
recent() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; }
PYTHON=python3
recent "$PYTHON" || PYTHON=python3.11
headers() { [ -e "$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ]; }
install() {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if ! recent "$PYTHON" || ! headers || ! command -v cc >/dev/null || [ ! -e /usr/include/zlib.h ]; then
  install "$PYTHON" "$PYTHON-dev" "$PYTHON-venv" build-essential zlib1g-dev
fi
rm -rf "$ROOT/venv"
"$PYTHON" -m venv "$ROOT/venv" || { install "$PYTHON-venv" && "$PYTHON" -m venv "$ROOT/venv"; }
# A wheel shipped in wheels/ (minidb autograder --wheel) saves compiling, if this Python and system take it.
WHEEL="$(ls "$SOURCE"/wheels/*.whl 2>/dev/null | head -n 1 || true)"
if [ -z "$WHEEL" ] || ! "$ROOT/venv/bin/python" -m pip install --quiet "$WHEEL[grading]"; then
  "$ROOT/venv/bin/python" -m pip install --quiet "$SOURCE[grading]"
fi
# The sandbox runs this Python as a user of its own; the hidden tests stay readable by root only.
chmod -R a+rX "$ROOT/venv"
chmod -R go-rwx "$SOURCE"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission, as root, with no arguments. AUTOGRADER_ROOT (default /autograder),
# AUTOGRADER_PYTHON (default: the Python setup.sh installed into) and arguments passed on to the grader
# (python -m minidb.grading.autograde --help) exist for trying it elsewhere.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{AUTOGRADER_PYTHON:-$ROOT/venv/bin/python}}"
# Again at each run (the grader refuses to grade while the hidden tests are readable by a sandbox's user).
chmod -R go-rwx "$ROOT/source"
cd "$ROOT"
# -I: the installed engine, never the source folder's uncompiled copy, and nothing from the environment.
exec "$PYTHON" -I -m minidb.grading.autograde --exercise "$ROOT/source/exercises/{exercise}" \\
    --tests "$ROOT/source/{tests}" --submission "$ROOT/submission" --results "$ROOT/results/results.json" "$@"
"""


def instructors_only(relative: PurePosixPath) -> bool:
    """Whether a project file (path relative to the root) must not reach students."""
    parts = relative.parts
    if len(parts) >= 2 and parts[0] == "exercises" and parts[1] == SOLUTIONS:
        return True
    return fnmatch.fnmatch(relative.name, HIDDEN_TESTS)


def project_files(root: Path, top: tuple[str, ...]) -> list[PurePosixPath]:
    """The project's files under the entries ``top``: git's tracked and untracked-but-not-ignored files in a git
    checkout, else every file but build outputs and caches."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard", "--", *top],
            capture_output=True, text=True, check=True,
        ).stdout.splitlines()
        files = [PurePosixPath(f) for f in listed if (root / f).is_file()]
    except (OSError, subprocess.CalledProcessError):
        files = [PurePosixPath(p.relative_to(root).as_posix()) for name in top for p in
                 ([root / name] if (root / name).is_file() else sorted((root / name).rglob("*"))) if p.is_file()]
    return [f for f in files if not any(fnmatch.fnmatch(part, pattern) for part in f.parts for pattern in NEVER)]


def _copy(root: Path, files: list[PurePosixPath], out: Path) -> None:
    for relative in files:
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / relative, target)


def _fresh(out: Path) -> None:
    """Make ``out`` a new empty folder; ValueError if something is there already (never overwrite)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{out} already exists and is not an empty folder: choose a new one")
    out.mkdir(parents=True, exist_ok=True)


def write_notebooks(folder: Path) -> list[Path]:
    """An ``.ipynb`` beside every MyST Markdown notebook in the exercise folders under ``folder`` that has none yet;
    the notebooks written. One that exists is the student's work, and is never written over: to start a notebook
    afresh, delete its ``.ipynb`` and run this again."""
    import jupytext

    written = []
    for exercise in discover(folder):
        for md in sorted(exercise.folder.glob("*.md")):
            target = md.with_suffix(".ipynb")
            if md.read_text(encoding="utf-8").startswith("---\njupytext:") and not target.exists():
                jupytext.write(jupytext.read(md), target)
                written.append(target)
    return written


def answer_modules(root: Path) -> list[str]:
    """The engine modules of the project at ``root`` that answer an exercise (``answered_by``), each once; ValueError
    naming the exercise if one is not in the project."""
    modules: list[str] = []
    for exercise in discover(root / "exercises"):
        for module in exercise.answered_by:
            if not (root / module).is_file():
                raise ValueError(f"{exercise.folder / 'exercise.toml'}: answered_by names {module}, which is not in "
                                 f"{root}")
            if module not in modules:
                modules.append(module)
    return modules


def build_release(root: Path, out: Path) -> list[PurePosixPath]:
    """Write the students' copy of the project at ``root`` into the new folder ``out``; the files written."""
    out = out.resolve()
    answers = answer_modules(root)
    _fresh(out)
    files = [f for f in project_files(root, RELEASED) if not instructors_only(f)]
    _copy(root, files, out)
    compiled = compile_answers(out, answers)
    pyproject = out / "pyproject.toml"
    pyproject.write_text(pin_cython(pyproject.read_text(encoding="utf-8"), cython_version()), encoding="utf-8")
    notebooks = write_notebooks(out / "exercises")
    kept = [f for f in files if str(f) not in answers]
    return kept + compiled + [PurePosixPath(n.relative_to(out).as_posix()) for n in notebooks]


def main(argv: list[str] | None = None) -> int:
    """``python -m minidb.grading.release --notebooks FOLDER``: write the exercises' missing .ipynb (``make lab``)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m minidb.grading.release")
    parser.add_argument("--notebooks", type=Path, required=True, metavar="FOLDER", help="the exercises folder")
    args = parser.parse_args(argv)
    for path in write_notebooks(args.notebooks):
        print(f"wrote {path}")
    return 0


def build_wheel(root: Path, out: Path) -> Path:
    """The engine's wheel for this Python, built from the checkout ``root`` into the folder ``out`` (fast once
    ``make build`` has compiled the extensions: setup.py takes them); ValueError with pip's last words if it fails."""
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                          "--wheel-dir", str(out), str(root)], capture_output=True, text=True)
    wheels = sorted(out.glob("minidb_workbench-*.whl"))
    if run.returncode != 0 or not wheels:
        raise ValueError(f"building the engine's wheel failed: {run.stderr.strip()[-500:]}")
    return wheels[-1]


def build_autograder(root: Path, exercise: Exercise, zip_path: Path, tests: dict[str, float],
                     wheel: Path | None = None) -> list[str]:
    """Write the Gradescope autograder zip of ``exercise`` to ``zip_path``; the names it holds. ``tests``: its
    graded tests and points (``grader.graded_tests``), shipped so that each submission's run need not grade the stub
    again; ``wheel``: the engine's wheel (``build_wheel``) to ship in ``wheels/``, which setup.sh installs where it
    fits."""
    if zip_path.exists():
        raise ValueError(f"{zip_path} already exists: choose a new name")
    files = [f for f in project_files(root, AUTOGRADED) if not instructors_only(f)]
    exercise_files = sorted(p for p in exercise.folder.rglob("*") if p.is_file())
    names = []
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        for relative in files:
            z.write(root / relative, str(relative))
            names.append(str(relative))
        for path in exercise_files:
            relative = PurePosixPath(path.relative_to(exercise.folder).as_posix())
            if any(fnmatch.fnmatch(part, pattern) for part in relative.parts for pattern in (*NEVER, "*.ipynb")):
                continue
            name = f"exercises/{exercise.folder.name}/{relative}"
            z.write(path, name)
            names.append(name)
        if wheel is not None:
            z.write(wheel, f"wheels/{wheel.name}")
            names.append(f"wheels/{wheel.name}")
        extra = {"setup.sh": SETUP_SH, "run_autograder": RUN_AUTOGRADER.format(exercise=exercise.folder.name,
                                                                               tests=GRADED_TESTS),
                 GRADED_TESTS: json.dumps(tests, indent=1) + "\n"}
        for name, text in extra.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16  # executable once unzipped
            z.writestr(info, text)
            names.append(name)
    return names


if __name__ == "__main__":
    raise SystemExit(main())
