"""Our engines as loaders: the LSM and the B+tree on a counting ``SimDevice``, every byte counted by kind and cause."""

from __future__ import annotations

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
        from ..btree import open_btree
        from ..lsm import open_lsm

        openers = {"lsm": open_lsm, "btree": open_btree}
        if engine not in openers:
            raise ValueError(f"unknown engine {engine!r}: use lsm or btree")
        self.name = f"minidb-{engine}"  # name in result tables
        self.device = SimDevice()  # holds the files and counts every IO
        self.db = openers[engine](self.device, **options)  # the engine
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
        self.db.close()
        # the LSM's levels in RocksDB's "Compaction Stats" layout, to set beside RocksDB's own
        report = self.db.compaction_stats_text(unit="MB") if hasattr(self.db, "compaction_stats_text") else ""
        stats = self.device.stats
        total = stats.total()
        written = {}
        for (kind, cause), what in WRITE_CAUSES.items():
            written[what] = written.get(what, 0) + stats.total(kind=kind, cause=cause).write_bytes
        written["other"] = total.write_bytes - sum(written.values())
        data_files = [n for n in self.device.list() if n.endswith((".sst", ".ibd"))]
        return LoadCounts(
            engine=self.name, rows=rows, logical_bytes=logical_bytes, bytes_written=total.write_bytes,
            bytes_read=total.read_bytes, read_requests=total.reads,
            size_bytes=sum(self.device.size(n) for n in data_files), seconds=0.0,
            written={k: v for k, v in written.items() if v}, report=report,
        )
