"""``minidb check [EXERCISE]``: run an exercise's public tests on your module and print what each one found.

    minidb check 01            # from anywhere in the course's folder
    minidb check               # inside an exercise's folder: that exercise
    minidb check "exercises/01_bloom (1)"

Each graded test gets a line as soon as it is over; a failed one also says what the test expects, the error it met
(whole, never cut), and the lines of your code the error went through (``student.your_code``): where it raised, or
where it was looping when its time ran out. A test still running after a few seconds is announced, so a loop is never
a silent wait. The total comes last. ``pytest EXERCISE_FOLDER`` shows every detail of a failure.

The run itself is ``public_results``: it packs what ``minidb submit`` would hand in and grades it as ``minidb grade``
does (``grader.grade_submission``, in the same sandbox with the same Python), so the two cannot disagree; each
test's entry (results.json's) reaches ``Progress`` as it comes. Everything else here only prints those entries (and
``run`` prints any test no event reported).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from ..units import number_in
from .grade import MAX_SECONDS

ANNOUNCE_AFTER = 5.0  # seconds a test runs before check says which one is running
REMIND_EVERY = 15.0  # seconds between reminders while it goes on
ERROR_LINES = 12  # lines of one error shown at most (pytest EXERCISE_FOLDER shows them all)
FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)')


def register(subparsers) -> None:
    """Add the ``check`` subcommand."""
    p = subparsers.add_parser(
        "check",
        help="run an exercise's public tests on your module, with a short summary",
        description="Run the public graded tests of an exercise against the module in its folder.",
    )
    p.add_argument("exercise", metavar="EXERCISE", nargs="?", default=None,
                   help="the exercise number (01) or its folder; none inside an exercise's folder")
    p.add_argument("--exercises-dir", type=Path, default=None,
                   help="where the exercises are (default: the course's exercises/ folder around you)")
    p.add_argument("--timeout", type=number_in(0.1, MAX_SECONDS), default=None, metavar="SECONDS",
                   help="the time limit of each test (default: the grader's, 60)")
    p.set_defaults(func=run)


def public_results(exercise, timeout: float | None, progress: Progress) -> dict:
    """Grade what ``minidb submit`` would hand in from ``exercise``'s folder on its public tests, the way
    ``minidb grade`` grades it (``grader.grade_submission``: the same sandbox and Python): results.json's content.
    ``progress`` is told when a test starts (``start(name, limit)``), when it is over (``test(entry)``, its
    results.json entry), and every fraction of a second in between (``tick()``)."""
    from ..grading.grader import GradedTests, grade_submission
    from ..grading.submissions import Submission
    from ..grading.timelimit import DEFAULT_TEST_TIMEOUT
    from .submit import files_to_hand_in, write_zip

    with tempfile.TemporaryDirectory(prefix="minidb-check-") as tmp:
        handed_in, events = Path(tmp) / f"{exercise.module}-submission.zip", Path(tmp) / "events.jsonl"
        files = files_to_hand_in(exercise.folder, exercise.module)
        write_zip(handed_in, files, [p.relative_to(exercise.folder).as_posix() for p in files])
        read = 0

        def waiting() -> None:
            nonlocal read
            read = _replay(events, read, progress)
            progress.tick()

        # Every test the run reports counts with its own points: the student's own run has nothing to clamp.
        grade = grade_submission(exercise, Submission("check", (handed_in,)), GradedTests({}),
                                 timeout or DEFAULT_TEST_TIMEOUT, unsafe=True, events=events, waiting=waiting,
                                 public_only=True)
        _replay(events, read, progress)
    if grade.results is None:
        raise RuntimeError(f"the tests of {exercise.folder.name} did not run: {grade.error}")
    return grade.results


def _replay(events: Path, read: int, progress: Progress) -> int:
    """Hand the whole lines of ``events`` past byte ``read`` to ``progress``; the bytes read so far."""
    if not events.exists():
        return read
    with events.open("rb") as f:
        f.seek(read)
        chunk = f.read()
    whole = chunk[: chunk.rfind(b"\n") + 1]
    for line in whole.decode("utf-8").splitlines():
        event = json.loads(line)
        if event.pop("event") == "start":
            progress.start(event["name"], event["limit"])
        else:
            progress.test(event)
    return read + len(whole)


class Progress:
    """Prints each test's result as it comes, and which test is running when one takes a while."""

    def __init__(self) -> None:
        self.running: tuple[str, float, float] | None = None  # the test running: name, limit, start time
        self.said = 0.0  # seconds into that test when it was last announced
        self.printed: set[str] = set()  # tests whose result is printed

    def start(self, name: str, limit: float) -> None:
        self.running, self.said = (name, limit, time.monotonic()), 0.0

    def tick(self) -> None:
        """Announce the running test once it has run ANNOUNCE_AFTER seconds, and remind every REMIND_EVERY."""
        if self.running is None:
            return
        name, limit, start = self.running
        elapsed = time.monotonic() - start
        if elapsed >= ANNOUNCE_AFTER and elapsed - self.said >= (REMIND_EVERY if self.said else ANNOUNCE_AFTER):
            of = f" of its {limit:g}" if limit else ""
            print(f"  ...     {name}: running for {elapsed:.0f} s{of}", flush=True)
            self.said = elapsed

    def test(self, entry: dict) -> None:
        self.running = None
        self.printed.add(entry["name"])
        print(describe(entry), flush=True)


