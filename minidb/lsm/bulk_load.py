"""Bulk load: a new index's entries sorted and written straight into SST files, then ingested by one MANIFEST edit.

This is how MyRocks builds a secondary index (``CREATE INDEX`` with ``rocksdb_bulk_load``; seed 004's failing
statement): the entries are sorted (MyRocks sorts them in merge buffers, the ``.bulk_load.tmp`` files of the post's
error message), written as sorted runs of SST files, and added to the tree with RocksDB's ``IngestExternalFile``.
Nothing goes through the WAL or the memtable, so a bulk load costs one write of each entry, not a flush plus a
compaction's rewrites.

Where the files go (RocksDB's rule for ingested files): the deepest level that nothing at or above it overlaps, so a
new index, whose keyspace prefix sorts after every existing key of its column family, lands in the last level. Only
a keyspace that existed before can have entries in a memtable (tombstones, say), which reads see before any file:
its memtables are flushed first. The files carry one sequence number, the next one, as RocksDB gives an ingested
file a global sequence number.

**Failures.** An IO error (a full disk) while writing the files deletes them and reaches the caller, as MyRocks'
"bulk load error: IO error: No space left on device": the statement fails, the engine goes on. Only the MANIFEST edit
makes the files part of the database, so a crash before it leaves garbage that the next open deletes.
"""

from __future__ import annotations

from .iterator import MergingIterator
from .jobs import write_tables
from .memtable import MemTable
from .table_outputs import TableOutputs
from .version import overlaps
from .version_edit import VersionEdit


def bulk_load(engine, keyspace: str, pairs, unique: bool = False) -> int:
    """Sort ``pairs`` (key, value) and ingest them as the contents of the new or empty ``keyspace``; returns the
    number of SST files written. ValueError if the keyspace holds data or a key repeats."""
    engine._check_writable()
    existed = keyspace in engine._ks_table
    if existed:
        if next(iter(engine.scan(keyspace)), None) is not None:
            raise ValueError(f"bulk load into keyspace {keyspace!r}, which holds data: only a new index is loaded")
    else:
        engine._new_keyspace(keyspace, unique)
    cf_id, prefix = engine._ks_table[keyspace]
    cf = engine.cfs[cf_id]
    rows = sorted((bytes(k), bytes(v)) for k, v in pairs)
    if not rows:
        return 0
    for (a, _), (b, _) in zip(rows, rows[1:]):
        if a == b:
            raise ValueError(f"bulk load into keyspace {keyspace!r}: key {a.hex()} appears twice")
    lo, hi = prefix + rows[0][0], prefix + rows[-1][0]
    if existed:
        engine._flush_all()  # its tombstones may sit in a memtable, which reads see before any file
    level = _ingest_level(cf.version, lo, hi)
    seq = engine.last_sequence + 1
    sorted_run = MemTable()
    for k, v in rows:  # ascending keys: each insert lands at the end
        sorted_run.put(seq, prefix + k, v)
    base, _ = cf.level_targets()
    bottommost = level == cf.version.num_levels - 1
    ctx = engine._job_context(engine.vs, engine.cfs)  # what a flush or compaction writes with
    outputs = TableOutputs(ctx, cf, level, cf.options.compression_for(level, base, bottommost), "bulk-load")
    write_tables(ctx, "foreground", lambda: MergingIterator([sorted_run.iterator()]), outputs,
                 target_file_size=cf.options.target_file_size(level, base))
    engine.counters["key_compares"] += sorted_run.compares
    with engine.device.stats.cause("foreground"):
        try:
            engine.vs.log_and_apply(VersionEdit(new_files=[(cf.id, level, f) for f in outputs.files]), seq,
                                    engine._num_levels)
        except OSError:
            if not engine.vs.broken:
                outputs.abandon()  # the edit is surely not in the MANIFEST: the files are garbage
            raise
    engine.last_sequence = seq
    engine.counters["bulk_loads"] += 1
    engine.counters["bulk_load_entries"] += len(rows)
    engine._needs_schedule = True
    engine._run_background()
    return len(outputs.files)


def _ingest_level(version, lo: bytes, hi: bytes) -> int:
    """The deepest level such that no file at it or above overlaps ``[lo, hi]`` (RocksDB's ingestion rule)."""
    for level in range(version.num_levels):
        if any(overlaps(f, lo, hi) for f in version.levels[level]):
            return max(0, level - 1)
    return version.num_levels - 1
