"""ColumnFamily: one column family at run time: its options, memtables, files and statistics.

Each column family has its own memtable and sealed (immutable) memtables, its own levels of SSTs, its own options
(compression, bloom filter, compaction style and triggers) and its own "Compaction Stats"; all families share the
WAL, the block cache and the MANIFEST. MyRocks puts tables and indexes into column families (``COMMENT 'cfname=...'``,
seed 004); here keyspaces map to families through ``keyspace_cf``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .compaction_stats import CompactionStats
from .filter_policy import policy_for
from .level_sizing import compaction_scores, level_targets, pending_compaction_bytes
from .memtable import MemTable
from .options import CFOptions
from .universal_picker import sorted_runs
from .version_set import CFState


@dataclass
class SealedMemTable:
    """An immutable memtable waiting for (or in) its flush."""

    mem: MemTable  # the entries
    next_log: int  # the WAL started when it was sealed: once it is flushed, older WALs hold none of its data


class ColumnFamily:
    """A column family's run-time state; the durable part (files, log number) is ``state``."""

    def __init__(self, state: CFState, options: CFOptions) -> None:
        self.state = state  # id, name, version, log number, compact pointers (the MANIFEST's view)
        self.options = options  # its options
        self.policy = policy_for(options.filter_policy, options.bits_per_key)  # SST filter policy, or None
        self.mem = MemTable()  # the active memtable
        self.imm: list[SealedMemTable] = []  # sealed memtables, oldest first
        self.stats = CompactionStats(state.version.num_levels)  # what flushes and compactions did, per level
        self.flushing = False  # a flush job of this family is in flight
        self.compacting = False  # a compaction job of this family is in flight
        self._shape: tuple[int, int, int] | None = None  # (version epoch, L0 runs, pending bytes), checked per write

    @property
    def id(self) -> int:
        """Column family id (0 is "default")."""
        return self.state.id

    @property
    def name(self) -> str:
        """Column family name."""
        return self.state.name

    @property
    def version(self):
        """Its files, level by level."""
        return self.state.version

    def memtable_full(self) -> bool:
        """True once the active memtable reached ``memtable_bytes``."""
        return self.mem.nbytes >= self.options.memtable_bytes

    def memory_bytes(self) -> int:
        """Bytes held by the active and sealed memtables."""
        return self.mem.nbytes + sum(s.mem.nbytes for s in self.imm)

    def _write_shape(self) -> tuple[int, int, int]:
        """The file-set figures the write controller checks before every write, recomputed only when the file set
        changed (a write must not pay for a walk over the levels)."""
        v = self.version
        if self._shape is None or self._shape[0] != v.epoch:
            if self.options.compaction == "universal":
                runs, pending = len(sorted_runs(v)), 0
            else:
                base, targets = self.level_targets()
                runs, pending = len(v.levels[0]), pending_compaction_bytes(v, self.options, base, targets)
            self._shape = (v.epoch, runs, pending)
        return self._shape

    def l0_runs(self) -> int:
        """What the L0 triggers count: L0 files (leveled) or sorted runs (universal), as RocksDB does."""
        return self._write_shape()[1]

    def level_targets(self):
        """(base level, target bytes per level) of leveled compaction."""
        return level_targets(self.version, self.options)

    def scores(self) -> list[float]:
        """Compaction score per level (leveled), or L0's runs over the trigger (universal)."""
        if self.options.compaction == "universal":
            return [self.l0_runs() / self.options.level0_file_num_compaction_trigger]
        _, targets = self.level_targets()
        return compaction_scores(self.version, self.options, targets)

    def pending_compaction_bytes(self) -> int:
        """RocksDB's estimate of compaction debt (leveled only; 0 for universal, as in RocksDB)."""
        return self._write_shape()[2]
