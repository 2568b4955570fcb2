"""Real engines beside ours: RocksDB (through ``rocksdict``) and SQLite (through ``apsw``), loaded with the same rows.

A model earns trust by standing next to the thing it models. This package runs the book's insert benchmark load on
two real engines and on ours, with the same rows in the same batches, and reports for each the same counts:
bytes written and read per row (by cause: log, flush/checkpoint, compaction/page writes), read requests per row,
write amplification and the final size.

* ``rows``: the shared load, the insert benchmark's rows as (keyspace, key, value) entries, one list per commit;
* ``counts``: ``LoadCounts``, the figures every loader reports;
* ``ours``: our LSM and B+tree on a counting ``SimDevice``;
* ``rocksdb``: RocksDB with our LSM's shape, its counts from RocksDB's own statistics;
* ``sqlite``: SQLite (a B+tree) behind a counting VFS shim, one ``WITHOUT ROWID`` table per keyspace.

Where each real engine counts differently from ours, the module that talks to it says so.
"""

from .counts import LoadCounts
from .ours import MinidbLoader
from .rocksdb import RocksDBLoader
from .rows import insert_benchmark_batches, logical_bytes
from .sqlite import CountingVFS, SQLiteLoader

__all__ = ["CountingVFS", "LoadCounts", "MinidbLoader", "RocksDBLoader", "SQLiteLoader", "insert_benchmark_batches",
           "logical_bytes"]
