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

The engine's ``bulk_load`` (overriding the ``minidb.kv.Engine`` contract's default) checks the keyspace, sorts the
entries (``kv.sorted_entries``), flushes and takes the sequence number; ``ingest`` here writes and logs the files
with the collaborators a flush has (a ``JobContext``).
"""

from __future__ import annotations

from .iterator import MergingIterator
from .job_context import JobContext
from .jobs import write_tables
from .memtable import MemTable
from .table_outputs import TableOutputs
from .version import overlaps
from .version_edit import VersionEdit


def ingest(ctx: JobContext, cf, prefix: bytes, rows: list, seq: int, num_levels) -> int:
    """Write ``rows`` (sorted, unique keys of the keyspace with key prefix ``prefix``) as SST files of family ``cf``
    at the level RocksDB's ingestion rule picks, all with sequence number ``seq``, and log them to the MANIFEST
    (``ctx.versions``; ``num_levels``: family name -> levels); returns the number of files. OSError if they cannot
    be written, the files then deleted."""
    lo, hi = prefix + rows[0][0], prefix + rows[-1][0]
    level = _ingest_level(cf.version, lo, hi)
    sorted_run = MemTable()
    for k, v in rows:  # ascending keys: each insert lands at the end
        sorted_run.put(seq, prefix + k, v)
    base, _ = cf.level_targets()
    bottommost = level == cf.version.num_levels - 1
    outputs = TableOutputs(ctx, cf, level, cf.options.compression_for(level, base, bottommost), "bulk-load")
    write_tables(ctx, "foreground", lambda: MergingIterator([sorted_run.iterator()]), outputs,
                 target_file_size=cf.options.target_file_size(level, base))
    ctx.counters["key_compares"] += sorted_run.compares
    with ctx.device.stats.cause("foreground"):
        try:
            ctx.versions.log_and_apply(VersionEdit(new_files=[(cf.id, level, f) for f in outputs.files]), seq,
                                       num_levels)
        except OSError:
            if not ctx.versions.broken:
                outputs.abandon()  # the edit is surely not in the MANIFEST: the files are garbage
            raise
    return len(outputs.files)


def _ingest_level(version, lo: bytes, hi: bytes) -> int:
    """The deepest level such that no file at it or above overlaps ``[lo, hi]`` (RocksDB's ingestion rule)."""
    for level in range(version.num_levels):
        if any(overlaps(f, lo, hi) for f in version.levels[level]):
            return max(0, level - 1)
    return version.num_levels - 1
