"""sysbench-tpcc's ``prepare``: the initial population, with its value generators, loaded table by table.

**The values** are ``tpcc_common.lua``'s (``load_tables`` and the item load of ``create_tables``), not the TPC-C
standard's a-strings of random letters. sysbench's ``rand.string(fmt)`` replaces each ``@`` of ``fmt`` with a random
lowercase letter and each ``#`` with a random digit, and sysbench-tpcc uses it so:

* names and addresses keep fixed prefixes: ``name-@@@@@``, ``street1-@@@@@@@@@@``, ``street2-...``,
  ``city-@@@@@@@@@@``, ``zip-#####``, ``first-`` and 2 to 10 letters; ``item-<im id>-<price>-@@@@@`` and
  ``data-<item name>-@@@@@`` (the script's comment: "i_name is not generated as prescribed by standard, but we want
  to provide a better compression");
* the long text columns are **one random letter repeated**: ``c_data`` 300 to 500 times, ``h_data`` 12 to 24,
  each ``s_dist_NN`` 24, ``s_data`` 26 to 50, ``ol_dist_info`` 24 (``string.rep(sysbench.rand.string("@"), n)``);
* numbers as the script draws them (a discount in [0, 0.5), a tax in [0, 0.2), ...), dates as one clock.

These values are what let MyRocks's LZ4 store seed 001's 70 GB in 21 GB; random letters would not compress at all.

**The order** is the script's: every item first, then for each warehouse its row, its ten districts, all its
customers, their history rows, their orders, its stock (one row per item), its new orders (the last 30% of each
district's orders: ``INSERT ... SELECT`` over ``o_id > 2100``) and the order lines. Each table's rows arrive in
primary-key order, and the six secondary indexes exist from the start (``minidb.workloads.tpcc_schema``), so their
entries arrive wherever their keys fall. Rows are committed 1000 at a time (the script sends multi-row INSERTs).
"""

from __future__ import annotations

import numpy as np

from .distributions import DIGITS, LOWERCASE, TextStream
from .tpcc_schema import DISTRICTS, DIST_LENGTH, Population, last_name

START_TIME = 1_514_764_800  # 2018-01-01, the year of seeds 001 and 003: NOW() of the load
LOAD_ROWS_PER_COMMIT = 1000  # rows per load transaction
WAREHOUSE_YTD, DISTRICT_YTD = 300_000.0, 30_000.0  # tpcc_common.lua's w_ytd and d_ytd


class SysbenchText:
    """sysbench's random strings: ``@`` a lowercase letter, ``#`` a digit; and sysbench-tpcc's repeated letter."""

    def __init__(self, rng: np.random.Generator) -> None:
        letters, digits, lengths = rng.spawn(3)
        self.letters = TextStream(letters, LOWERCASE)  # the '@'s
        self.digits = TextStream(digits, DIGITS)  # the '#'s
        self.lengths = lengths  # the lengths of repeated letters (drawn one at a time: few per row)

    def letters_of(self, n: int) -> str:
        """``n`` random lowercase letters (``"@" * n``)."""
        return self.letters.string(n)

    def digits_of(self, n: int) -> str:
        """``n`` random digits (``"#" * n``)."""
        return self.digits.string(n)

    def repeated(self, lo: int, hi: int | None = None) -> str:
        """One random letter repeated ``lo`` to ``hi`` times (``string.rep(sysbench.rand.string("@"), n)``)."""
        n = lo if hi is None else int(self.lengths.integers(lo, hi, endpoint=True))
        return self.letters.string(1) * n

    def name(self) -> str:
        """A warehouse's or district's name: ``name-@@@@@``."""
        return "name-" + self.letters.string(5)

    def address(self) -> str:
        """Street 1 and 2, city, state and zip in one string, each as sysbench-tpcc draws it."""
        letters = self.letters
        return ",".join(("street1-" + letters.string(10), "street2-" + letters.string(10),
                         "city-" + letters.string(10), letters.string(2), "zip-" + self.digits.string(5)))


