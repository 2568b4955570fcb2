"""``minidb check EXERCISE``: run an exercise's public tests on your module and print a readable summary.

    minidb check 01            # or: minidb check "exercises/01_bloom (1)"

Each graded test gets a line; a failed one two more: what the test expects, and the error it met. The total comes
last. The full explanation of a failure is in ``pytest EXERCISE_FOLDER``'s output.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def register(subparsers) -> None:
    """Add the ``check`` subcommand."""
    p = subparsers.add_parser(
        "check",
        help="run an exercise's public tests on your module, with a short summary",
        description="Run the public graded tests of an exercise against the module in its folder.",
    )
    p.add_argument("exercise", metavar="EXERCISE", help="the exercise number (01) or its folder")
    p.add_argument("--exercises-dir", type=Path, default=None, help="where the exercises are (default ./exercises)")
    p.set_defaults(func=run)


def resolve(exercise: str, exercises_dir: Path | None):
    """The exercise a student names: a folder, or a number under ./exercises (else this checkout's)."""
    from ..grading.exercise import default_root, find_exercise

    root = exercises_dir or (Path("exercises") if Path("exercises").is_dir() else default_root())
    return find_exercise(root, exercise)


def run(args: argparse.Namespace) -> int:
    """Run the tests; exit 0 when every public graded test passes, 1 otherwise, 2 on a bad argument."""
    from ..grading.activation import plugin_args
    from ..grading.gradebook import fmt
    from ..grading.release import HIDDEN_TESTS

    try:
        exercise = resolve(args.exercise, args.exercises_dir)
    except ValueError as e:
        print(f"minidb check: error: {e}", file=sys.stderr)
        return 2
    public = [str(p) for p in sorted(exercise.folder.glob("test_*.py")) if not p.match(HIDDEN_TESTS)]
    with tempfile.TemporaryDirectory(prefix="minidb-check-") as tmp:
        results_path = Path(tmp) / "results.json"
        subprocess.run(
            [sys.executable, "-m", "pytest", *public, *plugin_args(), "--gradescope-json", str(results_path),
             "-q", "-p", "no:cacheprovider"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp,
        )
        if not results_path.exists():
            print(f"minidb check: the tests of {exercise.folder.name} did not run: "
                  f"see pytest '{exercise.folder}'", file=sys.stderr)
            return 1
        results = json.loads(results_path.read_text())
    print(f"{exercise.title} ({exercise.folder.name}): public tests of {exercise.module}")
    for test in results["tests"]:
        mark = "passed" if test["status"] == "passed" else "FAILED"
        line = f"  {mark}  {fmt(test['score'])}/{fmt(test['max_score'])}  {test['name']}"
        if test["status"] != "passed":
            lines = [w.strip() for w in test["output"].splitlines() if w.strip()]
            errors = [w[1:].strip() for w in lines if w.startswith("E ")]
            for why in (lines[:1] + errors[:1]) if lines else []:  # what the test expects, then what went wrong
                line += f"\n          {why[:150]}"
        print(line)
    print(f"total {fmt(results['score'])} / {fmt(results['extra_data']['max_score'])} points "
          "(hidden tests count too when you are graded)")
    for error in results["extra_data"]["submission_errors"]:
        print(f"your module could not be used: {error}")
    return 0 if all(t["status"] == "passed" for t in results["tests"]) else 1
