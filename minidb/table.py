"""Tables over a key-value engine: how rows and indexes become keys and values.

An engine stores bytes in *keyspaces* and knows nothing of rows. A table maps rows onto keyspaces the way InnoDB and
MyRocks do, one keyspace per index:

* the **primary index** (keyspace ``"<table>.primary"``) maps the encoded primary key to the encoded rest of the
  row (``minidb.keycodec`` for keys, ``minidb.rowcodec`` for values): the row lives in its primary index, which
  is what InnoDB calls a clustered index;
* a **non-unique secondary index** (``"<table>.<index>"``) stores the index columns followed by the primary-key
  columns not already among them, with an empty value. Appending the primary key makes every key unique (the engine
  never holds duplicates) and tells a lookup which row to fetch;
* a **unique secondary index** stores only the index columns as its key and the encoded primary key as its value,
  so that a second row with the same index values lands on the *same* key: that is how the uniqueness check finds
  it. Rows with a NULL among the index values are exempt, as in SQL, and are stored like a non-unique index's.

**Index maintenance.** Every insert issues one put per index, all in the transaction's write batch. For a
non-unique secondary index the put is *blind*: the table never reads first. What the put then costs is the
engine's business: a B+tree must bring the leaf the key belongs in into its buffer pool, which is a read whenever the
leaf is not cached (InnoDB's change buffer postpones it), while an LSM just adds the key to its memtable. The primary
key and unique indexes need a read first (is the key taken?) on either engine. This difference is the insert
benchmark's finding F1: LSM index maintenance is read-free, B+tree index maintenance is read-modify-write.

The ``Schema`` (``minidb.schema``) says what a table holds; ``RowLayout`` is the mapping alone, with no engine
(what a row costs in bytes of keys and values); ``Table`` adds the engine and the operations: insert, update,
delete, point lookups by primary key and by secondary index, and range scans.

Table operations take a ``minidb.transaction.Transaction``, whose write batch one ``engine.write`` applies at
commit; an operation given no transaction runs in a transaction of its own (autocommit).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from operator import itemgetter

from .errors import CorruptionError
from .keycodec import decode_key, encode_key, prefix_end
from .kv import Engine
from .rowcodec import RowCodec
from .schema import Column, Index, Schema
from .transaction import CommitStats, Transaction


class DuplicateKeyError(ValueError):
    """An insert or update would give two rows the same primary key or the same unique index values."""


def int32_flags(cols: Iterable[Column]) -> bytes:
    """``keycodec.encode_key``'s flags for a key of ``cols``: 1 for each ``int32`` column, whose values it stores in
    4 bytes (as MySQL stores an INT), 0 for the others."""
    return bytes(c.type == "int32" for c in cols)


def _tuple_getter(positions: tuple[int, ...]):
    """A function picking ``positions`` out of a sequence, always as a tuple (itemgetter alone is not, for one)."""
    if len(positions) == 1:
        (p,) = positions
        return lambda seq: (seq[p],)
    if not positions:
        return lambda seq: ()
    return itemgetter(*positions)


# -- tables -----------------------------------------------------------------------------------------------------------
class TableCounts:
    """Work a table did, cumulative: the CPU model charges encoding and decoding; summaries count rows."""

    __slots__ = ("keys_encoded", "keys_decoded", "rows_encoded", "rows_decoded", "rows_inserted", "rows_updated",
                 "rows_deleted")

    def __init__(self) -> None:
        self.keys_encoded = 0  # index and primary keys built with keycodec.encode_key
        self.keys_decoded = 0  # keys read back with keycodec.decode_key
        self.rows_encoded = 0  # row values built with the row codec
        self.rows_decoded = 0  # row values read back
        self.rows_inserted = 0  # rows inserted
        self.rows_updated = 0  # rows updated
        self.rows_deleted = 0  # rows deleted

    def as_dict(self) -> dict[str, int]:
        """The counters by name."""
        return {name: getattr(self, name) for name in self.__slots__}


class _IndexPlan:
    """How one secondary index's entries are built from a row and read back; computed once per table."""

    __slots__ = ("name", "keyspace", "unique", "columns", "key_columns", "pk_in_key", "ncols", "cols", "int32")

    def __init__(self, schema: Schema, index: Index, pos: dict[str, int]) -> None:
        self.name = index.name  # index name
        self.keyspace = schema.keyspace(index.name)  # engine keyspace holding the entries
        self.unique = index.unique  # True: key is the index columns, value the primary key
        self.ncols = len(index.columns)  # number of index columns
        self.cols = tuple(schema.columns[pos[c]] for c in index.columns)  # the index columns, for checking bounds
        extra = tuple(c for c in schema.primary_key if c not in index.columns)
        self.int32 = int32_flags(schema.columns[pos[c]] for c in index.columns + extra)  # of key_columns' values
        self.columns = _tuple_getter(tuple(pos[c] for c in index.columns))  # row -> index values
        self.key_columns = _tuple_getter(tuple(pos[c] for c in index.columns + extra))  # row -> non-unique key
        where = {c: i for i, c in enumerate(index.columns + extra)}
        self.pk_in_key = _tuple_getter(tuple(where[c] for c in schema.primary_key))  # key values -> primary key


