"""Finding F4: in the cloud, throughput is bought as IOPS, and an LSM needs about a third of a B+tree's (seed 003).

Seed 003 runs sysbench-tpcc (5000 warehouses, 471 GB in InnoDB, 91 GB in MyRocks) on an AWS c5.9xlarge with a
27 GB or 54 GB cache, on EBS io1 volumes with 5,000 to 30,000 IOPS bought, and on one large gp2 volume (10,000
IOPS). With the 27 GB cache InnoDB makes 133 transactions per second at 5,000 IOPS and 754 at 30,000; MyRocks 481
and 2,509. MyRocks at 5,000 IOPS is about InnoDB at 15,000, and the yearly bill for the IOPS is what separates them:
io1 charges for every IOPS bought (cloud_cost_per_year.csv).

``run`` runs sysbench-tpcc's TPC-C (``minidb.workloads.tpcc``, scaled from that post's configuration: the cache is
27/471 of the run's data) on both engines on each volume of ``VOLUMES``; ``published`` gives the post's throughput
table with the same cost columns.

**The configuration.** The device models are ``minidb.storage.models.io1`` and ``gp2``: the IOPS bought, the
volume's bandwidth cap (io1 500 MB/s, gp2 160 MB/s, from a reader's comment on the post) and AWS's counting of IOs
in units of up to 256 KiB. The yearly cost of a run is the post's instance price plus the volume's (both from the
post's table), and ``usd_per_year_per_ktps`` divides it by the thousands of transactions per second. Our rates are
a model, so the chart compares throughput as a share of the B+tree's on the largest io1 volume, the post's as a
share of InnoDB's.

**The post's settings.** The post links its author's deployment files (github.com/vadimtk/terraform-ansible-percona:
the InnoDB and MyRocks my.cnf templates as committed on 2018-08-02, the month of the post, with the 27 GB block cache
of its table, and its run script). What they set, the runs here keep: 32 sysbench threads (``CLIENTS``), 16 KiB
data blocks (``minidb.scales.PAGE_SIZE``), LZ4 on every level, InnoDB's 8 GB redo log (``REDO_FRACTION``), the log
durable at every commit (``innodb_flush_log_at_trx_commit=1``, RocksDB's WAL synced per write), the doublewrite
buffer on, the binary log on and synced every 1000 commits (``BINLOG``; with it, MySQL 5.7's group commit writes
and syncs each engine's log once for a group of commits, ``minidb.sim.server``), and direct reads for both engines
(``O_DIRECT_NO_FSYNC``, ``rocksdb_use_direct_reads=ON``), so no operating system page cache serves either (none is
modelled here, unlike in chapter 3). One differs: MyRocks kept its index and filter blocks in its block cache
(``cache_index_and_filter_blocks=1``), beside its data blocks, where our LSM keeps them pinned outside it, so the
whole cache holds data blocks.

**One load per engine.** Each engine's database is loaded once (``load_point``) and every volume measures a copy
of it (``minidb.workloads.loaded``), reopened on that volume's model: the run starts from a closed database with a
cold cache and is measured from its first transaction (the post does not say that it left a warm-up out).
"""

from __future__ import annotations

import functools

import pandas as pd

from .. import data, engines
from .. import scales
from ..sim.bottleneck import in_words
from ..storage.models import gp2, io1
from ..units import GIB
from ..workloads import DataSetup, RunSetup
from ..workloads.loaded import LoadedData
from ..workloads.tpcc import ONE_ITEM_TABLE, estimated_db_bytes, load_tpcc, reads_by_table, tpcc_from, tpcc_load_key
from .calibration import calibrated_server
from .claims import Claim, at_most, between, within, within_factor
from .images import Load
from .runner import sweep

