"""A students' copy holds no exercise's answer in readable form, for every exercise, and its book still runs.

Two searches, both over every file the release wrote (students_copy.py):

* **the reference solutions' logic**: every line of the solutions' function bodies that the stub and the public
  tests do not already give (comments and spaces dropped), alone if long, else two in a row, as whole lines of any
  file; every function of the copy's Python whose body is a solution's, statement for statement; and any mention
  of a solution outside the grading tools, the book's own exercise blocks and the exercises' README (a docstring
  such as "a plain-Python version of this is exercise 01's solution");
* **the engine's own answers** (each exercise's ``answered_by``): not there as .py or .pyx, there as C under
  ``csrc/`` (so the engine still runs), and that C quotes none of the module's docstrings nor any line of its code.

The same searches run on this checkout, where the engine's answers are readable, must find one: a search that
finds nothing anywhere would prove nothing.
"""

from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import tokenize
from functools import cache
from pathlib import Path

import pytest

from minidb.grading.compiled_answers import c_path
from minidb.grading.exercise import Exercise, default_root, discover
from minidb.grading.release import HIDDEN_TESTS, RELEASED, instructors_only, project_files

from .students_copy import ROOT, released_files, student_env

EXERCISES = discover(default_root())
LONG_LINE = 32  # characters but spaces: a line this long is distinctive on its own; shorter ones count in pairs
SHORTEST = 16  # characters of a line of code the C must not quote
# Where the word "solution" is the tools' or the book's, not an answer's: the grader and the course's commands
# (which keep the solutions out), the book's chapter exercises (and the extension that draws them, in
# pyproject.toml), the exercises' README for instructors.
MAY_SAY_SOLUTION = ("minidb/grading/", "minidb/commands/", "book/", "exercises/README.md", "pyproject.toml")
SOLUTION = re.compile(r"\bsolutions?\b", re.IGNORECASE)
COMMENT = re.compile(r"\s#.*$")  # a trailing comment, near enough for a search


def code_lines(source: str) -> list[str]:
    """The lines of Python ``source`` without their comments and without spaces (``x[: i + 1]`` and ``x[:i+1]`` are
    one line of code); blank ones dropped."""
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, column = token.start
            lines[row - 1] = lines[row - 1][:column]
    return ["".join(line.split()) for line in lines if line.strip()]


def functions(tree: ast.AST):
    """Every function and method of ``tree``, with its body minus its docstring."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            if body:
                yield node, body


@cache
def solution_logic(exercise: Exercise) -> tuple[frozenset[str], frozenset[str]]:
    """The reference solution's distinctive body lines, and its function bodies as AST dumps; what the stub or the
    public tests show (a constant, a formula a property test checks against) is given, not an answer."""
    source = (exercise.solution / exercise.stub.name).read_text(encoding="utf-8")
    stub_source = exercise.stub.read_text(encoding="utf-8")
    public = [p for p in exercise.folder.glob("test_*.py") if not p.match(HIDDEN_TESTS)]
    stub_lines = {line for path in [exercise.stub, *public] for line in code_lines(path.read_text(encoding="utf-8"))}
    stub_bodies = {dump(body) for _, body in functions(ast.parse(stub_source))}
    lines, bodies = set(), set()
    for _, body in functions(ast.parse(source)):
        segment = code_lines("\n".join(ast.get_source_segment(source, statement, padded=True) for statement in body))
        lines |= {line for line in segment if len(line) >= LONG_LINE and line not in stub_lines}
        # A short line (``for key in keys:``) is anyone's; two in a row (``nbytes = (nbits + 7) // 8`` then
        # ``nbits = nbytes * 8``) are this solution's.
        lines |= {f"{a}\n{b}" for a, b in zip(segment, segment[1:]) if not {a, b} <= stub_lines}
        bodies |= {dump(body)} - stub_bodies  # a body the stub gives (a one-line helper) is no answer
    return frozenset(lines), frozenset(bodies)


def dump(body: list[ast.stmt]) -> str:
    """A function body as a comparable string: its statements, whatever their layout and comments."""
    return ast.dump(ast.Module(body=body, type_ignores=[]))


def readable_text(path: Path) -> str:
    """What a reader sees of ``path``: a notebook's cells, else the file as text."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n".join("".join(cell["source"]) for cell in cells)
    return path.read_bytes().decode("utf-8", "replace")


def code_text(text: str) -> str:
    """``text`` with its lines normalised as ``code_lines`` does (comments cut where a ``#`` follows a space, in any
    file: the search looks for lines of code, whatever holds them), each line between newlines."""
    lines = ("".join(COMMENT.sub("", line).split()) for line in text.splitlines())
    return "\n" + "\n".join(line for line in lines if line) + "\n"


@cache
def copy_texts(copy: Path) -> dict[str, str]:
    """Every file the release wrote, as ``readable_text``, by path relative to the copy."""
    return {path.relative_to(copy).as_posix(): readable_text(path) for path in released_files(copy)}


