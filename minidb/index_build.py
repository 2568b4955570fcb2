"""CREATE INDEX on a loaded table: read every row, sort the new index's entries, write them as sorted runs.

Both engines build an index in key order from a sort, not by inserting entry after entry as rows arrive:

* the LSM ingests the sorted entries as SST files (``LSMEngine.bulk_load``, MyRocks' bulk load: seed 004's failing
  ``CREATE INDEX k_1 ON sbtest1(k)`` ran out of space writing them);
* the B+tree has no ingest path: the sorted entries go in in batches of ``BATCH_ROWS`` through ordinary write
  batches, so every page split is a right-append and leaves pages filled to the fill factor, as InnoDB's sorted
  index build (``btr_bulk``, 5.7+) fills them.

The index is visible only when the build succeeds; a failed build raises the engine's error (a full disk: OSError
with ENOSPC, or TableFullError on the B+tree) and the table keeps its old schema. (On the B+tree the batches already
committed stay in a keyspace no schema names; building the index again starts by clearing it.)
"""

from __future__ import annotations

from .kv import WriteBatch
from .schema import Index, Schema
from .table import RowLayout, Table

BATCH_ROWS = 1000  # B+tree: entries per write batch of the sorted build


def create_index(table: Table, index: Index | tuple) -> Table:
    """Build ``index`` over ``table``'s rows and return the table with it (a new ``Table`` over the same engine)."""
    index = index if isinstance(index, Index) else Index(index[0], tuple(index[1]), *index[2:])
    old = table.schema
    schema = Schema(old.name, old.columns, old.primary_key, old.indexes + (index,))
    keyspace = schema.keyspace(index.name)
    layout = RowLayout(schema)  # the mapping alone: no keyspace is created before the build
    entries = [(k, v) for row in table.scan() for ks, k, v in layout.entries(row) if ks == keyspace]
    engine = table.engine
    if hasattr(engine, "bulk_load"):
        engine.bulk_load(keyspace, entries, unique=index.unique)
    else:
        _sorted_batches(engine, keyspace, entries, index.unique)
    return Table(engine, schema, unique_checks=table.unique_checks, commit_stats=table.commit_stats)


def _sorted_batches(engine, keyspace: str, entries: list, unique: bool) -> None:
    engine.create_keyspace(keyspace, unique=unique)
    stale = [k for k, _ in engine.scan(keyspace)]  # left by a build that failed part way
    for start in range(0, len(stale), BATCH_ROWS):
        batch = WriteBatch()
        for k in stale[start:start + BATCH_ROWS]:
            batch.delete(keyspace, k)
        engine.write(batch)
    entries.sort()
    for start in range(0, len(entries), BATCH_ROWS):
        batch = WriteBatch()
        for k, v in entries[start:start + BATCH_ROWS]:
            batch.put(keyspace, k, v)
        engine.write(batch)
