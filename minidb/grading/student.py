"""Finding and importing a student's module, so the graded tests run against it instead of the stub.

A submission is a file (the module itself, whatever its name, e.g. ``alice_bloom.py``) or a folder holding
``bloom.py`` or a package ``bloom/``, possibly a few folders down (an unzipped archive often adds one). The module is
imported from that file under the name the exercise declares (``bloom``), so code that does ``import bloom`` and
the tests see the same module, and a package's relative imports work.

Everything that can go wrong with a submission before a test runs (no module, a syntax error, an import error, a
call to ``sys.exit``) becomes a ``SubmissionError`` whose message is the reason shown in grades. Once it runs, an
error that passed through the student's code is shown with the lines of their code it passed through
(``your_code``): where it raised, or where it was looping when its time was up.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

# Folders an archive tool or an editor adds that never hold the submission.
IGNORED_FOLDERS = {"__MACOSX", "__pycache__", ".ipynb_checkpoints", ".git", ".venv", "venv"}
NOT_THE_STUDENTS = ("test_*.py", "conftest.py")  # files of an exercise folder that are the grader's, not the student's
YOUR_CODE = "in your code:"  # the first line of the note that lists them (the sandbox's notes start so too)
FRAMES_SHOWN = 5  # the innermost frames of the student's code a note lists: a deep recursion is not a wall of lines


class SubmissionError(Exception):
    """A submission cannot be graded as given: its module is missing or does not import."""


def locate(submission: str | Path, module: str) -> Path:
    """The file to import for ``module`` in ``submission``: a .py file, or a package's ``__init__.py``."""
    submission = Path(submission)
    if submission.is_file():
        if submission.suffix != ".py":
            raise SubmissionError(f"submission {submission} is not a Python file (.py) nor a folder")
        return submission
    if not submission.is_dir():
        raise SubmissionError(f"submission {submission} does not exist")
    def depth(path: Path) -> int:
        return len(path.relative_to(submission).parts)

    found = sorted(_candidates(submission, module), key=lambda p: (depth(p), str(p)))
    if not found:
        raise SubmissionError(f"no {module}.py (nor package {module}/) in {submission}")
    shallowest = [p for p in found if depth(p) == depth(found[0])]
    if len(shallowest) > 1:
        listed = ", ".join(str(p.relative_to(submission)) for p in shallowest)
        raise SubmissionError(f"more than one {module} module in {submission}: {listed}; keep one")
    return found[0]


def _candidates(folder: Path, module: str):
    """Every ``<module>.py`` and ``<module>/__init__.py`` under ``folder``, skipping hidden and tool folders."""
    for path in folder.rglob("*"):
        parts = path.relative_to(folder).parts
        if any(part in IGNORED_FOLDERS or part.startswith(".") for part in parts[:-1]):
            continue
        is_package = path.name == "__init__.py" and path.parent.name == module
        if path.is_file() and (path.name == f"{module}.py" or is_package):
            yield path


def your_code(error: BaseException, folder: Path) -> str | None:
    """A note on ``error`` for the student: ``in your code:`` and the frames of its traceback (or of the errors it was
    raised from or during) that ran a file of theirs under ``folder``, paths relative to it, innermost last, as
    Python prints a traceback; None if the error never passed through their code (a wrong answer, say)."""
    folder = folder.resolve()
    seen: list[BaseException] = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    for each in seen:
        frames = [_relative(frame, folder) for frame in traceback.extract_tb(each.__traceback__)]
        frames = [frame for frame in frames if frame is not None]
        if frames:
            return YOUR_CODE + "\n" + "".join(traceback.format_list(frames[-FRAMES_SHOWN:])).rstrip()
    return None


def _relative(frame: traceback.FrameSummary, folder: Path) -> traceback.FrameSummary | None:
    """``frame`` with its file named relative to ``folder`` if it is a student's file there, else None."""
    path = Path(frame.filename).resolve()
    if not path.is_relative_to(folder) or any(path.match(name) for name in NOT_THE_STUDENTS):
        return None
    return traceback.FrameSummary(path.relative_to(folder).as_posix(), frame.lineno, frame.name, line=frame.line)