class RowLayout:
    """How the rows of one ``Schema`` become key-value pairs, one keyspace per index; no engine involved.

    ``entries(row)`` lists the (keyspace, key, value) pairs a row is stored as, ``entry_bytes(row)`` their size:
    what one row costs in logical bytes before any engine overhead. ``Table`` adds the engine.
    """

    def __init__(self, schema: Schema) -> None:
        self.schema = schema  # columns, primary key, indexes
        self.counts = TableCounts()  # work done, for the CPU model
        self.primary = schema.keyspace()  # keyspace of the primary index
        names = schema.column_names
        pos = {n: i for i, n in enumerate(names)}
        self._pos = pos  # column name -> position in a row
        pk = tuple(pos[c] for c in schema.primary_key)
        rest = tuple(i for i in range(len(names)) if i not in pk)
        self._pk_of = _tuple_getter(pk)  # row -> primary key values
        self._rest_of = _tuple_getter(rest)  # row -> values stored in the primary index's value
        self._codec = RowCodec([schema.columns[i].type for i in rest], [repr(names[i]) for i in rest])  # the value
        order = {p: i for i, p in enumerate(pk + rest)}
        self._assemble_order = _tuple_getter(tuple(order[i] for i in range(len(names))))  # pk+rest -> row
        self._required = tuple(i for i, c in enumerate(schema.columns) if not c.nullable)  # NOT NULL positions
        self._pk_checks = tuple((i, schema.columns[i]) for i in pk)  # key columns the row codec does not check
        self._pk_cols = tuple(schema.columns[i] for i in pk)  # primary-key columns, for checking bounds
        self._pk_int32 = int32_flags(self._pk_cols)  # encode_key's flags for the primary key
        # float columns: an int given for one becomes a float, else it would encode as an int in index keys
        self._floats = frozenset(i for i, c in enumerate(schema.columns) if c.type == "float")
        self._plans = {ix.name: _IndexPlan(schema, ix, pos) for ix in schema.indexes}  # secondary indexes

    def entries(self, row) -> list[tuple[str, bytes, bytes]]:
        """(keyspace, key, value) of every index entry ``row`` is stored as, the primary index's first."""
        row, pk, key = self._keyed(row)
        out = [(self.primary, key, self._value(row))]
        return out + [(plan.keyspace, ikey, ivalue) for plan, ikey, ivalue, _ in self._entries(row, pk, key)]

    def entry_bytes(self, row) -> int:
        """Bytes of keys and values ``row`` is stored as, over all its indexes."""
        return sum(len(k) + len(v) for _, k, v in self.entries(row))

    # -- rows in and out ----------------------------------------------------------------------------------------------
    def _row(self, row) -> tuple:
        """``row`` (a sequence in column order or a mapping by column name) as a checked tuple."""
        names = self.schema.column_names
        if type(row) is tuple and len(row) == len(names):
            pass  # the common case, first: a Mapping's check (an ABC's) costs more than the rest of this one
        elif isinstance(row, Mapping):
            unknown = set(row) - set(names)
            if unknown:
                raise ValueError(f"table {self.schema.name!r} has no column {sorted(unknown)[0]!r}")
            row = tuple(row.get(n) for n in names)
        elif isinstance(row, (tuple, list)):
            if len(row) != len(names):
                raise ValueError(f"table {self.schema.name!r} rows have {len(names)} values "
                                 f"({', '.join(names)}), got {len(row)}")
            row = tuple(row)
        else:
            raise ValueError(f"a row is a tuple, list or mapping, got {type(row).__name__}")
        for i in self._required:
            if row[i] is None:
                raise ValueError(f"table {self.schema.name!r}: column {names[i]!r} cannot be NULL")
        for i, col in self._pk_checks:
            _check_key_value(self.schema.name, col, row[i])
        for i in self._floats:
            if type(row[i]) is not float and row[i] is not None:
                return tuple(float(v) if i in self._floats and v is not None else v for i, v in enumerate(row))
        return row

    def _key_values(self, values, cols: tuple[Column, ...], what: str, partial: bool = False) -> tuple:
        """``values`` (a tuple, or one bare value) checked as values of key columns ``cols`` (a prefix if
        ``partial``); ints given for float columns become floats, so that they encode as floats."""
        vals = tuple(values) if isinstance(values, (tuple, list)) else (values,)
        n = len(cols)
        if len(vals) > n or (not partial and len(vals) != n) or not vals:
            need = f"1 to {n}" if partial else str(n)
            raise ValueError(f"table {self.schema.name!r}: {what} takes {need} values, got {vals!r}")
        for v, col in zip(vals, cols):
            if v is None and col.nullable:
                continue
            _check_key_value(self.schema.name, col, v)
        if any(c.type == "float" for c in cols):
            vals = tuple(float(v) if c.type == "float" and v is not None else v for v, c in zip(vals, cols))
        return vals

    def _assemble(self, pk: tuple, value: bytes, key: bytes):
        """The row whose primary key is ``pk`` and whose stored value is ``value``."""
        try:
            rest = self._codec.decode(value)
        except ValueError as exc:
            raise CorruptionError(f"keyspace {self.primary!r}, key {key!r}: {exc}") from None
        self.counts.rows_decoded += 1
        return self.schema.Row._make(self._assemble_order(pk + rest))

    def _decode(self, keyspace: str, key: bytes) -> tuple:
        try:
            vals = decode_key(key)
        except ValueError as exc:
            raise CorruptionError(f"keyspace {keyspace!r}: {exc}") from None
        self.counts.keys_decoded += 1
        return vals

    def _keyed(self, row) -> tuple[tuple, tuple, bytes]:
        """``row`` checked (``_row``), its primary key values and its encoded primary key."""
        row = self._row(row)
        pk = self._pk_of(row)
        return row, pk, self._pk_key(pk)

    def _pk_key(self, pk: tuple) -> bytes:
        """The encoded primary key of the values ``pk`` (its int32 columns in 4 bytes), counted as a key encoded."""
        key = encode_key(pk, self._pk_int32)
        self.counts.keys_encoded += 1
        return key

    def _value(self, row: tuple) -> bytes:
        """The primary index's value of checked ``row``: its non-key columns, encoded."""
        value = self._codec.encode(self._rest_of(row))
        self.counts.rows_encoded += 1
        return value

    def _entries(self, row: tuple, pk: tuple, pk_key: bytes) -> list[tuple[_IndexPlan, bytes, bytes, bool]]:
        """(index, key, value, must_be_unique) of every secondary index entry of ``row``."""
        out = []
        for plan in self._plans.values():
            vals = plan.columns(row)
            if plan.unique and None not in vals:
                out.append((plan, encode_key(vals, plan.int32), pk_key, True))
            else:
                out.append((plan, encode_key(plan.key_columns(row), plan.int32), pk_key if plan.unique else b"",
                            False))
        self.counts.keys_encoded += len(out)
        return out


