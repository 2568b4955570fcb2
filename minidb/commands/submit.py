"""``minidb submit [EXERCISE]``: pack exactly the files to hand in (your module and your own helper modules).

    minidb submit 01           # writes bloom-submission.zip in the exercise's folder
    minidb submit              # inside an exercise's folder: that exercise
    minidb submit 01 -o ~/bloom-submission.zip

The zip holds the module the exercise asks for (``bloom.py``, or a package ``bloom/``) and any other ``.py`` file
you added beside it; never the tests, the notebook or ``conftest.py``. A module that does not even compile is
refused, with the line to fix.
"""

from __future__ import annotations

import argparse
import sys
import zipfile
from pathlib import Path

from ..grading.student import NOT_THE_STUDENTS


def register(subparsers) -> None:
    """Add the ``submit`` subcommand."""
    p = subparsers.add_parser(
        "submit",
        help="pack your module (and your helper modules) into a zip to hand in",
        description="Zip the module an exercise asks for and your own helper modules, ready to upload.",
    )
    p.add_argument("exercise", metavar="EXERCISE", nargs="?", default=None,
                   help="the exercise number (01) or its folder; none inside an exercise's folder")
    p.add_argument("-o", "--out", type=Path, default=None,
                   help="the zip to write (default MODULE-submission.zip in the exercise's folder)")
    p.add_argument("--exercises-dir", type=Path, default=None,
                   help="where the exercises are (default: the course's exercises/ folder around you)")
    p.set_defaults(func=run)


def files_to_hand_in(folder: Path, module: str) -> list[Path]:
    """The module (file or package) and the student's other .py files in ``folder``."""
    package = folder / module
    files = sorted(package.rglob("*.py")) if (package / "__init__.py").is_file() else []
    files += [p for p in sorted(folder.glob("*.py")) if not any(p.match(n) for n in NOT_THE_STUDENTS)]
    return [p for p in files if "__pycache__" not in p.parts]


def write_zip(out: Path, files: list[Path], names: list[str]) -> None:
    """Write ``files`` into the new zip ``out``, each under its name in ``names``."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path, name in zip(files, names):
            z.write(path, name)


def run(args: argparse.Namespace) -> int:
    """Write the zip; exit 2 with one line if the module is missing or does not compile."""
    from ..grading.exercise import named_exercise

    try:
        exercise = named_exercise(args.exercise, args.exercises_dir)
        files = files_to_hand_in(exercise.folder, exercise.module)
        names = [p.relative_to(exercise.folder).as_posix() for p in files]
        if f"{exercise.module}.py" not in names and f"{exercise.module}/__init__.py" not in names:
            raise ValueError(f"no {exercise.module}.py in {exercise.folder}")
        for path in files:
            try:
                compile(path.read_text(encoding="utf-8"), str(path), "exec")
            except SyntaxError as e:
                raise ValueError(f"{path.name}, line {e.lineno}: {e.msg}: fix it before handing in") from None
        out = args.out or exercise.folder / f"{exercise.module}-submission.zip"
        if out.exists():
            raise ValueError(f"{out} already exists: remove it or choose another name with -o")
    except ValueError as e:
        print(f"minidb submit: error: {e}", file=sys.stderr)
        return 2
    write_zip(out, files, names)
    print(f"wrote {out}: {', '.join(names)}; upload this file")
    return 0
