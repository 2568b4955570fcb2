"""Measure the per-unit CPU costs that ``minidb.sim.cpu`` charges, on this machine, and print them beside the
constants the model uses.

Run: ``python -m benchmarks.measure_cpu_costs``. The model's constants are fixed numbers (so that every machine
computes the same simulated times); they were set from one run of this script and each says so in its comment.
Run it again on another machine to see how far that machine's numbers are from the recorded ones.

Each measurement times a C-implemented operation through the smallest Python wrapper available and takes the best
of several repeats; the unit is the one the model counts (bytes, compares, lookups, encoded rows).
"""

from __future__ import annotations

import math
import platform
import random
import shutil
import struct
import tempfile
import time
import timeit
import zlib

import lz4.block
import numpy as np
import zstandard

from minidb.keycodec import decode_key, encode_key
from minidb.kv import WriteBatch
from minidb.lsm import open_lsm
from minidb.rowcodec import RowCodec
from minidb.sim.cpu import COSTS, CostModel, io_work
from minidb.storage import SimDevice
from minidb.workloads.insert_benchmark import RowGenerator

BLOCK = 16 * 1024  # MyRocks block size and InnoDB page size (seed 004 option listing; InnoDB default)


def best(stmt, number: int, repeat: int = 7) -> float:
    """Seconds per call of ``stmt``: the best of ``repeat`` timings of ``number`` calls."""
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number


def iibench_block() -> bytes:
    """16 KiB of insert-benchmark keys and values, as a data block or page holds them."""
    gen = RowGenerator(seed=1)
    codec = RowCodec(["int", "int32", "int32", "int32", "float", "str"])
    parts = []
    for row in gen.batch(400):
        parts.append(encode_key(row[:1]) + codec.encode(row[1:]))
        parts.append(encode_key((row[4], row[3], row[5], row[0])))
    return b"".join(parts)[:BLOCK]


def chase(n: int, rng: np.random.Generator, steps: int = 200_000) -> float:
    """Seconds per step of following a random cycle through an array of ``n`` int64."""
    perm = rng.permutation(n)
    nxt = np.empty(n, dtype=np.int64)
    nxt[perm] = np.roll(perm, -1)

    def run():
        i = 0
        for _ in range(steps):
            i = nxt[i]
        return i

    return best(run, 1, repeat=3) / steps


JOB_ROWS = 100_000  # insert-benchmark rows per job measurement: 400,000 entries
JOB_FILES = 8  # L0 files the compaction merges (RocksDB's L0 compaction trigger is 4; the posts' stall trigger 20)


def job_entries(rows: int = JOB_ROWS, files: int = JOB_FILES) -> list[tuple[bytes, bytes]]:
    """Insert-benchmark index entries in the order they are written: per row, the primary key's (an ascending
    8-byte key, a 112-byte row) and three secondary keys' (a random 31-bit value and the PK, no value)."""
    rng = random.Random(4)
    pk, sec = struct.Struct(">Q"), struct.Struct(">IQ")
    row = bytes(112)
    out = []
    for i in range(rows):
        out.append((pk.pack(i), row))
        out += [(sec.pack(rng.getrandbits(31), i), b"") for _ in range(3)]
    return out


