"""TPC-C as sysbench-tpcc runs it in seeds 001 and 003: its tables and indexes, its load, its five transactions.

Percona's sysbench-tpcc (``tpcc_common.lua``, ``tpcc_run.lua``, ``tpcc.lua``, the scripts of the seeds' runs) is a
TPC-C-like workload, and this module runs it as the scripts do, in three parts:

* ``minidb.workloads.tpcc_schema``: the nine tables and the six secondary indexes the script creates before its
  load (``idx_customer``, ``idx_orders`` and four for its foreign keys), and the NURand constants of a run;
* ``minidb.workloads.tpcc_load``: the initial population in the script's order, with its value generators: fixed
  prefixes on names and addresses, and one random letter repeated for the long text columns (which is why the
  posts' MyRocks compressed the data 3.3 times);
* ``minidb.workloads.tpcc_transactions``: New-Order, Payment, Order-Status, Delivery and Stock-Level, statement
  for statement, in the script's mix (10, 10, 1, 1 and 1 in 23).

**What it leaves out**: sysbench-tpcc's sets of tables (seed 001 ran 10 sets of 100 warehouses; one set here,
which changes no transaction but makes the item table, one per set, a larger part of the data: in the posts a
hundredth of the stock table's rows, here one part in as many as the warehouses loaded; ``reads_by_table`` counts
what that costs); row locks and the deadlocks they cause (the workload's clients are modelled by the simulated-time
bottleneck law, ``minidb.sim``); the purge transaction (off by default). At the smaller scales the per-warehouse
counts are reduced (``minidb.scales``) and the NURand constants A with them, in proportion.
"""

from __future__ import annotations

import numpy as np

from .. import scales
from ..sim.server import ServerModel
from ..table import RowLayout
from .driver import Driver, WorkloadResult
from .loaded import LoadedData, freeze, load_driver, load_key, reopen
from .setup import DataSetup, RunSetup
from .tpcc_load import START_TIME, Loader, sample_rows
from .tpcc_schema import DISTRICTS, SCHEMAS, Population, last_name
from .tpcc_transactions import Transactions, kinds

__all__ = ["tpcc", "load_tpcc", "tpcc_from", "tpcc_load_key", "load", "estimated_db_bytes", "reads_by_table",
           "ONE_ITEM_TABLE", "SCHEMAS", "last_name", "Population"]

TRANSACTIONS_PER_STEP = 20  # transactions timed together as one simulation step
CORES = 28  # seed 001's server: "2 sockets / 28 cores / 56 threads"
SERVER = ServerModel.calibrated(binlog=True, sync_binlog=10000)  # seed 001: "binary log on ... sync_binlog=10000"


def tpcc(setup: RunSetup, warehouses: int | None = None, transactions: int | None = None, *,
         warmup: int = 0) -> WorkloadResult:
    """Load ``warehouses`` warehouses, then run ``transactions`` transactions of sysbench-tpcc's mix (defaults: the
    setup's scale's), after ``warmup`` more that are left out of the result (seed 001 left out its runs' first
    2,000 of 3,600 seconds).

    ``ops`` are transactions of every type (TPS, as sysbench counts its events); ``new_orders`` counts committed
    New-Orders (``new_orders_per_sec`` * 60 is tpmC), ``by_type`` the transactions of each type. The cache and LSM
    sizes scale from the setup's reference, by default the scale's (``minidb.scales.TPCC``); the cores default to
    seed 001's server (``CORES``). ``setup`` as ``insert_benchmark``'s.
    """
    transactions, warmup = _transactions(setup.data.scale, transactions), _warmup(warmup)
    pop, rng = _population(setup.data, warehouses)
    drv = Driver.sized(setup, _db_bytes(pop), scales.tpcc(setup.data.scale).reference, setup.host(CORES), SERVER)
    tables = _populate(drv, pop, rng)
    return _measure(drv, tables, pop, rng, transactions, warmup)


def load_tpcc(data: DataSetup, warehouses: int | None = None) -> LoadedData:
    """Load ``warehouses`` warehouses (default: the scale's) as ``tpcc`` does, once, for ``tpcc_from`` to measure
    many times (``minidb.workloads.loaded``)."""
    pop, rng = _population(data, warehouses)
    reference = scales.tpcc(data.scale).reference
    drv = load_driver(data, _db_bytes(pop), reference, RunSetup(data).host(CORES))
    _populate(drv, pop, rng)
    return freeze(drv, "tpcc", {"warehouses": pop.warehouses}, _db_bytes(pop), reference, (pop, rng))


def tpcc_load_key(data: DataSetup, warehouses: int | None = None) -> str:
    """The ``load_key`` of ``load_tpcc(data, warehouses)``, without loading."""
    pop, _ = _population(data, warehouses)
    return load_key("tpcc", data, {"warehouses": pop.warehouses}, _db_bytes(pop), data.reference
                    or scales.tpcc(data.scale).reference)


def tpcc_from(loaded: LoadedData, setup: RunSetup, transactions: int | None = None, *,
              warmup: int = 0) -> WorkloadResult:
    """Run ``transactions`` transactions of sysbench-tpcc's mix (default: the scale's) on a copy of ``loaded``,
    reopened with ``setup``'s cache, device model, clients and server; the same transactions ``tpcc`` would run
    after the same load. ``warmup`` more run first, to fill the cache, and are left out of the result."""
    if loaded.workload != "tpcc":
        raise ValueError(f"tpcc_from needs a TPC-C load, got a {loaded.workload!r} one")
    transactions, warmup = _transactions(loaded.data.scale, transactions), _warmup(warmup)
    pop, rng = loaded.run_state()
    drv = reopen(loaded, setup, setup.host(CORES), SERVER)
    tables = {name: drv.table(s) for name, s in SCHEMAS.items()}
    return _measure(drv, tables, pop, rng, transactions, warmup)


