"""The grading process and its sandbox take turns on one CPU.

Every use of the student's module is a request and a reply through two pipes (``sandbox.py``): the grader waits
while the sandbox works, and the sandbox waits while the grader does. The two never need two CPUs at once. Left to
the scheduler, they often sit on two, and then every hand-off wakes a sleeping process on the other CPU: on a
2-core machine a round trip through the pipes took 40 to 46 microseconds that way (over 70 with both CPUs busy),
against about 6 when both processes kept to one CPU. A graded test that probes a student's bloom filter 20,000
times spends most of its time in those wake-ups.

So while a sandbox runs, the grading thread keeps to one CPU, and the sandbox, started from it, inherits that. The
CPU is the one the bulk grader gave its job (``CPU_ENV``: ``minidb grade --jobs N`` spreads its N runs over the
CPUs, since a pinned process is never moved to an idle CPU), or else the one the thread is on. When the sandbox
stops, the grader gets its CPUs back. Where the system has no CPU affinity (macOS), nothing changes.
"""

from __future__ import annotations

import os

CPU_ENV = "MINIDB_GRADING_CPU"  # the CPU a grading run keeps to, chosen by the bulk grader (``spread``)


def current_cpu() -> int | None:
    """The CPU the calling thread is running on now (Linux's /proc/thread-self/stat, field 39), or None."""
    try:
        with open("/proc/thread-self/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        return int(fields[36])  # field 39 of the file; fields[0] is field 3
    except (OSError, IndexError, ValueError):
        return None


def spread(jobs: int) -> list[int | None]:
    """The CPU each of ``jobs`` concurrent grading runs keeps to: the allowed CPUs in turn (None: no affinity)."""
    if not hasattr(os, "sched_getaffinity"):
        return [None] * jobs
    cpus = sorted(os.sched_getaffinity(0))
    return [cpus[i % len(cpus)] for i in range(jobs)]


def keep_to_one_cpu() -> set[int] | None:
    """Restrict the calling thread (and the processes it starts from now on) to one CPU: ``CPU_ENV``'s if it names
    an allowed one, else its current one. The CPUs it was allowed before, to give back to ``restore``; None if
    nothing was changed."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    before = os.sched_getaffinity(0)
    named = os.environ.get(CPU_ENV, "")
    cpu = int(named) if named.isdigit() and int(named) in before else current_cpu()
    if cpu is None or cpu not in before or len(before) == 1:
        return None
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:  # a CPU set that changed meanwhile: run where the scheduler puts us
        return None
    return before


def restore(before: set[int] | None) -> None:
    """Give the calling thread back the CPUs ``keep_to_one_cpu`` took away (nothing if it took none, or if none
    of them is allowed any more)."""
    if before is not None:
        try:
            os.sched_setaffinity(0, before)
        except OSError:
            pass
