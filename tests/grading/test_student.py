"""Finding and importing a submission's module (minidb.grading.student), and reading exercise folders."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from minidb.grading.exercise import discover, exercise_of, find_exercise, find_root, load_exercise
from minidb.grading.student import SubmissionError, load, locate, your_code


def test_locate_file_folder_and_nested(tmp_path):
    (tmp_path / "alice_bloom.py").write_text("x = 1\n")
    assert locate(tmp_path / "alice_bloom.py", "bloom") == tmp_path / "alice_bloom.py", "a file is the module"
    nested = tmp_path / "bob" / "handin" / "bloom.py"
    nested.parent.mkdir(parents=True)
    nested.write_text("x = 2\n")
    (tmp_path / "bob" / "__MACOSX" / "bloom.py").parent.mkdir()
    (tmp_path / "bob" / "__MACOSX" / "bloom.py").write_text("archive junk\n")
    assert locate(tmp_path / "bob", "bloom") == nested
    # The shallowest copy wins: a student's own backup folder below does not make it ambiguous.
    (tmp_path / "bob" / "bloom.py").write_text("x = 3\n")
    assert locate(tmp_path / "bob", "bloom") == tmp_path / "bob" / "bloom.py"


@pytest.mark.parametrize(
    "files, message",
    [
        ({}, r"no bloom.py \(nor package bloom/\)"),
        ({"a/bloom.py": "", "b/bloom.py": ""}, "more than one bloom module"),
        ({"notes.txt": ""}, "no bloom.py"),
    ],
)
def test_locate_errors_name_the_problem(tmp_path, files, message):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    with pytest.raises(SubmissionError, match=message):
        locate(tmp_path, "bloom")
    with pytest.raises(SubmissionError, match="not a Python file"):
        (tmp_path / "bloom.ipynb").write_text("{}")
        locate(tmp_path / "bloom.ipynb", "bloom")


def test_load_registers_module_and_unload_restores(tmp_path):
    (tmp_path / "helper_for_grading_test.py").write_text("VALUE = 41\n")
    (tmp_path / "sub.py").write_text(
        "import colorsys\nimport helper_for_grading_test\nANSWER = helper_for_grading_test.VALUE + 1\n"
    )
    sys.modules.pop("colorsys", None)  # so that the submission is the first to import this library
    stub = sys.modules["grading_test_mod"] = ModuleType("grading_test_mod")  # as if the stub were imported
    loaded = load("grading_test_mod", tmp_path / "sub.py")
    try:
        assert loaded.module.ANSWER == 42, "a sibling helper module is importable"
        assert sys.modules["grading_test_mod"] is loaded.module
        assert str(tmp_path) == sys.path[-1], "the folder is appended, never ahead of the standard library"
    finally:
        loaded.unload()
    assert sys.modules.pop("grading_test_mod") is stub, "the module it shadowed is back"
    assert "helper_for_grading_test" not in sys.modules
    assert "colorsys" in sys.modules, "libraries the submission imported stay: C extensions cannot load twice"
    assert str(tmp_path) not in sys.path


@pytest.mark.parametrize(
    "source, message",
    [
        ("def f(:\n", r"SyntaxError: .* \(bad.py, line 1\)"),
        ("import no_such_module_xyz\n", "ModuleNotFoundError: No module named 'no_such_module_xyz'"),
        ("raise RuntimeError('boom')\n", "RuntimeError: boom"),
        ("import sys\nsys.exit(3)\n", r"it called sys.exit\(3\)"),
    ],
)
def test_load_failure_is_a_submission_error_and_leaves_nothing(tmp_path, source, message):
    (tmp_path / "bad.py").write_text(source)
    before = set(sys.modules)
    with pytest.raises(SubmissionError, match=message):
        load("grading_test_bad", tmp_path / "bad.py")
    assert set(sys.modules) <= before and str(tmp_path) not in sys.path


def write_exercise(root, name="03_write_amp", toml='title = "Write amplification"\nmodule = "writeamp"\n'):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "exercise.toml").write_text(toml)
    return folder


def test_exercise_folder_is_read(tmp_path):
    folder = write_exercise(tmp_path)
    exercise = load_exercise(folder)
    assert (exercise.number, exercise.title, exercise.module) == ("03", "Write amplification", "writeamp")
    assert exercise.answered_by == ()
    assert exercise.stub == folder / "writeamp.py"
    assert exercise.solution == tmp_path / "solutions" / "03_write_amp"
    assert exercise_of(folder / "test_x.py") == exercise
    assert find_exercise(tmp_path, "3") == find_exercise(tmp_path, "03_write_amp") == exercise
    assert discover(tmp_path) == [exercise]
    with pytest.raises(ValueError, match="no exercise '7'.*03_write_amp"):
        find_exercise(tmp_path, "7")


@pytest.mark.parametrize("name", ["01_bloom (1)", "01_bloom-mine", "bloom"])
def test_an_exercise_folder_works_under_any_name(tmp_path, name):
    # A browser download renames folders; only exercise.toml makes an exercise.
    folder = write_exercise(tmp_path, name, 'title = "Bloom filter"\nmodule = "bloom"\n')
    exercise = load_exercise(folder)
    assert (exercise.module, exercise.number) == ("bloom", "01" if name[0] == "0" else "")
    assert find_exercise(tmp_path, name) == exercise == discover(tmp_path)[0]


@pytest.mark.parametrize(
    "name, toml, message",
    [
        ("04_x", 'title = "x"\nmodule = "not a name"\n', "'module' must be a Python module name"),
        ("04_x", 'module = "m"\n', "'title' must be a non-empty string"),
        ("04_x", 'title = "x"\nmodule = "m"\npoints = 3\n', "unknown keys"),
        ("04_x", "title = \n", "not valid TOML"),
        ("04_x", 'title = "x"\nmodule = "m"\nanswered_by = "minidb/lsm/bloom.pyx"\n', "'answered_by' must be a list"),
        ("04_x", 'title = "x"\nmodule = "m"\nanswered_by = ["../secret.py"]\n', "'answered_by' must be a list"),
        ("04_x", 'title = "x"\nmodule = "m"\nanswered_by = ["minidb/lsm/bloom.c"]\n', "'answered_by' must be a list"),
    ],
)
def test_bad_exercise_folders_are_value_errors(tmp_path, name, toml, message):
    folder = write_exercise(tmp_path, name, toml)
    with pytest.raises(ValueError, match=message):
        load_exercise(folder)


def test_the_exercises_are_found_from_anywhere_in_the_course(tmp_path):
    folder = write_exercise(tmp_path / "course" / "exercises")
    (folder / "sub").mkdir()
    for start in (tmp_path / "course", tmp_path / "course" / "exercises", folder, folder / "sub"):
        assert find_root(start) == tmp_path / "course" / "exercises"


def your_code_of(folder: Path, source: str, call: str) -> str | None:
    """The note ``your_code`` writes for the error ``call`` raises once ``source`` is imported from ``folder``."""
    module = load("grading_test_frames", _write(folder / "mine.py", source))
    try:
        eval(call, {"mine": module.module})
    except Exception as e:  # noqa: BLE001 - any error will do
        return your_code(e, folder)
    finally:
        module.unload()
    raise AssertionError(f"{call} raised nothing")


def _write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


def test_your_code_lists_the_students_lines_innermost_last(tmp_path):
    _write(tmp_path / "helpers.py", "def divide(a, b):\n    return a / b\n")
    note = your_code_of(tmp_path, """
        from helpers import divide

        def ratio(a, b):
            return divide(a, b)
    """, "mine.ratio(1, 0)")
    assert note.splitlines() == [
        "in your code:",
        '  File "mine.py", line 5, in ratio',
        "    return divide(a, b)",
        '  File "helpers.py", line 2, in divide',
        "    return a / b",
    ]


def test_your_code_is_none_when_the_error_is_not_in_the_students_code(tmp_path):
    assert your_code_of(tmp_path, "def answer():\n    return 41\n", "[][mine.answer()]") is None
    # Tests and conftest.py sit beside the student's module in an exercise folder: they are not the student's.
    _write(tmp_path / "test_mine.py", "def check(f):\n    assert f() == 42\n")
    note = your_code_of(tmp_path, "from test_mine import check\ndef answer():\n    return check(lambda: 41)\n",
                        "mine.answer()")
    assert note.splitlines() == ["in your code:", '  File "mine.py", line 3, in answer', "    return check(lambda: 41)"]
