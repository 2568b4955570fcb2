"""Every instructor's command of exercises/README.md, run as written, in order, in a course laid out as the README
describes. (The students' commands run in a students' copy: test_students_path.py.)

The commands are the ``$ `` lines in ``console`` blocks of the README's section for instructors. They run in a
folder holding a copy of the exercises, a class's ``submissions/`` and ``roster.csv``; ``minidb`` and ``pytest`` are
this checkout's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from minidb.grading.exercise import default_root

ROOT = default_root().parent
# The README's grading commands confine the students' code, which needs root (a plain user is refused, by design).
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the README's grading commands need root")
README = ROOT / "exercises" / "README.md"
SOLUTION = (ROOT / "exercises" / "solutions" / "01_bloom" / "bloom.py").read_text()


def readme_commands() -> list[str]:
    """The ``$ `` lines of the console blocks of the README's section for instructors, in order."""
    instructors = README.read_text().split("## For instructors", 1)[1]
    blocks = re.findall(r"```console\n(.*?)```", instructors, flags=re.S)
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    return [line[2:].strip() for line in lines if line.startswith("$ ")]


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("readme") / "work"
    shutil.copytree(ROOT / "exercises", work / "exercises",
                    ignore=shutil.ignore_patterns("solutions", "__pycache__", "*.ipynb"))
    (work / "submissions" / "alice").mkdir(parents=True)
    (work / "submissions" / "alice" / "bloom.py").write_text(SOLUTION)
    (work / "submissions" / "bob.py").write_text((ROOT / "exercises" / "01_bloom" / "bloom.py").read_text())
    (work / "submitted.csv").write_text("student,submitted\nalice,2026-12-01T20:00:00+00:00\n"
                                        "bob,2026-12-02T09:00:00+00:00\n")
    (work / "roster.csv").write_text("student_id,name,email\n1,Alice Liddell,alice@uni.example\n"
                                     "2,Bob Builder,bob@uni.example\n")
    return work


@pytest.fixture(scope="module")
def ran(course) -> dict[str, subprocess.CompletedProcess]:
    """Each README command's run, by command."""
    shell = f'minidb() {{ "$PY" -m minidb.cli "$@"; }}; pytest() {{ "$PY" -m pytest -p no:cacheprovider "$@"; }}; '
    env = dict(os.environ, PY=sys.executable, ROOT=str(ROOT), PYTHONPATH=str(ROOT))
    runs = {}
    for command in readme_commands():
        runs[command] = subprocess.run(["bash", "-c", shell + command], cwd=course, env=env, capture_output=True,
                                       text=True, timeout=900)
    return runs


def test_the_readme_has_the_instructors_commands():
    commands = readme_commands()
    assert [c.split()[0] for c in commands if c.split()[0] not in ("minidb", "pytest")] == []
    for wanted in ("minidb release", "minidb autograder", "minidb grade", "minidb gradebook", "--sandbox"):
        assert any(wanted in c for c in commands), wanted


def test_every_command_runs_as_the_readme_says(ran):
    for command, run in ran.items():
        assert run.returncode == 0, f"{command}:\n{run.stdout}\n{run.stderr}"


def test_instructor_commands_do_what_the_readme_says(ran, course):
    release = course.parent / "course-release"
    assert (release / "exercises" / "01_bloom" / "bloom.ipynb").is_file()
    assert not list(release.rglob("*_hidden.py"))
    assert "exercises/01_bloom/test_bloom_hidden.py" in zipfile.ZipFile(course / "autograder-01.zip").namelist()
    results = json.loads((course / "results.json").read_text())
    assert results["score"] == 25
    grades = pd.read_csv(course / "grades-01.csv", keep_default_na=False, dtype={"student_id": str})
    assert dict(zip(grades["student"], grades["total"])) == {"alice": 25, "bob": 0}
    assert sorted(p.name for p in (course / "feedback").iterdir()) == ["alice.md", "bob.md"]
    book = pd.read_csv(course / "gradebook.csv", dtype=str, keep_default_na=False)  # Canvas's layout
    assert list(book.columns) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01_bloom"]
    assert book.iloc[0].tolist() == ["Points Possible", "", "", "", "", "25"]
    assert dict(zip(book["Student"][1:], book["01_bloom"][1:])) == {"Alice Liddell": "25", "Bob Builder": "0"}
    assert dict(zip(grades["student"], grades["days_late"])) == {"alice": 0, "bob": 1}
