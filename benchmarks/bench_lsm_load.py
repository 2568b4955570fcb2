"""The LSM engine against real RocksDB (rocksdict) on seed 000's insert benchmark, in the same run.

1,000,000 rows (``--rows``) in primary-key order, ~120-byte rows, 3 random non-unique secondary index entries per
row, 1000 rows per write batch, as MyRocks writes them: each row is 4 key-value pairs in one batch, every key
prefixed by its index's 4-byte id. Both engines get the same keys in the same batches (built from the same
pre-generated rows, batch building timed for both), the WAL on and not synced per write (RocksDB's default
``WriteOptions.sync=false``; ``--sync write`` syncs every batch in both), the same shape: 64 MiB memtables, 4 KiB
blocks, 10-bit bloom filters, no compression, leveled compaction with dynamic level bytes, 256 MiB base level,
64 MiB files, L0 trigger 4. The clock stops after a final flush.

RocksDB runs its flushes and compactions on background threads (on this machine's other core); minidb computes
them inside the writes (it is single-threaded). Both write to files in a temporary directory (``--device sim``
keeps minidb's files in memory instead). Prints rows/s of each and their ratio, the ratio of their CPU seconds (all
of RocksDB's threads counted: steadier than wall time on a busy machine), then minidb's compaction stats.
"""

from __future__ import annotations

import argparse
import gc
import random
import shutil
import tempfile
import time
from pathlib import Path

INDEXES = ("pk", "k1", "k2", "k3")


