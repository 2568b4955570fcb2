"""minidb: a B+tree engine and an LSM engine whose every IO is counted, for the minidb workbench book.

The public API is re-exported here; see the book's introduction for a tour.

Each name is imported when it is first used (PEP 562's module ``__getattr__``), not when ``minidb`` is: a process
that needs one part (the ``minidb`` command, the grading plugin that every ``pytest`` loads) does not pay for both
engines and NumPy under them. ``from minidb import open_btree`` and ``minidb.open_btree`` work as for any module.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# Public name -> the module that defines it (relative to this package); "" for a module re-exported by its name.
_EXPORTS = {
    "CorruptionError": ".errors",
    "DatabaseExistsError": ".errors",
    "DatabaseLockedError": ".errors",
    "DatabaseMissingError": ".errors",
    "DeviceCrashed": ".errors",
    "DeviceModel": ".storage",
    "DirDevice": ".storage",
    "EngineStopped": ".errors",
    "IOCounts": ".storage",
    "IOStats": ".storage",
    "MiniDBError": ".errors",
    "NoSpaceError": ".errors",
    "NotADatabaseError": ".errors",
    "ReadOnlyError": ".errors",
    "Schema": ".schema",
    "SimDevice": ".storage",
    "Table": ".table",
    "TableFullError": ".errors",
    "Transaction": ".transaction",
    "WriteBatch": ".kv",
    "data": "",
    "open_btree": ".btree",
    "open_lsm": ".lsm",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what a type checker and an editor see: the names, from where they are defined
    from . import data
    from .btree import open_btree
    from .errors import (CorruptionError, DatabaseExistsError, DatabaseLockedError, DatabaseMissingError,
                         DeviceCrashed, EngineStopped, MiniDBError, NoSpaceError, NotADatabaseError, ReadOnlyError,
                         TableFullError)
    from .kv import WriteBatch
    from .lsm import open_lsm
    from .schema import Schema
    from .storage import DeviceModel, DirDevice, IOCounts, IOStats, SimDevice
    from .table import Table
    from .transaction import Transaction


def __getattr__(name: str):
    """The public ``name``, imported from its module on first use and kept here (later uses are plain lookups)."""
    where = _EXPORTS.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = importlib.import_module(f".{name}" if where == "" else where, __name__)
    if where:
        value = getattr(value, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
