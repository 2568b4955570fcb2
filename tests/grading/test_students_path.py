"""The students' steps of exercises/README.md, run as written, in a students' copy (students_copy.py).

The commands are the ``$ `` lines of the console blocks of the README's "For students" section, run in order in one
shell (a student's terminal: this checkout's venv is not on its PATH), from the course folder. ``make lab`` runs for
real up to JupyterLab, which is a stand-in that records how it was started.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from .students_copy import JUPYTER_LOG, ROOT, make, student_env

pytestmark = pytest.mark.xdist_group("students-path")  # its module fixtures run once, on one worker

README = ROOT / "exercises" / "README.md"
EXPECTED_EXIT = {"minidb check 01": 1, "pytest exercises/01_bloom": 1}  # on the stub, tests fail: exit 1
SECTION = re.compile(r"## For students\n(.*?)\n## For instructors", flags=re.S)


def student_commands() -> list[str]:
    """The ``$ `` lines of the console blocks of the README's section for students, in order."""
    blocks = re.findall(r"```console\n(.*?)```", SECTION.search(README.read_text()).group(1), flags=re.S)
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    return [line[2:].strip() for line in lines if line.startswith("$ ")]


def sample_output() -> list[str]:
    """The lines of the README's sample output of ``minidb check 01`` (its one ``text`` block)."""
    (block,) = re.findall(r"```text\n(.*?)```", README.read_text(), flags=re.S)
    return [line.strip() for line in block.splitlines() if line.strip()]


def in_shell(copy: Path, commands: list[str], cwd: Path | None = None) -> dict[str, tuple[int, str]]:
    """Run ``commands`` in order in one bash shell in ``cwd`` (the copy): each one's exit code and output."""
    marker = "=== exit"
    script = "\n".join(f"{command}\necho \"{marker} $?\"" for command in commands)
    run = subprocess.run(["bash", "-c", script], cwd=cwd or copy, env=student_env(), capture_output=True, text=True,
                         timeout=900, stdin=subprocess.DEVNULL)
    parts = run.stdout.split(marker)
    assert len(parts) == len(commands) + 1, f"the shell stopped early:\n{run.stdout}\n{run.stderr}"
    outputs = [parts[0]] + [part.split("\n", 1)[1] if "\n" in part else "" for part in parts[1:-1]]
    codes = [int(part.split("\n", 1)[0]) for part in parts[1:]]
    return {command: (code, output) for command, code, output in zip(commands, codes, outputs)}


@pytest.fixture(scope="module")
def ran(students_copy) -> dict[str, tuple[int, str]]:
    return in_shell(students_copy, student_commands())


def test_the_readme_gives_the_students_steps():
    commands = student_commands()
    assert commands[0] == "make lab" and "source .venv/bin/activate" in commands
    for wanted in ("minidb check 01", "minidb submit 01"):
        assert wanted in commands


def test_every_step_runs_as_the_readme_says(ran):
    for command, (code, output) in ran.items():
        assert code == EXPECTED_EXIT.get(command, 0), f"{command}:\n{output}"


def test_make_lab_starts_jupyterlab_with_the_course_commands_on_its_path(ran, students_copy):
    args, path = (students_copy / ".venv" / "bin" / JUPYTER_LOG).read_text().splitlines()
    assert args == "lab exercises"
    assert str(students_copy / ".venv" / "bin") in path.removeprefix("PATH=").split(os.pathsep)


def test_check_prints_what_the_readme_shows(ran):
    _, output = ran["minidb check 01"]
    lines = [line.strip() for line in output.splitlines()]
    missing = [line for line in sample_output() if line not in lines]
    assert not missing, output
    assert output.count("raised in your code at bloom.py") >= 10, "every failure of the stub points at its line"


def test_submit_writes_the_zip_in_the_exercise_folder(ran, students_copy):
    with zipfile.ZipFile(students_copy / "exercises" / "01_bloom" / "bloom-submission.zip") as z:
        assert z.namelist() == ["bloom.py"]


def test_the_steps_work_from_the_exercises_folder_and_an_exercise_folder(ran, students_copy):
    exercises = students_copy / "exercises"
    assert "jupyter lab exercises" in make(students_copy, "-n", "lab", cwd=exercises).stdout
    zipped = students_copy / "exercises" / "02_btree_split" / "leaf_split-submission.zip"
    found = in_shell(students_copy, ["source ../../.venv/bin/activate", "minidb submit"],
                     cwd=exercises / "02_btree_split")
    assert found["minidb submit"][0] == 0 and zipfile.ZipFile(zipped).namelist() == ["leaf_split.py"]


def test_a_second_make_lab_keeps_the_students_notebook(ran, students_copy):
    notebook = students_copy / "exercises" / "03_write_amp" / "write_amp.ipynb"
    work = json.loads(notebook.read_text())
    work["cells"].append({"cell_type": "markdown", "metadata": {}, "source": ["My notes: L1 fills first."]})
    edited = json.dumps(work)
    saved = notebook.with_suffix(".saving")
    saved.write_text(edited)
    os.replace(saved, notebook)  # whole, as an editor saves it: other tests read the copy's notebooks
    make(students_copy, "lab", cwd=students_copy / "exercises")
    assert notebook.read_text() == edited
