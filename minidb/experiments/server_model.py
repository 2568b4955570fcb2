"""How well the server model predicts what it was not fitted to: the validation table (issue: the server layer).

The server model (``minidb.sim.server``) is calibrated once, on seed 001's CPU per transaction
(``minidb.experiments.calibration``). This module runs the experiments it was *not* fitted to and compares their
figures with the posts':

* F1's in-memory insert rates of both engines (seed 000, fast SSD): within 1.5x of the post;
* F3's MyRocks-like throughput across the memory sweep (seed 001): flat within +-25%;
* F4's LSM / B+tree throughput on 5,000 io1 IOPS (seed 003): between 2.5x and 5x;
* seed 000's client-count table (in-memory insert benchmark, 1 to 16 clients, binlog on and off, leveled and
  universal compaction): the post's leader at 1-2 clients (MyRocks) and at 16 (InnoDB-5.7).

F1, F3 and F4 are the chapters' own runs, called exactly as chapters 3, 5 and 6 call them (``f1.book_run``,
``f3.run``, ``f4.run``), so that the sweep's cache shares every point; the client-count table is run here, with
F1's in-memory cache and redo log (both scaled to the rows). Its 24 runs insert fewer rows than chapter 3's
(``CLIENT_ROWS``: at ``small`` a fifth), and so end before the LSM's lower levels fill and compaction starts to limit
it, which is what stops MyRocks's rate growing in the post ("limited by compaction stalls"); of the client-count
claims only those at 1-2 clients are required.

``claims`` is the validation table: one row per target, with the published figure, ours and the band. No parameter
is changed per experiment; a target missed stays in the table with its reason.
"""

from __future__ import annotations

import pandas as pd

from .. import data, engines
from .. import scales
from . import f1_insert_benchmark as f1
from . import f3_memory_sweep as f3
from . import f4_cloud_iops as f4
from ..sim.server import ServerModel
from ..workloads import DataSetup, RunSetup, insert_benchmark
from .calibration import calibrated_server
from .claims import Claim, at_least, between, within, within_factor
from .runner import sweep

CLIENTS = (1, 2, 8, 16)  # of the post's 1, 2, 4, 8, 12, 16: both ends and the knee
# Rows per client-count run: at ``small`` a fifth of chapter 3's million, since the table runs 24 of them.
CLIENT_ROWS = {"tiny": 5_000, "small": 200_000, "large": 1_000_000}
# The LSM's compaction styles in the post's table, with its triggers (seed 000, 2017-02-08: slowdown 20, stop 30).
COMPACTIONS = {"leveled": dict(compaction="leveled", level0_slowdown_writes_trigger=20, level0_stop_writes_trigger=30),
               "universal": dict(compaction="universal", level0_slowdown_writes_trigger=20,
                                 level0_stop_writes_trigger=30)}
PUBLISHED_BTREE = "InnoDB-5.7.10"  # the post's InnoDB that leads at 16 clients
TOLERANCE = 1.5  # the target for absolute rates: within 1.5x of the post


def styles(engine: str) -> tuple[str | None, ...]:
    """The compaction styles of the table ``engine`` runs: ``COMPACTIONS``'s where it compacts, else (None,)."""
    return tuple(COMPACTIONS) if engines.get(engine).supports("compaction") else (None,)


def client_point(engine: str, compaction: str | None, binlog: bool, clients: int, rows: int, seed: int = 0,
                 server: bool = True) -> dict:
    """One in-memory insert benchmark run of the client-count table: inserts per second and what limited them;
    ``server=False`` charges the engine's work alone (``ServerModel.none()``), as the time model did before."""
    spec = engines.get(engine)
    options = {**spec.preset(f1.SYNC_PRESET), **(COMPACTIONS[compaction] if compaction else {}),
               **spec.supported(redo_log_bytes=f1.redo_log_bytes("in-memory", rows))}
    setup = RunSetup(DataSetup(engine, seed=seed, engine_options=options),
                     cache_bytes=f1.cache_bytes(engine, "in-memory", rows), device=f1.DEVICE, clients=clients,
                     server_model=calibrated_server(binlog=binlog, sync_binlog=0) if server else ServerModel.none())
    r = insert_benchmark(setup, rows, secondary_indexes=f1.SECONDARY_INDEXES)
    s = r.summary
    return {"ops_per_sec": s["ops_per_sec"], "bottleneck": s["bottleneck"], "stalled_seconds": s["stalled_seconds"],
            "serial_seconds_per_op": s["serial_seconds_per_op"],
            "engine_serial_seconds_per_op": s["engine_serial_seconds_per_op"], "binlog_kb_per_op": s["binlog_kb_per_op"]}


