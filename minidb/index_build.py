"""CREATE INDEX on a loaded table: read every row, sort the new index's entries, write them as sorted runs.

Every engine builds an index in key order from a sort, not by inserting entry after entry as rows arrive: the
sorted entries go to the contract's ``Engine.bulk_load`` (minidb/kv.py), whose default writes them in write
batches, so that every B+tree page split is a right-append and leaves pages filled to the fill factor, as InnoDB's
sorted index build (``btr_bulk``, 5.7+) fills them; the LSM overrides it and ingests the sorted entries as SST files
(MyRocks' bulk load: seed 004's failing ``CREATE INDEX k_1 ON sbtest1(k)`` ran out of space writing them).

The index is visible only when the build succeeds; a failed build raises the engine's error (a full disk: OSError
with ENOSPC, or TableFullError on the B+tree) and the table keeps its old schema. (With the default bulk load the
batches already committed stay in a keyspace no schema names; building the index again starts by clearing it.)
"""

from __future__ import annotations

from .schema import Index, Schema
from .table import RowLayout, Table


def create_index(table: Table, index: Index | tuple) -> Table:
    """Build ``index`` over ``table``'s rows and return the table with it (a new ``Table`` over the same engine)."""
    index = index if isinstance(index, Index) else Index(index[0], tuple(index[1]), *index[2:])
    old = table.schema
    schema = Schema(old.name, old.columns, old.primary_key, old.indexes + (index,))
    keyspace = schema.keyspace(index.name)
    layout = RowLayout(schema)  # the mapping alone: no keyspace is created before the build
    entries = [(k, v) for row in table.scan() for ks, k, v in layout.entries(row) if ks == keyspace]
    table.engine.bulk_load(keyspace, entries, unique=index.unique)
    return Table(table.engine, schema, unique_checks=table.unique_checks, commit_stats=table.commit_stats)
