"""A per-test time limit, so that a submission's infinite loop costs that test's points and not the grading run.

The limit is a wall-clock alarm (``SIGALRM``) whose handler raises ``GradingTimeout`` in the test's thread. Two
details make it hold against real submissions:

* ``GradingTimeout`` derives from ``BaseException``, not ``Exception``: a student's ``except Exception:`` does not
  swallow it, and neither does Hypothesis, which catches a test's failures to shrink them and would otherwise run
  the looping code again and again with no alarm left to stop it.
* After the first alarm the timer keeps firing every ``REPEAT`` seconds until the test ends, so even a bare
  ``except:`` that swallows one alarm is interrupted again.

Only a loop inside C code (which never returns to the interpreter) escapes it; the bulk grader's per-submission
wall-clock limit, which kills the whole process, covers that case.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Iterator

REPEAT = 0.5  # seconds between alarms once the limit has passed
DEFAULT_TEST_TIMEOUT = 60.0  # seconds per graded test: far above what a correct solution needs, short for a class
DEFAULT_SUBMISSION_TIMEOUT = 600.0  # wall-clock seconds for one submission's whole grading run (bulk grading)


class GradingTimeout(BaseException):
    """A graded test ran past its time limit."""


def enforceable() -> bool:
    """Whether limits can be enforced here: a POSIX alarm timer, and we are on the main thread (signals' rule)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_limit(seconds: float, message: str) -> Iterator[None]:
    """Run the body with a limit of ``seconds`` (> 0): past it, raise GradingTimeout(``message``)."""
    if seconds <= 0:
        raise ValueError(f"a time limit must be positive, got {seconds!r}")

    def on_alarm(signum, frame):
        __tracebackhide__ = True  # pytest: show the student's loop, not this handler
        raise GradingTimeout(message)

    previous_handler = signal.signal(signal.SIGALRM, on_alarm)
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        # None means the old handler was not set from Python: the default action is the closest we can restore.
        signal.signal(signal.SIGALRM, previous_handler if previous_handler is not None else signal.SIG_DFL)
        if previous_delay > 0:
            # Someone else's alarm (pytest-timeout's, say) was running: give it back what is left of it.
            left = max(previous_delay - (time.monotonic() - start), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, left, previous_interval)
