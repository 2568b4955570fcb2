"""Scales: ``tiny`` (tests, seconds), ``small`` (the book's default), ``large``; chosen by ``MINIDB_SCALE``.

The posts ran their benchmarks on databases of hundreds of gigabytes; a laptop runs them at a few megabytes to a
few gigabytes. Shrinking a benchmark keeps what decides its behaviour, the ratios:

* **row size**: the same schema and encoding at every scale;
* **cache / database**: the cache is the same fraction of the database as in the post's configuration (for an
  IO-bound run), so the same share of pages or blocks is found in memory;
* **memtable / database**, and the LSM's level-1 and file sizes with it: an LSM flushes as often per byte
  inserted and has as many levels as the post's did;
* **page size**: 16 KiB (InnoDB's default page and MyRocks's block size in seed 004) at every scale;
* **redo log / database**, where the post's configuration gives the B+tree's redo log: the log wraps as often per
  byte inserted as InnoDB's did, which is what forces its checkpoints (``minidb.btree.checkpoint``).

Each workload has a ``Reference``, the post configuration its sizes are scaled from, and per-scale counts (rows,
transactions, ...). ``engine_sizes`` turns an estimated database size into an engine's cache and LSM sizes.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from . import data, engines
from .engines import EngineSizes

SCALES = ("tiny", "small", "large")
DEFAULT = "small"  # the book's scale
ENV = "MINIDB_SCALE"  # the environment variable that chooses the scale

KIB, MIB, GB = 1024, 1024 * 1024, 1e9

# MyRocks's options in seed 004's SHOW ENGINE ROCKSDB listing: WRITE_BUFFER_SIZE 67108864, TARGET_FILE_SIZE_BASE
# 67108864, MAX_BYTES_FOR_LEVEL_BASE 268435456, TABLE_FACTORY::BLOCK_SIZE 16384; InnoDB's default page is 16 KiB.
MEMTABLE_BYTES = 64 * MIB
TARGET_FILE_BYTES = 64 * MIB
LEVEL_BASE_BYTES = 256 * MIB
PAGE_SIZE = 16 * KIB
# The B+tree's redo log (innodb_log_file_size x innodb_log_files_in_group) in seed 000's insert benchmark runs. The
# seed says only "I tried to use a good my.cnf"; its author gives his typical InnoDB redo log of that time as "4gb
# via 2gb/file and 2 files", used in his insert benchmark tests "because that is what we frequently use in
# production" (Small Datum, "Benchmark(et)ing with InnoDB redo log size", 2017-05-09). It is a setting that sizes
# the engine, not a published result, so it lives here rather than in data/.
INSERT_BENCHMARK_REDO_BYTES = 2 * 2 * 1024 * MIB
# Floors below which a size stops meaning anything: a memtable or SST file of fewer than four 16 KiB blocks; a
# cache smaller than MySQL's minimum innodb_buffer_pool_size, 5 MiB (the MySQL reference manual).
MIN_MEMTABLE_BYTES = 4 * PAGE_SIZE
MIN_CACHE_BYTES = 5 * MIB
# The experiments that set a cache themselves floor it at the B+tree's smallest pool, 16 pages of 16 KiB (its
# options refuse fewer frames), so that their tiny runs stay IO-bound; both engines get the same floor.
SMALLEST_POOL_BYTES = 16 * PAGE_SIZE
MIN_REDO_BYTES = 64 * PAGE_SIZE  # the B+tree's smallest redo log (its options refuse less)


def current(name: str | None = None) -> str:
    """``name`` if given, else ``$MINIDB_SCALE``, else ``small``; ValueError naming the choices if unknown."""
    value = name if name is not None else os.environ.get(ENV, DEFAULT)
    if value not in SCALES:
        where = "scale" if name is not None else f"${ENV}"
        raise ValueError(f"unknown {where} {value!r}: choose one of {', '.join(SCALES)}")
    return value


@dataclass(frozen=True)
class Reference:
    """The configuration of a post that a workload's sizes are scaled from."""

    source: str  # the seed and the sentence the numbers come from
    db_bytes: float  # database size in that configuration (the LSM's, uncompressed, where the post gives it)
    cache_fraction: dict  # engine -> its cache bytes in the post's IO-bound configuration / db_bytes
    redo_fraction: float | None = None  # the B+tree's redo log bytes there / db_bytes (None: the post gives none)
    ram_fraction: float | None = None  # the server's RAM there, over the database as cache_fraction is (None: none
    # given); what it leaves beside the cache is the OS page cache (minidb.storage.page_cache)


