"""``minidb grade``: grade a folder of submissions to one exercise and write grades.csv.

    minidb grade submissions/ --exercise 01 --out grades.csv --jobs 2 --roster roster.csv \
        --deadline 2026-12-01T23:59+00:00 --late-penalty 0.1 --feedback-dir feedback/

See ``minidb.grading.bulk`` for what a submission is and how each one is graded.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..grading.timelimit import DEFAULT_SUBMISSION_TIMEOUT, DEFAULT_TEST_TIMEOUT
from ..units import int_in, number_in

MAX_JOBS = 64  # submissions graded at once: far more than the cores of any grading machine
MAX_SECONDS = 86_400  # a day: no test or submission is meant to run longer


def register(subparsers) -> None:
    """Add the ``grade`` subcommand."""
    p = subparsers.add_parser(
        "grade",
        help="grade every submission in a folder into a CSV file",
        description="Grade every submission (a folder, .zip or .py per student) in SUBMISSIONS_DIR against an "
        "exercise's graded tests, each in its own pytest process, and write one row per student.",
    )
    p.add_argument("submissions", type=Path, metavar="SUBMISSIONS_DIR", help="one folder, .zip or .py per student")
    p.add_argument("--exercise", required=True, metavar="NN", help="the exercise number, e.g. 01")
    p.add_argument("--out", type=Path, default=Path("grades.csv"), help="the CSV to write (default grades.csv)")
    p.add_argument("--jobs", type=int_in(1, MAX_JOBS), default=1,
                   help=f"submissions graded at once, 1 to {MAX_JOBS} (default 1)")
    p.add_argument(
        "--test-timeout", type=number_in(0.1, MAX_SECONDS), default=DEFAULT_TEST_TIMEOUT, metavar="SECONDS",
        help=f"time limit per graded test (default {DEFAULT_TEST_TIMEOUT:g})",
    )
    p.add_argument(
        "--timeout", type=number_in(1, MAX_SECONDS), default=DEFAULT_SUBMISSION_TIMEOUT, metavar="SECONDS",
        help=f"wall-clock limit for one submission's whole run (default {DEFAULT_SUBMISSION_TIMEOUT:g})",
    )
    p.add_argument("--roster", type=Path, metavar="CSV", help="the class roster (student_id, name, email)")
    p.add_argument("--deadline", metavar="ISO_TIME", help="the deadline, e.g. 2026-12-01T23:59+00:00")
    p.add_argument("--submitted", type=Path, metavar="CSV",
                   help="when each student handed in (columns student, submitted), where the export does not say")
    p.add_argument("--latest", action="store_true",
                   help="grade the latest of several submissions for one student (by recorded time), not refuse")
    p.add_argument("--late-penalty", type=number_in(0, 1), default=0.1, metavar="SHARE",
                   help="share of the points lost per started day late (default 0.1)")
    p.add_argument("--feedback-dir", type=Path, metavar="DIR", help="write each student's feedback (Markdown) here")
    p.add_argument("--results-dir", type=Path, metavar="DIR", help="also keep each student's results.json here")
    p.add_argument(
        "--exercises-dir", type=Path, metavar="DIR", help="where the exercises are (default: this checkout's)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="grade even where the students' code cannot be confined (not root, or no namespaces): "
                   "it then runs with your rights and network; for trusted code only")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Grade, write the CSV, print a one-line summary; exit code 2 on bad arguments or where grading is refused
    (no confinement, exposed hidden tests, two submissions for a student, a missing time), 1 if the stub run fails."""
    # Imported here, not at the top: pandas and pytest would slow down every other minidb command's start.
    from ..grading import bulk
    from ..grading.exercise import default_root, find_exercise
    from ..grading.handins import read_submitted
    from ..grading.late import LatePolicy, parse_deadline
    from ..grading.roster import read_roster

    try:
        late = LatePolicy(parse_deadline(args.deadline), args.late_penalty) if args.deadline else None
        roster = read_roster(args.roster) if args.roster else None
        submitted = read_submitted(args.submitted) if args.submitted else None
        exercise = find_exercise(args.exercises_dir or default_root(), args.exercise)
        submissions = bulk.find_submissions(args.submissions)
        if not submissions:
            raise ValueError(f"no submissions (folders, .zip or .py files) in {args.submissions}")
        frame = bulk.grade_all(
            exercise, submissions, jobs=args.jobs, test_timeout=args.test_timeout,
            submission_timeout=args.timeout, results_dir=args.results_dir, progress=not args.no_progress,
            roster=roster, late=late, feedback_dir=args.feedback_dir, submitted=submitted, latest=args.latest,
            unsafe=args.unsafe_no_sandbox,
        )
    except ValueError as e:
        print(f"minidb grade: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:  # the exercise itself could not be graded: its tests, not a submission, are broken
        print(f"minidb grade: {e}", file=sys.stderr)
        return 1
    bulk.write_grades(frame, args.out)
    broken = int((frame["error"] != "").sum())
    mean = frame["total"].mean()
    print(
        f"graded {len(frame)} submissions to exercise {exercise.number} ({exercise.title}): "
        f"mean {mean:.4g} / {frame['max'].iloc[0]:g}, {broken} with errors (see its error column); grades in {args.out}"
    )
    return 0
