"""sysbench OLTP, as sysbench 1.0's ``oltp_*.lua`` scripts run it.

**How it maps to the original** (``oltp_common.lua`` and the per-test scripts):

* tables ``sbtest1`` .. ``sbtestN``: ``id`` INTEGER primary key, ``k`` INTEGER with the non-unique secondary
  index ``k_1``, ``c`` CHAR(120) holding 10 groups of 11 random digits joined by '-' (119 characters), ``pad``
  CHAR(60) holding 5 such groups (59 characters); ``k`` uniform in [1, table_size];
* the table and the ids each query uses are drawn uniformly (``--rand-type=uniform``; seed 000 notes that most
  sysbench tests use a uniform distribution);
* the modes, one *event* each:

  - ``point-select`` (``oltp_point_select.lua``): one ``SELECT c FROM sbtest WHERE id=?``;
  - ``read-write`` (``oltp_read_write.lua``): in one transaction, 10 point selects; one each of the simple range
    (``SELECT c ... WHERE id BETWEEN ? AND ?+99``), sum range (``SUM(k)``), order range (``ORDER BY c``) and
    distinct range (``DISTINCT c ... ORDER BY c``) queries; one index update (``SET k=k+1``); one non-index
    update (``SET c=?``); one delete and one insert of the same id;
  - ``update-index`` (``oltp_update_index.lua``): ``UPDATE sbtest SET k=k+1 WHERE id=?``, autocommit;
  - ``insert`` (``oltp_insert.lua``): an insert with an auto-increment id, so new rows go to the end of the
    primary index and to random places in ``k_1``.

**What it leaves out**: the SQL layer (the ORDER BY and DISTINCT sorts happen here in Python, uncharged), the
prepare phase's bulk-load path (the load inserts rows in id order, 1000 per commit, like sysbench's multi-row
INSERTs), the ``special`` and ``pareto`` random distributions, and reconnects.
"""

from __future__ import annotations

import numpy as np

from .. import scales
from ..schema import Schema
from ..sim.server import ServerModel
from ..table import RowLayout
from .distributions import IntStream, sysbench_pattern
from .driver import Driver, WorkloadResult
from .setup import RunSetup

MODES = ("point-select", "read-write", "update-index", "insert")
POINT_SELECTS = 10  # oltp_common.lua: point_selects (read-write)
RANGE_SIZE = 100  # oltp_common.lua: range_size
LOAD_ROWS_PER_COMMIT = 1000  # rows per load transaction
EVENTS_PER_STEP = 100  # events timed together as one step of the simulation
CORES = 28  # seed 001's server, the post that runs sysbench-tpcc (no post gives sysbench OLTP's server)
SERVER = ServerModel.calibrated(binlog=True, sync_binlog=10000)  # seed 001's server's binlog, as CORES


def schema(number: int) -> Schema:
    """The ``sbtest<number>`` table."""
    return Schema(f"sbtest{number}", [("id", "int32"), ("k", "int32"), ("c", "str"), ("pad", "str")],
                  primary_key=("id",), indexes=[("k_1", ("k",))])


def sysbench(setup: RunSetup, table_size: int | None = None, transactions: int | None = None, *,
             mode: str = "read-write", tables: int = 1) -> WorkloadResult:
    """Load ``tables`` tables of ``table_size`` rows, then run ``transactions`` events of ``mode`` (defaults: the
    setup's scale's).

    ``ops`` in the summary are events (sysbench's transactions). The cores default to seed 001's server
    (``CORES``); no post gives sysbench's thread count, RunSetup's 16 clients are our choice. ``setup`` as
    ``insert_benchmark``'s.
    """
    seed = setup.data.seed
    if mode not in MODES:
        raise ValueError(f"unknown sysbench mode {mode!r}; modes: {', '.join(MODES)}")
    size = scales.sysbench(setup.data.scale)
    table_size = size.table_size if table_size is None else int(table_size)
    transactions = size.transactions if transactions is None else int(transactions)
    if table_size < 1 or transactions < 1 or tables < 1:
        raise ValueError(f"sysbench needs table_size, transactions and tables >= 1, got {table_size}, "
                         f"{transactions}, {tables}")
    rng = np.random.default_rng(seed)
    sample = (1, 1, sysbench_pattern(rng, 1, 10)[0], sysbench_pattern(rng, 1, 5)[0])
    db_bytes = tables * table_size * RowLayout(schema(1)).entry_bytes(sample)
    drv = Driver.sized(setup, db_bytes, size.reference, setup.host(CORES), SERVER)
    sb = [drv.table(schema(i + 1)) for i in range(tables)]
    for table in sb:
        prepare(drv, table, table_size, rng)
    run = Events(sb, table_size, rng)
    event = {"point-select": run.point_select, "read-write": lambda: run.read_write(drv),
             "update-index": run.update_index, "insert": run.insert}[mode]
    drv.start_measuring()
    done = 0
    while done < transactions:
        n = min(EVENTS_PER_STEP, transactions - done)
        with drv.step(ops=n):
            for _ in range(n):
                event()
        done += n
    return drv.result("sysbench", ops=transactions,
                      params=dict(mode=mode, tables=tables, table_size=table_size, transactions=transactions))