def client_table(scale: str | None = None, *, seed: int = 0, executor=None, cache_dir=None,
                 progress: bool = True) -> pd.DataFrame:
    """Seed 000's client-count table, run: engine, compaction (None for the B+tree), binlog, clients,
    ops_per_sec, bottleneck, ..."""
    rows = CLIENT_ROWS[scales.current(scale)]
    points = [dict(engine=e, compaction=c, binlog=b, clients=n, rows=rows, seed=seed, server=True)
              for e in engines.NAMES for c in styles(e)
              for b in (True, False) for n in CLIENTS]
    return sweep(client_point, points, name="server-model-clients", executor=executor, cache_dir=cache_dir,
                 progress=progress)


def before_after(scale: str | None = None, *, seed: int = 0, executor=None, cache_dir=None,
                 progress: bool = True) -> pd.DataFrame:
    """The in-memory insert benchmark at 16 clients, the binlog off, with the engine's work alone (``server`` False,
    the time model before the server) and with the server: engine, server, ops_per_sec, bottleneck, ..."""
    rows = CLIENT_ROWS[scales.current(scale)]
    points = [dict(engine=e, compaction=styles(e)[0], binlog=False, clients=16, rows=rows, seed=seed, server=s)
              for e in engines.NAMES for s in (False, True)]
    return sweep(client_point, points, name="server-model-clients", executor=executor, cache_dir=cache_dir,
                 progress=progress)


def run(scale: str | None = None, **kwargs) -> dict[str, pd.DataFrame]:
    """The validation runs at ``scale``, by name: F1 (chapter 3's run), F3, F4, the client-count table, and the
    in-memory rates before and after the server model (``before_after``)."""
    scale = scales.current(scale)
    return {"f1": f1.book_run(scale, **kwargs), "f3": f3.run(scale, **kwargs),
            "f4": f4.run(scale, **kwargs), "clients": client_table(scale, **kwargs),
            "before_after": before_after(scale, **kwargs)}


def published() -> pd.DataFrame:
    """Seed 000's client-count table (``insert_rate_by_concurrency.csv``): engine, binlog, compaction, clients,
    inserts_per_sec."""
    return data.load("insert_rate_by_concurrency")


def _rate(frame: pd.DataFrame, engine: str, clients: int, compaction: str | None, binlog: bool, col: str) -> float:
    rows = frame[(frame.engine == engine) & (frame.clients == clients) & (frame.binlog == binlog)]
    if compaction is not None:
        rows = rows[rows.compaction == compaction]
    return float(rows[col].iloc[0])


# Why a target may be missed (shown where its claim does not hold).
BTREE_RATE = ("the calibrated CPU per row is the SQL layer's and the handler's at sysbench-tpcc's concurrency; and the "
              "redo log is scaled down with the data while a commit still holds 1,000 rows and the log is checked "
              "once per commit, not before each row, so where the background flush falls behind, the clients wait "
              "for page writes that InnoDB's far larger log would have left to the background (chapter 3 gives the "
              "share)")
LSM_TOO_FAST = (
    "what holds an LSM back in memory is its flushes and compactions falling behind the inserts (at RocksDB's "
    "measured CPU per entry), as the post's MyRocks was held ('limited by compaction stalls', seed 000), and a run "
    "this short ends before our LSM's lower levels fill and its compactions stall it; the post's MyRocks also paid "
    "its binlog processing ('binlog processing is the bottleneck'), which the model charges both engines alike")
PER_CLIENT = (
    "with one or two clients each engine's rate is about one over its time per insert, and the server's CPU, which "
    "the model charges both engines alike, is most of that time (chapter 2b)")
