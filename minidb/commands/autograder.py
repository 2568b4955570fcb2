"""``minidb autograder EXERCISE -o ZIP``: the Gradescope autograder of one exercise, as a zip to upload.

See ``minidb.grading.release`` for what the zip holds and ``minidb.grading.autograde`` for what it runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path


def register(subparsers) -> None:
    """Add the ``autograder`` subcommand."""
    p = subparsers.add_parser(
        "autograder",
        help="build an exercise's Gradescope autograder zip",
        description="Pack the engine, the grader and one exercise (hidden tests included, no solution) with "
        "Gradescope's setup.sh and run_autograder into a zip.",
    )
    p.add_argument("exercise", metavar="EXERCISE", help="the exercise number (01) or folder")
    p.add_argument("-o", "--out", type=Path, default=None, help="the zip to write (default autograder-NN_topic.zip)")
    p.add_argument("--exercises-dir", type=Path, default=None, help="where the exercises are (default: this checkout's)")
    p.add_argument("--wheel", action="store_true",
                   help="also ship the engine compiled for this Python (setup.sh uses it where the image's Python "
                   "and system take it, and compiles the source otherwise)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..grading.exercise import default_root, find_exercise
    from ..grading.grader import graded_tests
    from ..grading.release import build_autograder, build_wheel

    try:
        root = (args.exercises_dir or default_root()).resolve()
        exercise = find_exercise(root, args.exercise)
        out = args.out or Path(f"autograder-{exercise.folder.name}.zip")
        tests = graded_tests(exercise, unsafe=True)  # the instructor's own stub: no need for confinement
        with tempfile.TemporaryDirectory(prefix="minidb-wheel-") as wheels:
            wheel = build_wheel(root.parent, Path(wheels)) if args.wheel else None
            names = build_autograder(root.parent, exercise, out, tests.points, wheel)
    except ValueError as e:
        print(f"minidb autograder: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:  # the stub's own run failed: the exercise, not a submission, is broken
        print(f"minidb autograder: {e}", file=sys.stderr)
        return 1
    hidden = sum(1 for n in names if n.endswith("_hidden.py"))
    print(f"wrote {out}: exercise {exercise.folder.name} ({hidden} hidden test files), {len(names)} files; "
          "upload it as the assignment's autograder on Gradescope")
    return 0
