"""Calibrating the server model once, on one published table: seed 001's CPU per transaction.

The SQL layer's costs (``minidb.sim.server``) cannot be measured from our engines, which have no SQL layer. They are
fixed from one published experiment, and every other experiment then *predicts* with them
(``minidb.experiments.server_model`` shows how well):

1. **The ratio** of a statement's cost to a row's is a micro-measurement of a real SQL layer:
   ``benchmarks/measure_server_costs.py`` times SQLite's single-row INSERT statements (each parsed and planned)
   against the same rows through one prepared statement (``STATEMENT_TO_ROW``).
2. **The level** comes from seed 001 (sysbench-tpcc, ``data/published/tpcc_memory_sweep.csv``): vmstat's user +
   system CPU over the server's 56 hardware threads, divided by the TPS, at the sweep's largest memory (where
   neither engine waits for reads): milliseconds of CPU per transaction. Our TPC-C (sysbench-tpcc's), run once at
   ``tiny`` with a cache holding everything and no server costs, gives each engine's own CPU per transaction and the
   statements and rows a transaction passes. What the post's engines spent beyond ours is the server's::

       server CPU per transaction = published CPU - our engine's CPU        (the mean over both engines)
       row_seconds = server CPU per transaction / (STATEMENT_TO_ROW x statements + rows)
       statement_seconds = STATEMENT_TO_ROW x row_seconds

The fit was made once, and its result is kept in ``minidb.sim.server`` (``ServerModel.calibrated``), where every
workload finds it without importing this module; the test suite re-runs the fit (``fit``, once per process, from
engine runs kept in the sweep cache) and fails if the kept parameters are 0.1% or more from its result. The same code gives the
same numbers on any machine.
Our run is sysbench-tpcc's mix, statement for statement (``minidb.workloads.tpcc``), so its statements and rows per
transaction are the post's. What it cannot know: the post's CPU includes contention between its threads, which the
fit folds into the per-row cost.
"""

from __future__ import annotations

import functools

import pandas as pd

from .. import data, engines, scales
from ..sim.server import ServerModel
from ..workloads import DataSetup, RunSetup, tpcc
from ..workloads.tpcc import estimated_db_bytes
from .runner import sweep

# SQLite 3 (Python's sqlite3), 10,000-row transactions into a table with one secondary index, the best of five:
# 4.71 us per row as its own INSERT statement, 1.30 us per row through executemany; the statement's own share is
# the difference, 2.63 times a row's (benchmarks/measure_server_costs.py on the development machine).
STATEMENT_TO_ROW = 2.63
SCALE = "tiny"  # the calibration run's scale: fixed, so that every scale uses the same parameters
IN_MEMORY = 4.0  # the calibration run's cache over its estimated data: everything cached, as at 100 GB in seed 001


def published_point() -> pd.DataFrame:
    """Seed 001 at its largest memory: CPU milliseconds per transaction of each engine (engine, memory_gb, tps,
    cpu_ms_per_txn)."""
    pub = data.tpcc_memory_sweep()
    top = pub[pub.memory_gb == pub.memory_gb.max()]
    return top[["engine", "memory_gb", "tps", "cpu_ms_per_txn"]].reset_index(drop=True)


def engine_run(engine: str) -> dict:
    """TPC-C at ``SCALE`` on ``engine`` with everything cached and no server costs: per transaction, the
    engine's CPU milliseconds, the statements and the rows."""
    warehouses = scales.tpcc(SCALE).warehouses
    cache = int(IN_MEMORY * estimated_db_bytes(warehouses, SCALE))
    r = tpcc(RunSetup(DataSetup(engine, scale=SCALE), cache_bytes=cache, server_model=ServerModel.none()))
    steps, ops = r.steps, r.summary["ops"]
    return {"engine_cpu_ms_per_txn": r.summary["cpu_seconds_per_op"] * 1000,
            "statements_per_txn": sum(s.statements for s in steps) / ops,
            "rows_per_txn": sum(s.rows for s in steps) / ops}


@functools.cache
def fit() -> pd.DataFrame:
    """The calibration table: per engine, the published CPU per transaction, ours, the server's share, and the
    statements and rows; the fitted ``row_seconds`` and ``statement_seconds`` are in its ``attrs``."""
    pub = published_point()
    runs = sweep(engine_run, [{"engine": engines.kind_of(name)} for name in pub.engine], name="server-calibration",
                 executor=False, progress=False).drop(columns="engine")
    rows = []
    for p, ours in zip(pub.itertuples(), runs.to_dict("records")):
        rows.append({"engine": p.engine, "published_cpu_ms_per_txn": p.cpu_ms_per_txn, **ours,
                     "server_cpu_ms_per_txn": p.cpu_ms_per_txn - ours["engine_cpu_ms_per_txn"]})
    table = pd.DataFrame(rows)
    server_ms = float(table.server_cpu_ms_per_txn.mean())
    units = float(STATEMENT_TO_ROW * table.statements_per_txn.mean() + table.rows_per_txn.mean())
    row_seconds = server_ms / 1000 / units
    table.attrs.update(row_seconds=row_seconds, statement_seconds=STATEMENT_TO_ROW * row_seconds,
                       server_cpu_ms_per_txn=server_ms)
    return table


def busy_share() -> float:
    """The share of its server's hardware threads seed 001's transactions kept busy at the sweep's largest memory
    (vmstat's user + system CPU; the larger of its two engines'): by Little's law, the transactions running at once
    on each hardware thread. The post does not say how many clients it ran; a client of its that waited (for a lock,
    a mutex, its turn on a CPU) ran no transaction, and our server model has no such waits, so a run gives its
    server this share of its hardware threads as clients (``clients``)."""
    top = published_point()
    return float((top.tps * top.cpu_ms_per_txn / 1000).max() / data.SEED_001_THREADS)


def clients(threads: int) -> int:
    """The clients of a TPC-C run on a server of ``threads`` hardware threads: ``busy_share`` of them, at least 1."""
    return max(1, round(busy_share() * threads))


def calibrated_server(**options) -> ServerModel:
    """The calibrated server model, as the fit left it (``ServerModel.calibrated``); ``options`` set its binlog
    (``binlog``, ``sync_binlog``, ...)."""
    return ServerModel.calibrated(**options)
