"""sysbench-tpcc's five transactions, statement for statement (``tpcc_run.lua``), and its mix (``tpcc.lua``).

**The mix.** Each event draws a number from 1 to 23: 1-10 New-Order, 11-20 Payment, 21 Order-Status, 22 Delivery,
23 Stock-Level (``MIX``). The TPC-C standard asks for at least 43% Payment and 4% of each of the other three;
sysbench-tpcc runs 43.5% New-Order, 43.5% Payment and 4.3% of each of the rest, and counts every event as a
transaction (its TPS).

**The statements**, with what each reads and writes here:

* *New-Order*: the customer joined with its warehouse (two rows); the district ``FOR UPDATE`` and its
  ``d_next_o_id + 1``; the new order and new-order rows; for each of 5 to 15 lines, the item, the stock row
  ``FOR UPDATE``, its new ``s_quantity`` (the only stock column the script updates), and the order line. A 1%
  of transactions names item -1 on its second-to-last line and rolls back there.
* *Payment*: the warehouse's ``w_ytd`` and the district's ``d_ytd`` each updated, then read; 60% of the time the
  customer is found by last name (a count, then the rows ordered by first name through ``idx_customer``: the middle
  one), else by id; the customer ``FOR UPDATE``, and for bad credit (``BC``) its ``c_data`` read again and rewritten
  with the payment in front (500 characters); the balance; a history row whose ``h_data`` is the warehouse's and the
  district's names.
* *Order-Status*: the customer by last name (60%) or by id; its orders through ``idx_orders``, newest first; then
  the order lines of ``(w, d, ol_o_id = d)``: the script passes the district where the order id belongs
  (``format(table_num, w_id, d_id, d_id, o_id)`` fills four placeholders), so it reads the lines of an old order.
* *Delivery*: for each of the ten districts, the oldest new order (``ORDER BY no_o_id LIMIT 1 FOR UPDATE``),
  deleted; its order read and given a carrier; its lines given a delivery date, then summed; the customer's
  balance and delivery count.
* *Stock-Level*: the district's next order id; the distinct items of its last 20 orders' lines (a range of the
  order-line primary key); and for each, its stock row.

Two quirks of the script are kept because they decide which rows a run touches: ``other_ware`` loops *until* it
draws the home warehouse (``until tmp == home_ware``), so every "remote" supplier and customer is the home
warehouse; and Payment looks the customer up with the home warehouse ``w_id`` where TPC-C says ``c_w_id``.

Each method returns the SQL statements it sent, ``BEGIN`` and ``COMMIT`` (or ``ROLLBACK``) included: the server
model charges each statement (``minidb.sim.server``).
"""

from __future__ import annotations

import numpy as np

from .tpcc_schema import DISTRICTS, Population, last_name

MIX = ((10, "new_order"), (20, "payment"), (21, "order_status"), (22, "delivery"), (23, "stock_level"))  # tpcc.lua
EVENTS = MIX[-1][0]  # sysbench.rand.uniform(1, 23)
BY_NAME = 60  # % of Payments and Order-Status that find the customer by last name
STOCK_LEVEL_ORDERS = 20  # Stock-Level reads the lines of the district's last 20 orders
C_DATA_LENGTH = 500  # c_data is cut to 500 characters


def kinds(rng: np.random.Generator, n: int) -> list[str]:
    """The next ``n`` transaction types, drawn as ``tpcc.lua``'s ``event()`` draws them."""
    draws = rng.integers(1, EVENTS, n, endpoint=True)
    bounds = np.array([upper for upper, _ in MIX])
    return [MIX[i][1] for i in np.searchsorted(bounds, draws).tolist()]