def engine_sizes(engine, db_bytes: float, reference: Reference, cache_bytes: int | None = None) -> EngineSizes:
    """Sizes for ``engine`` on a database of about ``db_bytes``: caches from the reference's cache fraction
    (unless ``cache_bytes`` is given), LSM sizes scaled by ``db_bytes / reference.db_bytes``, the redo log from
    the reference's redo fraction where it has one."""
    if db_bytes <= 0:
        raise ValueError(f"database size estimate must be > 0 bytes, got {db_bytes}")
    if cache_bytes is None:
        cache_bytes = max(MIN_CACHE_BYTES, int(reference.cache_fraction[engines.sized_as(engine)] * db_bytes))
    elif not isinstance(cache_bytes, int) or isinstance(cache_bytes, bool) or cache_bytes < 0:
        raise ValueError(f"bad cache_bytes {cache_bytes!r}: must be an int >= 0")
    f = db_bytes / reference.db_bytes
    memtable = max(MIN_MEMTABLE_BYTES, int(MEMTABLE_BYTES * f))
    level_base = max(4 * memtable, int(LEVEL_BASE_BYTES * f))
    return EngineSizes(
        cache_bytes=cache_bytes,
        memtable_bytes=memtable,
        level_base_bytes=level_base,
        target_file_bytes=max(MIN_MEMTABLE_BYTES, int(TARGET_FILE_BYTES * f)),
        page_size=PAGE_SIZE,
        redo_log_bytes=redo_log_bytes(reference.redo_fraction, db_bytes),
    )


def redo_log_bytes(fraction: float | None, db_bytes: float) -> int | None:
    """A redo log of ``fraction`` of ``db_bytes``, at least ``MIN_REDO_BYTES``; None for no fraction."""
    if fraction is None:
        return None
    return max(MIN_REDO_BYTES, int(fraction * db_bytes))


# -- per-workload sizes -----------------------------------------------------------------------------------------------
def _insert_benchmark_reference() -> Reference:
    """Seed 000's IO-bound run (2B rows), from data/: the caches and the redo log over MyRocks's final size.

    Every fraction is of MyRocks's 226 GB, the size ``db_bytes`` is and our estimates stand for (keys and values as
    an LSM stores them; seed 000 ran without compression). A B+tree built from the same rows ends about 1.6 times
    larger, as InnoDB's 362 GB did (chapter 3), so InnoDB's 35 GB pool over MyRocks's size gives our B+tree the
    post's share of its own database; over InnoDB's size it gave it 0.62 of that share.
    """
    caches = data.load("insert_benchmark_caches").set_index(["config", "engine"]).cache_gb
    db_gb = float(data.load("insert_benchmark_size").set_index("engine").size_gb["MyRocks"])
    return Reference(
        source="seed 000: 2B rows; IO-bound caches (data/published/insert_benchmark_caches.csv), the server's RAM "
               "(insert_benchmark_ram.csv) and the redo log over MyRocks's final database size "
               "(insert_benchmark_size.csv)",
        db_bytes=db_gb * GB,
        cache_fraction={"lsm": float(caches["io-bound", "RocksDB"] / db_gb),
                        "btree": float(caches["io-bound", "InnoDB"] / db_gb)},
        redo_fraction=INSERT_BENCHMARK_REDO_BYTES / (db_gb * GB),
        ram_fraction=float(_insert_benchmark_ram_gb("io-bound") / db_gb),
    )


def _insert_benchmark_ram_gb(config: str) -> float:
    """Seed 000's RAM "for the database and OS" in ``config`` (data/published/insert_benchmark_ram.csv)."""
    return float(data.load("insert_benchmark_ram").set_index("config").ram_gb[config])


IN_MEMORY_ROWS_SHARE = 500 / 2000  # seed 000: the in-memory run inserted 500m rows, the IO-bound one 2b


