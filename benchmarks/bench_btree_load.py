"""B+tree load speed: the insert benchmark's load (PK-order rows, three secondary indexes) into minidb's B+tree
engine and into Python's sqlite3, in the same run.

Rows are iibench-like and deterministic: an ascending integer primary key, three random 31-bit integers (each with
a secondary index) and a 100-byte filler, about 120 bytes in all. Both engines get the same rows in batches of
``--batch`` rows (one transaction each):

* sqlite3: an in-memory database (``:memory:``), ``executemany`` of an INSERT per batch inside a transaction, the
  table with three secondary indexes (SQLite appends the rowid to each index entry, as InnoDB appends the PK).
* minidb: ``open_btree`` on a SimDevice with a buffer pool that holds the whole tree at every row count
  (``pool_bytes``: the load reads no page, as sqlite3's ``:memory:`` database reads none) and its default options
  otherwise (redo synced at each commit, doublewrite, page cleaner, checkpoints). A row is four puts in one WriteBatch: the
  clustered row under its PK, and ``(secondary value, PK) -> b""`` in each secondary index.

Only inserting is timed (encoding the rows into keys and building the batch is included for minidb, as
``executemany`` binding the parameters is for sqlite3); generating the random rows is not. Run with
``python -m benchmarks btree_load -- --rows 100000`` for a quick run. Both engines run in this one thread, so the
ratio of their CPU seconds is also printed: on a busy machine it is steadier than the ratio of wall times.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import struct
import time

from minidb.btree import open_btree
from minidb.kv import WriteBatch
from minidb.storage import SimDevice

PAD = bytes(range(32, 132))  # the 100-byte filler column
PK = struct.Struct(">Q")  # a primary key: big-endian sorts like the integer
ROW = struct.Struct(">iii")  # the row's three indexed integers, followed by the filler
SECONDARY = struct.Struct(">IQ")  # a secondary key: the indexed value, then the PK
INDEXES = ("idx_a", "idx_b", "idx_c")
# The tree takes about 230 bytes a row (a 126-byte PK record in leaves 93% full, three 18-byte secondary records in
# leaves about 60% full, and the internal pages): a pool of twice that, and at least 2 GiB, never evicts a page.
POOL_BYTES_PER_ROW = 512
MIN_POOL_BYTES = 2 << 30


def pool_bytes(rows: int) -> int:
    """Buffer pool bytes that hold the whole tree of ``rows`` rows (see POOL_BYTES_PER_ROW)."""
    return max(MIN_POOL_BYTES, rows * POOL_BYTES_PER_ROW)


def batches(rows: int, batch: int, seed: int = 1):
    """Lists of rows (pk, a, b, c, pad), ``batch`` at a time, PK ascending, a/b/c random."""
    rng = random.Random(seed)
    for start in range(0, rows, batch):
        yield [(pk, rng.getrandbits(31), rng.getrandbits(31), rng.getrandbits(31), PAD)
               for pk in range(start, min(start + batch, rows))]


def load_minidb(rows: int, batch: int, seed: int, page_size: int) -> tuple[float, dict]:
    """Seconds to load into the B+tree engine, and its IO, CPU seconds and tree figures."""
    device = SimDevice()
    engine = open_btree(device, page_size=page_size, buffer_pool_bytes=pool_bytes(rows))
    engine.create_keyspace("primary")
    for name in INDEXES:
        engine.create_keyspace(name, unique=False)
    pack_pk, pack_row, pack_sec = PK.pack, ROW.pack, SECONDARY.pack
    elapsed = cpu = 0.0
    logical = 0  # bytes of keys and values the client asked to write, the denominator of write-amp
    for chunk in batches(rows, batch, seed):
        logical += len(chunk) * (PK.size + ROW.size + len(PAD) + 3 * SECONDARY.size)
        t0, c0 = time.perf_counter(), time.process_time()
        wb = WriteBatch()
        for pk, a, b, c, pad in chunk:
            wb.put("primary", pack_pk(pk), pack_row(a, b, c) + pad)
            wb.put("idx_a", pack_sec(a, pk), b"")
            wb.put("idx_b", pack_sec(b, pk), b"")
            wb.put("idx_c", pack_sec(c, pk), b"")
        engine.write(wb)
        elapsed += time.perf_counter() - t0
        cpu += time.process_time() - c0
    stats = engine.stats()
    io = device.stats.total()
    info = {
        "page_reads": device.stats.total(kind="data").reads,
        "page_writes": device.stats.total(kind="data").writes,
        "redo_mb": device.stats.total(kind="redo").write_bytes / 1e6,
        "written_mb": io.write_bytes / 1e6,
        "write_amp": io.write_amp(logical),
        "pk_leaf_fill": stats["keyspaces"]["primary"]["leaf_fill_mean"],
        "secondary_leaf_fill": sum(stats["keyspaces"][n]["leaf_fill_mean"] for n in INDEXES) / len(INDEXES),
        "height": stats["keyspaces"]["primary"]["height"],
        "tree_bytes_per_row": stats["space"]["used_pages"] * page_size / rows,
        "cpu_s": cpu,
    }
    engine.close()
    return elapsed, info


def load_sqlite(rows: int, batch: int, seed: int) -> tuple[float, float]:
    """Seconds, and CPU seconds, to load the same rows into an in-memory sqlite3 database with the same three
    indexes."""
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("CREATE TABLE t (pk INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER, pad BLOB)")
    for col in "abc":
        db.execute(f"CREATE INDEX idx_{col} ON t ({col})")
    elapsed = cpu = 0.0
    for chunk in batches(rows, batch, seed):
        t0, c0 = time.perf_counter(), time.process_time()
        db.execute("BEGIN")
        db.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", chunk)
        db.execute("COMMIT")
        elapsed += time.perf_counter() - t0
        cpu += time.process_time() - c0
    db.close()
    return elapsed, cpu


def main(argv: list[str] | None = None) -> dict:
    """Run both loads, print rows/s and the ratio; return the figures for the benchmark history."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks btree_load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows to load (default 1,000,000)")
    parser.add_argument("--batch", type=int, default=1000, help="rows per transaction (default 1000)")
    parser.add_argument("--page-size", type=int, default=16384, help="minidb page size (default 16384)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the row generator")
    args = parser.parse_args(argv)
    if args.rows < 1 or args.batch < 1:
        parser.error(f"--rows and --batch must be >= 1, got {args.rows} and {args.batch}")
    sqlite_s, sqlite_cpu = load_sqlite(args.rows, args.batch, args.seed)
    minidb_s, info = load_minidb(args.rows, args.batch, args.seed, args.page_size)
    sqlite_rate, minidb_rate = args.rows / sqlite_s, args.rows / minidb_s
    print(f"load of {args.rows:,} rows (3 secondary indexes, {args.batch} rows per transaction)")
    print(f"  sqlite3 {sqlite3.sqlite_version} :memory: executemany  {sqlite_rate:12,.0f} rows/s")
    print(f"  minidb B+tree ({args.page_size}-byte pages)        {minidb_rate:12,.0f} rows/s")
    cpu_ratio = sqlite_cpu / info["cpu_s"]
    print(f"  minidb / sqlite3                           {minidb_rate / sqlite_rate:12.2f}x")
    print(f"  minidb / sqlite3 in CPU time               {cpu_ratio:12.2f}x  (sqlite3 {sqlite_cpu:.1f} s, "
          f"minidb {info['cpu_s']:.1f} s: the ratio to trust on a busy machine)")
    print(f"  minidb: tree height {info['height']}, {info['tree_bytes_per_row']:.0f} bytes a row in a pool of "
          f"{pool_bytes(args.rows) / args.rows:.0f}, PK leaf fill {info['pk_leaf_fill']:.2f}, secondary leaf fill "
          f"{info['secondary_leaf_fill']:.2f}, page reads {info['page_reads']}, page writes {info['page_writes']}, "
          f"redo {info['redo_mb']:.1f} MB, written {info['written_mb']:.1f} MB, write-amp {info['write_amp']:.2f}, "
          f"{minidb_s / args.rows * 1e6:.2f} us/row")
    return {"rows": args.rows, "page_size": args.page_size, "peer": f"sqlite3 {sqlite3.sqlite_version} :memory:",
            "peer_rows_per_sec": round(sqlite_rate), "minidb_rows_per_sec": round(minidb_rate),
            "ratio": round(minidb_rate / sqlite_rate, 3), "cpu_ratio": round(cpu_ratio, 3), "us_per_row": round(minidb_s / args.rows * 1e6, 3),
            "write_amp": round(info["write_amp"], 3), "height": info["height"],
            "tree_bytes_per_row": round(info["tree_bytes_per_row"], 1),
            "pk_leaf_fill": round(info["pk_leaf_fill"], 3)}


if __name__ == "__main__":
    main()
