"""The table layer over the dict test double: index layout, blind puts, uniqueness, updates, scans, transactions."""

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from table.kv_double import DictEngine

from minidb.errors import CorruptionError
from minidb.keycodec import decode_key, encode_key
from minidb.kv import BatchTooLarge
from minidb.schema import Column, Index, Schema
from minidb.table import DuplicateKeyError, Table
from minidb.transaction import Transaction

SALES = Schema(
    "sales",
    [("id", "int"), ("shop", "int32"), ("customer", "int32"), ("price", "float"), ("code", "str", True),
     ("note", "str", True)],
    primary_key=("id",),
    indexes=[("by_shop", ("shop", "customer")), ("by_price", ("price",)), ("by_code", ("code",), True)],
)


def make(**kw):
    engine = DictEngine()
    return engine, Table(engine, SALES, **kw)


def row(i, shop=1, customer=2, price=9.5, code=None, note="n"):
    return (i, shop, customer, price, code, note)


def entries(engine, index):
    return [(decode_key(k), v) for k, v in engine.data[SALES.keyspace(index)].items()]


def test_keyspaces_are_created_with_their_unique_flag():
    engine, _ = make()
    assert engine.unique == {"sales.primary": True, "sales.by_shop": False, "sales.by_price": False,
                             "sales.by_code": True}


def test_insert_then_get_round_trips_tuples_and_mappings():
    _, t = make()
    t.insert(row(1, code="A"))
    t.insert({"id": 2, "shop": 3, "customer": 4, "price": 1.25})  # missing nullable columns are NULL
    assert t.get(1) == SALES.Row(1, 1, 2, 9.5, "A", "n")
    assert t.get((2,)) == (2, 3, 4, 1.25, None, None)
    assert t.get(2).price == 1.25
    assert t.get(3) is None


def test_index_entry_layout():
    engine, t = make()
    t.insert(row(7, shop=3, customer=4, price=2.5, code="X"))
    pk_key = encode_key((7,))
    assert engine.data["sales.primary"].keys()[0] == pk_key
    assert entries(engine, "by_shop") == [((3, 4, 7), b"")]  # non-unique: index columns + primary key, no value
    assert entries(engine, "by_price") == [((2.5, 7), b"")]
    assert entries(engine, "by_code") == [(("X",), pk_key)]  # unique: index columns only, value = primary key
    assert engine.data["sales.by_shop"].keys()[0] == encode_key((3, 4, 7), b"\x01\x01\x00")  # int32s in 4 bytes


def test_int32_key_columns_keep_their_order_in_every_read():
    schema = Schema("t", [("id", "int32"), ("v", "int32")], primary_key=("id",), indexes=[("by_v", ("v",))])
    engine = DictEngine()
    t = Table(engine, schema)
    ids = [-2**31, -5, -1, 0, 1, 300, 2**31 - 1]
    for i in ids:
        t.insert((i, -(i + 1)))
    assert {len(k) for k in engine.data["t.primary"].keys()} == {5}  # tag + 4 bytes
    assert [r.id for r in t.scan()] == ids
    assert [r.id for r in t.scan(-1, 301)] == [-1, 0, 1, 300]
    assert t.get(-5).v == 4 and t.get(6) is None
    assert [r.id for r in t.index_scan("by_v", -301, 1)] == [300, 1, 0, -1]
    assert [r.id for r in t.lookup("by_v", 4)] == [-5]
    assert t.update(300, {"id": 301}) and [r.id for r in t.scan(300, 302)] == [301]
    assert t.delete(-2**31) and t.scan().__next__().id == -5


def test_non_unique_index_maintenance_is_blind():
    engine, t = make()
    with Transaction(engine) as txn:
        for i in range(5):
            t.insert(row(i, code=f"c{i}"), txn)
    assert engine.calls["get", "sales.primary"] == 5  # primary key check
    assert engine.calls["get", "sales.by_code"] == 5  # unique check
    assert engine.calls["get", "sales.by_shop"] == 0  # read-free
    assert engine.calls["get", "sales.by_price"] == 0
    assert engine.calls["put", "sales.by_shop"] == 5
    assert engine.writes == 1  # one write batch per commit


def test_unique_checks_off_reads_nothing_and_overwrites():
    engine, t = make(unique_checks=False)
    t.insert(row(1, price=1.0))
    t.insert(row(1, price=2.0))
    assert sum(n for (op, _), n in engine.calls.items() if op == "get") == 0
    assert t.get(1).price == 2.0


