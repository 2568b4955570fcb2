"""LSMEngine: the RocksDB-like engine behind ``minidb.kv.Engine`` (see the package docstring for the tour).

Write path: a write batch is encoded once (write_batch.pyx), appended to the WAL as one record (synced per
``wal_sync``), then inserted into the memtables of its column families. Nothing is read: a secondary index entry
is a blind put, which is why an LSM's insert cost does not depend on how much of the data is cached (seed 000).

Read path: a point lookup asks the memtables (newest first), then every L0 file whose key range holds the key
(newest first), then at most one file per deeper level, each behind its bloom filter. A scan merges all of them.

Keyspaces are mapped to column families (keyspace_map.py); inside a family each key is prefixed with its keyspace's
4-byte id, as MyRocks prefixes every key with its index id, so one family holds many indexes in one key order.

**The class and its parts.** ``LSMEngine`` keeps the client API and the wiring. Beside it, each in a module of its
own: the background jobs (scheduler.py, which reaches the engine through ``SchedulerHost``), the WAL files
(wal_files.py), the open SSTs (table_cache.py), the keyspaces (keyspace_map.py), write failures (failures.py),
manual flushes and compactions (maintenance.py) and the statistics (engine_stats.py).
"""

from __future__ import annotations

from collections import Counter
from functools import partial

from minidb.errors import ReadOnlyError
from minidb.kv import Engine, WriteBatch, check_key, sorted_entries
from minidb.sim import Clock

from .block_cache import BlockCache
from .bulk_load import ingest
from .db_iter import user_entries
from .dbformat import seek_key
from .engine_stats import compaction_stats, compaction_stats_text, engine_stats
from .failures import Failures
from .iterator import MergingIterator
from .job_context import JobContext
from .keyspace_map import KeyspaceMap
from .level_iter import LevelIter
from .maintenance import compact_manually, flush_all
from .options import CFOptions, DBOptions
from .point_lookup import get_from_files
from .recovery import num_levels, recover
from .scan_merge import plugged_entries
from .scheduler import Scheduler
from .table_cache import TableCache
from .version_set import VersionSet
from .wal_files import WalFiles
from .write_batch import apply_batch, encode_batch

# CPU work the engine counts, under the unit names of minidb.sim.cpu's cost model.
WORK_UNITS = ("key_compares", "page_visits", "lz4_compress_bytes", "lz4_decompress_bytes", "zstd_compress_bytes",
              "zstd_decompress_bytes", "flush_entries", "compaction_entries")

COUNTERS = WORK_UNITS + (
    "writes", "puts", "deletes", "user_bytes", "gets", "scans", "get_tables_probed", "blocks_accessed",
    "blocks_read", "bloom_checked", "bloom_useful", "bloom_positive", "bloom_true_positive", "bloom_false_positive",
    "flushes", "compactions", "trivial_moves", "background_errors", "stall_writes_stopped",
    "stall_writes_slowed", "stall_seconds", "stall_stop_memtable", "stall_stop_level0", "stall_stop_pending-bytes",
    "stall_slowdown_level0", "stall_slowdown_pending-bytes", "lost_acked_writes", "lost_acked_batches",
    "wal_write_errors", "stops", "bulk_loads", "bulk_load_entries",
    "commit_peak_bytes", "keyspaces_created", "serial_key_compares", "serial_log_bytes",
)


def cpu_work(counters, families: dict) -> dict[str, int]:
    """Cumulative CPU work by the units of ``minidb.sim.cpu``: the engine's counters plus the key comparisons of
    the memtables of ``families`` (column family id -> ColumnFamily)."""
    out = {unit: counters[unit] for unit in WORK_UNITS}
    out["key_compares"] += sum(cf.mem.compares + sum(s.mem.compares for s in cf.imm) for cf in families.values())
    return out


