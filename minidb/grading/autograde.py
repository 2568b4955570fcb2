"""The Gradescope autograder's entry point: grade ``/autograder/submission`` into ``/autograder/results``.

``run_autograder`` (written by ``minidb autograder``) calls, with the Python ``setup.sh`` installed the engine in::

    /autograder/venv/bin/python -I -m minidb.grading.autograde --exercise /autograder/source/exercises/01_bloom \\
        --tests /autograder/source/graded-tests.json --submission /autograder/submission \\
        --results /autograder/results/results.json

It grades exactly as ``minidb grade`` does (``grader.grade_submission``: a private copy of the exercise, the
submission's code in a sandbox, scores clamped to the points of the exercise's own graded tests) and writes the
results.json Gradescope reads. Whatever happens to the submission (a link in it, code that does not import, a
crash), a results.json is written: a submission that could not be graded gets zero on every test and the reason in
each test's output.

Refusals, with exit code 2 and no results.json (Gradescope then shows the autograder as failed, rather than zeros):

* not root: the sandbox cannot have a user id of its own (unless ``--unsafe-no-sandbox``);
* hidden tests readable by other users (``run_autograder`` first makes the source folder private to root).

Gradescope grades each submission in a container of its own, so where the container forbids namespaces
(``isolation.py``) the sandbox's own user id is the wall that matters, and grading goes on without namespaces:
stdout (shown to instructors only) says so, as does results.json's ``extra_data``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .exercise import load_exercise
from .gradebook import fmt
from .grader import Grade, GradedTests, grade_submission, graded_tests
from .isolation import UNSAFE_FLAG, confinement
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
    parser.add_argument("--tests", type=Path, help="the graded tests and points (JSON), as minidb autograder wrote "
                        "them; without it, the stub is graded to list them")
    parser.add_argument("--test-timeout", type=float, default=DEFAULT_TEST_TIMEOUT)
    parser.add_argument("--timeout", type=float, default=DEFAULT_SUBMISSION_TIMEOUT)
    parser.add_argument(UNSAFE_FLAG, action="store_true", help="grade even without root (trusted code only)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    exercise = load_exercise(args.exercise)
    confined = confinement()
    if not confined.own_uid and not args.unsafe_no_sandbox:
        print(f"autograder: refusing to grade: {confined.refusal()}", file=sys.stderr)
        return 2
    try:
        require_private_hidden_tests(exercise.folder)  # run_autograder made them private: this is the proof
    except ExposedHiddenTests as e:
        print(f"autograder: refusing to grade: {e}", file=sys.stderr)
        return 2
    if not confined.full:
        print(f"autograder: grading with fewer walls: {confined.why_not}")
    unsafe = not confined.full
    if args.tests is not None:
        tests = GradedTests({str(k): float(v) for k, v in json.loads(args.tests.read_text()).items()})
    else:
        tests = graded_tests(exercise, args.test_timeout, unsafe)
    grade = grade_submission(exercise, Submission("submission", (args.submission,)), tests, args.test_timeout,
                             args.timeout, unsafe=unsafe)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    results = gradescope_results(grade, tests, time.monotonic() - start)
    results["extra_data"] = {"confinement": "full" if confined.full else confined.why_not}
    args.results.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(results["output"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
