"""Verifying and salvaging a database directory without opening anything in it for writing.

``load(path)`` reads every file of the directory once (plain reads) into an in-memory ``SimDevice``; everything
after that, the checks and the salvage, goes through the storage layer on that copy, so the damaged directory is
never written, whatever the readers (or a recovery run for the salvage) do.

* ``verify(path)``: a ``FileReport`` per file: every checksum and every structure the format defines
  (lsm_files.py, btree_files.py; the registry, minidb/engines.py, says which is whose), then what the engine's own
  recovery finds when it opens the copy and reads every key (``engine_check``): whatever an open would refuse,
  verify reports, so it is never less strict than opening the database.
* ``salvage`` (salvage.py): the readable data, for ``minidb repair``.
"""

from __future__ import annotations

import os
import re
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
    reports = engines.get(engine).verify_files(dev)
    for entry in os.scandir(path):  # (load reads files only)
        if not entry.is_file() and engines.detect([entry.name]) is not None:
            reports.append(FileReport(entry.name, False, "a directory (or other non-file) where a database file "
                                                         "should be"))
    return engine, merge_findings(reports, engine_check(dev, engine))


RECOVERY = "(recovery)"  # the report line of damage the engine's recovery found that names no file


def engine_check(dev, engine: str) -> str | None:
    """What goes wrong when the ``engine`` opens the database on ``dev`` (a copy: the open may change it) and reads
    every keyspace to its end, as one line; None if nothing does."""
    from .salvage import open_like

    try:
        db = open_like(engine, dev, dev)
        try:
            for keyspace in db.keyspaces():
                for _ in db.scan(keyspace):
                    pass
        finally:
            db.close()
    except Exception as exc:  # whatever makes an open or a read fail is a finding (the error says what it is)
        return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    return None


def merge_findings(reports: list[FileReport], finding: str | None) -> list[FileReport]:
    """``reports`` with the engine's ``finding`` (``engine_check``) on the line of the file it names first (its
    messages name the damaged file first; a new line for a file not reported, as a missing one, ``RECOVERY`` if it
    names none), unless that line already reports damage."""
    if finding is None:
        return reports
    by_name = {r.name: r for r in reports}
    named = [m.group(0) for m in _FILE_NAME.finditer(finding)]
    name = named[0] if named else RECOVERY
    if name in by_name and not by_name[name].ok:
        return reports
    by_name[name] = FileReport(name, False, f"the engine's recovery refuses it: {finding}")
    return sorted(by_name.values(), key=lambda r: r.name)


# the names of every engine's files, as messages quote them (lsm/FORMAT.md, btree/FORMAT.md)
_FILE_NAME = re.compile(r"\b(\d{6,}\.(?:sst|log)|MANIFEST-\d{6,}|CURRENT|redo-\d{8}\.log|redo-checkpoint|"
                        r"tablespace\.ibd|doublewrite\.dblwr)\b")
