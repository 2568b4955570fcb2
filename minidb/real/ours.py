"""Our engines as loaders: the LSM and the B+tree on a counting ``SimDevice``, every byte counted by kind and cause."""

from __future__ import annotations

from .. import engines
from ..kv import WriteBatch
from ..storage import SimDevice
from .counts import LoadCounts

# Bytes written, by what they are (LoadCounts.written): (file kind, cause or None for any) -> name.
WRITE_CAUSES = {
    ("wal", None): "log",
    ("redo", None): "log",
    ("sst", "flush"): "flush",
    ("sst", "compaction"): "compaction",
    ("data", None): "pages",
    ("doublewrite", None): "pages",
}


class MinidbLoader:
    """Our ``engine`` ("lsm" or "btree") opened with ``options`` on a fresh ``SimDevice``, its keyspaces created."""

    def __init__(self, engine: str, keyspaces: list[tuple[str, bool]], **options) -> None:
        self.spec = engines.get(engine)  # the registry's account of the engine (ValueError if unknown)
        self.name = f"minidb-{engine}"  # name in result tables
        self.device = SimDevice()  # holds the files and counts every IO
        self.db = self.spec.open(self.device, **options)  # the engine
        for name, unique in keyspaces:
            self.db.create_keyspace(name, unique=unique)

    def write(self, entries) -> None:
        """Apply ``entries`` as one write batch."""
        batch = WriteBatch()
        for keyspace, key, value in entries:
            batch.put(keyspace, key, value)
        self.db.write(batch)

    def finish(self, rows: int, logical_bytes: int) -> LoadCounts:
        """Close the engine (flushing memtables, finishing compactions) and read the device's counters."""
        self.db.flush()
        self.db.close()  # lets the compactions in flight finish: their bytes count, as RocksDB's do after settling
        # the LSM's levels in RocksDB's "Compaction Stats" layout, to set beside RocksDB's own
        report = self.spec.report(self.db, "MB").get("compaction_stats_text", {}).get("default", "")
        size = self.spec.data_bytes(self.db)
        stats = self.device.stats
        total = stats.total()
        written = {}
        for (kind, cause), what in WRITE_CAUSES.items():
            written[what] = written.get(what, 0) + stats.total(kind=kind, cause=cause).write_bytes
        written["other"] = total.write_bytes - sum(written.values())
        return LoadCounts(
            engine=self.name, rows=rows, logical_bytes=logical_bytes, bytes_written=total.write_bytes,
            bytes_read=total.read_bytes, read_requests=total.reads,
            size_bytes=size, seconds=0.0,
            written={k: v for k, v in written.items() if v}, report=report,
        )