ENGINES = engines.NAMES
INSTANCE = "c5.9xlarge"  # the post's server, a row of its cost table
# The post's server has 36 vCPUs (AWS's c5 instance types: a c5.9xlarge has 36), counted as the cores the calibrated
# CPU seconds are in. Its clients are the sysbench threads of the run script in the post's deployment files
# (run_tpcc.sh: "tpcc.lua ... --time=3600 --threads=32 --tables=50 --scale=100").
SERVER_THREADS = 36
CLIENTS = 32
# The post's volumes: (volume type, IOPS); its gp2 volume is 3.4 TB, which AWS gives 10,000 IOPS.
VOLUMES = (("io1", 5000), ("io1", 10000), ("io1", 15000), ("io1", 20000), ("io1", 30000), ("gp2", 10000))
LEAST_IOPS = 5000  # the smallest io1 volume, where the IOPS bought hold both engines
MOST_IOPS = 30000  # the largest io1 volume
# The post's binary log (its deployment files' my.cnf: log-bin, binlog_format=ROW, sync_binlog=1000).
BINLOG = dict(binlog=True, sync_binlog=1000)
# InnoDB's redo log in the same my.cnf (innodb_log_file_size=4G x innodb_log_files_in_group=2), over its 471 GB as
# the cache is: the B+tree's redo log is that share of the run's estimated data.
REDO_FRACTION = 2 * 4 * GIB / scales.TPCC.db_bytes
GP2_SIZE_GB = 3400  # seed 003: "huge gp2 volumes: 3400GB, as this volume provides guaranteed 10000 IOPS"
IO1_SIZE_GB = 1000  # seed 003's cost table: 1TB io1 volumes

COLUMNS = ("engine", "volume_type", "iops", "tps", "tps_vs_btree_best", "bottleneck", "reads_per_txn",
           "writes_per_txn", "rkb_per_txn", "wkb_per_txn", "mb_per_sec", "usd_per_year",
           "usd_per_year_per_ktps", "item_reads_per_txn", "binlog_writes_per_txn",
           "log_writes_per_txn", "background_ios_per_txn", "background_kb_per_io")  # run()'s columns, in order
# The IO of the engines' background jobs: the LSM's flushes and compactions (and their MANIFEST edits), the B+tree's
# page cleaner and checkpoints.
BACKGROUND_CAUSES = ("flush", "compaction", "page-cleaner", "checkpoint")


def volume(volume_type: str, iops: int):
    """The device model of one of the post's volumes."""
    if volume_type == "io1":
        return io1(iops=iops, size_gb=IO1_SIZE_GB)
    if volume_type == "gp2":
        model = gp2(size_gb=GP2_SIZE_GB)
        if model.iops != iops:
            raise ValueError(f"a {GP2_SIZE_GB} GB gp2 volume has {model.iops} IOPS, not {iops}")
        return model
    raise ValueError(f"unknown volume type {volume_type!r}: use io1 or gp2")


def cache_bytes(warehouses: int, scale: str | None = None, seed: int = 0) -> int:
    """The cache of a run of ``warehouses`` warehouses: the post's 27 GB over InnoDB's 471 GB
    (``minidb.scales.TPCC``) of the estimated data, at least the B+tree's smallest pool."""
    fraction = scales.TPCC.cache_fraction["btree"]
    return max(scales.SMALLEST_POOL_BYTES, int(fraction * estimated_db_bytes(warehouses, scale, seed)))


def instance_usd_per_year() -> float:
    """The post's yearly price of its server (cloud_cost_per_year.csv)."""
    table = data.load("cloud_cost_per_year").set_index("resource")
    return float(table.total_usd_per_year[INSTANCE])


def data_setup(engine: str, warehouses: int, scale: str, seed: int = 0) -> DataSetup:
    """What shapes the database of ``engine``'s runs of ``warehouses`` warehouses: the same on every volume."""
    # seed 003: MyRocks with LZ4 on all levels; InnoDB's redo log; ValueError naming the engines if unknown
    redo = scales.redo_log_bytes(REDO_FRACTION, estimated_db_bytes(warehouses, scale, seed))
    options = engines.get(engine).supported(compression="lz4", redo_log_bytes=redo)
    return DataSetup(engine, scale=scale, seed=seed, engine_options=options)


