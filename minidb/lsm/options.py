"""Options of the LSM engine, named as RocksDB names them, checked when the engine opens.

``open_lsm(device, **options)`` takes two kinds of keyword:

* **database options** (``DBOptions``): the WAL sync policy, the block cache, the clock, background jobs, event
  listeners, what a failed WAL write does (``on_wal_write_error``, or the teaching switch for the 2018 disk-full
  bug), how recovery treats a damaged WAL (``wal_recovery_mode``), and the layout of column families and keyspaces;
* **column family options** (``CFOptions``): memtable, SST format, compression, compaction shape and triggers. Given
  to ``open_lsm`` they are the defaults of every column family; ``column_families={"cf1": {...}}`` overrides them
  per family (RocksDB's ``rocksdb_override_cf_options``).

A wrong name or value raises ValueError naming the option and the value. Sizes are bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from . import compression as _compression
from .filter_policy import FilterPolicy
from .leveled_picker import LeveledPicker
from .scan_merge import ScanMerge
from .wal_error_handler import WalErrorHandler, check_handler
from .wal_recovery import check_mode

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


@dataclass(frozen=True)
class CFOptions:
    """Per column family options (RocksDB ColumnFamilyOptions and BlockBasedTableOptions)."""

    memtable_bytes: int = 64 * MIB  # write_buffer_size: a memtable is sealed and flushed at this size
    max_immutable_memtables: int = 1  # sealed memtables waiting for flush before writes stop (max_write_buffer_number - 1)
    block_size: int = 4096  # target size of an SST data block, before compression
    bits_per_key: int = 10  # built-in bloom filter bits per key; 0 builds no filter
    filter_policy: FilterPolicy | None = None  # a filter policy (a plug point) instead of the built-in bloom
    cache_index_and_filter_blocks: bool = False  # index/filter blocks in the block cache (True) or pinned (False)
    compression: str | tuple = "none"  # "none", "lz4", "zstd", or one per level (compression_per_level)
    bottommost_compression: str | None = None  # compression of the bottommost level, overriding the above
    compaction: str = "leveled"  # compaction_style: "leveled" or "universal"
    num_levels: int = 7  # levels L0..L(num_levels-1)
    level0_file_num_compaction_trigger: int = 4  # L0 files (universal: sorted runs) that trigger a compaction
    level0_slowdown_writes_trigger: int = 20  # L0 files at which writes are slowed down
    level0_stop_writes_trigger: int = 36  # L0 files at which writes stop until compaction catches up
    max_bytes_for_level_base: int = 256 * MIB  # target size of the level L0 compacts into
    max_bytes_for_level_multiplier: float = 10  # each level's target is this times the previous one's
    level_compaction_dynamic_level_bytes: bool = True  # size levels from the last one up (RocksDB >= 8.4 default)
    target_file_size_base: int = 64 * MIB  # compaction output files are cut at this size (at the base level)
    target_file_size_multiplier: int = 1  # ... times this per level below the base level
    max_compaction_bytes: int | None = None  # a trivial move is refused above this (None: 25 x target_file_size_base)
    soft_pending_compaction_bytes_limit: int = 64 * GIB  # estimated compaction debt at which writes slow down
    hard_pending_compaction_bytes_limit: int = 256 * GIB  # ... at which writes stop
    compaction_pri: str = "min_overlapping_ratio"  # which file of a level to compact: or "round_robin"
    compaction_picker: LeveledPicker | None = None  # leveled picking's decisions (a plug point); None: the engine's
    size_ratio: int = 1  # universal: percent by which runs may differ and still be merged
    max_size_amplification_percent: int = 200  # universal: full compaction when newer runs exceed this % of the last
    min_merge_width: int = 2  # universal: fewest runs merged by a size-ratio compaction
    max_merge_width: int = 2**32 - 1  # universal: most runs merged by a size-ratio compaction
    disable_auto_compactions: bool = False  # True: only compact_range compacts (flushes still happen)

    def compression_for(self, level: int, base_level: int, bottommost: bool) -> str:
        """The compression of a file written to ``level`` (RocksDB's GetCompressionType)."""
        if bottommost and self.bottommost_compression is not None and level > 0:
            return self.bottommost_compression
        if isinstance(self.compression, tuple):
            # With dynamic level bytes the per-level list is indexed from the base level, as RocksDB does.
            idx = 0 if level == 0 else level - base_level + 1
            return self.compression[max(0, min(idx, len(self.compression) - 1))]
        return self.compression

    def target_file_size(self, level: int, base_level: int) -> int:
        """Compaction output files at ``level`` are cut at this size (RocksDB's MaxFileSizeForLevel)."""
        return self.target_file_size_base * self.target_file_size_multiplier ** max(0, level - max(base_level, 1))

    @property
    def compaction_bytes_limit(self) -> int:
        """max_compaction_bytes, with RocksDB's default of 25 target files."""
        return self.max_compaction_bytes if self.max_compaction_bytes is not None else 25 * self.target_file_size_base


@dataclass(frozen=True)
class DBOptions:
    """Database-wide options (RocksDB DBOptions, plus the engine's teaching and layout options)."""

    wal_sync: str | tuple = "write"  # "write" (sync every batch), ("every", N) or "none"
    block_cache_bytes: int = 8 * MIB  # capacity of the LRU block cache shared by every column family
    clock: object = None  # the simulated Clock background jobs and stalls report to (None: a Clock of its own)
    max_background_jobs: int = 2  # jobs in flight at once: max(1, jobs // 4) flushes, the rest compactions
    delayed_write_rate: int = 16 * MIB  # bytes per second a slowed-down writer may write
    compaction_readahead_size: int = 2 * MIB  # bytes read per request by compaction input iterators
    writable_file_max_buffer_size: int = 1 * MIB  # bytes written per request when building an SST
    reproduce_2018_disk_full_bug: bool = False  # teaching: acknowledge writes the engine drops (seed 004)
    # "read_only" (RocksDB: a hard error, resume() later), "abort" (MyRocks), or a WalErrorHandler (a plug point)
    on_wal_write_error: str | WalErrorHandler = "read_only"
    wal_recovery_mode: str | int = "kTolerateCorruptedTailRecords"  # RocksDB's WALRecoveryMode (wal_recovery.py)
    column_families: dict = None  # {name: {CF option: value}} for each family besides "default"
    keyspace_cf: dict = None  # {keyspace: column family name}; unlisted keyspaces go to "default"
    # Objects told of every installed flush and compaction (RocksDB's EventListener): each has
    # on_flush_completed(engine, job) and/or on_compaction_completed(engine, job), see scheduler.py.
    listeners: tuple = ()
    merging_iterator: ScanMerge | None = None  # merges every scan's sources in Python (a plug point); None: in C
    create_if_missing: bool = True  # create a database where there is none (False: DatabaseMissingError)
    error_if_exists: bool = False  # DatabaseExistsError if the device already holds a database
    read_only: bool = False  # open for reading only (RocksDB's OpenForReadOnly): no file is written or deleted
    # Replay the WALs into the memtables and keep them until the next flush, instead of flushing them to L0 during
    # recovery, so a reopen needs no free space for its WALs' worth of SSTs. RocksDB's default is False; here True,
    # because a database must reopen on a full disk (seed 004's disk-full chapter).
    avoid_flush_during_recovery: bool = True


LISTENER_METHODS = ("on_flush_completed", "on_compaction_completed")  # what a listener may implement
CF_FIELDS = {f.name for f in fields(CFOptions)}
DB_FIELDS = {f.name for f in fields(DBOptions)}


def parse_options(kwargs: dict) -> tuple[DBOptions, dict[str, CFOptions]]:
    """Split and check ``open_lsm``'s keywords: the DB options and each column family's options."""
    db_kw, cf_kw = {}, {}
    for name, value in kwargs.items():
        if name in DB_FIELDS:
            db_kw[name] = value
        elif name in CF_FIELDS:
            cf_kw[name] = value
        else:
            raise ValueError(f"unknown LSM option {name}={value!r}")
    db = DBOptions(**db_kw)
    check_db(db)
    default = check_cf(CFOptions(**_normalise(cf_kw)), "default")
    cfs = {"default": default}
    families = db.column_families or {}
    if not isinstance(families, dict):
        raise ValueError(f"bad option column_families={families!r}: a dict {{name: {{option: value}}}}")
    for cf_name, overrides in families.items():
        if not isinstance(cf_name, str) or not cf_name:
            raise ValueError(f"bad column family name {cf_name!r} in column_families")
        if overrides is None:
            overrides = {}
        if not isinstance(overrides, dict):
            raise ValueError(f"bad options for column family {cf_name!r}: {overrides!r} (a dict of CF options)")
        for name, value in overrides.items():
            if name not in CF_FIELDS:
                raise ValueError(f"unknown column family option {name}={value!r} for column family {cf_name!r}")
        cfs[cf_name] = check_cf(replace(default, **_normalise(overrides)), cf_name)
    mapping = db.keyspace_cf or {}
    if not isinstance(mapping, dict):
        raise ValueError(f"bad option keyspace_cf={mapping!r}: a dict {{keyspace: column family}}")
    for ks, cf_name in mapping.items():
        if cf_name not in cfs:
            raise ValueError(f"bad option keyspace_cf: keyspace {ks!r} maps to unknown column family {cf_name!r}")
    return db, cfs


def _normalise(kw: dict) -> dict:
    out = dict(kw)
    if isinstance(out.get("compression"), list):
        out["compression"] = tuple(out["compression"])
    return out


def _check_int(name: str, value, low: int, where: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"bad option {name}={value!r}{where}: must be an int >= {low}")


def _check_bool(name: str, value, where: str = "") -> None:
    if not isinstance(value, bool):
        raise ValueError(f"bad option {name}={value!r}{where}: must be True or False")


def check_db(db: DBOptions) -> None:
    """Raise ValueError for a bad database option."""
    sync = db.wal_sync
    if isinstance(sync, list):
        sync = tuple(sync)
        object.__setattr__(db, "wal_sync", sync)
    ok = sync in ("write", "none") or (
        isinstance(sync, tuple) and len(sync) == 2 and sync[0] == "every"
        and isinstance(sync[1], int) and not isinstance(sync[1], bool) and sync[1] >= 1)
    if not ok:
        raise ValueError(f"bad option wal_sync={db.wal_sync!r}: use 'write', 'none' or ('every', N) with N >= 1")
    _check_int("block_cache_bytes", db.block_cache_bytes, 0)
    _check_int("max_background_jobs", db.max_background_jobs, 1)
    _check_int("delayed_write_rate", db.delayed_write_rate, 1)
    _check_int("compaction_readahead_size", db.compaction_readahead_size, 1)
    _check_int("writable_file_max_buffer_size", db.writable_file_max_buffer_size, 1)
    for name in ("reproduce_2018_disk_full_bug", "create_if_missing", "error_if_exists", "read_only",
                 "avoid_flush_during_recovery"):
        _check_bool(name, getattr(db, name))
    if isinstance(db.listeners, list):
        object.__setattr__(db, "listeners", tuple(db.listeners))
    if not isinstance(db.listeners, tuple):
        raise ValueError(f"bad option listeners={db.listeners!r}: a tuple of listener objects")
    for listener in db.listeners:
        if not any(callable(getattr(listener, m, None)) for m in LISTENER_METHODS):
            raise ValueError(f"bad option listeners: {listener!r} has none of {', '.join(LISTENER_METHODS)}")
    check_handler(db.on_wal_write_error)
    if db.merging_iterator is not None:
        ScanMerge.check(db.merging_iterator)
    if db.reproduce_2018_disk_full_bug and db.on_wal_write_error != "read_only":
        raise ValueError(f"bad options: reproduce_2018_disk_full_bug=True acknowledges failed writes, "
                         f"on_wal_write_error={db.on_wal_write_error!r} decides what they do; choose one")
    object.__setattr__(db, "wal_recovery_mode", check_mode(db.wal_recovery_mode))
    if db.clock is not None and not all(hasattr(db.clock, a) for a in ("now", "advance", "wait_until",
                                                                        "job_duration")):
        raise ValueError(f"bad option clock={db.clock!r}: must be a minidb.sim.Clock (or None)")


def check_cf(o: CFOptions, cf: str) -> CFOptions:
    """Return ``o`` if every option of column family ``cf`` is valid, else raise ValueError."""
    where = f" (column family {cf!r})"
    for name in ("memtable_bytes", "block_size", "max_bytes_for_level_base", "target_file_size_base",
                 "soft_pending_compaction_bytes_limit", "hard_pending_compaction_bytes_limit",
                 "level0_file_num_compaction_trigger", "level0_slowdown_writes_trigger",
                 "level0_stop_writes_trigger", "target_file_size_multiplier", "max_merge_width"):
        _check_int(name, getattr(o, name), 1, where)
    _check_int("max_immutable_memtables", o.max_immutable_memtables, 1, where)
    _check_int("bits_per_key", o.bits_per_key, 0, where)
    _check_int("num_levels", o.num_levels, 2, where)
    _check_int("size_ratio", o.size_ratio, 0, where)
    _check_int("max_size_amplification_percent", o.max_size_amplification_percent, 0, where)
    _check_int("min_merge_width", o.min_merge_width, 2, where)
    if o.max_compaction_bytes is not None:
        _check_int("max_compaction_bytes", o.max_compaction_bytes, 1, where)
    for name in ("cache_index_and_filter_blocks", "level_compaction_dynamic_level_bytes",
                 "disable_auto_compactions"):
        _check_bool(name, getattr(o, name), where)
    m = o.max_bytes_for_level_multiplier
    if isinstance(m, bool) or not isinstance(m, (int, float)) or m <= 1:
        raise ValueError(f"bad option max_bytes_for_level_multiplier={m!r}{where}: must be a number > 1")
    if o.compaction not in ("leveled", "universal"):
        raise ValueError(f"bad option compaction={o.compaction!r}{where}: 'leveled' or 'universal'")
    if o.compaction_pri not in ("min_overlapping_ratio", "round_robin"):
        raise ValueError(f"bad option compaction_pri={o.compaction_pri!r}{where}: "
                         f"'min_overlapping_ratio' or 'round_robin'")
    comps = o.compression if isinstance(o.compression, tuple) else (o.compression,)
    if not comps:
        raise ValueError(f"bad option compression={o.compression!r}{where}: an empty per-level list")
    for c in comps:
        if c not in _compression.CODES:
            raise ValueError(f"bad option compression={o.compression!r}{where}: "
                             f"each must be one of {', '.join(_compression.CODES)}")
    if o.bottommost_compression is not None and o.bottommost_compression not in _compression.CODES:
        raise ValueError(f"bad option bottommost_compression={o.bottommost_compression!r}{where}: "
                         f"None or one of {', '.join(_compression.CODES)}")
    if not o.level0_file_num_compaction_trigger <= o.level0_slowdown_writes_trigger <= o.level0_stop_writes_trigger:
        raise ValueError(f"bad L0 triggers{where}: need level0_file_num_compaction_trigger "
                         f"({o.level0_file_num_compaction_trigger}) <= level0_slowdown_writes_trigger "
                         f"({o.level0_slowdown_writes_trigger}) <= level0_stop_writes_trigger "
                         f"({o.level0_stop_writes_trigger})")
    if o.soft_pending_compaction_bytes_limit > o.hard_pending_compaction_bytes_limit:
        raise ValueError(f"bad option soft_pending_compaction_bytes_limit={o.soft_pending_compaction_bytes_limit!r}"
                         f"{where}: larger than hard_pending_compaction_bytes_limit "
                         f"({o.hard_pending_compaction_bytes_limit})")
    if o.filter_policy is not None:
        FilterPolicy.check(o.filter_policy, where)
    if o.compaction_picker is not None:
        LeveledPicker.check(o.compaction_picker, where)
        if o.compaction != "leveled" or o.compaction_pri != "round_robin":
            raise ValueError(f"bad option compaction_picker{where}: a picker plugs into leveled compaction with "
                             f"round-robin file choice; set compaction='leveled' and compaction_pri='round_robin' "
                             f"(got {o.compaction!r} and {o.compaction_pri!r})")
    return o
