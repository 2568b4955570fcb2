"""Keyspaces in column families: which family each keyspace lives in, and the key prefix that marks its keys.

Inside a family each key is prefixed with its keyspace's 4-byte id, as MyRocks prefixes every key with its index
id, so one family holds many indexes in one key order. A keyspace's family is the one its index comment names
(``COMMENT 'cfname=...'``, passed by the table layer), else the one the ``keyspace_cf`` option maps it to, else
"default"; a new keyspace is recorded in the MANIFEST (version_edit.py) before its first key is written.
"""

from __future__ import annotations

from .version_edit import VersionEdit


class KeyspaceMap:
    """The keyspaces of one engine (``engine``, which holds the map); see the module docstring."""

    def __init__(self, engine, entries: dict[str, tuple[int, bytes]]) -> None:
        self.engine = engine  # the LSMEngine: its families, MANIFEST, options and counters
        self.entries = entries  # keyspace -> (column family id, 4-byte key prefix)

    def family_for(self, name: str, column_family: str | None) -> str:
        """The column family keyspace ``name`` belongs in (see the module docstring); ValueError naming the option
        that disagrees."""
        engine = self.engine
        mapped = (engine.db.keyspace_cf or {}).get(name)
        if column_family is None:
            return mapped or "default"
        known = sorted(c.name for c in engine.cfs.values())
        if not isinstance(column_family, str) or column_family not in known:
            raise ValueError(f"keyspace {name!r}: column family {column_family!r} (its index comment's cfname) "
                             f"does not exist; declare it in the column_families option (families: "
                             f"{', '.join(known)})")
        if mapped is not None and mapped != column_family:
            raise ValueError(f"keyspace {name!r}: its index comment names column family {column_family!r} but the "
                             f"keyspace_cf option maps it to {mapped!r}")
        return column_family

    def add(self, name: str, unique: bool, cf_name: str | None = None) -> None:
        """Record a new keyspace in column family ``cf_name`` (None: the one ``keyspace_cf`` or "default" gives)."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a keyspace name must be a non-empty str, got {name!r}")
        engine = self.engine
        cf_name = cf_name or self.family_for(name, None)
        cf = next(c for c in engine.cfs.values() if c.name == cf_name)
        ks_id = max((v[0] for v in engine.vs.keyspaces.values()), default=0) + 1
        with engine.device.stats.cause("foreground"):
            engine.vs.log_and_apply(VersionEdit(keyspaces=[(ks_id, name, cf.id, unique)]), engine.last_sequence,
                                    engine.num_levels)
        self.entries[name] = (cf.id, ks_id.to_bytes(4, "big"))
        engine.counters["keyspaces_created"] += 1
