"""The grading process and its sandbox take turns on one CPU.

Every use of the student's module is a request and a reply through two pipes (``sandbox.py``): the grader waits
while the sandbox works, and the sandbox waits while the grader does. The two never need two CPUs at once. Left to
the scheduler, they often sit on two, and then every hand-off wakes a sleeping process on the other CPU: on a
2-core machine a round trip through the pipes took about 40 microseconds that way (over 70 with both CPUs busy),
against about 6 when both processes kept to one CPU. A graded test that probes a student's bloom filter 20,000
times spends most of its time in those wake-ups.

So while a sandbox runs, the grading process keeps to the CPU it is on when the sandbox starts, and the sandbox,
started from it, inherits that. When the sandbox stops, the grader gets its CPUs back. Where the system has no CPU
affinity (macOS), nothing changes.
"""

from __future__ import annotations

import os


def current_cpu() -> int | None:
    """The CPU this process is running on now (Linux's /proc/self/stat, field 39), or None if unknown."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    except OSError:
        return None
    return int(fields[36])  # field 39 of the file; fields[0] is field 3


def keep_to_current_cpu() -> set[int] | None:
    """Restrict this process (and the processes it starts from now on) to its current CPU; the CPUs it was allowed
    before, to give back to ``restore``, or None if nothing was changed."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    before = os.sched_getaffinity(0)
    cpu = current_cpu()
    if cpu is None or cpu not in before or len(before) == 1:
        return None
    os.sched_setaffinity(0, {cpu})
    return before


def restore(before: set[int] | None) -> None:
    """Give this process back the CPUs ``keep_to_current_cpu`` took away (nothing if it took none)."""
    if before is not None:
        os.sched_setaffinity(0, before)
