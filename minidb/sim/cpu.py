"""CPU cost model: counted work times a documented cost per unit of work.

The engines count *work* (keys compared, pages visited, bytes compressed, rows encoded, ...) as they do it; this
module turns counts into CPU seconds. The per-unit costs are micro-measurements of the operation the unit stands
for, made by ``benchmarks/measure_cpu_costs.py`` (run it to see this machine's figures beside these). They are
fixed numbers, not re-measured at run time, so the same run gives the same simulated time on any machine; and none
was adjusted to make a benchmark's published throughput come out.

What the model charges, and where each count comes from:

* ``crc32_bytes`` and ``copy_bytes``: every byte a device read or write moves is checksummed (every page and block
  carries a CRC) and copied once between the device and memory. Derived from ``IOStats`` by ``io_work``.
* ``lz4_*``/``zstd_*``/``zlib_*``: bytes an engine compressed or decompressed (uncompressed size); zlib is the
  B+tree's compressed pages (InnoDB's KEY_BLOCK_SIZE), every compression tried counted, those that fail too.
* ``key_compares``: key comparisons in searches, inserts and merges; ``page_visits``: B+tree pages or LSM blocks
  looked up in the cache on the way to a key (a hash lookup and the cache miss of touching the page).
* ``flush_entries``/``compaction_entries``: entries an LSM flush took from its memtables, or a compaction from its
  input files. A flush or compaction of RocksDB costs about 1.6 to 9 times what our engine's compares and bytes
  come to for the same job (our memtable is no skiplist, our blocks are simpler), and an LSM's compaction is what
  limits it when nothing else does (seed 000: "limited by compaction stalls"), so the difference, measured on
  RocksDB itself, is charged per entry.
* ``rows_encoded``/``rows_decoded``/``keys_encoded``/``keys_decoded``: the table layer's row and key codecs.

Engines report the counts they keep under these names in ``work()`` (``minidb.kv.WORK``, the same names in every
engine). What the model leaves out: the SQL layer (parsing, the handler API), the binlog, and which work runs one
thread at a time (``minidb.sim.server`` adds all three); latches contending between threads. The measured operations run in C behind a thin Python call, which is why
``rows_encoded`` and the like include a Python call's overhead; a server written in C++ would pay less for them
and more for its SQL layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..storage.iostats import IOCounts


@dataclass(frozen=True)
class UnitCost:
    """The CPU cost of one unit of counted work."""

    seconds: float  # CPU seconds per unit
    source: str  # how the number was obtained


_MEASURED = ("benchmarks/measure_cpu_costs.py on the development machine (AMD EPYC, 2 vCPUs, Python 3.11), the "
             "best of three runs")

COSTS: dict[str, UnitCost] = {
    "crc32_bytes": UnitCost(0.27e-9, f"zlib.crc32 over 16 KiB of insert-benchmark rows (a table-driven CRC; "
                                     f"engines with hardware CRC32C are faster); {_MEASURED}"),
    "copy_bytes": UnitCost(0.086e-9, f"numpy.copyto of 64 MiB, larger than the caches; {_MEASURED}"),
    "lz4_compress_bytes": UnitCost(0.97e-9, f"lz4.block.compress of 16 KiB blocks; {_MEASURED}"),
    "lz4_decompress_bytes": UnitCost(0.28e-9, f"lz4.block.decompress of those blocks; {_MEASURED}"),
    "zstd_compress_bytes": UnitCost(2.8e-9, f"zstandard at level 3, RocksDB's default level; {_MEASURED}"),
    "zstd_decompress_bytes": UnitCost(0.96e-9, f"zstandard decompression of those blocks; {_MEASURED}"),
    "zlib_compress_bytes": UnitCost(55e-9, f"zlib.compress at level 6 (innodb_compression_level's default) of "
                                           f"16 KiB blocks; {_MEASURED}"),
    "zlib_decompress_bytes": UnitCost(5.1e-9, f"zlib.decompress of those blocks; {_MEASURED}"),
    "key_compares": UnitCost(27.7e-9, f"sorting 100k encoded 36-byte index keys, per comparison; {_MEASURED}"),
    "page_visits": UnitCost(192e-9, f"one dependent random access into 256 MiB (a random cycle chased, minus the "
                                    f"same loop in cache): the cache miss of reaching a page; {_MEASURED}"),
    "flush_entries": UnitCost(145e-9, f"RocksDB's own CPU per entry flushing 400,000 insert-benchmark index entries "
                                      f"into 8 L0 files (rocksdict, no compression), minus what this model charges "
                                      f"our LSM for the same flushes: the work our counts miss (walking a skiplist, "
                                      f"building blocks with restart points, the index, table properties); "
                                      f"{_MEASURED}"),
    "compaction_entries": UnitCost(81e-9, f"RocksDB's own CPU per entry compacting those 8 files into one sorted "
                                          f"run, minus what this model charges our LSM for the same compaction (its "
                                          f"key compares and bytes): decoding blocks, the compaction iterator, "
                                          f"building the output; {_MEASURED}"),
    "rows_encoded": UnitCost(88e-9, f"RowCodec.encode of insert-benchmark values; {_MEASURED}"),
    "rows_decoded": UnitCost(212e-9, f"RowCodec.decode of those values; {_MEASURED}"),
    "keys_encoded": UnitCost(67e-9, f"keycodec.encode_key of 4-column index keys; {_MEASURED}"),
    "keys_decoded": UnitCost(140e-9, f"keycodec.decode_key of those keys; {_MEASURED}"),
}


def io_work(io: IOCounts) -> dict[str, float]:
    """The CPU work counted IO implies: every byte moved is checksummed and copied once."""
    moved = io.read_bytes + io.write_bytes
    return {"crc32_bytes": moved, "copy_bytes": moved}


class CostModel:
    """Per-unit CPU costs (default: ``COSTS``), with any of them overridden by ``unit=seconds`` keywords."""

    def __init__(self, **overrides: float) -> None:
        unknown = sorted(set(overrides) - set(COSTS))
        if unknown:
            raise ValueError(f"unknown CPU cost unit {unknown[0]!r}; known units: {', '.join(COSTS)}")
        for unit, value in overrides.items():
            if value < 0:
                raise ValueError(f"CPU cost of {unit!r} must be >= 0 seconds, got {value}")
        self.costs = {unit: overrides.get(unit, c.seconds) for unit, c in COSTS.items()}  # unit -> seconds

    @property
    def units(self) -> tuple[str, ...]:
        """Names of the units the model charges."""
        return tuple(self.costs)

    def breakdown(self, work: Mapping[str, float]) -> dict[str, float]:
        """CPU seconds per unit for ``work`` (unit -> count); ValueError on an unknown unit or a negative count."""
        out = {}
        for unit, count in work.items():
            if unit not in self.costs:
                raise ValueError(f"unknown CPU cost unit {unit!r}; known units: {', '.join(self.costs)}")
            if count < 0:
                raise ValueError(f"work count of {unit!r} must be >= 0, got {count}")
            out[unit] = count * self.costs[unit]
        return out

    def seconds(self, work: Mapping[str, float]) -> float:
        """Total CPU seconds for ``work`` (unit -> count)."""
        return sum(self.breakdown(work).values())
