"""What ``LSMEngine.stats()`` reports, and RocksDB's "Compaction Stats" of one column family.

``engine_stats`` is the engine's counters as a flat dict, with what derives from them (blocks and tables per get,
the bloom filters' false-positive rate) and the shape of the tree now (memtables, L0 and SST files, pending
compaction bytes, jobs in flight, the error state). IO itself is in ``device.stats``.
"""

from __future__ import annotations


def engine_stats(engine) -> dict:
    """The stats of ``engine`` (an LSMEngine); see the module docstring."""
    c = dict(engine.counters)
    c.update(engine.work())
    gets = c["gets"] or 1
    c.update(engine.cache.counters())
    c["blocks_read_per_get"] = c["blocks_read"] / gets
    c["blocks_accessed_per_get"] = c["blocks_accessed"] / gets
    c["tables_probed_per_get"] = c["get_tables_probed"] / gets
    c["bloom_false_positive_rate"] = (c["bloom_false_positive"] / (c["bloom_useful"] + c["bloom_false_positive"])
                                      if c["bloom_useful"] + c["bloom_false_positive"] else 0.0)
    families = engine.cfs.values()
    c["memtable_bytes"] = sum(cf.memory_bytes() for cf in families)
    c["immutable_memtables"] = sum(len(cf.imm) for cf in families)
    c["l0_files"] = sum(len(cf.version.levels[0]) for cf in families)
    c["sst_files"] = sum(cf.version.num_files() for cf in families)
    c["sst_bytes"] = sum(cf.version.total_bytes() for cf in families)
    c["pending_compaction_bytes"] = sum(cf.pending_compaction_bytes() for cf in families)
    c["jobs_in_flight"] = len(engine.scheduler.jobs)
    c["read_only"] = engine.background_error is not None
    c["stopped"] = engine.stopped
    c["background_error"] = engine.background_error
    c["last_sequence"] = engine.last_sequence
    wal = engine.device.stats.total(kind="wal")
    c["wal_bytes_written"] = wal.write_bytes
    c["wal_syncs"] = wal.syncs
    return c


def compaction_stats(family, unit: str = "GB"):
    """RocksDB's "Compaction Stats" of column family ``family`` as a pandas DataFrame (sizes in ``unit``)."""
    return family.stats.frame(family.version, _display_scores(family), unit)


def compaction_stats_text(family, unit: str = "GB") -> str:
    """RocksDB's "Compaction Stats" of column family ``family``, as RocksDB prints it."""
    return family.stats.text(family.name, family.version, _display_scores(family), unit)


def _display_scores(cf) -> list[float]:
    scores = cf.scores()
    return scores + [0.0] * (cf.version.num_levels - len(scores))
