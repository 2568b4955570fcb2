"""``minidb release OUT``: write the students' copy of this project (no solutions, no hidden tests) into OUT.

See ``minidb.grading.release`` for what it holds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers) -> None:
    """Add the ``release`` subcommand."""
    p = subparsers.add_parser(
        "release",
        help="write the students' copy of the project (no solutions, no hidden tests)",
        description="Copy the engine, the book and the exercises into OUT without the reference solutions and the "
        "hidden tests, with an .ipynb beside every exercise notebook.",
    )
    p.add_argument("out", type=Path, metavar="OUT", help="a new (or empty) folder")
    p.add_argument("--root", type=Path, default=None, help="the instructor's tree (default: this checkout)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..grading.exercise import default_root
    from ..grading.release import build_release

    root = (args.root or default_root().parent).resolve()
    try:
        files = build_release(root, args.out)
    except ValueError as e:
        print(f"minidb release: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote the students' copy to {args.out}: {len(files)} files, no solutions, no hidden tests")
    return 0