class Loader:
    """The initial population (see the module docstring), loaded through ``drv`` into ``tables``, or only built
    row by row (``drv`` None) to measure a row's size."""

    def __init__(self, drv, tables: dict | None, pop: Population, rng: np.random.Generator) -> None:
        self.drv, self.tables, self.pop, self.rng = drv, tables, pop, rng
        self.text = SysbenchText(rng.spawn(1)[0])  # strings, drawn apart from the keys and numbers
        self.fraction = rng.spawn(1)[0]  # sysbench.rand.uniform_double() draws
        self.next_history = 1  # h_id of the next history row
        self._pending: list[tuple[str, tuple]] = []  # rows waiting for the next load commit

    def _uniform(self) -> float:
        return float(self.fraction.random())

    def warehouse_row(self, w: int) -> tuple:
        return (w, self.text.name(), self.text.address(), self._uniform() * 0.2, WAREHOUSE_YTD)

    def district_row(self, w: int, d: int) -> tuple:
        return (w, d, self.text.name(), self.text.address(), self._uniform() * 0.2, DISTRICT_YTD,
                self.pop.customers + 1)

    def customer_row(self, w: int, d: int, c: int) -> tuple:
        rng, text = self.rng, self.text
        number = c - 1 if c <= self.pop.names else self.pop.name_number(rng)
        first = "first-" + text.letters_of(int(rng.integers(2, 10, endpoint=True)))
        credit = "GC" if rng.integers(1, 100, endpoint=True) > 10 else "BC"
        return (w, d, c, first, "OE", last_name(number), text.address(), text.digits_of(16), START_TIME, credit,
                50_000, self._uniform() * 0.5, -10.0, 10.0, 1, 0, text.repeated(300, 500))

    def history_row(self, w: int, d: int, c: int) -> tuple:
        h = self.next_history
        self.next_history += 1
        return (h, c, d, w, d, w, START_TIME, 10.0, self.text.repeated(12, 24))

    def item_row(self, i: int) -> tuple:
        im_id = int(self.rng.integers(1, 10_000, endpoint=True))
        price = self._uniform() * 100 + 1
        name = f"item-{im_id}-{price:f}-{self.text.letters_of(5)}"
        data = f"data-{name}-{self.text.letters_of(5)}"
        return (i, im_id, name[:24], round(price, 2), data[:50])  # i_price is DECIMAL(5,2)

    def stock_row(self, w: int, i: int) -> tuple:
        dist = "".join(self.text.repeated(DIST_LENGTH) for _ in range(DISTRICTS))
        return (w, i, int(self.rng.integers(10, 100, endpoint=True)), dist, 0, 0, 0, self.text.repeated(26, 50))

    def order_row(self, w: int, d: int, o: int, c: int, lines: int) -> tuple:
        carrier = int(self.rng.integers(1, 10, endpoint=True)) if o <= self.pop.delivered else None
        return (w, d, o, c, START_TIME, carrier, lines, 1)

    def order_line_row(self, w: int, d: int, o: int, number: int, delivered: bool) -> tuple:
        item = int(self.rng.integers(1, self.pop.items, endpoint=True))
        amount = 0.0 if delivered else self._uniform() * 9999.99
        return (w, d, o, number, item, w, START_TIME if delivered else None, 5, amount,
                self.text.repeated(DIST_LENGTH))

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
        """Every table's initial rows, in sysbench-tpcc's order."""
        pop, rng = self.pop, self.rng
        for i in range(1, pop.items + 1):
            self._add("item", self.item_row(i))
        orders = range(1, pop.customers + 1)
        for w in range(1, pop.warehouses + 1):
            self._add("warehouse", self.warehouse_row(w))
            for d in range(1, DISTRICTS + 1):
                self._add("district", self.district_row(w, d))
            for d in range(1, DISTRICTS + 1):
                for c in range(1, pop.customers + 1):
                    self._add("customer", self.customer_row(w, d, c))
            for d in range(1, DISTRICTS + 1):
                for c in range(1, pop.customers + 1):
                    self._add("history", self.history_row(w, d, c))
            lines = {}  # (district, order) -> order lines, drawn with the orders as the script does
            customers = rng.permutation(pop.customers).tolist()  # the script shuffles once, for every district
            for d in range(1, DISTRICTS + 1):
                for o, c in zip(orders, customers):
                    lines[d, o] = int(rng.integers(5, 15, endpoint=True))
                    self._add("orders", self.order_row(w, d, o, c + 1, lines[d, o]))
            for i in range(1, pop.items + 1):
                self._add("stock", self.stock_row(w, i))
            for d in range(1, DISTRICTS + 1):
                for o in orders[pop.delivered:]:
                    self._add("new_orders", (w, d, o))
            for d in range(1, DISTRICTS + 1):
                for o in orders:
                    for n in range(1, lines[d, o] + 1):
                        self._add("order_line", self.order_line_row(w, d, o, n, o <= pop.delivered))
        self._commit()


SAMPLES = 64  # rows of each table a row's mean size is measured on: c_data alone is 300 to 500 bytes


def sample_rows():
    """(table, rows): ``SAMPLES`` rows of each table as the loader makes them, what a row's bytes are measured on
    (order lines half delivered, as the loaded ones are about)."""
    rng = np.random.default_rng(0)
    loader = Loader(None, None, Population(1, 10, 10, rng), rng)
    n = range(SAMPLES)
    yield "warehouse", [loader.warehouse_row(1) for _ in n]
    yield "district", [loader.district_row(1, 1) for _ in n]
    yield "customer", [loader.customer_row(1, 1, 1) for _ in n]
    yield "history", [loader.history_row(1, 1, 1) for _ in n]
    yield "item", [loader.item_row(1) for _ in n]
    yield "stock", [loader.stock_row(1, 1) for _ in n]
    yield "orders", [loader.order_row(1, 1, 1, 1, 10) for _ in n]
    yield "new_orders", [(1, 1, 1)]
    yield "order_line", [loader.order_line_row(1, 1, 1, 1, i % 2 == 0) for i in n]