@dataclass
class LoadedModule:
    """A module imported from a submission, with what importing it added to ``sys.modules`` and ``sys.path``."""

    module: ModuleType  # the imported module
    source: Path  # the file it was imported from
    folder: Path  # the folder of the student's files: the module's, or the package's parent
    added_path: str | None = None  # the folder appended to sys.path for the module's own imports, if any
    added_modules: list[str] = field(default_factory=list)  # sys.modules names this import created
    shadowed: ModuleType | None = None  # the module that had this name before (the stub, say), put back on unload

    def unload(self) -> None:
        """Forget the module: undo what importing it did to ``sys.modules`` and ``sys.path``."""
        for name in self.added_modules:
            sys.modules.pop(name, None)
        if self.shadowed is not None:
            sys.modules[self.module.__name__] = self.shadowed
        if self.added_path is not None and self.added_path in sys.path:
            sys.path.remove(self.added_path)


def load(module: str, source: str | Path) -> LoadedModule:
    """Import ``source`` (a .py file or a package's ``__init__.py``) as ``module``; SubmissionError if it fails."""
    source = Path(source).resolve()
    is_package = source.name == "__init__.py"
    folder = source.parent.parent if is_package else source.parent
    spec = importlib.util.spec_from_file_location(
        module, source, submodule_search_locations=[str(source.parent)] if is_package else None
    )
    if spec is None or spec.loader is None:
        raise SubmissionError(f"cannot import {source} as a Python module")
    before = set(sys.modules)
    previous = sys.modules.get(module)
    added_path = None
    if str(folder) not in sys.path:
        # Appended, not prepended: a student's helper module may be imported, but a file named like a standard
        # module (random.py, ...) must not replace it for everyone else.
        sys.path.append(str(folder))
        added_path = str(folder)
    try:
        loaded = importlib.util.module_from_spec(spec)
        # Registered before running it, as ``import`` does: relative imports in a package need it.
        sys.modules[module] = loaded
        spec.loader.exec_module(loaded)
    except (Exception, SystemExit) as e:
        _restore(module, previous, _own_modules(before, module, folder), added_path)
        raise SubmissionError(f"importing {module} from {source} failed: {_describe(e)}") from e
    except BaseException:
        # A time limit or Ctrl-C interrupted the import: undo it, and let the interruption go on.
        _restore(module, previous, _own_modules(before, module, folder), added_path)
        raise
    added = _own_modules(before, module, folder)
    return LoadedModule(module=loaded, source=source, folder=folder, added_path=added_path, added_modules=added,
                        shadowed=previous)


def _own_modules(before: set[str], module: str, folder: Path) -> list[str]:
    """The modules imported since ``before`` that belong to the submission: ``module``, its submodules, and
    modules from the submission's folder. Libraries it imported for the first time (numpy, ...) stay loaded:
    a C extension cannot be imported twice in one process."""
    own = []
    for name in set(sys.modules) - before:
        path = getattr(sys.modules[name], "__file__", None)
        if name == module or name.startswith(module + ".") or (path and Path(path).resolve().is_relative_to(folder)):
            own.append(name)
    return sorted(own)


def _restore(module: str, previous: ModuleType | None, own: list[str], added_path: str | None) -> None:
    """Undo a failed import: the submission's modules, the path entry, the module it shadowed."""
    for name in own:
        sys.modules.pop(name, None)
    if previous is not None:
        sys.modules[module] = previous
    else:
        sys.modules.pop(module, None)
    if added_path is not None and added_path in sys.path:
        sys.path.remove(added_path)


def _describe(error: BaseException) -> str:
    """One line saying what went wrong, with the file and line for a syntax error."""
    if isinstance(error, SyntaxError):
        where = f"{Path(error.filename).name}, line {error.lineno}" if error.filename else f"line {error.lineno}"
        return f"SyntaxError: {error.msg} ({where})"
    if isinstance(error, SystemExit):
        return f"it called sys.exit({error.code!r})"
    return f"{type(error).__name__}: {error}"