class Transactions:
    """The five transactions against loaded ``tables`` (see the module docstring)."""

    def __init__(self, drv, tables: dict, pop: Population, rng: np.random.Generator, now: int) -> None:
        self.drv, self.t, self.pop, self.rng = drv, tables, pop, rng
        self.done = {name: 0 for _, name in MIX}  # transactions run, by type
        self.new_orders = 0  # committed New-Order transactions
        self.rollbacks = 0  # New-Orders rolled back for an unused item (1%)
        self.next_history = pop.warehouses * DISTRICTS * pop.customers + 1  # h_id of the next history row
        self.now = now  # NOW(), one second later for each transaction
        self.low_stock = 0  # the last Stock-Level's count of items below its threshold (the script drops it)

    def run(self, kind: str) -> int:
        """Run one transaction of ``kind``; the statements it sent."""
        self.done[kind] += 1
        self.now += 1
        return getattr(self, kind)()

    def _home(self) -> tuple[int, int]:
        return int(self.rng.integers(1, self.pop.warehouses, endpoint=True)), int(
            self.rng.integers(1, DISTRICTS, endpoint=True))

    def _customer_by_name(self, w: int, d: int, txn) -> tuple[object, int]:
        """The middle customer (by first name) of those with a random last name: two statements, a count and the
        ordered rows, each an ``idx_customer`` range."""
        name = last_name(self.pop.name_number(self.rng))
        count = len(self.t["customer"].lookup("idx_customer", (w, d, name), txn=txn))
        rows = self.t["customer"].lookup("idx_customer", (w, d, name), txn=txn)
        count += count % 2 == 0  # the script makes the count odd
        return rows[min(count // 2, len(rows) - 1)], 2

    def new_order(self) -> int:
        rng, pop, t = self.rng, self.pop, self.t
        w, d = self._home()
        c = pop.customer_id(rng)
        lines = int(rng.integers(5, 15, endpoint=True))
        rollback = int(rng.integers(1, 100, endpoint=True)) == 1
        items = [pop.item_id(rng) for _ in range(lines)]
        if rollback:
            items[lines - 2] = -1  # the script's unused item, on the second-to-last line
        remote = (rng.integers(1, 100, lines, endpoint=True) == 1).tolist()  # 'remote' is the home warehouse
        quantities = rng.integers(1, 10, lines, endpoint=True).tolist()
        txn = self.drv.transaction()
        customer = t["customer"].get((w, d, c), txn)
        warehouse = t["warehouse"].get(w, txn)
        district = t["district"].get((w, d), txn)
        o = district.d_next_o_id
        t["district"].update((w, d), {"d_next_o_id": o + 1}, txn)
        t["orders"].insert((w, d, o, c, self.now, None, lines, int(not any(remote))), txn)
        t["new_orders"].insert((w, d, o), txn)
        statements = 6  # BEGIN, the customer and warehouse, the district, its update, the two inserts
        tax = 1 + warehouse.w_tax + district.d_tax
        for n, (i, q) in enumerate(zip(items, quantities), 1):
            item = t["item"].get(i, txn) if i > 0 else None
            statements += 1
            if item is None:
                txn.rollback()
                self.rollbacks += 1
                return statements + 1  # ROLLBACK
            stock = t["stock"].get((w, i), txn)
            left = stock.s_quantity - q
            t["stock"].update((w, i), {"s_quantity": left if left > 0 else left + 91}, txn)
            amount = q * item.i_price * tax * (1 - customer.c_discount)
            dist = stock.s_dist[(d - 1) * 24:d * 24]
            t["order_line"].insert((w, d, o, n, i, w, None, q, amount, dist), txn)
            statements += 3
        txn.commit()
        self.new_orders += 1
        return statements + 1  # COMMIT

    def payment(self) -> int:
        rng, pop, t = self.rng, self.pop, self.t
        w, d = self._home()
        c = pop.customer_id(rng)
        amount = float(rng.integers(1, 5000, endpoint=True))
        by_name = int(rng.integers(1, 100, endpoint=True)) <= BY_NAME
        cd = d if int(rng.integers(1, 100, endpoint=True)) <= 85 else int(rng.integers(1, DISTRICTS, endpoint=True))
        with self.drv.transaction() as txn:
            t["warehouse"].update(w, lambda r: {"w_ytd": r.w_ytd + amount}, txn)
            warehouse = t["warehouse"].get(w, txn)
            t["district"].update((w, d), lambda r: {"d_ytd": r.d_ytd + amount}, txn)
            district = t["district"].get((w, d), txn)
            statements = 5  # BEGIN and the four above
            if by_name:
                customer, sent = self._customer_by_name(w, cd, txn)
                c = customer.c_id
                statements += sent
            customer = t["customer"].get((w, cd, c), txn)
            changes = {"c_balance": customer.c_balance - amount, "c_ytd_payment": customer.c_ytd_payment + amount}
            if customer.c_credit == "BC":
                data = t["customer"].get((w, cd, c), txn).c_data
                info = f"| {c:4d} {cd:2d} {w:4d} {d:2d} {w:4d} ${amount:7.2f} {self.now:12d} {data:>24s}"
                changes["c_data"] = info[:C_DATA_LENGTH]
                statements += 1
            t["customer"].update((w, cd, c), changes, txn)
            t["history"].insert((self.next_history, c, cd, w, d, w, self.now, amount,
                                 f"{warehouse.w_name:>10s} {district.d_name:>10s}    "), txn)
            self.next_history += 1
        return statements + 4  # the customer, its update, the history row, COMMIT

    def order_status(self) -> int:
        rng, pop, t = self.rng, self.pop, self.t
        w, d = self._home()
        c = pop.customer_id(rng)
        by_name = int(rng.integers(1, 100, endpoint=True)) <= BY_NAME
        with self.drv.transaction() as txn:
            if by_name:
                customer, statements = self._customer_by_name(w, d, txn)
                c = customer.c_id
            else:
                t["customer"].get((w, d, c), txn)
                statements = 1
            list(t["orders"].index_scan("idx_orders", (w, d, c), (w, d, c + 1), txn=txn))
            list(t["order_line"].scan((w, d, d), (w, d, d + 1), txn=txn))  # ol_o_id = d_id, as the script sends it
        return statements + 4  # BEGIN, the orders, the lines, COMMIT

    def delivery(self) -> int:
        rng, t = self.rng, self.t
        w = int(rng.integers(1, self.pop.warehouses, endpoint=True))
        carrier = int(rng.integers(1, 10, endpoint=True))
        statements = 2  # BEGIN, COMMIT
        with self.drv.transaction() as txn:
            for d in range(1, DISTRICTS + 1):
                oldest = list(t["new_orders"].scan((w, d), (w, d + 1), limit=1, txn=txn))
                statements += 1
                if not oldest:
                    continue
                o = oldest[0].no_o_id
                t["new_orders"].delete((w, d, o), txn)
                order = t["orders"].get((w, d, o), txn)
                t["orders"].update((w, d, o), {"o_carrier_id": carrier}, txn)
                for line in list(t["order_line"].scan((w, d, o), (w, d, o + 1), txn=txn)):
                    t["order_line"].update((w, d, o, line.ol_number), {"ol_delivery_d": self.now}, txn)
                total = sum(line.ol_amount for line in t["order_line"].scan((w, d, o), (w, d, o + 1), txn=txn))
                t["customer"].update((w, d, order.o_c_id), lambda r: {"c_balance": r.c_balance + total,
                                                                       "c_delivery_cnt": r.c_delivery_cnt + 1}, txn)
                statements += 6  # the delete, the order, its update, the lines' update, their sum, the customer
        return statements

    def stock_level(self) -> int:
        rng, t = self.rng, self.t
        w, d = self._home()
        level = int(rng.integers(10, 20, endpoint=True))
        with self.drv.transaction() as txn:
            next_o = t["district"].get((w, d), txn).d_next_o_id
            lines = t["order_line"].scan((w, d, next_o - STOCK_LEVEL_ORDERS), (w, d, next_o), txn=txn)
            items = list(dict.fromkeys(line.ol_i_id for line in lines))  # SELECT DISTINCT, in the order found
            self.low_stock = sum(t["stock"].get((w, i), txn).s_quantity < level for i in items)
        return 4 + len(items)  # BEGIN, the district, the lines, one stock query per item, COMMIT