class LSMEngine(Engine):
    """A RocksDB-like LSM engine on a counted device. Open it with ``minidb.lsm.open_lsm``."""

    def __init__(self, device, db: DBOptions, cf_options: dict[str, CFOptions]) -> None:
        self.device = device  # where every file lives; all IO is counted in device.stats
        self.db = db  # database options
        self.cf_options = cf_options  # options per column family name
        self.clock = db.clock if db.clock is not None else Clock()  # simulated time of jobs and stalls
        self.cache = BlockCache(db.block_cache_bytes)  # shared LRU block cache
        self.counters: Counter = Counter({name: 0 for name in COUNTERS})  # engine counters (IO is in device.stats)
        self.tables = TableCache(device, self.cache, self.counters)  # the open SSTs (table_cache.py)
        self.num_levels = partial(num_levels, cf_options)  # column family name -> its levels (for MANIFEST edits)
        self._last_write_memory = 0  # bytes held at the peak of the last commit: the batch plus its memtable copy
        self.closed = False  # True after close()
        self.read_only = db.read_only  # opened for reading only: every write raises ReadOnlyError
        self.failures = Failures(self)  # what a failed write does, a stop (failures.py)
        # One writer per database: a read-write open holds the device's LOCK until close (a read-only one writes
        # nothing, so it needs none, as RocksDB's OpenForReadOnly).
        self._lock = None if self.read_only else device.lock()
        try:
            opened = recover(device, db, cf_options, self.counters, self.job_context)  # recovery.py
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise
        self.vs: VersionSet = opened.vs  # the MANIFEST: every family's files, the keyspaces, file numbers
        self.cfs: dict = opened.cfs  # column family id -> ColumnFamily
        self._memtables: list = opened.memtables  # active memtable per column family id (apply_batch's view)
        self.keyspace_map = KeyspaceMap(self, opened.keyspaces)  # keyspace -> column family and key prefix
        self.last_sequence: int = opened.last_sequence  # sequence number of the last write applied
        self.recovery: dict = opened.recovery  # what the open's WAL replay did (wal_recovery.ReplayReport.as_dict())
        # The WAL being written (None when read_only) and the older ones still needed (wal_files.py).
        self.wal_files = WalFiles(device, self.vs, self._memtables, opened.wal, opened.wal_numbers)
        # Flushes, compactions, stalls and background errors (scheduler.py), through its SchedulerHost interface.
        self.scheduler = Scheduler(self)
        if not self.read_only:
            self.scheduler.run()

    # -- keyspaces ----------------------------------------------------------------------------------------------
    def keyspaces(self) -> list[str]:
        """Names of the keyspaces that exist, sorted."""
        return sorted(self.keyspace_map.entries)

    def create_keyspace(self, name: str, *, unique: bool = True, column_family: str | None = None) -> None:
        """Create keyspace ``name`` in its column family; no-op if it exists with the same ``unique`` and family,
        ValueError if with others.

        The family is ``column_family`` when given (the table layer passes an index's ``COMMENT 'cfname=...'``,
        as MyRocks does), else the one ``keyspace_cf`` maps the keyspace to, else "default". It must be one the
        engine was opened with (``column_families``): MyRocks would create an unknown one with default options,
        which here would hide a misspelt name. ``unique`` is recorded for the table layer, which reads before
        writing a unique index entry; the engine itself treats every put as blind.
        """
        self.failures.check_writable()
        if not isinstance(unique, bool):
            raise ValueError(f"bad unique {unique!r} for keyspace {name!r}: must be True or False")
        keyspaces = self.keyspace_map
        cf_name = keyspaces.family_for(name, column_family)
        if name not in keyspaces.entries:
            keyspaces.add(name, unique, cf_name)
            return
        if self.is_unique(name) != unique:
            raise ValueError(f"keyspace {name!r} exists with unique={not unique}, cannot open it with "
                             f"unique={unique}")
        actual = self.cfs[keyspaces.entries[name][0]].name
        if actual != cf_name:
            raise ValueError(f"keyspace {name!r} exists in column family {actual!r}, cannot open it in "
                             f"{cf_name!r}")

    def is_unique(self, name: str) -> bool:
        """The ``unique`` flag keyspace ``name`` was created with (recorded in the MANIFEST); ValueError if
        unknown."""
        if name not in self.vs.keyspaces:
            raise ValueError(f"no keyspace {name!r}; keyspaces: {', '.join(self.keyspaces()) or 'none'}")
        return self.vs.keyspaces[name][2]

    # -- writes -------------------------------------------------------------------------------------------------
    # put and delete are Engine's: a batch of one; a delete writes a tombstone.
    def write(self, batch: WriteBatch) -> None:
        """Apply ``batch`` atomically: one WAL record, then the memtables. A failed WAL write or a background error
        meets the engine's disk-full behaviour (seed 004, failures.py): by default the write fails and the engine
        turns read-only until ``resume()``."""
        failures = self.failures
        failures.check_open()
        if not batch.ops:
            return
        failures.before_write()
        try:
            self._write(batch)
        except (OSError, ReadOnlyError) as exc:
            if failures.acknowledged(exc, batch):
                return
            raise

    def set_group_commit(self, on: bool) -> None:
        """Leave the WAL's per-write syncs (``wal_sync="write"``) to the server's group commit, ``sync_log`` once per
        group (wal.py), or (``on`` False) take them back."""
        self.failures.check_open()
        if self.read_only:
            return
        if on and (self.db.on_wal_write_error != "read_only" or self.db.reproduce_2018_disk_full_bug):
            raise ValueError("group commit of the WAL keeps the default disk-full behaviour only: open the engine "
                             "with on_wal_write_error='read_only' and without reproduce_2018_disk_full_bug")
        self.wal_files.writer.group_commit = bool(on)  # the WALs that follow it inherit it (wal.py)

    def sync_log(self) -> None:
        """Write and sync the WAL up to the last write, if group commit holds the writes' syncs back: a binlog
        group's flush stage. A failed write turns the engine read-only until ``resume()``, as a failed WAL write
        does; the group's records wait for the next ``sync_log``."""
        self.failures.check_open()
        wal = self.wal_files.writer  # None when read_only
        if wal is None or not wal.defers_syncs:
            return  # the writes synced as their policy says (or as it leaves to the OS)
        with self.device.stats.cause("foreground"):
            try:
                wal.sync(self.last_sequence)
            except OSError as exc:
                self.counters["wal_write_errors"] += 1
                self.scheduler.error = f"WAL write to {wal.name} failed: {exc}"
                raise

    def _write(self, batch: WriteBatch) -> None:
        if self.scheduler.error is not None:
            raise self.failures.read_only_error()
        self.scheduler.make_room(batch.nbytes)
        first = self.last_sequence + 1
        last = first + len(batch.ops) - 1
        wal = self.wal_files.writer
        while True:
            try:
                payload = encode_batch(batch.ops, self.keyspace_map.entries, first, wal.synced_seq)
                break
            except KeyError as exc:
                self.keyspace_map.add(exc.args[0], True)
        with self.device.stats.cause("foreground"):
            try:
                wal.append(payload, last)
                self.counters["serial_log_bytes"] += len(payload)  # the write group's leader checksums and copies it
            except OSError as exc:
                if getattr(exc, "record_kept", False):
                    self._apply(payload, batch)
                    self.last_sequence = last
                self.counters["wal_write_errors"] += 1
                exc.wal_write_failed = True  # (write() asks a plugged-in handler about this error only)
                if self.failures.handler is None:
                    # RocksDB's error handler: a failed WAL write is a hard error, writes stop until resume().
                    self.scheduler.error = f"WAL write to {wal.name} failed: {exc}"
                raise
        self._apply(payload, batch)
        self.last_sequence = last
        self.scheduler.run()

    def _apply(self, payload: bytes, batch: WriteBatch) -> None:
        live = [m for m in self._memtables if m is not None]
        before, compares = sum(m.nbytes for m in live), sum(m.compares for m in live)
        _, deletes, key_bytes, value_bytes = apply_batch(payload, self._memtables)
        copied = sum(m.nbytes for m in live) - before
        # The leader inserts the whole write group into the memtable (allow_concurrent_memtable_write off).
        self.counters["serial_key_compares"] += sum(m.compares for m in live) - compares
        # Seed 000: a commit copies the batch into the memtable, so for a moment both are in memory.
        self._last_write_memory = batch.nbytes + copied
        c = self.counters
        c["commit_peak_bytes"] = max(c["commit_peak_bytes"], self._last_write_memory)
        c["writes"] += 1
        c["deletes"] += deletes
        c["puts"] += len(batch.ops) - deletes
        # What the client wrote: its keys (without the 4-byte keyspace prefix) and values.
        c["user_bytes"] += key_bytes - 4 * len(batch.ops) + value_bytes

    def bulk_load(self, keyspace: str, pairs, *, unique: bool = False) -> int:
        """Sort ``pairs`` and ingest them as SST files into the new (or empty) ``keyspace``, as MyRocks builds an
        index (bulk_load.py); returns the number of files. ValueError if the keyspace holds data or a key repeats;
        OSError (the statement fails, the engine goes on) if the files cannot be written."""
        self.failures.check_writable()
        existed = keyspace in self.keyspace_map.entries
        if existed:
            if next(iter(self.scan(keyspace)), None) is not None:
                raise ValueError(f"bulk load into keyspace {keyspace!r}, which holds data: only a new index is "
                                 f"loaded")
        else:
            self.keyspace_map.add(keyspace, unique)
        cf_id, prefix = self.keyspace_map.entries[keyspace]
        rows = sorted_entries(keyspace, pairs)
        if not rows:
            return 0
        if existed:
            flush_all(self)  # its tombstones may sit in a memtable, which reads see before any file
        seq = self.last_sequence + 1  # one sequence number for every file, as RocksDB's ingested files get
        files = ingest(self.job_context(self.vs, self.cfs), self.cfs[cf_id], prefix, rows, seq, self.num_levels)
        self.last_sequence = seq
        self.counters["bulk_loads"] += 1
        self.counters["bulk_load_entries"] += len(rows)
        self.scheduler.needs_schedule = True
        self.scheduler.run()
        return files

    # -- reads --------------------------------------------------------------------------------------------------
    def get(self, keyspace: str, key: bytes) -> bytes | None:
        """The value of ``key`` in ``keyspace``, or None."""
        self.failures.check_open()
        check_key(key)
        self.counters["gets"] += 1
        ks = self.keyspace_map.entries.get(keyspace)
        if ks is None:
            return None
        cf = self.cfs[ks[0]]
        ukey = ks[1] + bytes(key)
        found, value = cf.mem.get(ukey)
        if found:
            return value
        for sealed in reversed(cf.imm):
            found, value = sealed.mem.get(ukey)
            if found:
                return value
        # Tagged with the keyspace, as the B+tree's pager tags a page read with its index: which index's reads miss.
        with self.device.stats.attribute("foreground", keyspace):
            return get_from_files(self.tables, cf, cf.version, ukey)[1]

    def scan(self, keyspace: str, lo: bytes | None = None, hi: bytes | None = None):
        """(key, value) pairs of ``keyspace`` with ``lo <= key < hi`` in key order (None: unbounded)."""
        self.failures.check_open()
        self.counters["scans"] += 1
        ks = self.keyspace_map.entries.get(keyspace)
        if ks is None:
            return iter(())
        cf = self.cfs[ks[0]]
        prefix = ks[1]
        start = prefix + (bytes(lo) if lo is not None else b"")
        end = prefix + bytes(hi) if hi is not None else _next_prefix(prefix)
        children = [cf.mem.iterator()] + [s.mem.iterator() for s in reversed(cf.imm)]
        files = []
        v = cf.version
        # An L0 table opened here reads its footer and meta blocks for this scan: counted under its keyspace too.
        with self.device.stats.attribute("foreground", keyspace):
            for f in v.levels[0]:
                if f.largest_user >= start and f.smallest_user < end:
                    files.append(f)
                    children.append(self.tables.get(cf, f).iterator())
        for level in range(1, v.num_levels):
            lf = v.in_range(level, start, end)
            if lf:
                files += lf
                children.append(LevelIter([f.largest for f in lf], _level_opener(self.tables, cf, lf)))
        merged = MergingIterator(children)
        if self.db.merging_iterator is None:
            inner = user_entries(merged, seek_key(start), end, 4)
        else:  # exercise 09's plug point: the plugin merges (its comparisons are not counted)
            inner = plugged_entries(self.db.merging_iterator, children, seek_key(start), end, 4)
        return self._scan(keyspace, merged, inner, [f.number for f in files])

    def _scan(self, keyspace: str, merged, inner, numbers: list[int]):
        """Yield what ``inner`` yields from ``merged``'s sources while holding the files ``numbers``; the blocks
        it reads are counted under ``keyspace``'s tag."""
        self.tables.ref(numbers)
        done = 0  # comparisons already counted
        try:
            while True:
                with self.device.stats.attribute("foreground", keyspace):
                    item = next(inner, None)
                self.counters["key_compares"] += merged.compares - done
                done = merged.compares
                if item is None:
                    return
                yield item
        finally:
            self.tables.unref(numbers, delete=not self.closed)

    # -- maintenance ----------------------------------------------------------------------------------------------
    def flush(self) -> None:
        """Seal every non-empty memtable and wait (in simulated time) until all are written to L0."""
        self.failures.check_writable()
        flush_all(self)

    def compact_range(self, begin: bytes | None = None, end: bytes | None = None, *, keyspace: str | None = None,
                      cf: str | None = None) -> None:
        """Compact the keys in ``[begin, end]`` down to the last level (RocksDB's CompactRange).

        With ``keyspace`` the range is within that keyspace (and its column family); with ``cf`` (a name) it is a
        range of that family's keys; with neither, every family is compacted whole. Memtables are flushed first;
        every step rewrites its files, so tombstones that reach the bottom are dropped.
        """
        self.failures.check_writable()
        if keyspace is not None:
            ks = self.keyspace_map.entries.get(keyspace)
            if ks is None:
                return
            families = [self.cfs[ks[0]]]
            lo = ks[1] + (bytes(begin) if begin is not None else b"")
            # Keys are never empty, so the next keyspace's bare prefix is above every key of this one.
            hi = ks[1] + bytes(end) if end is not None else _next_prefix(ks[1])
        else:
            if cf is not None:
                families = [c for c in self.cfs.values() if c.name == cf]
                if not families:
                    raise ValueError(f"unknown column family {cf!r}; known: {self.column_families()}")
            else:
                families = list(self.cfs.values())
            lo, hi = begin, end
        flush_all(self)
        compact_manually(self, families, lo, hi, level0_only=False)

    def compact_level0(self) -> None:
        """Flush the memtables, then merge every L0 file into the level below (RocksDB issue 427's proposal for a
        workload that turns read-only: a get then probes no memtable entries and no L0 file).

        Leveled families merge L0 into their base level and leave the deeper levels alone; a universal family has
        no level to merge L0 into short of a full merge, so it is compacted whole, as by ``compact_range``.
        """
        self.failures.check_writable()
        flush_all(self)
        compact_manually(self, list(self.cfs.values()), None, None, level0_only=True)

    def resume(self) -> None:
        """Leave the read-only state of a background error by retrying the failed work; ReadOnlyError if it fails
        again (e.g. the disk is still full), EngineStopped if the engine stopped (only a reopen recovers it). A no-op
        when there is no background error."""
        self.failures.check_open()
        if self.scheduler.error is None:
            return  # (a read_only engine never has one)
        self.scheduler.resume()

    def close(self) -> None:
        """Flush the memtables, finish background jobs, sync the WAL and release every file.

        After a background error the memtables cannot be flushed; their contents stay in the (synced) WAL and the
        next open recovers them.
        """
        if self.closed:
            return
        try:
            # A stopped engine is a dead process, a read-only one wrote nothing: neither writes as it closes.
            if self.failures.stop_reason is None and not self.read_only:
                if self.scheduler.error is None:
                    try:
                        flush_all(self)
                        self.scheduler.wait_for(lambda: not self.scheduler.jobs)
                    except (OSError, ReadOnlyError):
                        pass  # the data stays in the WAL, synced below
                with self.device.stats.cause("foreground"):
                    self.wal_files.writer.sync(self.last_sequence)
        finally:
            self.closed = True
            self.wal_files.close()
            self.vs.close()
            self.tables.close()
            if self._lock is not None:
                self._lock.release()

    # -- statistics -------------------------------------------------------------------------------------------------
    def work(self) -> dict[str, int]:
        """The counters of ``minidb.kv.WORK``: CPU work by the units of ``minidb.sim.cpu`` (background jobs
        declare theirs to the clock as they start) and the block cache's hits and misses."""
        out = cpu_work(self.counters, self.cfs)
        out["cache_hits"], out["cache_misses"] = self.cache.hit_miss()
        out["zlib_compress_bytes"] = out["zlib_decompress_bytes"] = 0  # zlib is not among its compressions
        return out

    def serial_work(self) -> dict[str, int]:
        """The write group leader's work (``minidb.sim.server``): memtable comparisons, WAL bytes checksummed and
        copied."""
        c = self.counters
        return {"key_compares": c["serial_key_compares"], "crc32_bytes": c["serial_log_bytes"],
                "copy_bytes": c["serial_log_bytes"]}

    def job_context(self, versions: VersionSet, families: dict) -> JobContext:
        """What a flush or compaction started now works with (job_context.py), on ``versions`` and ``families``
        (column family id -> ColumnFamily); what the scheduler and recovery ask of the engine."""
        return JobContext(device=self.device, versions=versions, clock=self.clock, table=self.tables.get,
                          counters=self.counters, work=lambda: cpu_work(self.counters, families),
                          compaction_readahead_size=self.db.compaction_readahead_size,
                          writable_file_max_buffer_size=self.db.writable_file_max_buffer_size)

    @property
    def stopped(self) -> bool:
        """True after ``on_wal_write_error="abort"`` stopped the engine (until a reopen, as mysqld restarts)."""
        return self.failures.stop_reason is not None

    @property
    def background_error(self) -> str | None:
        """Why writes are refused after a failed flush, compaction or WAL write, until ``resume()`` (scheduler.py)."""
        return self.scheduler.error

    def last_write_memory(self) -> int:
        """Bytes the last commit held at its peak: the batch plus its copy in the memtable (seed 000)."""
        return self._last_write_memory

    def column_families(self) -> list[str]:
        """Names of the column families, by id."""
        return [cf.name for _, cf in sorted(self.cfs.items())]

    def column_family(self, name: str):
        """The ColumnFamily named ``name`` (its options, memtables, version and stats); ValueError if unknown."""
        for cf in self.cfs.values():
            if cf.name == name:
                return cf
        raise ValueError(f"unknown column family {name!r}; known: {self.column_families()}")

    def compaction_stats(self, cf: str = "default", unit: str = "GB"):
        """RocksDB's "Compaction Stats" of column family ``cf`` as a pandas DataFrame (sizes in ``unit``)."""
        return compaction_stats(self.column_family(cf), unit)

    def compaction_stats_text(self, cf: str = "default", unit: str = "GB") -> str:
        """RocksDB's "Compaction Stats" of column family ``cf``, as RocksDB prints it."""
        return compaction_stats_text(self.column_family(cf), unit)

    def stats(self) -> dict:
        """Engine counters as a flat dict (engine_stats.py); IO itself is in ``device.stats`` (some figures here
        derive from it)."""
        return engine_stats(self)

    def __repr__(self) -> str:
        return (f"<LSMEngine cfs={self.column_families()} keyspaces={len(self.keyspace_map.entries)} "
                f"files={sum(cf.version.num_files() for cf in self.cfs.values())}>")


def _next_prefix(prefix: bytes) -> bytes:
    """The 4-byte prefix of the next keyspace id: every key of keyspace ``prefix`` sorts below it."""
    return (int.from_bytes(prefix, "big") + 1).to_bytes(4, "big")


def _level_opener(tables: TableCache, cf, files):
    """The opener a LevelIter calls for the i-th of ``files``, a level of ``cf``: a cached iterator over it."""
    def open_file(i: int):
        return tables.get(cf, files[i]).iterator()
    return open_file
