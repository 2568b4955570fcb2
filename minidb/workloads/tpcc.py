"""TPC-C-lite: the New-Order and Payment transactions of TPC-C, as sysbench-tpcc runs them in seeds 001 and 003.

**How it maps to the original** (the TPC-C standard, revision 5.11, and Percona's sysbench-tpcc):

* the tables and keys of TPC-C: ``warehouse``, ``district``, ``customer`` (with the secondary index
  ``(c_w_id, c_d_id, c_last, c_first)`` that Payment uses to find a customer by last name), ``history``, ``item``,
  ``stock``, ``orders`` (with sysbench-tpcc's index ``(o_w_id, o_d_id, o_c_id, o_id)``), ``new_orders`` and
  ``order_line``; the address columns are kept as one string per row so that rows keep their size;
* the initial population of clause 4.3.3: 10 districts per warehouse, a stock row per item and warehouse, one
  order per customer (with 5 to 15 order lines), the last 30% of them still new, one history row per customer;
  customer last names from the standard's ten syllables;
* **New-Order** (clause 2.4): customer by NURand(1023), 5 to 15 items by NURand(8191), 1% of the items from a remote
  warehouse, quantities 1 to 10; reads the warehouse, district (and increments its next order id), customer, each
  item and stock row; updates each stock row; inserts the order, the new-order row and the order lines; 1% of the
  transactions name an unused item and roll back;
* **Payment** (clause 2.5): amount 1.00 to 5000.00; adds it to the warehouse's and the district's year-to-date;
  finds the customer by last name (60%, the middle one of those sorted by first name) or by id, in a remote
  warehouse 15% of the time; updates the customer's balance and counters (and its data for bad credit); inserts a
  history row;
* the mix: TPC-C's 45% New-Order and 43% Payment, renormalized to the two.

**What it leaves out**: Order-Status, Delivery and Stock-Level; the four foreign-key indexes sysbench-tpcc adds after
its load (``fkey_stock_2``, ``fkey_order_line_2 (ol_supply_w_id, ol_i_id)``, ``fkey_history_1`` and ``_2``), whose
random entries would cost a run some 30% more time; keying and think times; the 90th-percentile response
time rules; sysbench-tpcc's 10 sets of tables (one set here). At the smaller scales the per-warehouse counts are
reduced (``minidb.scales``) and the NURand constants A with them, in proportion.
"""

from __future__ import annotations

import numpy as np

from .. import scales
from ..schema import Schema
from ..table import RowLayout
from .distributions import DIGITS, TextStream, nurand
from .driver import Driver, WorkloadResult
from .loaded import LoadedData, freeze, load_driver, load_key, reopen
from .setup import DataSetup, RunSetup

DISTRICTS = 10  # districts per warehouse (clause 1.2)
SPEC_CUSTOMERS = 3000  # customers per district in the standard
SPEC_ITEMS = 100_000  # items in the standard
NEW_ORDER_SHARE = 45 / (45 + 43)  # clause 5.2.3 minimum mix: 45% New-Order, 43% Payment
SYLLABLES = ("BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING")  # clause 4.3.2.3
START_TIME = 1_514_764_800  # 2018-01-01, the year of seeds 001 and 003: the entry date of the first order
TRANSACTIONS_PER_STEP = 20  # transactions timed together as one simulation step
LOAD_ROWS_PER_COMMIT = 1000  # rows per load transaction
CORES = 28  # seed 001's server: "2 sockets / 28 cores / 56 threads"

