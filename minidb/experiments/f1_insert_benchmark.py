"""Finding F1: the insert benchmark and read-free index maintenance (seed 000).

Seed 000 inserts rows in primary-key order into a table with 3 non-unique secondary indexes, once with a cache
larger than the database ("in-memory") and once with a cache of a few percent of it ("IO-bound"). MyRocks keeps
its rate; InnoDB loses three quarters of it, because a B+tree must read a secondary index's leaf before changing
it, while an LSM just writes the new entry. ``run`` does the same with both engines; ``published`` gives the post's
figures in the same columns and units, so a chart can put them side by side.

**The two configurations.**

* *IO-bound*: the cache is the seed's fraction of the database (``minidb.scale.INSERT_BENCHMARK``: a 35 GB buffer
  pool for InnoDB's 362 GB, a 10 GB block cache for MyRocks's 226 GB), applied to the database the run will build.
  No floor is applied (``minidb.scale``'s 5 MiB minimum would make a ``tiny`` run fit in memory).
* *in-memory*: the seed's 190 GB caches for the 500 million rows of its in-memory run, whose MyRocks database
  would be a quarter of the 226 GB of 2 billion rows: 3.4 times the database, "all data cached".

**Rows per commit.** iibench commits 1000 rows at a time, and so does the experiment (the workload's default).
In the IO-bound B+tree such a commit changes thousands of secondary-index leaves, more than the pool holds: it
runs as a sequence of mini-transactions whose pages are written before the commit, with undo in the redo log in
case it never commits (see ``minidb.btree.engine``), as InnoDB does. Redo and WAL are not synced at commit, as in
the seed ("sync on commit was disabled").

**The server.** Each commit is one multi-row INSERT, charged the calibrated server's CPU per statement and per row
(``minidb.sim.server``, chapter 2b); the binlog is on and never synced, as in the seed (``BINLOG``).
"""

from __future__ import annotations

import pandas as pd

from .. import data, engines
from .. import scale as scales
from ..table import RowLayout
from ..workloads import insert_benchmark
from ..workloads.insert_benchmark import INDEXES, RowGenerator, schema
from .calibration import calibrated_server
from .claims import Claim, at_least, equals, within
from .runner import sweep

ENGINES = engines.NAMES  # the two engines, B+tree first as in the book's charts
CONFIGS = ("in-memory", "io-bound")  # the seed's two configurations
SECONDARY_INDEXES = 3  # seed 000: "each table has 3 secondary indexes"
DEVICE = "nvme"  # seed 000's first post: "fast NVMe flash"
# seed 000: the in-memory run inserted 500m rows (the IO-bound one 2b) with every database cache at the size in
# data/published/insert_benchmark_caches.csv; 500m rows of the MyRocks database of 2b rows (insert_benchmark_size.csv).
IN_MEMORY_CACHE_FRACTION = float(
    data.load("insert_benchmark_caches").set_index("config").cache_gb["in-memory"]
    / (data.load("insert_benchmark_size").set_index("engine").size_gb["MyRocks"] * 500 / 2000)
)
# Sync policy of the seed's runs: "sync on commit was disabled for the database redo log & binlog".
SYNC_PRESET = "no-sync"
BINLOG = dict(binlog=True, sync_binlog=0)  # seed 000: "The binlog was enabled for all tests", never synced

# The published rows this experiment stands for: seed 000's fast-SSD table ("IO metrics") for the two engines.
PUBLISHED_ENGINES = {"InnoDB-5.7": "btree", "MyRocks": "lsm"}  # published name -> our engine
PUBLISHED_SIZE_NAMES = {"InnoDB-5.7.10": "InnoDB-5.7", "MyRocks": "MyRocks"}  # size table's names -> the above

# Rows of the book's run: at ``small`` a fifth of the scale's million, with the same shape of results, so that the
# chapter builds in about a minute; other scales use their own count (None).
BOOK_ROWS = {"small": 200_000}

COLUMNS = ("engine", "config", "rows", "ops_per_sec", "rkb_per_op", "wkb_per_op", "reads_per_op",
           "foreground_reads_per_op", "db_bytes", "cache_bytes")  # every frame of this module starts with these


def estimated_db_bytes(rows: int) -> int:
    """Bytes of keys and values ``rows`` iibench rows store with 3 secondary indexes: the size caches scale by."""
    row = RowGenerator(seed=0).batch(1)[0]
    return rows * RowLayout(schema(SECONDARY_INDEXES)).entry_bytes(row)


