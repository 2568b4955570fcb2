"""What an exercise is, as the grading tools see it: a folder ``exercises/NN_topic/`` with an ``exercise.toml``.

The folder holds the student's notebook, the *stub* module (the starting point, whose functions raise
``NotImplementedError``), the graded tests and a ``conftest.py`` that hands the tests the module under test. The
reference solution lives in ``exercises/solutions/NN_topic/``. ``exercise.toml`` names the module a submission must
provide::

    title = "Bloom filter"
    module = "bloom"        # a submission provides bloom.py (or a package bloom/); the stub is bloom.py here
    answered_by = ["minidb/lsm/bloom.pyx"]  # the engine's own code that answers it (optional)

``answered_by`` lists the engine modules (paths from the project's root) whose code is an answer to the exercise:
the engine's own version of the part the student writes. A students' copy (``minidb release``) has them compiled
only (``compiled_answers.py``), so the engine and the book work as ever but the answer cannot be read.

The number ``NN`` comes from the folder name, so it is written in one place only. Only ``exercise.toml`` makes a
folder an exercise: a student's copy renamed by a browser download (``01_bloom (1)``, ``01_bloom-mine``) still works.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

CONFIG = "exercise.toml"  # the file that marks a folder as an exercise
HIDDEN_TESTS = "test_*_hidden.py"  # the files of hidden tests: instructors' only, never in a students' copy
NUMBER = re.compile(r"^(\d+)")  # the exercise number: the folder name's leading digits


@dataclass(frozen=True)
class Exercise:
    """One exercise folder and what its ``exercise.toml`` declares."""

    folder: Path  # exercises/NN_topic, absolute
    number: str  # "01": the folder name's leading digits ("" if it has none)
    title: str  # shown in tables and notebooks
    module: str  # the module a submission provides: <module>.py or a package <module>/
    answered_by: tuple[str, ...] = ()  # engine modules (paths from the project root) whose code answers it

    @property
    def stub(self) -> Path:
        """The stub module handed to students: ``<module>.py`` in the exercise folder."""
        return self.folder / f"{self.module}.py"

    @property
    def solution(self) -> Path:
        """The folder of the reference solution: ``exercises/solutions/NN_topic/``."""
        return self.folder.parent / "solutions" / self.folder.name


def load_exercise(folder: str | Path) -> Exercise:
    """The exercise in ``folder``; ValueError naming the file if its name or ``exercise.toml`` is wrong."""
    folder = Path(folder).resolve()
    match = NUMBER.match(folder.name)
    config_path = folder / CONFIG
    try:
        config = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"exercise folder {folder} has no {CONFIG}") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{config_path}: not valid TOML: {e}") from None
    unknown = set(config) - {"title", "module", "answered_by"}
    if unknown:
        raise ValueError(f"{config_path}: unknown keys {sorted(unknown)} (expected title, module, answered_by)")
    title, module = config.get("title"), config.get("module")
    if not isinstance(title, str) or not title.strip():
        raise ValueError(f"{config_path}: 'title' must be a non-empty string, got {title!r}")
    if not isinstance(module, str) or not module.isidentifier():
        raise ValueError(f"{config_path}: 'module' must be a Python module name, got {module!r}")
    answered_by = config.get("answered_by", [])
    if not (isinstance(answered_by, list) and all(_engine_module(path) for path in answered_by)):
        raise ValueError(f"{config_path}: 'answered_by' must be a list of paths of the engine's .py or .pyx "
                         f"modules such as \"minidb/lsm/bloom.pyx\", got {answered_by!r}")
    return Exercise(folder=folder, number=match.group(1) if match else "", title=title, module=module,
                    answered_by=tuple(answered_by))


def _engine_module(path) -> bool:
    """Whether ``path`` names a module of the package: ``minidb/...`` ending in .py or .pyx, relative, no ``..``."""
    if not isinstance(path, str):
        return False
    parts = PurePosixPath(path).parts
    return (len(parts) >= 2 and parts[0] == "minidb" and ".." not in parts and path.endswith((".py", ".pyx"))
            and not path.endswith("__init__.py"))


def exercise_of(path: str | Path) -> Exercise | None:
    """The exercise a file (a test, a conftest) belongs to: the nearest folder above it with an exercise.toml."""
    for folder in Path(path).resolve().parents:
        if (folder / CONFIG).is_file():
            return load_exercise(folder)
    return None


def discover(root: str | Path) -> list[Exercise]:
    """Every exercise under ``root`` (the ``exercises/`` folder): each folder with an ``exercise.toml``, by name."""
    return [load_exercise(p.parent) for p in sorted(Path(root).glob(f"*/{CONFIG}"))]


def find_exercise(root: str | Path, number: str) -> Exercise:
    """The exercise ``number`` ("1", "01" or "01_bloom"), or the folder it names, under ``root``; ValueError if
    there is none."""
    as_folder = Path(number)
    if (as_folder / CONFIG).is_file():
        return load_exercise(as_folder)
    if (Path(root) / number / CONFIG).is_file():
        return load_exercise(Path(root) / number)
    wanted = str(number).split("_", 1)[0]
    if not wanted.isdigit():
        raise ValueError(f"bad exercise number {number!r}: expected digits such as 01")
    exercises = discover(root)
    for exercise in exercises:
        if exercise.number and int(exercise.number) == int(wanted):
            return exercise
    known = ", ".join(e.folder.name for e in exercises) or "none"
    raise ValueError(f"no exercise {number!r} in {Path(root).resolve()} (exercises there: {known})")


def find_root(start: str | Path) -> Path:
    """The exercises folder around ``start``: ``start`` or the nearest folder above it that holds exercises, or that
    has an ``exercises/`` folder holding them (the course's root); else ``default_root()``. So a command finds the
    exercises from anywhere in the course's folder."""
    for folder in [Path(start).resolve(), *Path(start).resolve().parents]:
        for candidate in (folder / "exercises", folder):
            if any(candidate.glob(f"*/{CONFIG}")):
                return candidate
    return default_root()


def named_exercise(exercise: str | None, exercises_dir: Path | None) -> Exercise:
    """The exercise a student names on a command line: a folder or a number under the exercises around them
    (``exercises_dir`` if given), or, when they name none, the exercise whose folder they are in; ValueError saying
    what to do otherwise."""
    if exercise is None:
        here = exercise_of(Path.cwd() / "_")
        if here is None:
            raise ValueError("name the exercise (minidb check 01), or run the command inside an exercise's folder")
        return here
    return find_exercise(exercises_dir or find_root(Path.cwd()), exercise)


def default_root() -> Path:
    """The ``exercises/`` folder of this checkout (beside the ``minidb`` package), else ``./exercises``."""
    beside_package = Path(__file__).resolve().parents[2] / "exercises"
    return beside_package if beside_package.is_dir() else Path.cwd() / "exercises"
