"""minidb: a B+tree engine and an LSM engine whose every IO is counted, for the minidb workbench book.

The public API is re-exported here; see the book's introduction for a tour.
"""

from . import data
from .btree import open_btree
from .errors import (CorruptionError, DatabaseExistsError, DatabaseLockedError, DatabaseMissingError, DeviceCrashed,
                     EngineStopped, MiniDBError, NoSpaceError, NotADatabaseError, ReadOnlyError, TableFullError)
from .kv import WriteBatch
from .lsm import open_lsm
from .schema import Schema
from .storage import DeviceModel, DirDevice, IOCounts, IOStats, SimDevice
from .table import Table
from .transaction import Transaction

__version__ = "0.1.0"

__all__ = [
    "CorruptionError",
    "DatabaseExistsError",
    "DatabaseLockedError",
    "DatabaseMissingError",
    "DeviceCrashed",
    "DeviceModel",
    "DirDevice",
    "EngineStopped",
    "IOCounts",
    "IOStats",
    "MiniDBError",
    "NoSpaceError",
    "NotADatabaseError",
    "ReadOnlyError",
    "Schema",
    "SimDevice",
    "Table",
    "TableFullError",
    "Transaction",
    "WriteBatch",
    "data",
    "open_btree",
    "open_lsm",
]