@cache
def checkout_texts() -> dict[str, str]:
    """The same for what a release would copy from this checkout if it left every module readable."""
    files = [f for f in project_files(ROOT, RELEASED) if not instructors_only(f)]
    return {str(f): readable_text(ROOT / f) for f in files}


@cache
def copy_code(copy: Path) -> dict[str, str]:
    """``code_text`` of every file the release wrote."""
    return {name: code_text(text) for name, text in copy_texts(copy).items()}


@cache
def checkout_code() -> dict[str, str]:
    """``code_text`` of every file a release would copy from this checkout."""
    return {name: code_text(text) for name, text in checkout_texts().items()}


def found_lines(exercise: Exercise, texts: dict[str, str]) -> dict[str, list[str]]:
    """The solution's lines found in ``texts`` (as ``code_text``), by file."""
    lines, _ = solution_logic(exercise)
    found = {name: sorted(line for line in lines if f"\n{line}\n" in text) for name, text in texts.items()}
    return {name: hits for name, hits in found.items() if hits}


def found_bodies(exercise: Exercise, root: Path, names) -> list[str]:
    """The functions of the Python files ``names`` (under ``root``) whose body is one of the solution's."""
    _, bodies = solution_logic(exercise)
    found = []
    for name in names:
        if name.endswith(".py"):
            for node, body in functions(ast.parse((root / name).read_text(encoding="utf-8"))):
                if dump(body) in bodies:
                    found.append(f"{name}: {node.name}")
    return found


def saying_solution(texts: dict[str, str]) -> list[str]:
    """The lines of ``texts`` that mention a solution, outside the files that may (MAY_SAY_SOLUTION)."""
    return [f"{name}: {line}" for name, text in texts.items() if not name.startswith(MAY_SAY_SOLUTION)
            for line in text.splitlines() if SOLUTION.search(line)]


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder.name)
def test_the_copy_holds_no_line_of_the_reference_solution(students_copy, exercise):
    assert solution_logic(exercise)[0], "the solution has lines to look for"
    found = found_lines(exercise, copy_code(students_copy))
    assert not found, f"the reference solution's logic is in the students' copy: {found}"
    assert not found_bodies(exercise, students_copy, copy_texts(students_copy))


def test_the_copy_names_no_solution(students_copy):
    assert saying_solution(copy_texts(students_copy)) == []


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.folder.name)
def test_the_engines_answer_is_in_the_copy_as_c_only(students_copy, exercise):
    for module in exercise.answered_by:
        assert not (students_copy / module).exists(), f"{module}: the answer's source is in the copy"
        c = (students_copy / c_path(module)).read_text(encoding="utf-8")
        source = (ROOT / module).read_text(encoding="utf-8")
        quoted = [line.strip() for line in source.splitlines()
                  if len(line.strip()) >= SHORTEST and not line.strip().startswith(("#", '"', "f\"", "'"))
                  and line.strip() in c]
        assert not quoted, f"{c_path(module)} quotes {module}: {quoted[:3]}"
        docstrings = re.findall(r'"""(.{20,}?)(?:\n|""")', source)
        assert docstrings and not [d for d in docstrings if d in c], f"{c_path(module)} holds a docstring"


def test_the_searches_find_the_answers_where_they_are_readable():
    """The searches have teeth: in this checkout they find the solutions' logic in the engine's bloom filter, split
    policy, torn-page repair and bottleneck law, and bloom.pyx's docstring naming the solution; and every module an
    exercise lists as its answer is here."""
    found = {exercise.folder.name: found_lines(exercise, checkout_code()) for exercise in EXERCISES}
    assert "minidb/lsm/bloom.pyx" in found["01_bloom"]
    assert "minidb/btree/split_policy.py" in found["02_btree_split"]
    assert "minidb/btree/torn_page_repair.py" in found["05_doublewrite"]
    assert "minidb/sim/bottleneck.py" in found["06_device_model"]
    assert [hit for hit in saying_solution(checkout_texts()) if hit.startswith("minidb/lsm/bloom.pyx: ")]
    for exercise in EXERCISES:
        for module in exercise.answered_by:
            assert (ROOT / module).is_file(), f"{exercise.folder.name}: answered_by {module} is not in the checkout"


def test_the_book_runs_in_the_copy(students_copy):
    """A chapter that runs both engines and the time model, executed in the copy as `make book` would."""
    chapter = students_copy / "book" / "chapters" / "02_two_engines.md"
    script = ("import jupytext, nbclient, sys; nb = jupytext.read(sys.argv[1]); "
              "nbclient.NotebookClient(nb, timeout=600, kernel_name='python3', "
              "resources={'metadata': {'path': sys.argv[2]}}).execute()")
    run = subprocess.run([str(students_copy / ".venv" / "bin" / "python"), "-c", script, str(chapter),
                          str(chapter.parent)], capture_output=True, text=True, cwd=students_copy,
                         env=dict(student_env(), MINIDB_SCALE="tiny"), timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