def describe(entry: dict) -> str:
    """A test's lines: its result, and for a failure what it expects, its error and the lines of your code."""
    from ..grading.gradebook import fmt

    timed_out = entry.get("outcome") == "timeout"
    mark = "passed" if entry["status"] == "passed" else "TIMEOUT" if timed_out else "FAILED"
    lines = [f"  {mark:<7} {fmt(entry['score'])}/{fmt(entry['max_score'])}  {entry['name']}"]
    if entry["status"] != "passed":
        expects, error, frames = explain(entry["output"])
        lines += [expects] if expects else []
        lines += error
        for i, (frame, code) in enumerate(frames):
            last = i == len(frames) - 1
            lines.append(f"{'looping' if timed_out else 'raised'} in your code at {frame}" if last else
                         f"called from {frame}")
            lines += [f"    {code}"] if code else []
    return "\n".join(lines[:1] + [f"          {line}" for line in lines[1:]])


def explain(output: str) -> tuple[str, list[str], list[tuple[str, str]]]:
    """What a failed test's output says: the test's description, its error's lines (the ``E`` lines of pytest's
    report, else the last line), and the frames of the student's code (``file, line N, in function`` and the line
    of code, outermost first)."""
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    if not lines:
        return "", [], []
    expects, rest = lines[0], lines[1:]
    errors = [line[1:].strip() for line in rest if line.startswith("E ")]
    code: list[tuple[str, str]] = []
    if any(line.startswith("in your code:") for line in errors):
        cut = errors.index("in your code:")
        code = _frames(errors[cut + 1:])
        errors = errors[:cut]
    elif "in your code:" in output:  # a sandbox's note, in a one-line report
        code = _frames(output.split("in your code:", 1)[1].splitlines())
    if not errors and rest:
        errors = [rest[-1].strip()]
    if len(errors) > ERROR_LINES:
        errors = errors[:ERROR_LINES] + [f"({len(errors) - ERROR_LINES} more lines: run pytest on the exercise's "
                                         "folder for all of them)"]
    return expects, errors, code


def _frames(lines: list[str]) -> list[tuple[str, str]]:
    """The frames of a traceback's lines: ``(file, line N, in function; its line of code)`` each."""
    frames = []
    for i, line in enumerate(lines):
        found = FRAME.search(line)
        if found:
            following = lines[i + 1].strip() if i + 1 < len(lines) else ""
            code = "" if FRAME.search(following) else following
            frames.append((f"{Path(found['file']).name}, line {found['line']}, in {found['function']}", code))
    return frames


def run(args: argparse.Namespace) -> int:
    """Run the tests; exit 0 when every public graded test passes, 1 otherwise, 2 on a bad argument."""
    from ..grading.exercise import named_exercise
    from ..grading.gradebook import fmt

    try:
        exercise = named_exercise(args.exercise, args.exercises_dir)
    except ValueError as e:
        print(f"minidb check: error: {e}", file=sys.stderr)
        return 2
    print(f"{exercise.title} ({exercise.folder.name}): public tests of {exercise.module}", flush=True)
    progress = Progress()
    try:
        results = public_results(exercise, args.timeout, progress)
    except RuntimeError as e:
        print(f"minidb check: {e}", file=sys.stderr)
        return 1
    for entry in results["tests"]:  # any test the events did not report (none, unless pytest died)
        if entry["name"] not in progress.printed:
            progress.test(entry)
    print(f"total {fmt(results['score'])} / {fmt(results['extra_data']['max_score'])} points "
          "(hidden tests count too when you are graded)")
    for error in results["extra_data"]["submission_errors"]:
        print(f"your module could not be used: {error}")
    return 0 if all(t["status"] == "passed" for t in results["tests"]) else 1