def cache_bytes(engine: str, config: str, rows: int) -> int:
    """The cache ``engine`` gets in ``config`` for a run of ``rows`` rows (see the module docstring)."""
    engines.get(engine)  # ValueError naming the engines if unknown
    if config == "in-memory":
        fraction = IN_MEMORY_CACHE_FRACTION
    elif config == "io-bound":
        fraction = scales.INSERT_BENCHMARK.cache_fraction[engine]
    else:
        raise ValueError(f"unknown configuration {config!r}: use one of {', '.join(CONFIGS)}")
    return int(fraction * estimated_db_bytes(rows))


def run_point(engine: str, config: str, rows: int, seed: int = 0, change_buffer: bool = True) -> dict:
    """One insert benchmark run: the summary of ``rows`` rows on ``engine`` in ``config``, plus foreground page
    reads per insert of each index (``reads_per_op_<index>``, counted by IO tag; an LSM's stay untagged)."""
    spec = engines.get(engine)
    options = {**spec.preset(SYNC_PRESET), **spec.supported(change_buffer=change_buffer)}
    result = insert_benchmark(engine, rows=rows, cache_bytes=cache_bytes(engine, config, rows), seed=seed,
                              device=DEVICE, secondary_indexes=SECONDARY_INDEXES,
                              server_model=calibrated_server(**BINLOG), **options)
    s = result.summary
    row = {c: s[c] for c in COLUMNS if c not in ("engine", "config")}
    row.update(write_amp=s["write_amp"], cache_hit_rate=s["cache_hit_rate"], bottleneck=s["bottleneck"],
               **index_reads_per_op(result.io, s["ops"]))
    return row


def index_reads_per_op(io, ops: int) -> dict[str, float]:
    """Foreground reads per insert of each index (tag ``<table>.<index>``) in a run's ``IOStats``."""
    frame = io.to_frame()
    fg = frame[frame.cause.isin(("foreground", "eviction")) & (frame.reads > 0)]
    out = {}
    for name in ["primary"] + [n for n, _ in INDEXES[:SECONDARY_INDEXES]]:
        out[f"reads_per_op_{name}"] = fg.loc[fg.tag.str.endswith(f".{name}"), "reads"].sum() / ops
    return out


def run(scale: str | None = None, *, rows: int | None = None, seed: int = 0, change_buffer=(True,),
        executor=None, cache_dir=None, progress: bool = True) -> pd.DataFrame:
    """Both engines in both configurations at ``scale`` (default ``minidb.scale.current()``): one row per
    (engine, config[, change_buffer]) with ``COLUMNS`` first. ``change_buffer`` lists the B+tree settings to run."""
    rows = scales.insert_benchmark(scale).rows if rows is None else int(rows)
    points = []
    for engine in ENGINES:
        for config in CONFIGS:
            for cb in (change_buffer if engines.get(engine).supports("change_buffer") else (True,)):
                points.append(dict(engine=engine, config=config, rows=rows, seed=seed, change_buffer=cb))
    frame = sweep(_point, points, name="f1-insert-benchmark", executor=executor, cache_dir=cache_dir,
                  progress=progress)
    frame = frame.drop(columns=["seed"])
    frame["change_buffer"] = frame.change_buffer.astype(object)
    without = ~frame.engine.map(lambda e: engines.get(e).supports("change_buffer")).astype(bool)
    frame.loc[without, "change_buffer"] = None  # an LSM has no change buffer
    return frame[[*COLUMNS, *[c for c in frame.columns if c not in COLUMNS]]]


def _point(engine: str, config: str, rows: int, seed: int, change_buffer: bool) -> dict:
    # The sweep puts the point's parameters in front, rows among them: the result's own count (the same) goes.
    row = run_point(engine, config, rows, seed, change_buffer)
    del row["rows"]
    return row


def published() -> pd.DataFrame:
    """Seed 000's fast-SSD figures for InnoDB-5.7 and MyRocks in ``run``'s columns and units (KB = 1024 bytes as
    iostat's), ``engine`` holding the published name; ``db_bytes`` only where the post gives it (IO-bound)."""
    io = data.load("insert_benchmark_by_storage")
    io = io[(io.storage == "fast-ssd") & io.engine.isin(PUBLISHED_ENGINES)]
    size = data.load("insert_benchmark_size")
    size = size[size.engine.isin(PUBLISHED_SIZE_NAMES)].assign(engine=lambda f: f.engine.map(PUBLISHED_SIZE_NAMES))
    size_bytes = dict(zip(size.engine, size.size_gb * 1e9))
    frame = pd.DataFrame({
        "engine": io.engine.values,
        "config": io.workload.values,
        "ops_per_sec": io.inserts_per_sec.astype(float).values,
        "rkb_per_op": io.rkb_per_insert.values,
        "wkb_per_op": io.wkb_per_insert.values,
        "db_bytes": [size_bytes.get(e) if w == "io-bound" else float("nan") for e, w in zip(io.engine, io.workload)],
    })
    frame.attrs["name"] = "insert_benchmark_by_storage"
    return frame.sort_values(["engine", "config"], key=lambda c: c.map(_order), ignore_index=True)