def prepare(drv: Driver, table, table_size: int, rng: np.random.Generator) -> None:
    """sysbench prepare: rows 1..table_size in id order, k uniform, c and pad random digit groups."""
    for start in range(1, table_size + 1, LOAD_ROWS_PER_COMMIT):
        n = min(LOAD_ROWS_PER_COMMIT, table_size - start + 1)
        ks = rng.integers(1, table_size, n, endpoint=True).tolist()
        rows = zip(range(start, start + n), ks, sysbench_pattern(rng, n, 10), sysbench_pattern(rng, n, 5))
        with drv.step(ops=n):
            with drv.transaction() as txn:
                for row in rows:
                    table.insert(row, txn)


class Events:
    """The queries of each mode, against uniformly chosen tables and ids."""

    def __init__(self, tables: list, table_size: int, rng: np.random.Generator) -> None:
        self.tables = tables  # the sbtest tables
        self.table_size = table_size  # rows each was loaded with
        self.rng = rng  # for c and pad values
        self.pick_table = IntStream(rng, 0, len(tables) - 1)  # which table an event uses
        self.ids = IntStream(rng, 1, table_size)  # ids (and new k values)
        self.next_id = [table_size + 1] * len(tables)  # auto-increment id of each table's next insert

    def point_select(self) -> None:
        """oltp_point_select: SELECT c FROM sbtest WHERE id=?"""
        self.tables[self.pick_table.next()].get(self.ids.next())

    def update_index(self) -> None:
        """oltp_update_index: UPDATE sbtest SET k=k+1 WHERE id=?"""
        self.tables[self.pick_table.next()].update(self.ids.next(), _increment_k)

    def insert(self) -> None:
        """oltp_insert: INSERT INTO sbtest (id, k, c, pad) with an auto-increment id."""
        t = self.pick_table.next()
        row = (self.next_id[t], self.ids.next(), sysbench_pattern(self.rng, 1, 10)[0],
               sysbench_pattern(self.rng, 1, 5)[0])
        self.tables[t].insert(row)
        self.next_id[t] += 1

    def read_write(self, drv: Driver) -> None:
        """oltp_read_write: point selects, four range queries, two updates, a delete and an insert, in one
        transaction."""
        table = self.tables[self.pick_table.next()]
        with drv.transaction() as txn:
            for _ in range(POINT_SELECTS):
                table.get(self.ids.next(), txn)
            for kind in ("simple", "sum", "order", "distinct"):
                lo = self.ids.next()
                rows = list(table.scan(lo, lo + RANGE_SIZE, txn=txn))
                if kind == "sum":
                    sum(r.k for r in rows)
                elif kind == "order":
                    sorted(r.c for r in rows)
                elif kind == "distinct":
                    sorted({r.c for r in rows})
            table.update(self.ids.next(), _increment_k, txn)
            table.update(self.ids.next(), {"c": sysbench_pattern(self.rng, 1, 10)[0]}, txn)
            victim = self.ids.next()
            table.delete(victim, txn)
            table.insert((victim, self.ids.next(), sysbench_pattern(self.rng, 1, 10)[0],
                          sysbench_pattern(self.rng, 1, 5)[0]), txn)


def _increment_k(row) -> dict:
    """SET k = k + 1"""
    return {"k": row.k + 1}
