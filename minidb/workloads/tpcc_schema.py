"""TPC-C's tables as sysbench-tpcc creates them, and the sizes and random constants of one run.

sysbench-tpcc's ``tpcc_common.lua`` (``create_tables``) creates nine tables with TPC-C's keys and then six secondary
indexes, before it loads a single warehouse, so the load maintains every index row by row:

* ``idx_customer (c_w_id, c_d_id, c_last, c_first)``: Payment and Order-Status find a customer by last name;
* ``idx_orders (o_w_id, o_d_id, o_c_id, o_id)``: Order-Status finds a customer's newest order;
* ``fkey_stock_2 (s_i_id)``, ``fkey_order_line_2 (ol_supply_w_id, ol_i_id)``, ``fkey_history_1 (h_c_w_id,
  h_c_d_id, h_c_id)`` and ``fkey_history_2 (h_w_id, h_d_id)``: the indexes its foreign keys would need. No query
  reads them; every insert into those tables adds an entry at a random place of them.

The columns are sysbench-tpcc's, with two simplifications that keep a row's bytes: a warehouse's, district's or
customer's street, city, state and zip are one string, and a stock row's ten ``s_dist_NN`` columns are one string
of ten 24-character parts. ``history`` has no primary key in sysbench-tpcc (InnoDB and MyRocks give it a hidden
one); here it is ``h_id``, a counter, as InnoDB's hidden row id is.
"""

from __future__ import annotations

import numpy as np

from ..schema import Schema
from .distributions import nurand

DISTRICTS = 10  # districts per warehouse (TPC-C clause 1.2; tpcc_common.lua's DIST_PER_WARE)
SPEC_CUSTOMERS = 3000  # customers per district in the standard (CUST_PER_DIST)
SPEC_ITEMS = 100_000  # items in the standard (MAXITEMS)
SYLLABLES = ("BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING")  # clause 4.3.2.3
DIST_LENGTH = 24  # characters of each of a stock row's ten s_dist_NN columns

SCHEMAS = {
    "warehouse": Schema("warehouse", [("w_id", "int32"), ("w_name", "str"), ("w_address", "str"),
                                      ("w_tax", "float"), ("w_ytd", "float")], primary_key=("w_id",)),
    "district": Schema("district", [("d_w_id", "int32"), ("d_id", "int32"), ("d_name", "str"), ("d_address", "str"),
                                    ("d_tax", "float"), ("d_ytd", "float"), ("d_next_o_id", "int32")],
                       primary_key=("d_w_id", "d_id")),
    "customer": Schema("customer", [
        ("c_w_id", "int32"), ("c_d_id", "int32"), ("c_id", "int32"), ("c_first", "str"), ("c_middle", "str"),
        ("c_last", "str"), ("c_address", "str"), ("c_phone", "str"), ("c_since", "int"), ("c_credit", "str"),
        ("c_credit_lim", "int"), ("c_discount", "float"), ("c_balance", "float"), ("c_ytd_payment", "float"),
        ("c_payment_cnt", "int32"), ("c_delivery_cnt", "int32"), ("c_data", "str")],
        primary_key=("c_w_id", "c_d_id", "c_id"),
        indexes=[("idx_customer", ("c_w_id", "c_d_id", "c_last", "c_first"))]),
    "history": Schema("history", [("h_id", "int"), ("h_c_id", "int32"), ("h_c_d_id", "int32"), ("h_c_w_id", "int32"),
                                  ("h_d_id", "int32"), ("h_w_id", "int32"), ("h_date", "int"), ("h_amount", "float"),
                                  ("h_data", "str")], primary_key=("h_id",),
                      indexes=[("fkey_history_1", ("h_c_w_id", "h_c_d_id", "h_c_id")),
                               ("fkey_history_2", ("h_w_id", "h_d_id"))]),
    "item": Schema("item", [("i_id", "int32"), ("i_im_id", "int32"), ("i_name", "str"), ("i_price", "float"),
                            ("i_data", "str")], primary_key=("i_id",)),
    "stock": Schema("stock", [("s_w_id", "int32"), ("s_i_id", "int32"), ("s_quantity", "int32"), ("s_dist", "str"),
                              ("s_ytd", "int32"), ("s_order_cnt", "int32"), ("s_remote_cnt", "int32"),
                              ("s_data", "str")], primary_key=("s_w_id", "s_i_id"),
                    indexes=[("fkey_stock_2", ("s_i_id",))]),
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
        ("ol_dist_info", "str")], primary_key=("ol_w_id", "ol_d_id", "ol_o_id", "ol_number"),
        indexes=[("fkey_order_line_2", ("ol_supply_w_id", "ol_i_id"))]),
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

    @property
    def delivered(self) -> int:
        """Orders per district loaded as delivered: the first 70% (tpcc_common.lua: ``o_id < 2101`` of 3000)."""
        return self.customers - (3 * self.customers) // 10

    def customer_id(self, rng: np.random.Generator) -> int:
        """NURand(A, 1, customers) for a customer id."""
        return int(nurand(rng, self.a_customer, 1, self.customers, self.c_customer))

    def item_id(self, rng: np.random.Generator) -> int:
        """NURand(A, 1, items) for an item id."""
        return int(nurand(rng, self.a_item, 1, self.items, self.c_item))

    def name_number(self, rng: np.random.Generator) -> int:
        """NURand(A, 0, names - 1) for a customer last name."""
        return int(nurand(rng, self.a_name, 0, self.names - 1, self.c_name))
