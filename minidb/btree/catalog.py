"""The catalog: which keyspaces exist, with their index id, root page and options.

It is a B+tree like the others (index id 1, root page 1), so creating a keyspace is an ordinary logged insert and
the catalog survives crashes and reopens with no special code (InnoDB's data dictionary is also a set of tables in
the system tablespace)::

    key:   keyspace name, UTF-8
    value: index id u32 | root page u32 | flags u8 (bit 0: unique)

Names starting with ``__`` are reserved for the engine's own trees (they also name those trees' pages in IOStats).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from ..errors import CorruptionError
from .fsp import FIRST_FREE_PAGE, FIRST_USER_INDEX_ID

ENTRY = struct.Struct("<IIB")
FLAG_UNIQUE = 1
MAX_NAME_BYTES = 255
RESERVED_PREFIX = "__"


@dataclass(frozen=True)
class KeyspaceEntry:
    """What the catalog stores about one keyspace."""

    index_id: int  # id stored in every page of its tree
    root: int  # root page number (fixed for the tree's life)
    unique: bool  # False for a non-unique secondary index (its changes may be buffered)


def check_name(name) -> str:
    """``name`` if it is a valid keyspace name, else ValueError."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a keyspace name must be a non-empty string, got {name!r}")
    if name.startswith(RESERVED_PREFIX):
        raise ValueError(f"bad keyspace name {name!r}: names starting with {RESERVED_PREFIX!r} are reserved")
    if len(name.encode()) > MAX_NAME_BYTES:
        raise ValueError(f"bad keyspace name {name[:40]!r}...: at most {MAX_NAME_BYTES} bytes of UTF-8")
    return name


class Catalog:
    """Keyspace entries, loaded from and added to the catalog tree."""

    def __init__(self, tree) -> None:
        self.tree = tree  # the catalog's BTree
        self.entries: dict[str, KeyspaceEntry] = {}  # name -> entry

    def load(self) -> None:
        """Read every entry from the tree (at open); CorruptionError for one that is not an entry."""
        for key, value in self.tree.items(None, None):
            try:
                index_id, root, flags = ENTRY.unpack(value)
                name = key.decode()
            except (struct.error, UnicodeDecodeError):
                raise CorruptionError(f"tablespace.ibd: catalog record {key[:40]!r} -> {value[:40]!r} is not a "
                                      f"keyspace entry") from None
            if index_id < FIRST_USER_INDEX_ID or root < FIRST_FREE_PAGE:
                raise CorruptionError(f"tablespace.ibd: catalog entry {name!r} names index {index_id} at page "
                                      f"{root}, which belong to the engine's own trees")
            self.entries[name] = KeyspaceEntry(index_id, root, bool(flags & FLAG_UNIQUE))

    def add(self, name: str, entry: KeyspaceEntry) -> None:
        """Record a new keyspace (logged in the open mini-transaction)."""
        self.tree.put(name.encode(), ENTRY.pack(entry.index_id, entry.root, FLAG_UNIQUE if entry.unique else 0))
        self.entries[name] = entry