def test_duplicates_are_refused_and_change_nothing():
    engine, t = make()
    t.insert(row(1, code="A"))
    with pytest.raises(DuplicateKeyError, match="primary key"):
        t.insert(row(1, code="B"))
    with pytest.raises(DuplicateKeyError, match="by_code"):
        t.insert(row(2, code="A"))
    assert len(engine.data["sales.primary"]) == 1
    assert len(engine.data["sales.by_shop"]) == 1


def test_duplicates_inside_one_transaction_are_found():
    engine, t = make()
    with Transaction(engine) as txn:
        t.insert(row(1, code="A"), txn)
        with pytest.raises(DuplicateKeyError):
            t.insert(row(1), txn)
        with pytest.raises(DuplicateKeyError):
            t.insert(row(2, code="A"), txn)
        t.insert(row(2, code="B"), txn)  # the transaction is still usable after a refused statement
    assert [r.id for r in t.scan()] == [1, 2]


def test_null_unique_values_may_repeat():
    engine, t = make()
    t.insert(row(1, code=None))
    t.insert(row(2, code=None))
    assert [r.id for r in t.lookup("by_code", (None,))] == [1, 2]


def test_update_of_indexed_columns_moves_their_entries():
    engine, t = make()
    t.insert(row(1, shop=1, customer=1, code="A"))
    t.insert(row(2, shop=1, customer=2, code="B"))
    assert t.update(1, {"shop": 5, "code": "C", "note": "changed"})
    assert entries(engine, "by_shop") == [((1, 2, 2), b""), ((5, 1, 1), b"")]
    assert [k for k, _ in entries(engine, "by_code")] == [("B",), ("C",)]
    assert t.get(1) == (1, 5, 1, 9.5, "C", "changed")
    with pytest.raises(DuplicateKeyError):
        t.update(2, {"code": "C"})
    assert t.get(2).code == "B"
    assert not t.update(99, {"shop": 1})


def test_update_of_the_primary_key_moves_the_row():
    engine, t = make()
    t.insert(row(1, code="A"))
    t.update(1, {"id": 10})
    assert t.get(1) is None and t.get(10).code == "A"
    assert entries(engine, "by_code") == [(("A",), encode_key((10,)))]
    assert entries(engine, "by_price") == [((9.5, 10), b"")]
    t.insert(row(11))
    with pytest.raises(DuplicateKeyError):
        t.update(10, {"id": 11})


def test_an_update_that_changes_no_index_writes_only_the_row():
    engine, t = make()
    t.insert(row(1))
    before = dict(engine.calls)
    t.update(1, {"note": "x"})
    assert engine.calls["put", "sales.primary"] == before[("put", "sales.primary")] + 1
    assert engine.calls["put", "sales.by_shop"] == before[("put", "sales.by_shop")]


def test_delete_removes_every_entry():
    engine, t = make()
    t.insert(row(1, code="A"))
    assert t.delete(1)
    assert not t.delete(1)
    assert all(len(space) == 0 for space in engine.data.values())


def test_lookup_scan_and_covering_index_scan():
    _, t = make()
    for i in range(10):
        t.insert(row(i, shop=i % 3, customer=i, price=float(10 - i)))
    assert [r.id for r in t.lookup("by_shop", 1)] == [1, 4, 7]
    assert [r.id for r in t.lookup("by_shop", (1, 4))] == [4]
    assert [r.id for r in t.lookup("by_shop", 2, limit=2)] == [2, 5]
    assert [r.id for r in t.scan(3, 6)] == [3, 4, 5]
    assert [r.id for r in t.scan(limit=2)] == [0, 1]
    assert list(t.index_scan("by_price", 2.0, 4.0, covering=True)) == [((2.0,), (8,)), ((3.0,), (7,))]
    assert [r.id for r in t.index_scan("by_price", lo=8, limit=3)] == [2, 1, 0]  # int bound on a float column
    assert list(t.scan(limit=0)) == []