def load_point(engine: str, warehouses: int, scale: str, seed: int = 0, **_) -> Load:
    """The load a point measures: ``engine``'s ``warehouses`` warehouses, whatever the volume."""
    data = data_setup(engine, warehouses, scale, seed)
    return Load(tpcc_load_key(data, warehouses), functools.partial(load_tpcc, data, warehouses))


def run_point(engine: str, volume_type: str, iops: int, warehouses: int, transactions: int, scale: str,
              seed: int = 0, loaded: LoadedData | None = None) -> dict:
    """One TPC-C run on one volume: TPS, what limits it, IO per transaction, MB/s, and the yearly cost; on a
    copy of ``loaded`` (``load_point``'s load, made here if not given)."""
    model = volume(volume_type, iops)
    loaded = loaded if loaded is not None else load_point(engine, warehouses, scale, seed).make()
    setup = RunSetup(loaded.data, cache_bytes=cache_bytes(warehouses, scale, seed), device=model, clients=CLIENTS,
                     cores=SERVER_THREADS, server_model=calibrated_server(**BINLOG))
    result = tpcc_from(loaded, setup, transactions)
    s = result.summary
    return {
        "tps": s["ops_per_sec"],
        "bottleneck": s["bottleneck"],
        "reads_per_txn": s["reads_per_op"],
        "writes_per_txn": s["writes_per_op"],
        "rkb_per_txn": s["rkb_per_op"],
        "wkb_per_txn": s["wkb_per_op"],
        "mb_per_sec": (s["rkb_per_op"] + s["wkb_per_op"]) * s["ops_per_sec"] / 1024,
        "usd_per_year": instance_usd_per_year() + model.usd_per_year,
        "item_reads_per_txn": reads_by_table(result.io)["item"] / s["ops"],  # the cache's misses on items
        "binlog_writes_per_txn": result.io.total(kind="binlog").writes / s["ops"],  # of writes_per_txn
        # of writes_per_txn too: the engine's own log, its redo log or its WAL (the other kind counts none)
        "log_writes_per_txn": sum(result.io.total(kind=k).writes for k in ("redo", "wal")) / s["ops"],
        **_background(result.io, s["ops"]),
    }


def _background(io, ops: int) -> dict:
    """The background jobs' IO requests per transaction, and their mean size in KB."""
    jobs = [io.total(cause=c) for c in BACKGROUND_CAUSES]
    requests = sum(t.reads + t.writes for t in jobs)
    kb = sum(t.read_bytes + t.write_bytes for t in jobs) / 1024
    return {"background_ios_per_txn": requests / ops, "background_kb_per_io": kb / requests if requests else 0.0}


def run(scale: str | None = None, *, warehouses: int | None = None, transactions: int | None = None,
        volumes=VOLUMES, seed: int = 0, executor=None, cache_dir=None, progress: bool = True) -> pd.DataFrame:
    """Both engines on every volume of ``volumes`` at ``scale`` (default ``minidb.scales.current()``): one row
    each, with ``COLUMNS``."""
    scale = scales.current(scale)
    size = scales.tpcc(scale)
    warehouses = size.warehouses if warehouses is None else int(warehouses)
    transactions = size.transactions if transactions is None else int(transactions)
    points = [dict(engine=e, volume_type=v, iops=i, warehouses=warehouses, transactions=transactions, scale=scale,
                   seed=seed) for e in ENGINES for v, i in volumes]
    frame = sweep(run_point, points, name="f4-cloud-iops", executor=executor, cache_dir=cache_dir,
                  progress=progress, load=load_point)
    return _derived(frame, "btree")[list(COLUMNS)]


