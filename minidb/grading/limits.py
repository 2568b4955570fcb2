"""Limits on a process that runs untrusted code, and how to get rid of everything it started.

* ``Limits.apply()`` runs in the new process before it executes anything (``preexec_fn``): a cap on its address
  space (unbounded allocation becomes a ``MemoryError``), on CPU seconds (a busy loop in C is killed by the kernel),
  on the number of processes its user may have (a fork bomb stops at the cap) and on the size of any file it writes,
  its captured output included (past the cap a write fails with EFBIG, Python ignoring SIGXFSZ: the disk is safe).
* ``sandbox_user()``: when the grader runs as root (Gradescope does, and so does a container), each sandbox gets a
  user id of its own, derived from the grading process's pid so that two submissions graded at once never share
  it. A different user cannot signal the grader, cannot read or write the grader's private files, and every process
  it starts, even one that left its session with ``setsid``, still carries that uid.
* ``kill_user(uid)`` then ends every process of that uid at once (``kill(-1, SIGKILL)`` from a process running as
  the uid: the kernel signals all of them, with no list that a fork could race), and ``remove_files(uid)`` the
  files it left where anyone may write (``/tmp``, ``/var/tmp``, ``/dev/shm``). Without root, the fallback is
  ``kill_marked(marker)``: every process whose environment carries the sandbox's marker, found in ``/proc``. A
  sandbox's marker starts with its grading run's id (``RUN_ENV``), so the grader can also sweep every sandbox of a
  run it killed, which never got to stop its own.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import stat
from dataclasses import dataclass
from pathlib import Path

UID_BASE = 1_500_000_000  # sandbox uids: far above any real account's; plus the grading process's pid (< 2**22)
MARKER = "MINIDB_SANDBOX"  # the environment variable every sandbox process inherits, for the non-root sweep
RUN_ENV = "MINIDB_GRADING_RUN"  # a grading run's id, given to its pytest process: the start of its sandboxes' markers
SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")  # where any user may leave files behind


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandbox."""

    memory_bytes: int = 1 << 30  # address space: the engine and numpy need a few hundred MiB at most
    cpu_seconds: int = 300  # CPU time of the whole sandbox process, a backstop behind the per-test alarm
    processes: int = 32  # processes its uid may run at once (exact when the sandbox has a uid of its own)
    file_bytes: int = 8 << 20  # the largest file it may write, its captured output included

    def rlimits(self, own_uid: bool = False) -> list[tuple[int, int]]:
        """The limits as ``(resource, value)`` pairs, soft and hard alike; ``own_uid``: the process runs as a user
        of its own, so the process cap can be exact (without one it would count the grader's processes too)."""
        limits = [(resource.RLIMIT_AS, self.memory_bytes), (resource.RLIMIT_CPU, self.cpu_seconds),
                  (resource.RLIMIT_FSIZE, self.file_bytes), (resource.RLIMIT_CORE, 0)]
        return limits + ([(resource.RLIMIT_NPROC, self.processes)] if own_uid else [])

    def apply(self, own_uid: bool = False) -> None:
        """Set the limits on the calling process (meant for ``preexec_fn``, between fork and exec).

        ``own_uid`` is decided by the parent: ``preexec_fn`` runs after the switch to the sandbox's uid, where
        ``sandbox_user()`` (which asks whether we are root) would always say no and leave fork bombs uncapped.
        """
        for limit, value in self.rlimits(own_uid):
            resource.setrlimit(limit, (value, value))


def sandbox_user() -> int | None:
    """The uid sandboxes started by this process run as, or None when it is not root (they keep its uid)."""
    if os.geteuid() != 0:
        return None
    return UID_BASE + os.getpid()


def kill_user(uid: int) -> None:
    """SIGKILL every process of ``uid`` (which must not be ours), twice to catch one forked during the first."""
    for _ in range(2):
        pid = os.fork()
        if pid == 0:  # the child: become the uid, signal all its processes, leave without running anything else
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)


def remove_files(uid: int, roots: tuple[str, ...] = SHARED_FOLDERS) -> list[str]:
    """Delete every file and folder ``uid`` owns under ``roots`` (symbolic links never followed); the paths removed.

    Only folders others may write to can hold another user's files, so only those are searched: a sweep of /tmp
    costs a listing of it, not a walk of every checkout in it.
    """
    removed = []
    for root in roots:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if info.st_uid == uid:
                if stat.S_ISDIR(info.st_mode):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
                removed.append(entry.path)
            elif stat.S_ISDIR(info.st_mode) and info.st_mode & stat.S_IWOTH:
                removed += remove_files(uid, (entry.path,))
    return removed


def kill_marked(marker: str) -> None:
    """SIGKILL every process whose environment holds a ``MARKER`` starting with ``marker``: one sandbox's whole
    marker, or a grading run's id (the sweep when sandboxes share our uid)."""
    needle = f"{MARKER}={marker}".encode()
    for _ in range(2):
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit() or int(proc.name) == os.getpid():
                continue
            try:
                if any(entry.startswith(needle) for entry in (proc / "environ").read_bytes().split(b"\0")):
                    os.kill(int(proc.name), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                continue  # gone already, or not ours to read
