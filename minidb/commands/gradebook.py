"""``minidb gradebook``: merge the grades of several exercises into one CSV an LMS imports.

    minidb gradebook grades-01.csv grades-02.csv --roster roster.csv --out gradebook.csv

See ``minidb.grading.lms`` for the columns.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers) -> None:
    """Add the ``gradebook`` subcommand."""
    p = subparsers.add_parser(
        "gradebook",
        help="merge exercises' grades into one CSV per student for an LMS",
        description="Merge the grades files of minidb grade (one per exercise) into one row per roster student, "
        "a score column per exercise, in the file an LMS imports (see minidb.grading.lms).",
    )
    p.add_argument("grades", type=Path, nargs="+", metavar="GRADES_CSV", help="grades files of minidb grade")
    p.add_argument("--roster", type=Path, required=True, metavar="CSV", help="student_id, name, email per student")
    p.add_argument("--out", type=Path, default=Path("gradebook.csv"), help="the CSV to write (default gradebook.csv)")
    p.add_argument("--format", choices=("canvas", "moodle", "csv"), default="canvas",
                   help="the LMS's import format: canvas (default), moodle, or csv (a table with total and percent)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Merge and write; exit code 2 with one line on bad input."""
    from ..grading.lms import gradebook, read_grades, write_gradebook
    from ..grading.roster import read_roster

    try:
        grades = [read_grades(g) for g in args.grades]
        roster = read_roster(args.roster)
        table = gradebook(grades, roster)
    except ValueError as e:
        print(f"minidb gradebook: error: {e}", file=sys.stderr)
        return 2
    maxima = {str(g["exercise"].iloc[0]): float(g["max"].iloc[0]) for g in grades}
    write_gradebook(table, roster, maxima, args.format, args.out)
    print(f"{len(table)} students, {len(args.grades)} exercises, mean {table['percent'].mean():.1f}%; "
          f"{args.format} gradebook in {args.out}")
    return 0