def _insert_benchmark_in_memory_reference() -> Reference:
    """Seed 000's in-memory run (500M rows), from data/: every cache 190 GB, and the IO-bound run's 4 GB redo log,
    both over the in-memory run's database, which the post does not size: a quarter of the 2B-row run's MyRocks
    database stands for it.

    The post ran both configurations on one server, with the same redo log for a database a quarter the size, so in
    memory the log is four times as large a share of the data. The LSM's sizes scale, as in the IO-bound run, from
    the one database the post gives (``db_bytes``): its writes do not depend on the cache.
    """
    cache_gb = data.load("insert_benchmark_caches").set_index("config").cache_gb["in-memory"]
    db_gb = float(data.load("insert_benchmark_size").set_index("engine").size_gb["MyRocks"]) * IN_MEMORY_ROWS_SHARE
    fraction = float(cache_gb / db_gb)
    return Reference(
        source="seed 000: 500M rows, in memory; the 190 GB caches (data/published/insert_benchmark_caches.csv), "
               "the 256 GB of RAM (insert_benchmark_ram.csv) and the redo log over a quarter of the 2B-row run's "
               "MyRocks database (insert_benchmark_size.csv)",
        db_bytes=reference("INSERT_BENCHMARK").db_bytes,
        cache_fraction={"lsm": fraction, "btree": fraction},
        redo_fraction=INSERT_BENCHMARK_REDO_BYTES / (db_gb * GB),
        ram_fraction=float(_insert_benchmark_ram_gb("in-memory") / db_gb),
    )


def _sysbench_tpcc_reference() -> Reference:
    """Seed 003's sysbench-tpcc 5000W in the cloud, from data/: the smaller of its two caches over InnoDB's database.

    The post ran every volume with two cache sizes, both a small part of the database ("so the workload is
    IO-heavy"); the TPS table lists both, and the smaller is the more IO-bound. The post gives MyRocks's size only
    compressed (LZ4), so both engines scale from InnoDB's (whose compression it does not state).
    """
    sizes = data.load("cloud_data_size").set_index("engine").size_gb
    cache_gb = data.load("cloud_tps_by_iops").cache_gb.min()
    fraction = float(cache_gb / sizes["InnoDB"])
    return Reference(
        source="seeds 003/004 (one post): sysbench-tpcc 5000W; the smaller cache of the TPS table (data/published/"
               "cloud_tps_by_iops.csv) over InnoDB's size (cloud_data_size.csv). No post gives a sysbench OLTP "
               "cache, so its runs use this ratio",
        db_bytes=float(sizes["InnoDB"]) * GB,
        cache_fraction={"lsm": fraction, "btree": fraction},
    )


def _linkbench_reference() -> Reference:
    """Seed 002's IO-bound Linkbench, from data/: the server's RAM over InnoDB's uncompressed database.

    The post gives only the RAM, no cache setting, so the RAM stands for the cache of both engines; its database
    sizes are approximate ("~"), as their quotes in the table keep.
    """
    ram_gb = data.load("linkbench_memory").set_index("config").ram_gb["io-bound"]
    sizes = data.load("linkbench_data_size").set_index("engine").size_gb
    fraction = float(ram_gb / sizes["InnoDB"])
    return Reference(
        source="seed 002: IO-bound Linkbench; the server's RAM (data/published/linkbench_memory.csv) over InnoDB's "
               "uncompressed size (linkbench_data_size.csv, which also holds MyRocks's zlib size)",
        db_bytes=float(sizes["InnoDB"]) * GB,
        cache_fraction={"lsm": fraction, "btree": fraction},
    )


def _tpcc_memory_sweep_reference() -> Reference:
    """Seed 001's sysbench-tpcc 100W, from data/: MyRocks's uncompressed size, and the sweep's smallest memory.

    The post sweeps the memory (buffer pool or block cache, the same bytes for both engines) from 5 to 100 GB over
    about 90 GB of InnoDB data, 70 GB of MyRocks data uncompressed (tpcc_data_size.csv). The cache fraction here is
    the smallest memory over MyRocks's uncompressed size, the size our database estimates stand for; the sweep
    (``minidb.experiments.f3_memory_sweep``) applies each memory of the post the same way.
    """
    sizes = data.load("tpcc_data_size")
    uncompressed = sizes[(sizes.engine == "MyRocks") & (sizes.compression == "none")].size_gb.iloc[0]
    fraction = float(data.load("tpcc_memory_sweep").memory_gb.min() / uncompressed)
    return Reference(
        source="seed 001: sysbench-tpcc 100W, memory 5..100 GB (data/published/tpcc_memory_sweep.csv) over "
               "MyRocks's uncompressed 70 GB (tpcc_data_size.csv)",
        db_bytes=float(uncompressed) * GB,
        cache_fraction={"lsm": fraction, "btree": fraction},
    )