def published() -> pd.DataFrame:
    """Seed 003's throughput table with the 27 GB cache (the configuration ``run`` scales from), with the yearly
    cost of each run from its cost table."""
    table = data.load("cloud_tps_by_iops")
    table = table[table.cache_gb == table.cache_gb.min()]
    costs = data.load("cloud_cost_per_year").dropna(subset=["volume_type"]).set_index(["volume_type", "iops"])
    volume_usd = [costs.total_usd_per_year[v, i] for v, i in zip(table.volume_type, table.iops)]
    frame = pd.DataFrame({
        "engine": table.engine.values,
        "volume_type": table.volume_type.values,
        "iops": table.iops.values,
        "tps": table.tps.values,
        "usd_per_year": instance_usd_per_year() + pd.Series(volume_usd, dtype=float).values,
    })
    frame = _derived(frame, "InnoDB")
    frame.attrs["name"] = "cloud_tps_by_iops"
    return frame


def _derived(frame: pd.DataFrame, btree: str) -> pd.DataFrame:
    """Add ``tps_vs_btree_best`` (TPS over the B+tree's on the largest io1 volume) and the cost per 1000 TPS."""
    io1_rows = frame[(frame.engine == btree) & (frame.volume_type == "io1")]
    best = io1_rows.loc[io1_rows.iops.idxmax()].tps
    return frame.assign(tps_vs_btree_best=frame.tps / best,
                        usd_per_year_per_ktps=frame.usd_per_year / (frame.tps / 1000))


# Why the LSM's advantage per IOPS can fall short of the post's (shown where its claim does not hold).
FEWER_BTREE_IOS = ("each IOPS buys our LSM a smaller lead than the post's MyRocks had: our B+tree needs fewer IO "
                   "requests per transaction than InnoDB did (our engines keep no undo pages) and "
                   "our LSM more than MyRocks did (the two claims on IOs per transaction below)")
# Why our LSM's throughput grows exactly with the IOPS where the post's grew faster (shown outside 1.25x).
LSM_LINEAR = ("on both volumes our LSM is held by the IOPS bought, with the same IO requests per transaction, so twice "
              "the IOPS buy it exactly twice the rate; the post's MyRocks gained more than the IOPS it bought")
# Why the LSM's cost per 1000 TPS is a larger share of the B+tree's than in the post (shown outside 1.25x).
COST_FOLLOWS_IOS = ("the cost per 1000 TPS follows the throughput, and each IOPS buys our LSM a smaller lead over our "
                    "B+tree than in the post (above)")


def fewer_or_more_ios(row: pd.Series) -> str:
    """Why an engine's IO requests per transaction on the smallest volume differ from the post's (``row``: its
    run there): what it leaves out, and the share of its requests that were item rows, counted."""
    share = f"{row.item_reads_per_txn / (row.reads_per_txn + row.writes_per_txn):.0%}"
    if row.engine == "btree":
        return (f"our B+tree keeps no undo pages, IO InnoDB did for every transaction; and "
                f"{share} of its IO requests are item pages, which InnoDB's cache would have held: {ONE_ITEM_TABLE}")
    return (f"most of our LSM's IO requests are data blocks its cache misses, {share} of them blocks of item rows "
            f"(about ten per New-Order): {ONE_ITEM_TABLE}; and {row.background_ios_per_txn:.1f} per transaction are "
            f"its flushes' and compactions', {row.background_kb_per_io:.0f} KB each on average, as the files of "
            "this scale are small, where the post's my.cnf made MyRocks's files 32 MB and its compactions read 16 MB "
            "at a time, which io1 counts in units of 256 KiB; the post does not break MyRocks's IO down, so which "
            "of the other reads it avoided is not measured")


