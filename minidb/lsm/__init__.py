"""The LSM engine (RocksDB/MyRocks-like), on minidb's counted storage layer.

Open one with ``open_lsm(device, **options)``; it implements ``minidb.kv.Engine``. The pieces, one per module,
from the bottom up:

* formats: ``dbformat`` (internal keys), ``block_builder``/``block`` (blocks with restart points),
  ``table_builder``/``table_reader`` (SST files, FORMAT.md), ``format`` (handles, trailers, footer), ``bloom``/
  ``filter_policy`` (filters), ``compression``, ``log_format``/``log_writer``/``log_reader`` (the WAL and MANIFEST
  record framing), ``write_batch`` (WAL payloads), ``version_edit`` (MANIFEST records);
* memory: ``memtable`` (sorted in-memory table), ``block_cache`` (LRU of blocks);
* iteration: ``iterator`` (merging), ``two_level_iter`` (a table), ``level_iter`` (a level), ``db_iter`` (scans),
  ``scan_merge`` (a scan's merging plugged in, exercise 09);
* durability: ``wal``, ``wal_files`` (the WALs of a database, switched as memtables are sealed),
  ``wal_error_handler`` (what a failed WAL write does, plugged in: exercise 07), ``failures`` (the disk-full
  behaviours), ``version_set`` (MANIFEST and CURRENT), ``recovery``;
* shape: ``version``, ``level_sizing``, ``compaction``, ``compaction_picker`` (leveled), ``leveled_picker`` (its
  decisions plugged in, exercise 08), ``universal_picker``, ``compaction_iter`` (the merge loop), ``jobs``,
  ``stalls``, ``scheduler``;
* reporting: ``compaction_stats`` (RocksDB's "Compaction Stats" table), ``engine_stats`` (``stats()``);
* clients: ``engine`` (LSMEngine: the client API and the wiring), beside ``table_cache`` (the open SSTs),
  ``keyspace_map`` (keyspaces in column families) and ``maintenance`` (manual flush and compaction); transactions
  are ``minidb.transaction``'s, the same for both engines.

The plug points (filter policy, scan merge, WAL error handler, leveled picker) are plugged in one way, the same for
both engines: minidb/plug_point.py.
"""

from __future__ import annotations

from .bloom import BloomFilterPolicy
from .engine import LSMEngine
from .options import CFOptions, DBOptions, parse_options


def open_lsm(device, **options) -> LSMEngine:
    """Open (creating or recovering) the LSM database on ``device``; see options.py for every option.

    A wrong option name or value raises ValueError naming it.
    """
    db, cfs = parse_options(options)
    return LSMEngine(device, db, cfs)


__all__ = ["BloomFilterPolicy", "CFOptions", "DBOptions", "LSMEngine", "open_lsm"]
