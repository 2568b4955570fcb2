"""The insert benchmark (iibench), as seed 000 runs it: PK-order inserts into a table with 3 secondary indexes.

**How it maps to the original** (Mark Callaghan's ``iibench.py``, the script of seed 000):

* the table ``purchases_index``: ``transactionid`` BIGINT auto-increment primary key, ``dateandtime`` DATETIME,
  ``cashregisterid``, ``customerid``, ``productid`` INT, ``price`` FLOAT, ``data`` VARCHAR;
* its three non-unique secondary indexes: ``marketsegment (productid, customerid, price)``,
  ``registersegment (cashregisterid, customerid, price)`` and ``pdc (price, dateandtime, customerid)``;
  ``secondary_indexes=`` keeps only the first 0 to 3 of them, like iibench's ``--num_secondary_indexes``;
* values drawn as iibench.py draws them: cash register uniform in [0, 1000), product in [0, 10000), customer in
  [0, 100000), price in [0, 500) with two decimals (``--max_price=500``, printed with ``%.2f``), ``data`` 10
  characters of which 3 are random (``--data_length_min=max=10``, ``--data_random_pct=50`` with its 0.75 base64
  factor) and the rest the letter 'a';
* 1000 rows per commit (``--rows_per_commit``), transaction ids ascending, so the primary index is appended to
  while every secondary index is updated at random places: the case finding F1 is about;
* optional query threads (``--query_threads``): each does, in turn, a primary-key query of 10 random ids
  (iibench's ``IN (...)`` list of ``rows_per_query`` ids), and 10-row covering range scans on the marketsegment,
  registersegment and pdc indexes from a random starting value (``rows_per_query=10``, ``LIMIT 10``).

**What it leaves out**: the 16 tables and 16 client processes of the seed run as one table here, with 16 clients
modelled by the simulated-time bottleneck law (the binlog and the SQL layer's CPU are the server model's, by
default seed 000's server, ``SERVER``); ``dateandtime`` from the wall clock (here every commit is one second later than the previous, so both engines store identical rows); query threads
running flat out (here each does ``queries_per_commit`` queries per insert commit, so a run is deterministic).

**Row size.** Our encoding stores 49 bytes in the primary index (9-byte key, 40-byte value) and keys of 28, 28 and
32 bytes in the secondary indexes (an ``int32`` column takes 5 bytes, MySQL's 4 and our type tag): 137 bytes of keys
and values per row with three indexes. The seed's databases hold 113 bytes per
row for MyRocks (226 GB for 2 billion rows, uncompressed, after prefix compression of keys) and 181 for InnoDB
(362 GB, with fragmented pages): the same order, which is what keeps cache/database ratios meaningful.
"""

from __future__ import annotations

import numpy as np

from .. import scales
from ..schema import Schema
from ..sim.server import ServerModel
from ..table import RowLayout
from .distributions import BASE64, random_strings
from .driver import Driver, WorkloadResult
from .setup import RunSetup

CASH_REGISTERS = 1000  # iibench.py --cashregisters
PRODUCTS = 10_000  # iibench.py --products
CUSTOMERS = 100_000  # iibench.py --customers
MAX_PRICE = 500  # iibench.py --max_price
DATA_LENGTH = 10  # iibench.py --data_length_min and --data_length_max
DATA_RANDOM = int(DATA_LENGTH * 0.75 * 50 / 100)  # iibench.py: data_len * 0.75 * data_random_pct / 100 = 3
ROWS_PER_QUERY = 10  # iibench.py --rows_per_query
ROWS_PER_COMMIT = 1000  # iibench's --rows_per_commit in seed 000's runs
START_TIME = 1_483_228_800  # 2017-01-01 00:00:00 UTC, the month of seed 000's posts: dateandtime of commit 0
CORES = 48  # seed 000's server: "48 cores with HT enabled" (its 16 clients are RunSetup's default)
SERVER = ServerModel.calibrated(binlog=True, sync_binlog=0)  # seed 000: "The binlog was enabled for all tests", and
# "sync on commit was disabled for the database redo log & binlog"

INDEXES = (
    ("marketsegment", ("productid", "customerid", "price")),
    ("registersegment", ("cashregisterid", "customerid", "price")),
    ("pdc", ("price", "dateandtime", "customerid")),
)


def schema(secondary_indexes: int = 3) -> Schema:
    """The ``purchases_index`` table with the first ``secondary_indexes`` (0 to 3) of iibench's indexes."""
    if not 0 <= secondary_indexes <= 3:
        raise ValueError(f"the insert benchmark has 0 to 3 secondary indexes, got {secondary_indexes}")
    return Schema(
        "purchases_index",
        [("transactionid", "int"), ("dateandtime", "int"), ("cashregisterid", "int32"), ("customerid", "int32"),
         ("productid", "int32"), ("price", "float"), ("data", "str")],
        primary_key=("transactionid",),
        indexes=INDEXES[:secondary_indexes],
    )


