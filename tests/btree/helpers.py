"""Helpers shared by the B+tree tests: small engines on a SimDevice, and an insert-benchmark-like workload."""

import random
import struct

from minidb.btree import open_btree
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

SMALL = dict(page_size=4096, buffer_pool_bytes=16 * 4096, redo_log_bytes=64 * 4096, page_cleaner=None)
PK = struct.Struct(">Q")  # primary key: a big-endian int sorts like the int
SK = struct.Struct(">IQ")  # secondary key: a random int, then the primary key (unique, like InnoDB's)
SECONDARIES = ("idx_a", "idx_b", "idx_c")


def small_engine(device=None, **options):
    """(engine, device): a 16-page pool of 4 KiB pages, a small redo log and no page cleaner, unless overridden."""
    device = device if device is not None else SimDevice()
    return open_btree(device, **{**SMALL, **options}), device


def insert_benchmark_batches(rows: int, rows_per_batch: int, start: int = 0, seed: int = 1, value_bytes: int = 100):
    """WriteBatches of an insert benchmark (iibench-like): PK-order rows, each also indexed by three secondary
    indexes on random ints (the key ends with the PK, as InnoDB's secondary keys do)."""
    rng = random.Random(seed * 1_000_003 + start)
    value = b"v" * value_bytes
    for s in range(start, start + rows, rows_per_batch):
        batch = WriteBatch()
        for pk in range(s, min(s + rows_per_batch, start + rows)):
            batch.put("primary", PK.pack(pk), value)
            for name in SECONDARIES:
                batch.put(name, SK.pack(rng.getrandbits(32), pk), b"")
        yield batch


def create_insert_benchmark_schema(engine) -> None:
    """The primary keyspace and three non-unique secondary indexes."""
    engine.create_keyspace("primary")
    for name in SECONDARIES:
        engine.create_keyspace(name, unique=False)


def contents(engine) -> dict:
    """{keyspace: {key: value}} of every keyspace, through scans."""
    return {name: dict(engine.scan(name)) for name in engine.keyspaces()}
