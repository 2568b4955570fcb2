"""The load every engine gets: the insert benchmark's rows as index entries, one list of entries per commit.

The rows come from ``minidb.workloads.insert_benchmark.RowGenerator`` and become key-value pairs through the table
layer's ``RowLayout``, exactly as ``Table.insert`` stores them in our engines: one entry in the primary keyspace and
one per secondary index. A real engine receives the very same (keyspace, key, value) triples, so every difference in
the counts comes from the engines, not from the data.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..table import RowLayout
from ..workloads.insert_benchmark import RowGenerator, schema

Entry = tuple[str, bytes, bytes]  # (keyspace, key, value)


def insert_benchmark_batches(rows: int, *, rows_per_commit: int = 1000, secondary_indexes: int = 3,
                             seed: int = 0) -> Iterator[list[Entry]]:
    """The entries of ``rows`` insert-benchmark rows, one list per commit of ``rows_per_commit`` rows."""
    if rows < 1 or rows_per_commit < 1:
        raise ValueError(f"need rows >= 1 and rows_per_commit >= 1, got {rows} and {rows_per_commit}")
    layout = RowLayout(schema(secondary_indexes))
    gen = RowGenerator(seed)
    done = 0
    while done < rows:
        batch = gen.batch(min(rows_per_commit, rows - done))
        done += len(batch)
        yield [entry for row in batch for entry in layout.entries(row)]


def keyspaces(secondary_indexes: int = 3) -> list[tuple[str, bool]]:
    """(keyspace, unique) of the insert benchmark's table: the primary index first, then the secondary ones."""
    s = schema(secondary_indexes)
    return [(s.keyspace(), True)] + [(s.keyspace(ix.name), False) for ix in s.indexes]


def logical_bytes(batches) -> int:
    """Bytes of keys and values in ``batches``: the denominator of write amplification."""
    return sum(len(k) + len(v) for batch in batches for _, k, v in batch)