# The references by name. Each is read from data/ (with pandas) the first time it is asked for, as
# ``scales.INSERT_BENCHMARK`` or through a scale's ``reference``, not when this module is imported: the ``minidb``
# command imports it to check ``$MINIDB_SCALE``, and needs no table for that.
_REFERENCES = {
    "INSERT_BENCHMARK": _insert_benchmark_reference,
    "INSERT_BENCHMARK_IN_MEMORY": _insert_benchmark_in_memory_reference,
    "SYSBENCH": _sysbench_tpcc_reference,
    "TPCC": lambda: reference("SYSBENCH"),  # TPC-C runs are sized as seed 003's sysbench-tpcc: the same one
    "TPCC_MEMORY_SWEEP": _tpcc_memory_sweep_reference,
    "LINKBENCH": _linkbench_reference,
}


@functools.cache
def reference(name: str) -> Reference:
    """The reference ``name`` (a key of ``_REFERENCES``), built once."""
    return _REFERENCES[name]()


def __getattr__(name: str) -> Reference:
    """``scales.SYSBENCH`` and the other references of ``_REFERENCES``, built on first use."""
    if name in _REFERENCES:
        return reference(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class InsertBenchmarkScale:
    """Sizes of an insert benchmark run."""

    rows: int  # rows inserted

    @property
    def reference(self) -> Reference:
        """The post configuration these sizes are scaled from."""
        return reference("INSERT_BENCHMARK")


@dataclass(frozen=True)
class SysbenchScale:
    """Sizes of a sysbench OLTP run."""

    table_size: int  # rows per table
    transactions: int  # events in the measured phase

    @property
    def reference(self) -> Reference:
        """The post configuration these sizes are scaled from."""
        return reference("SYSBENCH")


@dataclass(frozen=True)
class TpccScale:
    """Sizes of a TPC-C run (the standard's per-warehouse counts, reduced at the smaller scales)."""

    warehouses: int  # warehouses
    items: int  # rows of the item table (the standard: 100,000)
    customers_per_district: int  # the standard: 3,000
    transactions: int  # transactions in the measured phase

    @property
    def reference(self) -> Reference:
        """The post configuration these sizes are scaled from."""
        return reference("TPCC")


@dataclass(frozen=True)
class LinkbenchScale:
    """Sizes of a Linkbench-lite run."""

    nodes: int  # nodes loaded (LinkBench's maxid1 - startid1)
    requests: int  # requests in the measured phase

    @property
    def reference(self) -> Reference:
        """The post configuration these sizes are scaled from."""
        return reference("LINKBENCH")


_SIZES = {
    "insert_benchmark": {"tiny": InsertBenchmarkScale(20_000), "small": InsertBenchmarkScale(1_000_000),
                         "large": InsertBenchmarkScale(20_000_000)},
    "sysbench": {"tiny": SysbenchScale(5_000, 300), "small": SysbenchScale(500_000, 20_000),
                 "large": SysbenchScale(5_000_000, 200_000)},
    "tpcc": {"tiny": TpccScale(1, 1_000, 100, 200), "small": TpccScale(4, 20_000, 600, 10_000),
             "large": TpccScale(10, 100_000, 3_000, 100_000)},
    "linkbench": {"tiny": LinkbenchScale(2_000, 1_000), "small": LinkbenchScale(200_000, 50_000),
                  "large": LinkbenchScale(2_000_000, 500_000)},
}


def insert_benchmark(scale: str | None = None) -> InsertBenchmarkScale:
    """The insert benchmark's sizes at ``scale`` (default: ``current()``)."""
    return _SIZES["insert_benchmark"][current(scale)]


def sysbench(scale: str | None = None) -> SysbenchScale:
    """sysbench OLTP's sizes at ``scale``."""
    return _SIZES["sysbench"][current(scale)]


def tpcc(scale: str | None = None) -> TpccScale:
    """TPC-C's sizes at ``scale``."""
    return _SIZES["tpcc"][current(scale)]


def linkbench(scale: str | None = None) -> LinkbenchScale:
    """Linkbench-lite's sizes at ``scale``."""
    return _SIZES["linkbench"][current(scale)]