def test_prefix_bounds_on_a_compound_index():
    _, t = make()
    for i in range(6):
        t.insert(row(i, shop=i // 2, customer=i))
    assert [r.id for r in t.index_scan("by_shop", (1,), (2,))] == [2, 3]  # hi (2,) excludes every shop-2 row
    assert [r.id for r in t.index_scan("by_shop", (1, 3))] == [3, 4, 5]


def test_ints_given_for_float_columns_are_stored_as_floats():
    engine, t = make()
    t.insert(row(1, price=3))
    assert t.get(1).price == 3.0 and isinstance(t.get(1).price, float)
    assert [r.id for r in t.lookup("by_price", 3)] == [1]


def test_transaction_reads_its_own_writes_and_rolls_back():
    engine, t = make()
    t.insert(row(1))
    txn = Transaction(engine)
    t.insert(row(2), txn)
    t.update(1, {"shop": 9}, txn)
    t.delete(2, txn)
    t.insert(row(3), txn)
    assert [r.id for r in t.scan(txn=txn)] == [1, 3]
    assert [r.id for r in t.lookup("by_shop", 9, txn=txn)] == [1]
    assert t.get(3) is None  # not visible outside before commit
    txn.rollback()
    assert [r.id for r in t.scan()] == [1] and t.get(1).shop == 1
    with pytest.raises(ValueError, match="already committed or rolled back"):
        t.insert(row(4), txn)


def test_context_manager_rolls_back_on_error():
    engine, t = make()
    with pytest.raises(RuntimeError):
        with Transaction(engine) as txn:
            t.insert(row(1), txn)
            raise RuntimeError("boom")
    assert t.get(1) is None and engine.writes == 0


def test_batch_limit_and_commit_in_the_middle():
    engine, t = make()
    with pytest.raises(BatchTooLarge):
        with Transaction(engine, max_bytes=400) as txn:
            for i in range(20):
                t.insert(row(i), txn)
    assert engine.writes == 0
    with Transaction(engine, max_bytes=400, commit_in_the_middle=10**6) as txn:
        for i in range(20):
            t.insert(row(i), txn)
    assert engine.writes > 1 and txn.stats.commits == engine.writes
    assert len(list(t.scan())) == 20


def test_commit_stats_count_logical_bytes():
    engine, t = make()
    t.insert(row(1))
    stats = t.commit_stats
    assert stats.commits == 1 and stats.operations == 4
    assert stats.logical_bytes == sum(len(k) + len(v) for space in engine.data.values() for k, v in space.items())


def test_a_table_reopened_on_the_same_engine_finds_its_rows():
    engine, t = make()
    t.insert(row(1, code="A"))
    again = Table(engine, SALES)
    assert again.get(1).code == "A"


def test_corrupt_stored_values_raise_corruption_errors():
    engine, t = make()
    t.insert(row(1))
    engine.data["sales.primary"][encode_key((1,))] = b"\x00\x01"
    with pytest.raises(CorruptionError, match="sales.primary"):
        t.get(1)
    engine.data["sales.by_price"][b"\x7f"] = b""
    with pytest.raises(CorruptionError, match="sales.by_price"):
        list(t.index_scan("by_price", covering=True))


def test_index_entry_without_row_is_corruption():
    engine, t = make()
    engine.data["sales.by_price"][encode_key((1.0, 5))] = b""
    with pytest.raises(CorruptionError, match="no row"):
        t.lookup("by_price", 1.0)


@pytest.mark.parametrize("bad, message", [
    (row(1, shop="x"), "column 'shop' is int32"),
    (row("1"), "column 'id' is int"),
    (row(2**40), None),
    ((1, 2), "6 values"),
    ({"id": 1, "nope": 2}, "no column 'nope'"),
    ({"id": 1, "customer": 2, "price": 1.0}, "'shop' cannot be NULL"),
    (5, "tuple, list or mapping"),
])
def test_bad_rows_are_refused(bad, message):
    _, t = make()
    if message is None:
        t.insert(bad)  # a 64-bit id is fine
        return
    with pytest.raises(ValueError, match=message):
        t.insert(bad)


def test_bad_lookups_are_refused():
    _, t = make()
    with pytest.raises(ValueError, match="no index 'nope'"):
        t.lookup("nope", 1)
    with pytest.raises(ValueError, match="takes 1 to 2 values"):
        t.lookup("by_shop", (1, 2, 3))
    with pytest.raises(ValueError, match="primary key takes 1 values"):
        t.get((1, 2))
    with pytest.raises(ValueError, match="is int32"):
        t.lookup("by_shop", "x")
    with pytest.raises(ValueError, match="limit"):
        list(t.scan(limit=-1))


@pytest.mark.parametrize("kwargs, message", [
    (dict(name="bad name"), "bad table name"),
    (dict(columns=[("id", "int"), ("id", "int")]), "appears twice"),
    (dict(columns=[("id", "decimal")]), "unknown type"),
    (dict(columns=[("class", "int")]), "bad table 't': column name"),
    (dict(primary_key=()), "no primary key"),
    (dict(primary_key=("nope",)), "unknown column 'nope'"),
    (dict(columns=[("id", "int", True)]), "cannot be nullable"),
    (dict(indexes=[("primary", ("id",))]), "primary index's name"),
    (dict(indexes=[("i", ())]), "no columns"),
    (dict(indexes=[("i", ("id", "id"))]), "appears twice"),
    (dict(indexes=[("i", ("x",))]), "unknown column 'x'"),
])
def test_bad_schemas_are_refused(kwargs, message):
    args = dict(name="t", columns=[("id", "int")], primary_key=("id",), indexes=())
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        Schema(**args)


def test_schema_accepts_objects_and_names_its_keyspaces():
    s = Schema("t", [Column("a", "int"), Column("b", "str")], primary_key="a", indexes=[Index("b_i", ("b",))])
    assert s.primary_key == ("a",) and s.keyspace() == "t.primary" and s.keyspace("b_i") == "t.b_i"
    with pytest.raises(ValueError, match="no index"):
        s.keyspace("zz")


class TableMatchesAModel(RuleBasedStateMachine):
    """Random inserts, updates and deletes, in and out of transactions, against a dict of rows; after every step
    each index holds exactly the entries the model's rows call for."""

    def __init__(self):
        super().__init__()
        self.engine = DictEngine()
        self.table = Table(self.engine, SALES)
        self.rows = {}

    ids = st.integers(0, 15)
    codes = st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d"]))

    @rule(i=ids, shop=st.integers(0, 3), price=st.floats(-5, 5), code=codes)
    def insert(self, i, shop, price, code):
        r = row(i, shop=shop, customer=i % 2, price=price, code=code)
        clash = i in self.rows or (code is not None and any(v[4] == code for v in self.rows.values()))
        if clash:
            with pytest.raises(DuplicateKeyError):
                self.table.insert(r)
        else:
            self.table.insert(r)
            self.rows[i] = r

    @rule(i=ids, new_id=ids, shop=st.integers(0, 3), code=codes)
    def update(self, i, new_id, shop, code):
        if i not in self.rows:
            assert not self.table.update(i, {"shop": shop})
            return
        others = {k: v for k, v in self.rows.items() if k != i}
        clash = new_id in others or (code is not None and any(v[4] == code for v in others.values()))
        changes = {"id": new_id, "shop": shop, "code": code}
        if clash:
            with pytest.raises(DuplicateKeyError):
                self.table.update(i, changes)
        else:
            self.table.update(i, changes)
            old = self.rows.pop(i)
            self.rows[new_id] = (new_id, shop, old[2], old[3], code, old[5])

    @rule(i=ids)
    def delete(self, i):
        assert self.table.delete(i) == (i in self.rows)
        self.rows.pop(i, None)

    @rule(ids=st.lists(ids, max_size=4, unique=True), commit=st.booleans())
    def transaction(self, ids, commit):
        txn = Transaction(self.engine)
        fresh = [i for i in ids if i not in self.rows]
        for i in fresh:
            self.table.insert(row(i, shop=9), txn)
        assert [r.id for r in self.table.lookup("by_shop", 9, txn=txn)] == sorted(
            fresh + [k for k, v in self.rows.items() if v[1] == 9])
        if commit:
            txn.commit()
            self.rows.update({i: row(i, shop=9) for i in fresh})
        else:
            txn.rollback()

    @invariant()
    def indexes_match_the_rows(self):
        rows = sorted(self.rows.values())
        assert [tuple(r) for r in self.table.scan()] == rows
        assert [k for k, _ in entries(self.engine, "by_shop")] == sorted((r[1], r[2], r[0]) for r in rows)
        assert [k for k, _ in entries(self.engine, "by_price")] == sorted((r[3], r[0]) for r in rows)
        unique = sorted(((r[4],), encode_key((r[0],))) for r in rows if r[4] is not None)
        nulls = [((None, r[0]), encode_key((r[0],))) for r in rows if r[4] is None]
        assert entries(self.engine, "by_code") == sorted(nulls) + unique


TestTableMatchesAModel = TableMatchesAModel.TestCase
TestTableMatchesAModel.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)
