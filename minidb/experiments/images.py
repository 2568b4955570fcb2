"""The image cache: each loaded database a sweep measures, kept once beside the sweep's results.

A sweep whose points measure one load (``minidb.workloads.loaded``) names it with a ``Load``: the load's key and
the call that makes it. ``runner.sweep`` makes each load its points need once, stores it as an image file in the
sweep cache (``<cache>/images/<key>.image``), and hands every point a copy; a later sweep, of the same chapter or of
another, whose load has the same key reads the file instead of loading again.

**An image is used only if it is sound and current.** The file (``minidb/experiments/FORMAT.md``) starts with a
header naming its key, the code it was made by (``stamp()``: minidb's version and the fingerprint of its sources,
which covers both engines' file formats) and the length and SHA-256 of its payload. ``read`` raises ``ImageError``
for a file that is truncated, fails its checksum, names another key, or was made by other code (stale: another
commit's engines may write other bytes, or other formats); ``get`` then loads again and replaces the file. An image
is written under a temporary name and renamed, so a crash mid-write leaves the old file or none, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .. import __version__
from ..workloads.loaded import LoadedData
from .fingerprint import source_fingerprint

MAGIC = b"minidb-image\n"  # the first line of every image file
FORMAT = 1  # the layout of the file (FORMAT.md); the payload's layout is covered by stamp()
FOLDER = "images"  # the sweep cache's folder of images


class ImageError(ValueError):
    """An image file that must not be used: truncated, corrupt, or made by other code (stale)."""


@dataclass(frozen=True)
class Load:
    """A load a sweep's points measure: its key (``minidb.workloads.loaded.load_key``) and the call making it."""

    key: str  # names what shaped the load; equal keys, equal loads
    make: Callable[[], LoadedData]  # loads the database (picklable: it may run in a worker process)


def stamp() -> str:
    """The code an image is made by: minidb's version and the fingerprint of its sources (``fingerprint``)."""
    return f"{__version__}+{source_fingerprint()}"


def path(root: Path, key: str) -> Path:
    """Where the sweep cache at ``root`` keeps the image of load ``key``."""
    return Path(root) / FOLDER / f"{key}.image"


def write(where: Path, key: str, loaded: LoadedData) -> None:
    """Store ``loaded`` as the image of load ``key`` at ``where`` (atomically: see the module docstring)."""
    payload = pickle.dumps(loaded, protocol=pickle.HIGHEST_PROTOCOL)
    header = {"format": FORMAT, "key": key, "stamp": stamp(), "bytes": len(payload),
              "sha256": hashlib.sha256(payload).hexdigest()}
    where.parent.mkdir(parents=True, exist_ok=True)
    tmp = where.with_name(f"{where.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n")
        f.write(payload)
    tmp.replace(where)


def check(where: Path, key: str) -> bytes:
    """The payload of the image at ``where`` if it is sound and current for load ``key``; ``ImageError`` saying
    what is wrong otherwise, ``FileNotFoundError`` if there is none."""
    with open(where, "rb") as f:
        if f.read(len(MAGIC)) != MAGIC:
            raise ImageError(f"{where}: not an image file (bad magic)")
        try:
            header = json.loads(f.readline())
            expected, digest = int(header["bytes"]), str(header["sha256"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ImageError(f"{where}: corrupt header ({exc})") from exc
        if header.get("format") != FORMAT or header.get("stamp") != stamp():
            raise ImageError(f"{where}: stale, made by other code (format {header.get('format')}, "
                             f"{header.get('stamp')}; this is format {FORMAT}, {stamp()})")
        if header.get("key") != key:
            raise ImageError(f"{where}: holds load {header.get('key')!r}, not {key!r}")
        payload = f.read(expected + 1)
    if len(payload) != expected:
        raise ImageError(f"{where}: truncated or overlong, {len(payload)} bytes of payload where the header says "
                         f"{expected}")
    if hashlib.sha256(payload).hexdigest() != digest:
        raise ImageError(f"{where}: corrupt, its payload fails its SHA-256")
    return payload


def read(where: Path, key: str) -> LoadedData:
    """The loaded database stored at ``where``; ``ImageError`` or ``FileNotFoundError`` as ``check``."""
    return pickle.loads(check(where, key))


def usable(where: Path, key: str) -> bool:
    """Whether the image at ``where`` exists and is sound and current (see ``check``)."""
    try:
        check(where, key)
    except (OSError, ImageError):
        return False
    return True


def get(load: Load, root: Path | None) -> LoadedData:
    """``load``'s database: read from the sweep cache at ``root`` if its image is usable, else loaded (and stored
    there if it can be, replacing a corrupt or stale image; ``root`` None keeps nothing)."""
    if root is not None:
        try:
            return read(path(root, load.key), load.key)
        except (OSError, ImageError):  # none, unreadable, damaged or stale: load again
            pass
    loaded = load.make()
    if root is not None:
        try:
            write(path(root, load.key), load.key, loaded)
        except OSError:  # a cache this process cannot write to (a worker on another machine): keep nothing
            pass
    return loaded


def make(load: Load, root: Path) -> None:
    """Load ``load``'s database and store its image at ``root`` (a sweep's preparation step, run in a worker)."""
    write(path(root, load.key), load.key, load.make())
