"""Verifying and salvaging a database directory without opening anything in it for writing.

``load(path)`` reads every file of the directory once (plain reads) into an in-memory ``SimDevice``; everything
after that, the checks and the salvage, goes through the storage layer on that copy, so the damaged directory is
never written, whatever the readers (or a recovery run for the salvage) do.

* ``verify(path)``: a ``FileReport`` per file: every checksum and every structure the format defines
  (lsm_files.py, btree_files.py; the registry, minidb/engines.py, says which is whose).
* ``salvage`` (salvage.py): the readable data, for ``minidb repair``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .. import engines
from ..storage import SimDevice
from ..storage.device import LOCK_FILE


@dataclass
class FileReport:
    """The verdict on one file."""

    name: str  # file name in the directory
    ok: bool  # False: damage found
    detail: str  # what was checked, or what is wrong (file offset or page)


def io_kind(name: str) -> str:
    """The IOStats file kind of a database file, by its name."""
    if name.endswith(".sst"):
        return "sst"
    if name.endswith(".log") and not name.startswith("redo-"):
        return "wal"
    if name.startswith("MANIFEST-") or name.startswith("CURRENT"):
        return "manifest"
    if name.startswith("redo-"):
        return "redo"
    if name.endswith(".dblwr"):
        return "doublewrite"
    return "data"


def load(path: str | os.PathLike) -> SimDevice:
    """An in-memory copy of the files of directory ``path`` (ValueError if it is not a directory)."""
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise ValueError(f"{path} is not a directory")
    dev = SimDevice()
    for entry in sorted(os.scandir(path), key=lambda e: e.name):
        if not entry.is_file() or entry.name == LOCK_FILE:
            continue  # LOCK holds nothing: it is the device's lock (storage/device.py)
        with open(entry.path, "rb") as src:
            data = src.read()
        f = dev.open(entry.name, io_kind(entry.name), create=True)
        f.append(data)
        f.sync()
        f.close()
    return dev


def engine_of(dev) -> str | None:
    """"btree", "lsm", or None if the files are of neither engine (the registry's ``engines.detect``)."""
    return engines.detect(dev.list())


def verify(path) -> tuple[str, list[FileReport]]:
    """(engine, a report per file) for the database in directory ``path``; ValueError if there is none."""
    dev = load(path)
    engine = engine_of(dev)
    if engine is None:
        raise ValueError(f"{os.fspath(path)} holds no minidb database files")
    return engine, engines.get(engine).verify_files(dev)