def _population(data: DataSetup, warehouses: int | None) -> tuple[Population, np.random.Generator]:
    """The population of ``warehouses`` warehouses (default: the scale's) and the run's random generator."""
    size = scales.tpcc(data.scale)
    rng = np.random.default_rng(data.seed)
    pop = Population(size.warehouses if warehouses is None else int(warehouses), size.items,
                     size.customers_per_district, rng)
    return pop, rng


def _transactions(scale: str | None, transactions: int | None) -> int:
    """``transactions``, or the scale's; ValueError below 1."""
    transactions = scales.tpcc(scale).transactions if transactions is None else int(transactions)
    if transactions < 1:
        raise ValueError(f"tpcc needs transactions >= 1, got {transactions}")
    return transactions


def _warmup(warmup: int) -> int:
    """``warmup``, the transactions run before the measured ones; ValueError below 0."""
    if int(warmup) < 0:
        raise ValueError(f"tpcc needs warmup >= 0, got {warmup}")
    return int(warmup)


def _measure(drv: Driver, tables: dict, pop: Population, rng: np.random.Generator,
             transactions: int, warmup: int = 0) -> WorkloadResult:
    """Run ``warmup`` transactions on the loaded ``tables``, then run and measure ``transactions`` more."""
    txns = Transactions(drv, tables, pop, rng, now=START_TIME + 1)
    todo = kinds(rng, warmup + transactions)
    _run_steps(drv, txns, todo[:warmup])
    new_orders, rollbacks, done = txns.new_orders, txns.rollbacks, dict(txns.done)  # the warm-up's, left out
    drv.start_measuring()
    _run_steps(drv, txns, todo[warmup:])
    return drv.result("tpcc", ops=transactions,
                      params=dict(warehouses=pop.warehouses, transactions=transactions, warmup=warmup,
                                  items=pop.items, customers_per_district=pop.customers),
                      rates={"new_orders": txns.new_orders - new_orders},
                      extra={"rollbacks": txns.rollbacks - rollbacks,
                             "by_type": {kind: n - done[kind] for kind, n in txns.done.items()}})


def _run_steps(drv: Driver, txns: Transactions, todo) -> None:
    """Run the transactions of kinds ``todo``, ``TRANSACTIONS_PER_STEP`` at a time, each group timed as one step."""
    for start in range(0, len(todo), TRANSACTIONS_PER_STEP):
        step = todo[start:start + TRANSACTIONS_PER_STEP]
        sent = []  # the statements of the step's transactions
        with drv.step(ops=len(step), statements=lambda: sum(sent)):
            for kind in step:
                sent.append(txns.run(kind))


def load(drv: Driver, warehouses: int, *, scale: str | None = None, seed: int = 0) -> dict:
    """Create the TPC-C tables on ``drv``'s engine and load ``warehouses`` warehouses' initial population (what
    ``tpcc`` loads before its transactions, row for row); returns {table name: Table}."""
    size = scales.tpcc(scale)
    rng = np.random.default_rng(seed)
    return _populate(drv, Population(int(warehouses), size.items, size.customers_per_district, rng), rng)


def _populate(drv: Driver, pop: Population, rng: np.random.Generator) -> dict:
    tables = {name: drv.table(s) for name, s in SCHEMAS.items()}
    Loader(drv, tables, pop, rng).load()
    return tables


# Why a cache of the posts' share misses item rows that the posts' caches held (the TPC-C claims' reasons say so).
ONE_ITEM_TABLE = ("one item table serves TPC-C-lite's few warehouses, so it is a far larger part of the data than in "
                  "the posts, whose sets of 100 warehouses each had an item table of a hundredth of their stock "
                  "table's rows, small enough for their caches to hold")


def reads_by_table(io) -> dict[str, int]:
    """Device reads of a run's ``io`` (its IOStats) per TPC-C table, from the tags ``<table>.<index>`` that both
    engines give the reads they make for an index: which tables' rows the cache missed. Untagged reads (an LSM's
    compactions) belong to no table."""
    frame = io.to_frame()
    table = frame.tag.str.split(".").str[0]
    reads = frame[table.isin(list(SCHEMAS))].groupby(table).reads.sum()
    return {name: int(reads.get(name, 0)) for name in SCHEMAS}


def estimated_db_bytes(warehouses: int, scale: str | None = None, seed: int = 0) -> float:
    """Bytes of keys and values a run of ``warehouses`` warehouses at ``scale`` loads: what its cache is scaled by."""
    size = scales.tpcc(scale)
    return _db_bytes(Population(warehouses, size.items, size.customers_per_district, np.random.default_rng(seed)))


def _db_bytes(pop: Population) -> float:
    """Bytes of keys and values the initial population holds, from the mean of sample rows of each table."""
    per = {name: sum(RowLayout(SCHEMAS[name]).entry_bytes(r) for r in rows) / len(rows)
           for name, rows in sample_rows()}
    w, d, c = pop.warehouses, pop.warehouses * DISTRICTS, pop.warehouses * DISTRICTS * pop.customers
    counts = {"warehouse": w, "district": d, "customer": c, "history": c, "item": pop.items,
              "stock": w * pop.items, "orders": c, "new_orders": 0.3 * c, "order_line": 10 * c}
    return sum(per[name] * n for name, n in counts.items())
