"""Gradescope's ``results.json``: the file a Gradescope autograder writes for each submission.

The format (Gradescope's "Autograder Specifications"): a top-level ``score`` and ``execution_time`` (seconds), an
``output`` shown for the whole submission, and ``tests``, one object per test with ``name``, ``score``,
``max_score``, ``status`` ("passed" or "failed") and ``output``, and its ``visibility``: "visible" (always
shown), "after_due_date", "after_published" (shown once the instructor publishes grades) or "hidden" (never shown;
Gradescope means it for tests worth no points). A hidden test's output is replaced by a fixed sentence, so a
student cannot read the hidden test's data or assertions from it.

``extra_data`` (stored by Gradescope, never shown) carries what ``minidb grade`` needs to explain a zero: the
submission error, the tests that timed out, and the collection errors.
"""

from __future__ import annotations

import json
from pathlib import Path

from .gradebook import PASSED, TIMEOUT, Gradebook, fmt

WITHHELD = "This test is hidden: its output is withheld."


def results(book: Gradebook, execution_time: float) -> dict:
    """The results.json object for ``book``, for a run that took ``execution_time`` seconds."""
    tests = []
    for grade in book.tests.values():
        if grade.graded.hidden:
            output = WITHHELD
        else:
            output = "\n".join(part for part in (grade.graded.description, grade.output.strip()) if part)
        tests.append({
            "name": grade.name,
            "score": grade.score,
            "max_score": grade.graded.points,
            "status": "passed" if grade.outcome == PASSED else "failed",
            "output": output,
            "visibility": grade.graded.visibility,
        })
    summary = [f"{fmt(book.score)} / {fmt(book.max_score)} points from {len(tests)} graded tests."]
    summary += [f"Your module could not be used: {e}" for e in book.submission_errors]
    summary += [f"A test file failed to load, its tests are not counted: {e}" for e in book.collection_errors]
    return {
        "score": book.score,
        "execution_time": round(execution_time, 2),
        "output": "\n".join(summary),
        "tests": tests,
        "extra_data": {
            "max_score": book.max_score,
            "submission_errors": list(book.submission_errors),
            "timed_out": [g.name for g in book.tests.values() if g.outcome == TIMEOUT],
            "collection_errors": list(book.collection_errors),
        },
    }


def write_results(path: str | Path, book: Gradebook, execution_time: float) -> None:
    """Write ``book``'s results.json to ``path`` (its folder is created if needed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results(book, execution_time), indent=2) + "\n", encoding="utf-8")


def read_results(path: str | Path) -> dict:
    """A results.json as written by ``write_results``; ValueError naming the file if it is not one."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list) or "score" not in data:
        raise ValueError(f"{path}: not a Gradescope results.json (needs 'score' and a 'tests' list)")
    return data
