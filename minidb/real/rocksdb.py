"""RocksDB as a loader, through ``rocksdict``, shaped like our LSM and counted by RocksDB's own statistics.

**The shape.** ``RocksDBLoader(**shape)`` takes our LSM's option names (``memtable_bytes``, ``block_size``,
``bits_per_key``, ``max_bytes_for_level_base``, ``target_file_size_base``, ``level0_file_num_compaction_trigger``,
``block_cache_bytes``) and sets RocksDB's equivalents; both engines use leveled compaction with dynamic level bytes,
a level multiplier of 10, no compression and an unsynced WAL (RocksDB's default ``sync=false``). Keyspaces become
a 4-byte prefix of each key, as MyRocks stores an index id in front of every key.

**The counts** come from RocksDB's statistics (``Options.enable_statistics``), not from the file system:
``rocksdb.wal.bytes`` (the log), ``rocksdb.flush.write.bytes`` and ``rocksdb.compact.write.bytes`` (SSTs),
``rocksdb.compact.read.bytes`` (compaction inputs) and the count of the ``rocksdb.sst.read.micros`` histogram (SST
read requests). RocksDB does not count its MANIFEST or OPTIONS files' bytes there; ours are a few KB.

**What is not the same.** RocksDB flushes and compacts on background threads while the load goes on, so which
compactions run, and their bytes, depend a little on timing; ``finish`` waits until no flush or compaction is
running or pending, so both engines end with a settled tree. Our LSM computes its jobs inside the writes in
simulated time (it is single-threaded and deterministic).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time

from .counts import LoadCounts

PREFIX_BYTES = 4  # MyRocks' index id in front of every key
SETTLE_POLL_SECONDS = 0.02  # how often finish() asks RocksDB whether background work is left
SETTLE_TIMEOUT_SECONDS = 600  # a settled tree takes seconds; this bounds a stuck one
_STAT = re.compile(r"^(rocksdb\.[\w.]+) COUNT : (\d+)$", re.M)  # a ticker line of the statistics dump
_HIST_COUNT = re.compile(r"^(rocksdb\.[\w.]+) P50 .* COUNT : (\d+) SUM : (\d+)$", re.M)  # a histogram line


class RocksDBLoader:
    """RocksDB in a temporary directory, opened with our LSM's shape (see the module docstring)."""

    name = "rocksdb"

    def __init__(self, keyspaces: list[tuple[str, bool]], *, memtable_bytes: int, block_size: int = 4096,
                 bits_per_key: int = 10, max_bytes_for_level_base: int, target_file_size_base: int,
                 level0_file_num_compaction_trigger: int = 4, block_cache_bytes: int = 8 << 20) -> None:
        import rocksdict as rd

        self._rd = rd
        self.dir = tempfile.mkdtemp(prefix="minidb-rocksdb-")  # removed by finish()
        opts = rd.Options(raw_mode=True)
        opts.create_if_missing(True)
        opts.enable_statistics()
        opts.set_write_buffer_size(memtable_bytes)
        opts.set_max_write_buffer_number(2)  # one mutable + one immutable memtable, as our LSM's default
        opts.set_compression_type(rd.DBCompressionType.none())
        opts.set_level_compaction_dynamic_level_bytes(True)
        opts.set_max_bytes_for_level_base(max_bytes_for_level_base)
        opts.set_max_bytes_for_level_multiplier(10.0)
        opts.set_target_file_size_base(target_file_size_base)
        opts.set_level_zero_file_num_compaction_trigger(level0_file_num_compaction_trigger)
        table = rd.BlockBasedOptions()
        table.set_block_size(block_size)
        if bits_per_key:
            table.set_bloom_filter(bits_per_key, False)
        table.set_block_cache(rd.Cache(block_cache_bytes))
        opts.set_block_based_table_factory(table)
        self.options = opts  # kept: the statistics live in the Options object
        self.db = rd.Rdict(self.dir, opts)  # the database
        self.prefix = {name: i.to_bytes(PREFIX_BYTES, "big") for i, (name, _) in enumerate(keyspaces)}
        self.write_options = rd.WriteOptions()  # sync=false, the WAL on

    def write(self, entries) -> None:
        """Apply ``entries`` as one ``WriteBatch``."""
        batch = self._rd.WriteBatch(raw_mode=True)
        prefix = self.prefix
        for keyspace, key, value in entries:
            batch.put(prefix[keyspace] + key, value)
        self.db.write(batch, self.write_options)

    def finish(self, rows: int, logical_bytes: int) -> LoadCounts:
        """Flush, wait until no flush or compaction runs or is pending, read the statistics, remove the files."""
        try:
            self.db.flush()
            self._settle()
            stats = statistics(self.options.get_statistics())
            size = int(self.db.property_int_value("rocksdb.live-sst-files-size"))
            report = self.db.property_value("rocksdb.cfstats")
            written = {"log": stats.get("rocksdb.wal.bytes", 0),
                       "flush": stats.get("rocksdb.flush.write.bytes", 0),
                       "compaction": stats.get("rocksdb.compact.write.bytes", 0)}
            return LoadCounts(
                engine=self.name, rows=rows, logical_bytes=logical_bytes, bytes_written=sum(written.values()),
                bytes_read=stats.get("rocksdb.compact.read.bytes", 0),
                read_requests=stats.get("rocksdb.sst.read.micros", 0), size_bytes=size, seconds=0.0,
                written={k: v for k, v in written.items() if v}, report=report,
            )
        finally:
            self.db.close()
            shutil.rmtree(self.dir, ignore_errors=True)

    def _settle(self) -> None:
        """Return once RocksDB has no flush or compaction running or waiting (or raise after the timeout)."""
        deadline = time.monotonic() + SETTLE_TIMEOUT_SECONDS
        busy = ("rocksdb.num-running-flushes", "rocksdb.num-running-compactions", "rocksdb.compaction-pending",
                "rocksdb.mem-table-flush-pending")
        while any(self.db.property_int_value(p) for p in busy):
            if time.monotonic() > deadline:
                raise TimeoutError(f"RocksDB still compacting after {SETTLE_TIMEOUT_SECONDS} s")
            time.sleep(SETTLE_POLL_SECONDS)


def statistics(dump: str) -> dict[str, int]:
    """RocksDB's statistics dump as {name: count}: each ticker's COUNT, and each histogram's COUNT (its samples)."""
    out = {name: int(n) for name, n in _STAT.findall(dump)}
    out.update({name: int(n) for name, n, _ in _HIST_COUNT.findall(dump)})
    return out
