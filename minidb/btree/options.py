"""The B+tree engine's options, checked once when the engine opens: a wrong option raises ValueError naming it.

``open_btree(device, **options)`` takes ``BTreeOptions``' fields as keywords and passes them through whole
(``parse_options``). Defaults follow InnoDB (MySQL 8.0) where it has the same knob; each comment gives the InnoDB
name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from ..sim.clock import Clock
from .change_buffer_policy import ChangeBufferPolicy
from .page import PAGE_SIZES
from .page_zip import KEY_BLOCK_SIZES
from .split_policy import SplitPolicy
from .torn_page_repair import TornPageRepair

MIB = 1 << 20
DEFAULT_PAGE_SIZE = 16384  # innodb_page_size's default
MIN_POOL_FRAMES = 16  # a tree operation can hold ~a dozen pages at once (a split with its path and siblings)


@dataclass(frozen=True)
class PageCleanerOptions:
    """When the page cleaner runs and how much it writes (InnoDB's page cleaner thread, made deterministic).

    Without a clock it runs after every ``every_commits`` client commits; with a clock, once per ``interval``
    simulated seconds (InnoDB's page cleaner loop runs once a second).
    """

    every_commits: int = 64  # client commits between runs when no clock is given
    interval: float = 1.0  # simulated seconds between runs when a clock is given
    io_capacity: int = 200  # innodb_io_capacity: pages written per run from the flush list at full pace
    io_capacity_max: int = 2000  # innodb_io_capacity_max's default: the most a run writes, however old the log
    # (MySQL raises its default to twice innodb_io_capacity when that is more; here a larger io_capacity needs it set)
    adaptive_flushing: bool = True  # innodb_adaptive_flushing: flush for the redo log's age as well as dirty %
    adaptive_flushing_lwm: float = 10.0  # innodb_adaptive_flushing_lwm: % of the redo capacity below which the
    # log's age asks for no flushing
    dirty_pct_lwm: float = 10.0  # innodb_max_dirty_pages_pct_lwm: flush-list flushing starts above this % dirty
    dirty_pct_max: float = 90.0  # innodb_max_dirty_pages_pct: at this % dirty a run writes io_capacity pages
    lru_scan_depth: float = 0.125  # fraction of the LRU tail scanned for dirty pages to write (InnoDB: 1024 of
    # the default pool's 8192 pages)
    change_buffer_merge_pages: int = 10  # leaves whose buffered changes one run merges (InnoDB's ibuf merge)

    def __post_init__(self) -> None:
        _check_int("page_cleaner.every_commits", self.every_commits, 1)
        _check_number("page_cleaner.interval", self.interval, 0.0, None, low_open=True)
        _check_int("page_cleaner.io_capacity", self.io_capacity, 1)
        _check_int("page_cleaner.io_capacity_max", self.io_capacity_max, self.io_capacity,
                   why=f"at least page_cleaner.io_capacity, {self.io_capacity}")
        if not isinstance(self.adaptive_flushing, bool):
            raise ValueError(f"bad page_cleaner.adaptive_flushing {self.adaptive_flushing!r}: must be True or False")
        _check_number("page_cleaner.adaptive_flushing_lwm", self.adaptive_flushing_lwm, 0.0, 70.0)
        _check_number("page_cleaner.dirty_pct_lwm", self.dirty_pct_lwm, 0.0, 100.0)
        _check_number("page_cleaner.dirty_pct_max", self.dirty_pct_max, 0.0, 100.0, low_open=True)
        if self.dirty_pct_lwm > self.dirty_pct_max:
            raise ValueError(f"page_cleaner.dirty_pct_lwm {self.dirty_pct_lwm!r} must not exceed "
                             f"page_cleaner.dirty_pct_max {self.dirty_pct_max!r}")
        _check_number("page_cleaner.lru_scan_depth", self.lru_scan_depth, 0.0, 1.0)
        _check_int("page_cleaner.change_buffer_merge_pages", self.change_buffer_merge_pages, 0)


@dataclass(frozen=True)
class BTreeOptions:
    """Every option of ``open_btree``; the comments give InnoDB's names, and here is what each one does:

    * ``page_size``: 4096, 8192 or 16384, fixed at creation; reopening with another size raises ValueError.
    * ``buffer_pool_bytes``: the buffer pool (``buffer_pool_bytes // page_size`` frames, at least 16).
    * ``fill_factor``: how full ascending (PK-order) inserts leave pages, 15/16 as InnoDB.
    * ``merge_threshold``: a page below this fill after a delete is merged with a sibling (InnoDB's 50%).
    * ``doublewrite``: write pages through the doublewrite buffer (torn pages become repairable, writes double).
    * ``change_buffer``, ``change_buffer_max_size``: buffer changes to uncached leaves of non-unique indexes
      (``create_keyspace(name, unique=False)``), in at most this fraction of the pool.
    * ``redo_sync``: ``"commit"`` (sync the redo log at every commit), ``("every", N)`` or ``"none"``.
    * ``redo_log_bytes``: the redo log capacity; as the log fills, page writes and checkpoints are forced, and past
      its sync point a client waits for them (checkpoint.py).
    * ``page_cleaner``: a ``PageCleanerOptions`` (the default one if not given), or None for no page cleaner.
    * ``split_policy``, ``torn_page_repair``, ``change_buffer_policy``: plug points (minidb/plug_point.py): how a
      full leaf splits, how recovery finds torn pages and their doublewrite copies, what the change buffer buffers
      and how it merges; None for the engine's own.
    * ``clock``: a ``minidb.sim.Clock``; when given, the page cleaner runs once per simulated second.
    * ``create_if_missing``: create a database where there is none (else ``DatabaseMissingError``);
      ``error_if_exists``: ``DatabaseExistsError`` if there is one. Files without a checkpoint are never taken for
      "no database" (``NotADatabaseError``, see database_files.py).
    * ``read_only``: recover into memory only (redo replayed, an open batch rolled back, torn pages repaired, all
      in the pool and an in-memory overlay); no file is created, written, renamed or deleted, no lock is taken, and
      every write raises ``ReadOnlyError``. A read-write open holds the device's ``LOCK`` until ``close``.
    * ``key_block_size``: None (pages stored as they are) or 1, 2, 4, 8, 16 (KiB, at most the page size): every
      page is stored as a zlib-compressed image of that many bytes (page_zip.pyx), InnoDB's compressed tables; fixed
      at creation like the page size. ``compression_level``: the zlib level (innodb_compression_level, 6).
      A cached page then takes ``page_size + key_block_size`` bytes of the pool (both copies), rows are limited to
      what two of them fit a block uncompressed, and changes are not buffered (see ``BTreeEngine._make_tree``).
    """

    page_size: int = DEFAULT_PAGE_SIZE  # innodb_page_size; fixed when the database is created
    buffer_pool_bytes: int = 128 * MIB  # innodb_buffer_pool_size
    fill_factor: float = 15 / 16  # how full ascending inserts leave a page (InnoDB leaves 1/16 free)
    merge_threshold: float = 0.5  # MERGE_THRESHOLD: a page below this fill is merged with a sibling
    doublewrite: bool = True  # innodb_doublewrite
    change_buffer: bool = True  # innodb_change_buffering = all (for non-unique indexes)
    change_buffer_max_size: float = 0.25  # innodb_change_buffer_max_size, as a fraction of the pool
    redo_sync: str | tuple = "commit"  # innodb_flush_log_at_trx_commit: "commit" (1), ("every", N), "none" (0/2)
    redo_log_bytes: int = 64 * MIB  # innodb_redo_log_capacity (innodb_log_file_size x innodb_log_files_in_group
    # before MySQL 8.0.30); the experiments scale it like the caches (minidb.scales.engine_sizes)
    page_cleaner: PageCleanerOptions | None = field(default_factory=PageCleanerOptions)  # None: no page cleaner
    split_policy: SplitPolicy | None = None  # how a full leaf splits (a plug point); None: the engine's own
    torn_page_repair: TornPageRepair | None = None  # how recovery repairs torn pages (a plug point); None: own
    change_buffer_policy: ChangeBufferPolicy | None = None  # what the change buffer takes (a plug point); None: own
    clock: Clock | None = None  # simulated time; paces the page cleaner when given
    create_if_missing: bool = True  # create a database where there is none (False: DatabaseMissingError)
    error_if_exists: bool = False  # DatabaseExistsError if the device already holds a database
    read_only: bool = False  # recover into memory only: no file is created, written, renamed or deleted
    key_block_size: int | None = None  # KEY_BLOCK_SIZE in KiB (1, 2, 4, 8, 16): pages stored compressed
    compression_level: int = 6  # innodb_compression_level: the zlib level of compressed pages

    def __post_init__(self) -> None:
        if self.page_size not in PAGE_SIZES:
            raise ValueError(f"bad page_size {self.page_size!r}: must be one of {', '.join(map(str, PAGE_SIZES))}")
        _check_int("buffer_pool_bytes", self.buffer_pool_bytes, MIN_POOL_FRAMES * self.page_size,
                   why=f"at least {MIN_POOL_FRAMES} pages of {self.page_size} bytes")
        _check_number("fill_factor", self.fill_factor, 0.5, 1.0)
        _check_number("merge_threshold", self.merge_threshold, 0.0, 0.5, low_open=True)
        for name in ("doublewrite", "change_buffer", "create_if_missing", "error_if_exists", "read_only"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"bad {name} {getattr(self, name)!r}: must be True or False")
        _check_number("change_buffer_max_size", self.change_buffer_max_size, 0.0, 0.5, low_open=True)
        sync_mode(self.redo_sync)
        _check_int("redo_log_bytes", self.redo_log_bytes, 64 * self.page_size,
                   why=f"at least 64 pages of {self.page_size} bytes")
        if self.page_cleaner is not None and not isinstance(self.page_cleaner, PageCleanerOptions):
            raise ValueError(f"bad page_cleaner {self.page_cleaner!r}: must be a PageCleanerOptions or None")
        for interface in (SplitPolicy, TornPageRepair, ChangeBufferPolicy):
            plug = getattr(self, interface.option)
            if plug is not None:
                interface.check(plug)
        if self.key_block_size is not None:
            kib = [b >> 10 for b in KEY_BLOCK_SIZES if b <= self.page_size]
            if self.key_block_size not in kib or isinstance(self.key_block_size, bool):
                raise ValueError(f"bad key_block_size {self.key_block_size!r}: must be None or one of "
                                 f"{', '.join(map(str, kib))} (KiB, at most the {self.page_size}-byte page size)")
            _check_int("buffer_pool_bytes", self.buffer_pool_bytes, MIN_POOL_FRAMES * self.frame_bytes,
                       why=f"at least {MIN_POOL_FRAMES} pages of {self.page_size} bytes with their compressed copies")
        if not isinstance(self.compression_level, int) or not 1 <= self.compression_level <= 9:
            raise ValueError(f"bad compression_level {self.compression_level!r}: must be a zlib level 1 to 9")
        if self.clock is not None and not isinstance(self.clock, Clock):
            raise ValueError(f"bad clock {self.clock!r}: must be a minidb.sim.Clock or None")

    @property
    def block(self) -> int | None:
        """Bytes of a compressed page on disk (the key block size), or None: pages are stored uncompressed."""
        return None if self.key_block_size is None else self.key_block_size << 10

    @property
    def frame_bytes(self) -> int:
        """Pool memory one cached page takes: its frame, plus its compressed copy in a compressed tablespace."""
        return self.page_size + (self.block or 0)

    @property
    def pool_frames(self) -> int:
        """Frames in the buffer pool."""
        return self.buffer_pool_bytes // self.frame_bytes


FIELDS = {f.name for f in fields(BTreeOptions)}  # the keywords open_btree takes


def parse_options(kwargs: dict) -> BTreeOptions:
    """``open_btree``'s keywords as checked ``BTreeOptions``; ValueError naming an unknown one."""
    for name, value in kwargs.items():
        if name not in FIELDS:
            raise ValueError(f"unknown B+tree option {name}={value!r}")
    return BTreeOptions(**kwargs)


def sync_mode(redo_sync) -> tuple[str, int]:
    """("commit", 1), ("every", N) or ("none", 0) from the ``redo_sync`` option; ValueError if it is neither."""
    if redo_sync == "commit":
        return ("commit", 1)
    if redo_sync == "none":
        return ("none", 0)
    if (isinstance(redo_sync, tuple) and len(redo_sync) == 2 and redo_sync[0] == "every"
            and isinstance(redo_sync[1], int) and not isinstance(redo_sync[1], bool) and redo_sync[1] >= 1):
        return ("every", redo_sync[1])
    raise ValueError(f"bad redo_sync {redo_sync!r}: must be 'commit', ('every', N) with N >= 1, or 'none'")


def _check_int(name: str, value, low: int, why: str | None = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"bad {name} {value!r}: must be an int >= {low}" + (f" ({why})" if why else ""))


def _check_number(name: str, value, low: float, high: float | None, low_open: bool = False) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = (value > low if low_open else value >= low) and (high is None or value <= high)
    if not ok:
        bounds = f"{'>' if low_open else '>='} {low}" + (f" and <= {high}" if high is not None else "")
        raise ValueError(f"bad {name} {value!r}: must be a number {bounds}")
