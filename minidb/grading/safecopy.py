"""Copying a submission's files as root without following what they point to.

A submission is the student's: a symbolic link in it (``notes.txt -> /autograder/source/exercises/.../test_x_hidden.py``)
would make a root copy read whatever the link names and hand it to the student's code, and a FIFO would hang the
copy. So every copy of a submission (``submissions.Submission.materialize``, the sandbox's own copy) goes through
``copy_submission``, which copies regular files and folders only, opens each file without following a link, and
refuses anything else with a message naming it: the submission is then not graded, and says why.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SKIPPED = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}  # caches a submission may carry, never needed
MAX_BYTES = 50 * 2**20  # a submission past this is refused (not code: a data dump, or a disk filler)


class UnsafeSubmission(ValueError):
    """A submission holding something other than regular files and folders (a link, a device, a FIFO)."""


def _refuse(name: str, path: Path, mode: int) -> UnsafeSubmission:
    if stat.S_ISLNK(mode):
        return UnsafeSubmission(f"{name} is a symbolic link (to {os.readlink(path)}): links are refused, "
                                "hand in the file itself")
    return UnsafeSubmission(f"{name} is not a regular file or folder: refused")


def copy_submission(source: Path, dest: Path) -> int:
    """Copy the file or folder ``source`` to ``dest`` (which must not exist); the bytes copied.

    UnsafeSubmission, naming the entry, if it holds anything but regular files and folders, or more than
    ``MAX_BYTES`` in all."""
    source, dest = Path(source), Path(dest)
    budget = [MAX_BYTES]
    mode = os.lstat(source).st_mode
    if stat.S_ISREG(mode):
        return _copy_file(source, dest, source.name, budget)
    if not stat.S_ISDIR(mode):
        raise _refuse(source.name, source, mode)
    return _copy_folder(source, dest, "", budget)


def _copy_folder(folder: Path, dest: Path, prefix: str, budget: list[int]) -> int:
    dest.mkdir(parents=True)
    total = 0
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name in SKIPPED:
            continue
        name, path = prefix + entry.name, Path(entry.path)
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISDIR(mode):
            total += _copy_folder(path, dest / entry.name, name + "/", budget)
        elif stat.S_ISREG(mode):
            total += _copy_file(path, dest / entry.name, name, budget)
        else:
            raise _refuse(name, path, mode)
    return total


def _copy_file(source: Path, dest: Path, name: str, budget: list[int]) -> int:
    """Copy one regular file, opened without following a link (a file swapped for a link meanwhile is refused)."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        raise UnsafeSubmission(f"{name} cannot be read ({e.strerror})") from None
    with os.fdopen(fd, "rb") as reader:
        mode = os.fstat(reader.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise _refuse(name, source, mode)
        data = reader.read(budget[0] + 1)
    budget[0] -= len(data)
    if budget[0] < 0:
        raise UnsafeSubmission(f"the submission is larger than {MAX_BYTES >> 20} MiB: refused")
    with open(dest, "xb") as writer:
        writer.write(data)
    return len(data)