def _order(value):
    """Sort key: B+tree engines before LSMs, in-memory before IO-bound."""
    ranks = {"InnoDB-5.7": 0, "MyRocks": 1, "in-memory": 0, "io-bound": 1}
    return ranks.get(value, 9)


def book_run(scale: str | None = None, **kwargs) -> pd.DataFrame:
    """The run chapter 3 shows and ``minidb claims`` checks: ``run`` with ``BOOK_ROWS`` and the change buffer on
    and off."""
    scale = scales.current(scale)
    return run(scale, rows=BOOK_ROWS.get(scale), change_buffer=(True, False), **kwargs)


# Why the B+tree's IO-bound loss can fall short of the post's (shown where its claim does not hold).
BTREE_LOSS_SMALLER = ("the server's CPU per row (chapter 2b) holds our in-memory B+tree near InnoDB-5.7's rate, while "
                      "IO-bound our B+tree writes fewer KB per insert than InnoDB-5.7 did, so the device costs it "
                      "less of its in-memory rate than the post's")


def claims(results: pd.DataFrame) -> list[Claim]:
    """F1's verdict (DESIGN.md): the LSM's rate changes little from in-memory to IO-bound, the B+tree's drops by 2x
    or more, its reads are secondary-index leaves, and the LSM's index maintenance reads nothing. ``results`` is
    ``run``'s frame; a run with the change buffer off adds the change buffer's claim."""
    ours = results[results.change_buffer.isin([True, None])].set_index(["engine", "config"])
    pub = published().set_index(["engine", "config"])
    io_btree, io_lsm = ours.loc[("btree", "io-bound")], ours.loc[("lsm", "io-bound")]
    secondaries = [f"reads_per_op_{name}" for name, _ in INDEXES[:SECONDARY_INDEXES]]
    btree_reads = io_btree[["reads_per_op_primary", *secondaries]].sum()
    out = [
        Claim.check("The LSM keeps its insert rate IO-bound: IO-bound / in-memory inserts per second",
                    published=pub.ops_per_sec["MyRocks", "io-bound"] / pub.ops_per_sec["MyRocks", "in-memory"],
                    ours=io_lsm.ops_per_sec / ours.ops_per_sec["lsm", "in-memory"], band=within(1.0, 0.25)),
        Claim.check("The B+tree loses half its rate or more IO-bound: in-memory / IO-bound inserts per second",
                    published=pub.ops_per_sec["InnoDB-5.7", "in-memory"] / pub.ops_per_sec["InnoDB-5.7", "io-bound"],
                    ours=ours.ops_per_sec["btree", "in-memory"] / io_btree.ops_per_sec, band=at_least(2),
                    must_hold=("tiny",), reason=BTREE_LOSS_SMALLER),
        Claim.check("In memory the B+tree reads nothing: KB read per insert",
                    published=pub.rkb_per_op["InnoDB-5.7", "in-memory"],
                    ours=ours.rkb_per_op["btree", "in-memory"], band=equals(0)),
        Claim.check("IO-bound, the B+tree's foreground reads are secondary-index leaves: their share of its reads",
                    published=None, ours=io_btree[secondaries].sum() / btree_reads if btree_reads else 0.0,
                    band=at_least(0.9)),
        Claim.check("The LSM's secondary-index maintenance reads nothing: its index reads per insert, IO-bound",
                    published=None, ours=io_lsm[secondaries].sum(), band=equals(0)),
        Claim.check("IO-bound, the LSM writes less per insert: B+tree / LSM KB written per insert",
                    published=pub.wkb_per_op["InnoDB-5.7", "io-bound"] / pub.wkb_per_op["MyRocks", "io-bound"],
                    ours=io_btree.wkb_per_op / io_lsm.wkb_per_op, band=at_least(1.5)),
    ]
    off = results[(results.engine == "btree") & (results.config == "io-bound") & (results.change_buffer == False)]  # noqa: E712
    if len(off):
        out.append(Claim.check(
            "The change buffer saves reads: IO-bound B+tree reads per insert, buffer off / on", published=None,
            ours=off.reads_per_op.iloc[0] / io_btree.reads_per_op, band=at_least(2)))
    return out