SCHEMAS = {
    "warehouse": Schema("warehouse", [("w_id", "int32"), ("w_name", "str"), ("w_address", "str"),
                                      ("w_tax", "float"), ("w_ytd", "float")], primary_key=("w_id",)),
    "district": Schema("district", [("d_w_id", "int32"), ("d_id", "int32"), ("d_name", "str"), ("d_address", "str"),
                                    ("d_tax", "float"), ("d_ytd", "float"), ("d_next_o_id", "int32")],
                       primary_key=("d_w_id", "d_id")),
    "customer": Schema("customer", [
        ("c_w_id", "int32"), ("c_d_id", "int32"), ("c_id", "int32"), ("c_first", "str"), ("c_middle", "str"),
        ("c_last", "str"), ("c_address", "str"), ("c_since", "int"), ("c_credit", "str"), ("c_credit_lim", "float"),
        ("c_discount", "float"), ("c_balance", "float"), ("c_ytd_payment", "float"), ("c_payment_cnt", "int32"),
        ("c_delivery_cnt", "int32"), ("c_data", "str")],
        primary_key=("c_w_id", "c_d_id", "c_id"),
        indexes=[("idx_customer", ("c_w_id", "c_d_id", "c_last", "c_first"))]),
    "history": Schema("history", [("h_id", "int"), ("h_c_id", "int32"), ("h_c_d_id", "int32"), ("h_c_w_id", "int32"),
                                  ("h_d_id", "int32"), ("h_w_id", "int32"), ("h_date", "int"), ("h_amount", "float"),
                                  ("h_data", "str")], primary_key=("h_id",)),
    "item": Schema("item", [("i_id", "int32"), ("i_im_id", "int32"), ("i_name", "str"), ("i_price", "float"),
                            ("i_data", "str")], primary_key=("i_id",)),
    "stock": Schema("stock", [("s_w_id", "int32"), ("s_i_id", "int32"), ("s_quantity", "int32"), ("s_dist", "str"),
                              ("s_ytd", "int32"), ("s_order_cnt", "int32"), ("s_remote_cnt", "int32"),
                              ("s_data", "str")], primary_key=("s_w_id", "s_i_id")),
    "orders": Schema("orders", [("o_w_id", "int32"), ("o_d_id", "int32"), ("o_id", "int32"), ("o_c_id", "int32"),
                                ("o_entry_d", "int"), ("o_carrier_id", "int32", True), ("o_ol_cnt", "int32"),
                                ("o_all_local", "int32")],
                     primary_key=("o_w_id", "o_d_id", "o_id"), indexes=[("idx_orders", ("o_w_id", "o_d_id", "o_c_id",
                                                                                         "o_id"))]),
    "new_orders": Schema("new_orders", [("no_w_id", "int32"), ("no_d_id", "int32"), ("no_o_id", "int32")],
                         primary_key=("no_w_id", "no_d_id", "no_o_id")),
    "order_line": Schema("order_line", [
        ("ol_w_id", "int32"), ("ol_d_id", "int32"), ("ol_o_id", "int32"), ("ol_number", "int32"), ("ol_i_id", "int32"),
        ("ol_supply_w_id", "int32"), ("ol_delivery_d", "int", True), ("ol_quantity", "int32"), ("ol_amount", "float"),
        ("ol_dist_info", "str")], primary_key=("ol_w_id", "ol_d_id", "ol_o_id", "ol_number")),
}


