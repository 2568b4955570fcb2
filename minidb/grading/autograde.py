"""The Gradescope autograder's entry point: grade ``/autograder/submission`` into ``/autograder/results``.

``run_autograder`` (written by ``minidb autograder``) calls::

    python -m minidb.grading.autograde --exercise exercises/01_bloom --submission /autograder/submission \\
        --results /autograder/results/results.json

It grades exactly as ``minidb grade`` does (``bulk.grade_submission``: a private copy of the exercise, the
submission's code in a sandbox, scores clamped to the points of the exercise's own graded tests) and writes the
results.json Gradescope reads. ``run_autograder`` first makes the source folder private to root (``chmod -R go-rwx``), so that
a submission's sandbox (another user) cannot read the hidden tests; if they are still readable by other users,
grading is refused (exit code 2) rather than done with the hidden tests open to the submission. Whatever happens to the submission, a results.json is written: a submission that
could not be graded gets zero on every test and the reason in each test's output.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .bulk import Grade, GradedTests, grade_submission, graded_tests
from .exercise import load_exercise
from .gradebook import fmt
from .points import DEFAULT_HIDDEN_VISIBILITY
from .sandbox import ExposedHiddenTests, require_private_hidden_tests
from .submissions import Submission
from .timelimit import DEFAULT_SUBMISSION_TIMEOUT, DEFAULT_TEST_TIMEOUT


def gradescope_results(grade: Grade, tests: GradedTests, execution_time: float) -> dict:
    """Gradescope's results.json for ``grade``: one entry per graded test of the exercise, scores as clamped."""
    reported = {t.get("name"): t for t in (grade.results or {}).get("tests", [])}
    entries = []
    for name, points in tests.points.items():
        seen = reported.get(name, {})
        score = grade.scores.get(name, 0.0)
        output = str(seen.get("output") or grade.error or "this test did not run")
        visibility = seen.get("visibility") if seen.get("visibility") in ("visible", "after_due_date",
                                                                          "after_published", "hidden") else \
            DEFAULT_HIDDEN_VISIBILITY
        entries.append({"name": name, "score": score, "max_score": points,
                        "status": "passed" if score == points else "failed", "output": output,
                        "visibility": visibility})
    summary = f"{fmt(grade.total)} / {fmt(tests.max_score)} points from {len(entries)} graded tests."
    if grade.error:
        summary += f"\n{grade.error}"
    return {"score": grade.total, "execution_time": round(execution_time, 2), "output": summary, "tests": entries}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minidb.grading.autograde", description=__doc__.split("\n")[0])
    parser.add_argument("--exercise", type=Path, required=True, help="the exercise folder")
    parser.add_argument("--submission", type=Path, required=True, help="the submission folder")
    parser.add_argument("--results", type=Path, required=True, help="where results.json goes")
    parser.add_argument("--test-timeout", type=float, default=DEFAULT_TEST_TIMEOUT)
    parser.add_argument("--timeout", type=float, default=DEFAULT_SUBMISSION_TIMEOUT)
    args = parser.parse_args(argv)
    start = time.monotonic()
    exercise = load_exercise(args.exercise)
    try:
        require_private_hidden_tests(exercise.folder)  # run_autograder made them private: this is the proof
    except ExposedHiddenTests as e:
        print(f"autograder: refusing to grade: {e}", file=sys.stderr)
        return 2
    tests = graded_tests(exercise, args.test_timeout)
    grade = grade_submission(exercise, Submission("submission", (args.submission,)), tests, args.test_timeout,
                             args.timeout)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    results = gradescope_results(grade, tests, time.monotonic() - start)
    args.results.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(results["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