NO_CROSSOVER = (
    "what holds our LSM back at 16 clients is its flushes and compactions falling behind the clients' inserts (at "
    "RocksDB's measured CPU per entry), as the post's leveled MyRocks was held ('limited by compaction stalls'), and "
    "only in runs long enough for them to fall behind (chapter 2b gives each run's stalls); the post's MyRocks with "
    "universal compaction was held by its binlog processing instead, which the model charges both engines alike, "
    "and our B+tree stalls too, waiting for the page writes that free its redo log (chapter 3)")


def claims(results: dict[str, pd.DataFrame]) -> list[Claim]:
    """The validation table: each target of the server model on a run it was not fitted to."""
    pub1 = f1.published().set_index(["engine", "config"]).ops_per_sec
    ours1 = results["f1"]
    ours1 = ours1[ours1.change_buffer.isin([True, None])].set_index(["engine", "config"]).ops_per_sec
    out = []
    for engine, name in (("btree", "InnoDB-5.7"), ("lsm", "MyRocks")):
        p = pub1[name, "in-memory"]
        out.append(Claim.check(
            f"F1 in memory, {engines.get(engine).short}: inserts per second within 1.5x of {name}'s",
            published=p, ours=ours1[engine, "in-memory"], band=within_factor(p, TOLERANCE),
            must_hold=("tiny",) if engine == "btree" else (),
            reason=BTREE_RATE if engine == "btree" else LSM_TOO_FAST))
    lsm3 = results["f3"][results["f3"].engine == "lsm"].sort_values("memory_gb").tps
    pub3 = f3.published()
    pub3 = pub3[pub3.engine == "MyRocks"].sort_values("memory_gb").tps
    out.append(Claim.check("F3: the LSM's TPS stays flat across the memory sweep (+-25%): least / most memory",
                           published=pub3.iloc[0] / pub3.iloc[-1], ours=lsm3.iloc[0] / lsm3.iloc[-1],
                           band=within(1.0, 0.25), must_hold=("tiny",), reason=f3.LSM_NOT_CPU_BOUND))
    f4r, f4p = results["f4"], f4.published()

    def tps4(frame, engine):
        return frame[(frame.engine == engine) & (frame.volume_type == "io1") & (frame.iops == 5000)].tps.iloc[0]

    out.append(Claim.check("F4: LSM / B+tree TPS on 5,000 io1 IOPS, between 2.5x and 5x",
                           published=tps4(f4p, "MyRocks") / tps4(f4p, "InnoDB"),
                           ours=tps4(f4r, "lsm") / tps4(f4r, "btree"), band=between(2.5, 5), must_hold=("tiny",),
                           reason=f4.FEWER_BTREE_IOS))
    ours, pub = results["clients"], published()
    for compaction in COMPACTIONS:
        for binlog in (True, False):
            label = f"{compaction}, binlog {'on' if binlog else 'off'}"
            for n in (1, 2):
                out.append(Claim.check(
                    f"Clients: the LSM leads at {n} client{'s' if n > 1 else ''} ({label}): LSM / B+tree inserts/s",
                    published=_rate(pub, "MyRocks", n, compaction, binlog, "inserts_per_sec")
                    / _rate(pub, PUBLISHED_BTREE, n, None, binlog, "inserts_per_sec"),
                    ours=_rate(ours, "lsm", n, compaction, binlog, "ops_per_sec")
                    / _rate(ours, "btree", n, None, binlog, "ops_per_sec"),
                    band=at_least(1), must_hold=("tiny",), reason=PER_CLIENT))
            out.append(Claim.check(
                f"Clients: the B+tree leads at 16 clients ({label}): B+tree / LSM inserts/s",
                published=_rate(pub, PUBLISHED_BTREE, 16, None, binlog, "inserts_per_sec")
                / _rate(pub, "MyRocks", 16, compaction, binlog, "inserts_per_sec"),
                ours=_rate(ours, "btree", 16, None, binlog, "ops_per_sec")
                / _rate(ours, "lsm", 16, compaction, binlog, "ops_per_sec"),
                band=at_least(1), must_hold=(), reason=NO_CROSSOVER))
    return out