def job_batches(entries, files: int):
    """``entries`` cut into ``files`` consecutive batches, one per L0 file."""
    per = -(-len(entries) // files)
    return [entries[f * per:(f + 1) * per] for f in range(files)]


def rocksdb_job_seconds(entries, files: int = JOB_FILES) -> tuple[float, float]:
    """RocksDB's own CPU seconds (all its threads) to flush ``entries`` as ``files`` L0 files, and to compact them
    into one sorted run; no compression, no WAL."""
    from rocksdict import DBCompressionType, Options, Rdict, WriteOptions
    from rocksdict import WriteBatch as RocksBatch

    path = tempfile.mkdtemp()
    try:
        options = Options(raw_mode=True)
        options.set_write_buffer_size(1 << 30)
        options.set_disable_auto_compactions(True)
        options.set_compression_type(DBCompressionType.none())
        db = Rdict(path, options)
        no_wal = WriteOptions()
        no_wal.disable_wal = True
        flush = 0.0
        for chunk in job_batches(entries, files):
            batch = RocksBatch(raw_mode=True)
            for key, value in chunk:
                batch.put(key, value)
            db.write(batch, no_wal)
            start = time.process_time()
            db.flush()
            flush += time.process_time() - start
        start = time.process_time()
        db.compact_range(None, None)
        compaction = time.process_time() - start
        db.close()
    finally:
        shutil.rmtree(path, ignore_errors=True)
    return flush, compaction


def minidb_job_seconds(entries, files: int = JOB_FILES) -> tuple[float, float]:
    """The cost model's CPU seconds for our LSM's same two jobs (the units it counts, without the job units)."""
    device = SimDevice()
    model = CostModel(flush_entries=0, compaction_entries=0)
    engine = open_lsm(device, compression="none", disable_auto_compactions=True, memtable_bytes=1 << 30)
    engine.create_keyspace("t")

    def charged(job) -> float:
        work, io = engine.work(), device.stats.snapshot()
        job()
        after, done = engine.work(), (device.stats - io).total()
        return model.seconds({u: after[u] - work[u] for u in model.units if u in after}) + model.seconds(io_work(done))

    flush = 0.0
    for chunk in job_batches(entries, files):
        batch = WriteBatch()
        for key, value in chunk:
            batch.put("t", key, value)
        engine.write(batch)
        flush += charged(engine.flush)
    compaction = charged(lambda: engine.compact_range(keyspace="t"))
    engine.close()
    return flush, compaction


def job_entry_costs(repeat: int = 3) -> dict[str, float]:
    """Seconds per entry that RocksDB's flush and compaction spend beyond what the model charges our engine for the
    same jobs (its key compares and bytes): ``flush_entries`` and ``compaction_entries``; RocksDB's best of
    ``repeat``."""
    entries = job_entries()
    rocks = [rocksdb_job_seconds(entries) for _ in range(repeat)]
    ours = minidb_job_seconds(entries)
    n = len(entries)
    return {"flush_entries": (min(r[0] for r in rocks) - ours[0]) / n,
            "compaction_entries": (min(r[1] for r in rocks) - ours[1]) / n}


def measure() -> dict[str, float]:
    """Seconds per unit for every unit of the CPU model."""
    block = iibench_block()
    out = {}
    out["crc32_bytes"] = best(lambda: zlib.crc32(block), 2000) / len(block)
    big = np.frombuffer(block * 4096, dtype=np.uint8)  # 64 MiB: larger than the caches, so memory bandwidth
    dst = np.empty_like(big)
    out["copy_bytes"] = best(lambda: np.copyto(dst, big), 5) / len(big)
    lz4_block = lz4.block.compress(block, store_size=False)
    out["lz4_compress_bytes"] = best(lambda: lz4.block.compress(block, store_size=False), 500) / len(block)
    out["lz4_decompress_bytes"] = best(
        lambda: lz4.block.decompress(lz4_block, uncompressed_size=len(block)), 2000) / len(block)
    zc = zstandard.ZstdCompressor(level=3)  # RocksDB's default ZSTD level (ZSTD_CLEVEL_DEFAULT)
    zd = zstandard.ZstdDecompressor()
    z_block = zc.compress(block)
    out["zstd_compress_bytes"] = best(lambda: zc.compress(block), 200) / len(block)
    out["zstd_decompress_bytes"] = best(lambda: zd.decompress(z_block), 1000) / len(block)
    zlib_block = zlib.compress(block, 6)  # innodb_compression_level's default
    out["zlib_compress_bytes"] = best(lambda: zlib.compress(block, 6), 200) / len(block)
    out["zlib_decompress_bytes"] = best(lambda: zlib.decompress(zlib_block), 1000) / len(block)

    rng = np.random.default_rng(2)
    keys = [encode_key((int(p), int(c), float(x), int(t)))
            for p, c, x, t in zip(rng.integers(0, 10_000, 100_000), rng.integers(0, 100_000, 100_000),
                                  rng.random(100_000), range(100_000))]
    n = len(keys)
    out["key_compares"] = best(lambda: sorted(keys), 3, repeat=3) / (n * math.log2(n))

    # A page visit touches memory no cache holds: time one dependent random access by chasing a random cycle
    # through 256 MiB, minus the same loop on a cycle that fits in the L1 cache (the interpreter's share).
    out["page_visits"] = chase(1 << 25, rng) - chase(1024, rng)

    gen = RowGenerator(seed=3)
    rows = gen.batch(10_000)
    codec = RowCodec(["int", "int32", "int32", "int32", "float", "str"])
    values = [r[1:] for r in rows]
    sec = [(r[4], r[3], r[5], r[0]) for r in rows]
    encoded_rows = [codec.encode(v) for v in values]
    encoded_keys = [encode_key(k) for k in sec]
    out["rows_encoded"] = best(lambda: [codec.encode(v) for v in values], 10) / len(rows)
    out["rows_decoded"] = best(lambda: [codec.decode(v) for v in encoded_rows], 10) / len(rows)
    out["keys_encoded"] = best(lambda: [encode_key(k) for k in sec], 10) / len(rows)
    out["keys_decoded"] = best(lambda: [decode_key(k) for k in encoded_keys], 10) / len(rows)
    out.update(job_entry_costs())
    return out


def main(argv: list[str] | None = None) -> None:
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    measured = measure()
    print(f"{'unit':24} {'measured ns':>12} {'model ns':>10} {'ratio':>7}")
    for unit, seconds in measured.items():
        model = COSTS[unit].seconds
        print(f"{unit:24} {seconds * 1e9:12.4f} {model * 1e9:10.4f} {seconds / model:7.2f}")


if __name__ == "__main__":
    main()