class Table(RowLayout):
    """Rows of one ``Schema`` stored in an engine, one keyspace per index; see the module docstring.

    ``unique_checks=False`` skips the reads that check the primary key and unique indexes, as MySQL's
    ``unique_checks=0`` lets MyRocks do for bulk loads: inserts then overwrite silently instead of failing.
    Keyspaces are created when missing (``engine.create_keyspace(name, unique=..., column_family=...)``, the
    family only when the index's comment names one: ``schema.column_family``), so a ``Table`` over a reopened engine
    finds its data again.
    """

    def __init__(self, engine: Engine, schema: Schema, *, unique_checks: bool = True,
                 commit_stats: CommitStats | None = None) -> None:
        super().__init__(schema)
        self.engine = engine  # where the rows live
        self.unique_checks = unique_checks  # read before writing a primary or unique key
        self.commit_stats = commit_stats if commit_stats is not None else CommitStats()  # autocommit writes
        self._create_keyspaces()

    def _create_keyspaces(self) -> None:
        """Create the missing keyspaces; an index whose comment names a column family asks for it (engines without
        column families, the B+tree, ignore it)."""
        existing = set(self.engine.keyspaces())
        schema = self.schema
        wanted = [(self.primary, True, schema.column_family())] + [
            (p.keyspace, p.unique, schema.column_family(p.name)) for p in self._plans.values()]
        for name, unique, cf in wanted:
            if name not in existing:
                if cf is None:
                    self.engine.create_keyspace(name, unique=unique)
                else:
                    self.engine.create_keyspace(name, unique=unique, column_family=cf)

    def __repr__(self) -> str:
        return f"<Table {self.schema.name!r} on {type(self.engine).__name__}>"

    def _autocommit(self) -> Transaction:
        return Transaction(self.engine, stats=self.commit_stats)

    # -- writes -------------------------------------------------------------------------------------------------------
    def insert(self, row, txn: Transaction | None = None) -> None:
        """Add ``row``; DuplicateKeyError if its primary key or a unique index's values are taken."""
        if txn is None:
            with self._autocommit() as own:
                return self.insert(row, own)
        row, pk, key = self._keyed(row)
        if self.unique_checks and txn.get(self.primary, key) is not None:
            raise DuplicateKeyError(f"table {self.schema.name!r}: primary key {pk!r} already exists")
        entries = self._entries(row, pk, key)
        if self.unique_checks:
            for plan, ikey, _, unique in entries:
                if unique and txn.get(plan.keyspace, ikey) is not None:
                    raise DuplicateKeyError(f"table {self.schema.name!r}: unique index {plan.name!r} already "
                                            f"holds {plan.columns(row)!r}")
        txn.put(self.primary, key, self._value(row))
        for plan, ikey, ivalue, _ in entries:
            txn.put(plan.keyspace, ikey, ivalue)
        self.counts.rows_inserted += 1

    def update(self, pk, changes, txn: Transaction | None = None) -> bool:
        """Set the columns in ``changes`` of the row with primary key ``pk``; False if there is no such row.

        ``changes`` maps column names to new values, or is a function from the current row to such a mapping
        (``lambda r: {"k": r.k + 1}`` is SQL's ``SET k = k + 1``: one read, one write). Indexes whose values change
        get their old entry deleted and the new one put; a changed primary key moves the row. DuplicateKeyError
        (and no change at all) if the new values collide with another row.
        """
        if txn is None:
            with self._autocommit() as own:
                return self.update(pk, changes, own)
        old = self.get(pk, txn)
        if old is None:
            return False
        if callable(changes):
            changes = changes(old)
        new = list(old)
        for name, value in changes.items():
            if name not in self._pos:
                raise ValueError(f"table {self.schema.name!r} has no column {name!r}")
            new[self._pos[name]] = value
        new = self._row(new)
        old_pk, new_pk = self._pk_of(old), self._pk_of(new)
        old_key, new_key = self._pk_key(old_pk), self._pk_key(new_pk)
        moved = new_key != old_key
        if moved and self.unique_checks and txn.get(self.primary, new_key) is not None:
            raise DuplicateKeyError(f"table {self.schema.name!r}: primary key {new_pk!r} already exists")
        changed = []
        for (plan, okey, ovalue, _), (_, nkey, nvalue, unique) in zip(self._entries(old, old_pk, old_key),
                                                                      self._entries(new, new_pk, new_key)):
            if okey == nkey and ovalue == nvalue:
                continue
            if unique and nkey != okey and self.unique_checks and txn.get(plan.keyspace, nkey) is not None:
                raise DuplicateKeyError(f"table {self.schema.name!r}: unique index {plan.name!r} already "
                                        f"holds {plan.columns(new)!r}")
            changed.append((plan.keyspace, okey, nkey, nvalue))
        if moved:
            txn.delete(self.primary, old_key)
        txn.put(self.primary, new_key, self._value(new))
        for keyspace, okey, nkey, nvalue in changed:
            if okey != nkey:
                txn.delete(keyspace, okey)
            txn.put(keyspace, nkey, nvalue)
        self.counts.rows_updated += 1
        return True

    def delete(self, pk, txn: Transaction | None = None) -> bool:
        """Remove the row with primary key ``pk`` and its index entries; False if there is no such row."""
        if txn is None:
            with self._autocommit() as own:
                return self.delete(pk, own)
        row = self.get(pk, txn)
        if row is None:
            return False
        pk = self._pk_of(row)
        key = self._pk_key(pk)
        txn.delete(self.primary, key)
        for plan, ikey, _, _ in self._entries(row, pk, key):
            txn.delete(plan.keyspace, ikey)
        self.counts.rows_deleted += 1
        return True

    # -- reads --------------------------------------------------------------------------------------------------------
    def get(self, pk, txn: Transaction | None = None):
        """The row with primary key ``pk`` (a tuple, or a bare value for a one-column key), or None."""
        pk = self._key_values(pk, self._pk_cols, "primary key")
        key = self._pk_key(pk)
        value = txn.get(self.primary, key) if txn is not None else self.engine.get(self.primary, key)
        return None if value is None else self._assemble(pk, value, key)

    def scan(self, lo=None, hi=None, *, limit: int | None = None, txn: Transaction | None = None):
        """Rows with ``lo <= primary key < hi`` in key order (None: unbounded), at most ``limit`` of them.

        Bounds may be prefixes of the primary key: ``hi=(7,)`` stops before the first row whose key starts with 7.
        """
        lo_key, hi_key = self._bounds(lo, hi, self._pk_cols)
        source = txn.scan(self.primary, lo_key, hi_key) if txn is not None else self.engine.scan(
            self.primary, lo_key, hi_key)
        for key, value in _limited(source, limit):
            yield self._assemble(self._decode(self.primary, key), value, key)

    def lookup(self, index: str, values, *, limit: int | None = None, txn: Transaction | None = None) -> list:
        """Rows whose leading ``index`` columns equal ``values``, in index order (each fetched by primary key)."""
        plan = self._plan(index)
        prefix = encode_key(self._key_values(values, plan.cols, f"index {index!r}", partial=True), plan.int32)
        self.counts.keys_encoded += 1
        return list(self._index_rows(plan, prefix, prefix_end(prefix), limit, False, txn))

    def index_scan(self, index: str, lo=None, hi=None, *, limit: int | None = None, covering: bool = False,
                   txn: Transaction | None = None):
        """Rows in ``index`` order with ``lo <= index values < hi`` (bounds may be prefixes), at most ``limit``.

        With ``covering`` yield ``(index_values, primary_key)`` pairs read from the index alone, without fetching
        each row from the primary index: what a query that needs only indexed columns does (a covering index).
        """
        plan = self._plan(index)
        lo_key, hi_key = self._bounds(lo, hi, plan.cols)
        return self._index_rows(plan, lo_key, hi_key, limit, covering, txn)

    def _index_rows(self, plan: _IndexPlan, lo: bytes | None, hi: bytes | None, limit: int | None,
                    covering: bool, txn: Transaction | None):
        source = txn.scan(plan.keyspace, lo, hi) if txn is not None else self.engine.scan(plan.keyspace, lo, hi)
        for key, value in _limited(source, limit):
            vals = self._decode(plan.keyspace, key)
            if plan.unique:
                pk_key = value
                pk = self._decode(plan.keyspace, value)
            else:
                pk = plan.pk_in_key(vals)
                pk_key = None
            if covering:
                yield vals[:plan.ncols], pk
                continue
            if pk_key is None:
                pk_key = self._pk_key(pk)
            row_value = txn.get(self.primary, pk_key) if txn is not None else self.engine.get(self.primary, pk_key)
            if row_value is None:
                raise CorruptionError(f"keyspace {plan.keyspace!r}: entry {key!r} points at primary key {pk!r}, "
                                      f"which has no row in {self.primary!r}")
            yield self._assemble(pk, row_value, pk_key)

    def _plan(self, index: str) -> _IndexPlan:
        plan = self._plans.get(index)
        if plan is None:
            self.schema.index(index)  # raises, naming the known indexes
        return plan

    def _bounds(self, lo, hi, cols: tuple[Column, ...]) -> tuple[bytes | None, bytes | None]:
        keys, int32 = [], int32_flags(cols)
        for bound, what in ((lo, "lo"), (hi, "hi")):
            if bound is None:
                keys.append(None)
            else:
                keys.append(encode_key(self._key_values(bound, cols, f"bound {what}", partial=True), int32))
                self.counts.keys_encoded += 1
        return keys[0], keys[1]


def _limited(source: Iterable, limit: int | None) -> Iterator:
    if limit is None:
        yield from source
        return
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    if limit == 0:
        return
    for i, item in enumerate(source, 1):
        yield item
        if i >= limit:
            return


_KEY_TYPES = {"int": int, "int32": int, "float": (float, int), "str": str, "bytes": bytes}


def _check_key_value(table: str, col: Column, value) -> None:
    """Check a primary-key value against its column type (the row codec checks the other columns)."""
    if isinstance(value, bool) or not isinstance(value, _KEY_TYPES[col.type]):
        raise ValueError(f"table {table!r}: column {col.name!r} is {col.type}, got {type(value).__name__} "
                         f"{value!r}")
    if col.type == "int32" and not -2**31 <= value < 2**31:
        raise ValueError(f"table {table!r}: column {col.name!r}: {value} is outside the int32 range")
