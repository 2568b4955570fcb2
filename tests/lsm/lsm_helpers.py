"""Helpers of the LSM tests: tiny engine shapes and workloads, so every test runs in well under a second.

(A module rather than conftest.py, so that test modules can import it.)
"""

import random

from minidb.kv import WriteBatch
from minidb.lsm import open_lsm
from minidb.storage import SimDevice

# A tiny LSM: 8 KiB memtables, 1 KiB blocks, 32 KiB base level, 8 KiB files. Ratios of a real configuration
# (memtable : base level : file = 64 MiB : 256 MiB : 64 MiB) are kept roughly, scaled down ~8000x.
TINY = dict(memtable_bytes=8 << 10, block_size=1024, max_bytes_for_level_base=32 << 10,
            target_file_size_base=8 << 10, block_cache_bytes=64 << 10)


def open_tiny(device=None, **options):
    """An engine with the TINY options (overridable) on ``device`` (a fresh SimDevice by default)."""
    opts = dict(TINY)
    opts.update(options)
    return open_lsm(device if device is not None else SimDevice(), **opts)


def insert_benchmark_batches(rows: int, *, batch_rows: int = 100, seed: int = 1, value_bytes: int = 100):
    """Seed 000's insert benchmark: PK-order rows with 3 random non-unique secondary index entries each.

    Yields WriteBatches of ``batch_rows`` rows: the row under "pk", and an index entry (index value + PK, empty
    value) under each of "k1", "k2", "k3", as the table layer writes them.
    """
    rng = random.Random(seed)
    for start in range(0, rows, batch_rows):
        batch = WriteBatch()
        for i in range(start, min(rows, start + batch_rows)):
            pk = i.to_bytes(8, "big")
            batch.put("pk", pk, rng.randbytes(value_bytes // 2) + b"v" * (value_bytes - value_bytes // 2))
            for k in ("k1", "k2", "k3"):
                batch.put(k, rng.getrandbits(32).to_bytes(4, "big") + pk, b"")
        yield batch


def random_load(db, n, seed=1, value=b"v" * 50):
    """Write ``n`` random 8-byte keys into keyspace "t", 100 per batch."""
    rng = random.Random(seed)
    for s in range(0, n, 100):
        b = WriteBatch()
        for _ in range(100):
            b.put("t", rng.randbytes(8), value)
        db.write(b)
