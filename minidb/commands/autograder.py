"""``minidb autograder EXERCISE -o ZIP``: the Gradescope autograder of one exercise, as a zip to upload.

See ``minidb.grading.release`` for what the zip holds and ``minidb.grading.autograde`` for what it runs.
"""

from __future__ import annotations

import argparse
import sys
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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..grading.exercise import default_root, find_exercise
    from ..grading.release import build_autograder

    try:
        root = (args.exercises_dir or default_root()).resolve()
        exercise = find_exercise(root, args.exercise)
        out = args.out or Path(f"autograder-{exercise.folder.name}.zip")
        names = build_autograder(root.parent, exercise, out)
    except ValueError as e:
        print(f"minidb autograder: error: {e}", file=sys.stderr)
        return 2
    hidden = sum(1 for n in names if n.endswith("_hidden.py"))
    print(f"wrote {out}: exercise {exercise.folder.name} ({hidden} hidden test files), {len(names)} files; "
          "upload it as the assignment's autograder on Gradescope")
    return 0