class RowGenerator:
    """The rows of one run, commit by commit; the same seed gives the same rows."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)  # every random choice of the run
        self.next_id = 1  # transactionid of the next row (auto-increment from 1)
        self.commits = 0  # batches generated so far

    def batch(self, n: int) -> list[tuple]:
        """The next ``n`` rows, in primary-key order, all with the same ``dateandtime``."""
        rng = self.rng
        ids = range(self.next_id, self.next_id + n)
        when = START_TIME + self.commits
        cash = rng.integers(0, CASH_REGISTERS, n).tolist()
        cust = rng.integers(0, CUSTOMERS, n).tolist()
        prod = rng.integers(0, PRODUCTS, n).tolist()
        price = (rng.integers(0, MAX_PRICE * 100, n) / 100).tolist()
        pad = "a" * (DATA_LENGTH - DATA_RANDOM)
        data = [pad + s for s in random_strings(rng, n, DATA_RANDOM, BASE64)]
        self.next_id += n
        self.commits += 1
        return list(zip(ids, [when] * n, cash, cust, prod, price, data))


def insert_benchmark(setup: RunSetup, rows: int | None = None, *, secondary_indexes: int = 3,
                     rows_per_commit: int = ROWS_PER_COMMIT, query_threads: int = 0,
                     queries_per_commit: int = 4) -> WorkloadResult:
    """Insert ``rows`` rows (default: the setup's scale's) in PK order, ``rows_per_commit`` per transaction.

    ``setup`` is the engine, its data and the measured run's cache, device and server (``RunSetup``; its cache
    defaults to the scale's IO-bound share for the engine, its cores to seed 000's server, ``CORES``); each query
    thread is one more client. ``ops`` in the summary are rows inserted; query-thread work is reported as
    ``queries`` and ``queries_per_sec``.
    """
    seed = setup.data.seed
    rows = scales.insert_benchmark(setup.data.scale).rows if rows is None else int(rows)
    if rows < 1 or rows_per_commit < 1:
        raise ValueError(f"the insert benchmark needs rows >= 1 and rows_per_commit >= 1, got {rows}, "
                         f"{rows_per_commit}")
    if query_threads < 0 or queries_per_commit < 0:
        raise ValueError(f"query_threads and queries_per_commit must be >= 0, got {query_threads}, "
                         f"{queries_per_commit}")
    drv = sized_driver(setup, rows, secondary_indexes, extra_clients=query_threads)
    table = drv.table(schema(secondary_indexes))
    queries = _Queries(table, np.random.default_rng([seed, 1]), secondary_indexes)

    def query(done: int) -> None:
        for _ in range(query_threads * queries_per_commit):
            queries.run_one(done)

    drv.start_measuring()
    insert_rows(drv, table, RowGenerator(seed), rows, rows_per_commit, between=query,
                queries=query_threads * queries_per_commit)
    return drv.result(
        "insert_benchmark", ops=rows,
        params=dict(rows=rows, secondary_indexes=secondary_indexes, rows_per_commit=rows_per_commit,
                    query_threads=query_threads, queries_per_commit=queries_per_commit),
        rates={"queries": queries.done},
    )


def sized_driver(setup: RunSetup, rows: int, secondary_indexes: int = 3, extra_clients: int = 0) -> Driver:
    """A ``Driver`` whose engine is sized for ``rows`` rows of the benchmark's table with ``secondary_indexes``,
    ``extra_clients`` more than the setup's.

    The sizes scale from the post's configuration the cache stands for (unless the setup names a reference): a
    cache that holds the data is seed 000's in-memory run (``minidb.scales.INSERT_BENCHMARK_IN_MEMORY``: the same
    redo log and memtable over a database a quarter the size), any other the scale's (its IO-bound run)."""
    data = setup.data
    data_bytes = rows * RowLayout(schema(secondary_indexes)).entry_bytes(RowGenerator(data.seed).batch(1)[0])
    reference = scales.insert_benchmark(data.scale).reference
    if setup.cache_bytes is not None and setup.cache_bytes >= data_bytes:
        reference = scales.INSERT_BENCHMARK_IN_MEMORY
    return Driver.sized(setup, data_bytes, reference, setup.host(CORES, extra_clients), SERVER)


def insert_rows(drv: Driver, table, gen: RowGenerator, rows: int, rows_per_commit: int, between=None,
                queries: int = 0) -> None:
    """Insert ``rows`` rows of ``gen`` into ``table``, ``rows_per_commit`` per transaction, each commit one step
    of ``drv``; ``between(done)`` runs after each commit, in its step (the query threads' share, ``queries``
    statements)."""
    done = 0
    while done < rows:
        batch = gen.batch(min(rows_per_commit, rows - done))
        # iibench sends each commit's rows as one multi-row INSERT; each query is a statement of its own
        with drv.step(ops=len(batch), statements=1 + queries):
            with drv.transaction() as txn:
                for row in batch:
                    table.insert(row, txn)
            done += len(batch)
            if between is not None:
                between(done)


class _Queries:
    """The query threads' queries, taken in turn: PK lookups of 10 ids, then the three covering range scans."""

    def __init__(self, table, rng: np.random.Generator, secondary_indexes: int) -> None:
        self.table = table  # the purchases_index table
        self.rng = rng  # the query threads' random choices
        self.kinds = ["pk"] + [name for name, _ in INDEXES[:secondary_indexes]]  # query kinds, in turn
        self.done = 0  # queries run so far

    def run_one(self, max_id: int) -> None:
        """Run the next query against rows 1..``max_id``."""
        kind = self.kinds[self.done % len(self.kinds)]
        rng = self.rng
        if kind == "pk":
            for tid in rng.integers(1, max_id, ROWS_PER_QUERY, endpoint=True).tolist():
                self.table.get(tid)
        elif kind == "marketsegment":
            list(self.table.index_scan(kind, (int(rng.integers(0, PRODUCTS)),), limit=ROWS_PER_QUERY,
                                       covering=True))
        elif kind == "registersegment":  # iibench: cashregisterid > value
            list(self.table.index_scan(kind, (int(rng.integers(0, CASH_REGISTERS)) + 1,), limit=ROWS_PER_QUERY,
                                       covering=True))
        else:
            list(self.table.index_scan(kind, (float(rng.integers(0, MAX_PRICE)),), limit=ROWS_PER_QUERY,
                                       covering=True))
        self.done += 1