def claims(results: pd.DataFrame) -> list[Claim]:
    """F4's verdict (DESIGN.md): throughput linear in the IOPS bought while they are the bottleneck, the B+tree
    held by gp2's bandwidth cap first, the LSM on X IOPS about as fast as the B+tree on 3X, and the LSM cheaper per
    1000 TPS on every volume."""
    pub = published()
    pub_ours = pub.assign(engine=pub.engine.map(engines.kind_of))  # the published rows under our engines' names

    def point(frame, engine, volume_type, iops):
        return frame[(frame.engine == engine) & (frame.volume_type == volume_type) & (frame.iops == iops)].iloc[0]

    def tps(frame, engine, volume_type, iops):
        return point(frame, engine, volume_type, iops).tps

    def doubling(frame, engine):
        return tps(frame, engine, "io1", 10000) / tps(frame, engine, "io1", 5000)

    def cost_ratio(frame, btree, lsm):
        cost = frame.set_index(["engine", "volume_type", "iops"]).usd_per_year_per_ktps
        return (cost[lsm] / cost[btree]).max()

    out = [Claim.check(f"Twice the IOPS buy twice the throughput ({engines.get(e).short}): TPS on "
                       "10,000 / 5,000 io1 IOPS", published=doubling(pub_ours, e), ours=doubling(results, e),
                       band=within(2.0, 0.1), reason=LSM_LINEAR if e == "lsm" else "") for e in ENGINES]
    out += [
        Claim.check("The B+tree is held by gp2's 160 MB/s before its IOPS run out: TPS on gp2 / io1, both 10,000 IOPS",
                    published=tps(pub, "InnoDB", "gp2", 10000) / tps(pub, "InnoDB", "io1", 10000),
                    ours=tps(results, "btree", "gp2", 10000) / tps(results, "btree", "io1", 10000),
                    band=at_most(0.95)),
        Claim.check("The LSM on 5,000 IOPS is about as fast as the B+tree on 15,000: LSM / B+tree TPS (io1)",
                    published=tps(pub, "MyRocks", "io1", 5000) / tps(pub, "InnoDB", "io1", 15000),
                    ours=tps(results, "lsm", "io1", 5000) / tps(results, "btree", "io1", 15000),
                    band=between(2 / 3, 1.5), must_hold=("tiny",), reason=FEWER_BTREE_IOS),
        Claim.check("The LSM costs less per 1000 TPS on every volume: the largest LSM / B+tree cost ratio",
                    published=cost_ratio(pub, "InnoDB", "MyRocks"), ours=cost_ratio(results, "btree", "lsm"),
                    band=at_most(1), reason=COST_FOLLOWS_IOS),
    ]
    # The post's throughput grew with the IOPS bought, so on the smallest volume each transaction cost about IOPS /
    # TPS IO requests; ours are counted.
    for e, published_name in zip(ENGINES, ("InnoDB", "MyRocks")):
        p = LEAST_IOPS / tps(pub, published_name, "io1", LEAST_IOPS)
        row = point(results, e, "io1", LEAST_IOPS)
        out.append(Claim.check(
            f"On {LEAST_IOPS:,} io1 IOPS each transaction costs the {engines.get(e).short} about as "
            f"many IOs as it cost {published_name} (within 2x): IO requests per transaction (the post's: IOPS / TPS)",
            published=p, ours=row.reads_per_txn + row.writes_per_txn, band=within_factor(p, 2),
            reason=fewer_or_more_ios(row)))
    # The post's TPS on the smallest and the largest io1 volume, each engine's ours beside it.
    for e, published_name in zip(ENGINES, ("InnoDB", "MyRocks")):
        for iops in (LEAST_IOPS, MOST_IOPS):
            p = tps(pub, published_name, "io1", iops)
            row = point(results, e, "io1", iops)
            out.append(Claim.check(
                f"On {iops:,} io1 IOPS the {engines.get(e).short} makes as many transactions per "
                f"second as {published_name} did (within 2x)", published=p, ours=row.tps, band=within_factor(p, 2),
                reason=f"our run there is held by {in_words(row.bottleneck)}, with "
                       f"{row.reads_per_txn + row.writes_per_txn:.1f} IO requests per transaction"))
    return out
