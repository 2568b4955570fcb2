"""The fingerprint of minidb's sources: what every cached result and image is keyed or stamped with, so that a
change to the code, an engine's file format included, is never answered from a cache made by other code."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path


@functools.cache
def source_fingerprint() -> str:
    """A hash of every .py, .pyx and .pxd file of the minidb package: results depend on the code, not only on the
    version number."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(p for ext in ("*.py", "*.pyx", "*.pxd") for p in root.rglob(ext)):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
