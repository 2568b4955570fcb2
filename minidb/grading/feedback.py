"""Per-student feedback: a Markdown file with the score of every graded test and why each failed one failed.

Written from the results a grading run produced (``gradescope.results``), so a student reads the same explanation
Gradescope shows: the test's description (what it expects), then its assertion message and the lines of their own
code involved. Hidden tests show their points but not their output, as on Gradescope.
"""

from __future__ import annotations

from pathlib import Path

from .gradebook import fmt


def feedback_markdown(title: str, student: str, results: dict | None, error: str, late_note: str = "") -> str:
    """The feedback page of ``student`` for exercise ``title``: score table, then each failed test's output."""
    lines = [f"# {title}: feedback for {student}", ""]
    if results is None:
        lines += [f"Your submission could not be graded: {error}", ""]
        return "\n".join(lines)
    tests = results["tests"]
    earned = sum(t["score"] for t in tests)
    possible = sum(t["max_score"] for t in tests)
    lines += [f"**{fmt(earned)} / {fmt(possible)} points** from {len(tests)} graded tests.", ""]
    if late_note:
        lines += [late_note, ""]
    if error:
        lines += [f"Note: {error}", ""]
    lines += ["| test | points | |", "|---|---|---|"]
    for t in tests:
        status = "passed" if t["status"] == "passed" else "**failed**"
        lines.append(f"| `{t['name']}` | {fmt(t['score'])} / {fmt(t['max_score'])} | {status} |")
    lines.append("")
    for t in tests:
        if t["status"] != "passed":
            lines += [f"## `{t['name']}`", "", "```", t["output"].strip() or "(no output)", "```", ""]
    return "\n".join(lines)


def write_feedback(folder: Path, student: str, text: str) -> Path:
    """Write ``text`` to ``folder/<student>.md`` and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{student}.md"
    path.write_text(text, encoding="utf-8")
    return path