def last_name(number: int) -> str:
    """The customer last name for ``number`` in 0..999: three syllables by its digits (clause 4.3.2.3)."""
    return SYLLABLES[number // 100] + SYLLABLES[number // 10 % 10] + SYLLABLES[number % 10]


class Population:
    """Sizes and the random constants of one run: NURand's C values (clause 2.1.6) and A values scaled down."""

    def __init__(self, warehouses: int, items: int, customers: int, rng: np.random.Generator) -> None:
        if warehouses < 1 or items < 1 or customers < 1:
            raise ValueError(f"TPC-C needs warehouses, items and customers >= 1, got {warehouses}, {items}, "
                             f"{customers}")
        self.warehouses = warehouses  # number of warehouses
        self.items = items  # number of items
        self.customers = customers  # customers per district
        self.names = min(1000, customers)  # last-name numbers in use: 0 .. names - 1
        self.a_customer = max(1, 1023 * customers // SPEC_CUSTOMERS)  # NURand A for customer ids
        self.a_item = max(1, 8191 * items // SPEC_ITEMS)  # NURand A for item ids
        self.a_name = max(1, 255 * self.names // 1000)  # NURand A for last names
        self.c_customer, self.c_item, self.c_name = (int(v) for v in rng.integers(0, [self.a_customer + 1,
                                                                                     self.a_item + 1,
                                                                                     self.a_name + 1]))

    def customer_id(self, rng: np.random.Generator) -> int:
        """NURand(A, 1, customers) for a customer id."""
        return int(nurand(rng, self.a_customer, 1, self.customers, self.c_customer))

    def item_id(self, rng: np.random.Generator) -> int:
        """NURand(A, 1, items) for an item id."""
        return int(nurand(rng, self.a_item, 1, self.items, self.c_item))

    def name_number(self, rng: np.random.Generator) -> int:
        """NURand(A, 0, names - 1) for a customer last name."""
        return int(nurand(rng, self.a_name, 0, self.names - 1, self.c_name))


def tpcc(setup: RunSetup, warehouses: int | None = None, transactions: int | None = None) -> WorkloadResult:
    """Load ``warehouses`` warehouses, then run ``transactions`` New-Order and Payment transactions (defaults: the
    setup's scale's).

    ``ops`` are transactions (TPS); ``new_orders`` counts committed New-Orders (``new_orders_per_sec`` * 60 is
    tpmC). The cache and LSM sizes scale from the setup's reference, by default the scale's
    (``minidb.scales.TPCC``); the cores default to seed 001's server (``CORES``). ``setup`` as ``insert_benchmark``'s.
    """
    transactions = _transactions(setup.data.scale, transactions)
    pop, rng = _population(setup.data, warehouses)
    drv = Driver.sized(setup, _db_bytes(pop), scales.tpcc(setup.data.scale).reference, setup.host(CORES))
    tables = _populate(drv, pop, rng)
    return _measure(drv, tables, pop, rng, transactions)


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


def tpcc_from(loaded: LoadedData, setup: RunSetup, transactions: int | None = None) -> WorkloadResult:
    """Run ``transactions`` New-Order and Payment transactions (default: the scale's) on a copy of ``loaded``,
    reopened with ``setup``'s cache, device model, clients and server; the same transactions ``tpcc`` would run
    after the same load."""
    if loaded.workload != "tpcc":
        raise ValueError(f"tpcc_from needs a TPC-C load, got a {loaded.workload!r} one")
    pop, rng = loaded.run_state()
    drv = reopen(loaded, setup, setup.host(CORES))
    tables = {name: drv.table(s) for name, s in SCHEMAS.items()}
    return _measure(drv, tables, pop, rng, _transactions(loaded.data.scale, transactions))


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


def _measure(drv: Driver, tables: dict, pop: Population, rng: np.random.Generator,
             transactions: int) -> WorkloadResult:
    """Run and measure ``transactions`` transactions on the loaded ``tables``."""
    txns = _Transactions(drv, tables, pop, rng)
    kinds = rng.random(transactions) < NEW_ORDER_SHARE
    drv.start_measuring()
    for start in range(0, transactions, TRANSACTIONS_PER_STEP):
        chunk = kinds[start:start + TRANSACTIONS_PER_STEP]
        with drv.step(ops=len(chunk)):
            for new_order in chunk:
                txns.new_order() if new_order else txns.payment()
    return drv.result("tpcc", ops=transactions,
                      params=dict(warehouses=pop.warehouses, transactions=transactions, items=pop.items,
                                  customers_per_district=pop.customers),
                      rates={"new_orders": txns.new_orders}, extra={"rollbacks": txns.rollbacks})


def load(drv: Driver, warehouses: int, *, scale: str | None = None, seed: int = 0) -> dict:
    """Create the TPC-C tables on ``drv``'s engine and load ``warehouses`` warehouses' initial population (what
    ``tpcc`` loads before its transactions, row for row); returns {table name: Table}."""
    size = scales.tpcc(scale)
    rng = np.random.default_rng(seed)
    return _populate(drv, Population(int(warehouses), size.items, size.customers_per_district, rng), rng)


def _populate(drv: Driver, pop: Population, rng: np.random.Generator) -> dict:
    tables = {name: drv.table(s) for name, s in SCHEMAS.items()}
    _Loader(drv, tables, pop, rng).load()
    return tables


def estimated_db_bytes(warehouses: int, scale: str | None = None, seed: int = 0) -> float:
    """Bytes of keys and values a run of ``warehouses`` warehouses at ``scale`` loads: what its cache is scaled by."""
    size = scales.tpcc(scale)
    return _db_bytes(Population(warehouses, size.items, size.customers_per_district, np.random.default_rng(seed)))


def _db_bytes(pop: Population) -> float:
    """Bytes of keys and values the initial population holds, from one sample row of each table."""
    per = {name: RowLayout(s).entry_bytes(row) for name, s, row in _sample_rows()}
    w, d, c = pop.warehouses, pop.warehouses * DISTRICTS, pop.warehouses * DISTRICTS * pop.customers
    counts = {"warehouse": w, "district": d, "customer": c, "history": c, "item": pop.items,
              "stock": w * pop.items, "orders": c, "new_orders": 0.3 * c, "order_line": 10 * c}
    return sum(per[name] * n for name, n in counts.items())


def _sample_rows():
    rng = np.random.default_rng(0)
    pop = Population(1, 10, 10, rng)
    loader = _Loader(None, None, pop, rng)
    yield "warehouse", SCHEMAS["warehouse"], loader.warehouse_row(1)
    yield "district", SCHEMAS["district"], loader.district_row(1, 1)
    yield "customer", SCHEMAS["customer"], loader.customer_row(1, 1, 1)
    yield "history", SCHEMAS["history"], loader.history_row(1, 1, 1)
    yield "item", SCHEMAS["item"], loader.item_row(1)
    yield "stock", SCHEMAS["stock"], loader.stock_row(1, 1)
    yield "orders", SCHEMAS["orders"], (1, 1, 1, 1, START_TIME, None, 10, 1)
    yield "new_orders", SCHEMAS["new_orders"], (1, 1, 1)
    yield "order_line", SCHEMAS["order_line"], loader.order_line_row(1, 1, 1, 1, True)


def _data(strings: TextStream, rng: np.random.Generator, lo: int, hi: int) -> str:
    """Item or stock data, an a-string of ``lo``..``hi`` characters: 10% of them contain "ORIGINAL" (clause
    4.3.3.1)."""
    text = strings.between(lo, hi)
    if rng.random() < 0.1:
        at = int(rng.integers(0, len(text) - 8, endpoint=True))
        text = text[:at] + "ORIGINAL" + text[at + 8:]
    return text


class _Loader:
    """The initial population of clause 4.3.3, loaded in transactions of about 1000 rows."""

    def __init__(self, drv: Driver | None, tables: dict | None, pop: Population, rng: np.random.Generator) -> None:
        self.drv, self.tables, self.pop, self.rng = drv, tables, pop, rng
        # a-strings (clause 4.3.2.2) and n-strings, from generators of their own so that drawing them in chunks
        # leaves the draws of keys and numbers in order
        letters, digits = rng.spawn(2)
        self.text, self.digits = TextStream(letters), TextStream(digits, DIGITS)
        self.next_history = 1  # h_id of the next history row
        self._pending: list[tuple[str, tuple]] = []  # rows waiting for the next load commit

    def address(self) -> str:
        """street_1, street_2, city (10..20 characters each), state (2), zip (9), in one string."""
        text = self.text
        return ",".join([text.between(10, 20), text.between(10, 20), text.between(10, 20), text.string(2),
                         self.digits.string(4) + "11111"])

    def warehouse_row(self, w: int) -> tuple:
        return (w, self.text.between(6, 10), self.address(), float(self.rng.integers(0, 2000)) / 10000, 300_000.0)

    def district_row(self, w: int, d: int) -> tuple:
        return (w, d, self.text.between(6, 10), self.address(), float(self.rng.integers(0, 2000)) / 10000, 30_000.0,
                self.pop.customers + 1)

    def customer_row(self, w: int, d: int, c: int) -> tuple:
        rng = self.rng
        number = c - 1 if c <= self.pop.names else self.pop.name_number(rng)
        credit = "BC" if rng.random() < 0.1 else "GC"
        return (w, d, c, self.text.between(8, 16), "OE", last_name(number), self.address(), START_TIME, credit,
                50_000.0, float(rng.integers(0, 5000)) / 10000, -10.0, 10.0, 1, 0, self.text.between(300, 500))

    def history_row(self, w: int, d: int, c: int) -> tuple:
        h = self.next_history
        self.next_history += 1
        return (h, c, d, w, d, w, START_TIME, 10.0, self.text.between(12, 24))

    def item_row(self, i: int) -> tuple:
        rng = self.rng
        return (i, int(rng.integers(1, 10_000, endpoint=True)), self.text.between(14, 24),
                float(rng.integers(100, 10_000, endpoint=True)) / 100, _data(self.text, rng, 26, 50))

    def stock_row(self, w: int, i: int) -> tuple:
        rng = self.rng
        dist = self.text.string(240)  # s_dist_01 .. s_dist_10, 24 characters each
        return (w, i, int(rng.integers(10, 100, endpoint=True)), dist, 0, 0, 0, _data(self.text, rng, 26, 50))

    def order_line_row(self, w: int, d: int, o: int, number: int, delivered: bool) -> tuple:
        rng = self.rng
        amount = 0.0 if delivered else float(rng.integers(1, 999_999, endpoint=True)) / 100
        return (w, d, o, number, int(rng.integers(1, self.pop.items, endpoint=True)), w,
                START_TIME if delivered else None, 5, amount, self.text.string(24))

    def _add(self, table: str, row: tuple) -> None:
        self._pending.append((table, row))
        if len(self._pending) >= LOAD_ROWS_PER_COMMIT:
            self._commit()

    def _commit(self) -> None:
        if not self._pending:
            return
        with self.drv.step(ops=len(self._pending)):
            with self.drv.transaction() as txn:
                for table, row in self._pending:
                    self.tables[table].insert(row, txn)
        self._pending = []

    def load(self) -> None:
        """Every table's initial rows."""
        pop, rng = self.pop, self.rng
        for i in range(1, pop.items + 1):
            self._add("item", self.item_row(i))
        for w in range(1, pop.warehouses + 1):
            self._add("warehouse", self.warehouse_row(w))
            for i in range(1, pop.items + 1):
                self._add("stock", self.stock_row(w, i))
            for d in range(1, DISTRICTS + 1):
                self._add("district", self.district_row(w, d))
                for c in range(1, pop.customers + 1):
                    self._add("customer", self.customer_row(w, d, c))
                    self._add("history", self.history_row(w, d, c))
                new_from = pop.customers - (3 * pop.customers) // 10 + 1  # the last 30% are undelivered
                for o, c in enumerate(rng.permutation(pop.customers).tolist(), 1):
                    delivered = o < new_from
                    lines = int(rng.integers(5, 15, endpoint=True))
                    carrier = int(rng.integers(1, 10, endpoint=True)) if delivered else None
                    self._add("orders", (w, d, o, c + 1, START_TIME, carrier, lines, 1))
                    for n in range(1, lines + 1):
                        self._add("order_line", self.order_line_row(w, d, o, n, delivered))
                    if not delivered:
                        self._add("new_orders", (w, d, o))
        self._commit()


class _Transactions:
    """New-Order and Payment (clauses 2.4 and 2.5) against the loaded tables."""

    def __init__(self, drv: Driver, tables: dict, pop: Population, rng: np.random.Generator) -> None:
        self.drv, self.t, self.pop, self.rng = drv, tables, pop, rng
        self.text = TextStream(rng.spawn(1)[0])  # history data (a-strings), drawn apart from keys and amounts
        self.new_orders = 0  # committed New-Order transactions
        self.rollbacks = 0  # New-Orders rolled back for an unused item (1%)
        self.next_history = pop.warehouses * DISTRICTS * pop.customers + 1  # h_id of the next history row
        self.now = START_TIME + 1  # entry dates of new orders and payments, one second apart

    def _remote(self, w: int) -> int:
        """A warehouse other than ``w`` (``w`` itself when there is only one)."""
        if self.pop.warehouses == 1:
            return w
        other = int(self.rng.integers(1, self.pop.warehouses - 1, endpoint=True))
        return other if other < w else other + 1

    def new_order(self) -> None:
        """Clause 2.4: place an order of 5 to 15 lines."""
        rng, pop, t = self.rng, self.pop, self.t
        w = int(rng.integers(1, pop.warehouses, endpoint=True))
        d = int(rng.integers(1, DISTRICTS, endpoint=True))
        c = pop.customer_id(rng)
        lines = int(rng.integers(5, 15, endpoint=True))
        items = [pop.item_id(rng) for _ in range(lines)]
        if rng.random() < 0.01:
            items[-1] = pop.items + 1  # an unused item: the transaction rolls back (clause 2.4.1.4)
        supply = [self._remote(w) if rng.random() < 0.01 else w for _ in range(lines)]
        quantities = rng.integers(1, 10, lines, endpoint=True).tolist()
        self.now += 1
        txn = self.drv.transaction()
        t["warehouse"].get(w, txn)
        district = t["district"].get((w, d), txn)
        o = district.d_next_o_id
        t["district"].update((w, d), {"d_next_o_id": o + 1}, txn)
        t["customer"].get((w, d, c), txn)
        t["orders"].insert((w, d, o, c, self.now, None, lines, int(all(s == w for s in supply))), txn)
        t["new_orders"].insert((w, d, o), txn)
        for n, (i, s, q) in enumerate(zip(items, supply, quantities), 1):
            item = t["item"].get(i, txn)
            if item is None:
                txn.rollback()
                self.rollbacks += 1
                return
            stock = t["stock"].get((s, i), txn)
            left = stock.s_quantity - q
            t["stock"].update((s, i), {
                "s_quantity": left if left >= 10 else left + 91, "s_ytd": stock.s_ytd + q,
                "s_order_cnt": stock.s_order_cnt + 1, "s_remote_cnt": stock.s_remote_cnt + (s != w)}, txn)
            t["order_line"].insert((w, d, o, n, i, s, None, q, q * item.i_price, stock.s_dist[(d - 1) * 24:d * 24]),
                                   txn)
        txn.commit()
        self.new_orders += 1

    def payment(self) -> None:
        """Clause 2.5: a customer pays an amount to a district of a warehouse."""
        rng, pop, t = self.rng, self.pop, self.t
        w = int(rng.integers(1, pop.warehouses, endpoint=True))
        d = int(rng.integers(1, DISTRICTS, endpoint=True))
        if rng.random() < 0.85:
            cw, cd = w, d
        else:
            cw, cd = self._remote(w), int(rng.integers(1, DISTRICTS, endpoint=True))
        amount = float(rng.integers(100, 500_000, endpoint=True)) / 100
        by_name = rng.random() < 0.6
        name = last_name(pop.name_number(rng)) if by_name else None
        cid = None if by_name else pop.customer_id(rng)
        self.now += 1
        with self.drv.transaction() as txn:
            t["warehouse"].update(w, lambda r: {"w_ytd": r.w_ytd + amount}, txn)
            t["district"].update((w, d), lambda r: {"d_ytd": r.d_ytd + amount}, txn)
            if by_name:
                matches = t["customer"].lookup("idx_customer", (cw, cd, name), txn=txn)
                customer = matches[(len(matches) - 1) // 2]  # the middle one, rounded up (clause 2.5.2.2)
            else:
                customer = t["customer"].get((cw, cd, cid), txn)
            changes = {"c_balance": customer.c_balance - amount, "c_ytd_payment": customer.c_ytd_payment + amount,
                       "c_payment_cnt": customer.c_payment_cnt + 1}
            if customer.c_credit == "BC":
                info = f"{customer.c_id} {cd} {cw} {d} {w} {amount:.2f} "
                changes["c_data"] = (info + customer.c_data)[:500]
            t["customer"].update((cw, cd, customer.c_id), changes, txn)
            t["history"].insert((self.next_history, customer.c_id, cd, cw, d, w, self.now, amount,
                                 self.text.between(12, 24)), txn)
            self.next_history += 1