def make_rows(n: int, seed: int = 1) -> list[tuple[bytes, bytes, bytes, bytes, bytes]]:
    """(pk, row, k1, k2, k3) per row: PK order, random index values, ~120-byte rows half random half padding."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        pk = i.to_bytes(8, "big")
        row = rng.randbytes(60) + b"r" * 60
        ks = tuple(rng.getrandbits(32).to_bytes(4, "big") + pk for _ in range(3))
        out.append((pk, row) + ks)
    return out


def run_minidb(rows, batch_rows: int, sync: str, device: str, workdir: Path) -> tuple[float, float, object]:
    from minidb.kv import WriteBatch
    from minidb.lsm import open_lsm
    from minidb.storage import DirDevice, SimDevice

    dev = SimDevice() if device == "sim" else DirDevice(workdir / "minidb")
    db = open_lsm(dev, wal_sync=sync, compression="none", block_cache_bytes=64 << 20)
    for name in INDEXES:
        db.create_keyspace(name, unique=name == "pk")
    start, cpu = time.perf_counter(), time.process_time()
    for b in range(0, len(rows), batch_rows):
        batch = WriteBatch()
        for pk, row, k1, k2, k3 in rows[b:b + batch_rows]:
            batch.put("pk", pk, row)
            batch.put("k1", k1, b"")
            batch.put("k2", k2, b"")
            batch.put("k3", k3, b"")
        db.write(batch)
    db.flush()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    db.close()
    return elapsed, cpu, (db, dev)


def run_rocksdict(rows, batch_rows: int, sync: str, workdir: Path) -> tuple[float, float]:
    import rocksdict as rd

    opts = rd.Options(raw_mode=True)
    opts.create_if_missing(True)
    opts.set_write_buffer_size(64 << 20)
    opts.set_compression_type(rd.DBCompressionType.none())
    opts.set_level_compaction_dynamic_level_bytes(True)
    opts.set_max_bytes_for_level_base(256 << 20)
    opts.set_target_file_size_base(64 << 20)
    opts.set_level_zero_file_num_compaction_trigger(4)
    table = rd.BlockBasedOptions()
    table.set_block_size(4096)
    table.set_bloom_filter(10, False)
    opts.set_block_based_table_factory(table)
    db = rd.Rdict(str(workdir / "rocksdb"), opts)
    wo = rd.WriteOptions()
    wo.sync = sync == "write"
    db.set_write_options(wo)
    prefixes = [i.to_bytes(4, "big") for i in range(1, 5)]  # the same 4-byte index ids minidb gives its keyspaces
    p0, p1, p2, p3 = prefixes
    start, cpu = time.perf_counter(), time.process_time()
    for b in range(0, len(rows), batch_rows):
        batch = rd.WriteBatch(raw_mode=True)
        for pk, row, k1, k2, k3 in rows[b:b + batch_rows]:
            batch.put(p0 + pk, row)
            batch.put(p1 + k1, b"")
            batch.put(p2 + k2, b"")
            batch.put(p3 + k3, b"")
        db.write(batch)
    db.flush()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu  # CPU of every thread: compactions too
    db.close()
    return elapsed, cpu


def main(argv: list[str] | None = None) -> dict:
    """Run both loads, print rows/s, the ratio and minidb's compaction stats; return the figures for the history."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks lsm_load --", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows to insert (default 1,000,000)")
    parser.add_argument("--batch-rows", type=int, default=1000, help="rows per write batch (default 1000)")
    parser.add_argument("--sync", choices=("none", "write"), default="none",
                        help="WAL sync per batch in both engines (default none: RocksDB's sync=false)")
    parser.add_argument("--device", choices=("dir", "sim"), default="dir",
                        help="minidb's files in a temporary directory (default) or in memory")
    args = parser.parse_args(argv)
    print(f"generating {args.rows:,} rows ...")
    rows = make_rows(args.rows)
    # The pre-generated rows (a tuple per row) are input, not work: without this, every full garbage collection
    # during either engine's load would walk all of them, a cost that grows with --rows and belongs to neither.
    gc.freeze()
    tmp = Path(tempfile.mkdtemp(prefix="bench_lsm_"))
    try:
        t_rocks, cpu_rocks = run_rocksdict(rows, args.batch_rows, args.sync, tmp)
        t_mini, cpu_mini, (db, dev) = run_minidb(rows, args.batch_rows, args.sync, args.device, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r_rocks, r_mini = args.rows / t_rocks, args.rows / t_mini
    print(f"rocksdict (RocksDB): {r_rocks:12,.0f} rows/s  ({t_rocks:.2f} s)")
    print(f"minidb LSM:          {r_mini:12,.0f} rows/s  ({t_mini:.2f} s)")
    print(f"minidb / rocksdict:  {r_mini / r_rocks:12.2f}")
    print(f"... in CPU time:     {cpu_rocks / cpu_mini:12.2f}  (rocksdict {cpu_rocks:.1f} s over all its threads, "
          f"minidb {cpu_mini:.1f} s: the ratio to trust on a busy machine)")
    io = dev.stats.total().per_op(args.rows)
    write_amp = dev.stats.total().write_amp(db.counters["user_bytes"])
    version = db.column_family("default").version
    levels = {f"L{i}": len(files) for i, files in enumerate(version.levels) if files}  # files per non-empty level
    print(f"minidb IO per row: {io['wkb_per_op']:.3f} wKB, {io['rkb_per_op']:.3f} rKB "
          f"(foreground reads: {dev.stats.total(cause='foreground').reads}); write-amp {write_amp:.2f} "
          f"(device bytes / user bytes); files per level {levels}; {t_mini / args.rows * 1e6:.2f} us/row")
    print(db.compaction_stats_text(unit="MB"))
    return {"rows": args.rows, "device": args.device, "sync": args.sync, "peer": "rocksdict",
            "peer_rows_per_sec": round(r_rocks), "minidb_rows_per_sec": round(r_mini),
            "ratio": round(r_mini / r_rocks, 3), "cpu_ratio": round(cpu_rocks / cpu_mini, 3), "us_per_row": round(t_mini / args.rows * 1e6, 3),
            "write_amp": round(write_amp, 3), "wkb_per_row": round(io["wkb_per_op"], 4),
            "levels": levels}


if __name__ == "__main__":
    main()
