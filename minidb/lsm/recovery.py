"""Opening a database: create it, or recover it from its MANIFEST and WALs (RocksDB's DBImpl::Recover).

Recovery, all of its IO attributed to the cause ``recovery``:

1. Read CURRENT and the MANIFEST it names: the file set of every column family, the keyspaces, the counters.
   Without CURRENT the device holds no database yet (or only the debris of a creation that crashed): create one.
2. Delete what no durable state names: SSTs absent from every version (outputs of jobs that crashed before their
   MANIFEST edit), other MANIFESTs, a stray ``CURRENT.tmp``, WALs older than every family's log number. If the
   MANIFEST's last edit was torn, unnamed SSTs are kept instead: that edit may have named them, so they are not
   provably obsolete, and ``minidb repair`` can still salvage them.
3. Replay the remaining WALs in order into fresh memtables, skipping a family's records in WALs older than its log
   number (already flushed). Damage is met as ``wal_recovery_mode`` says (wal_recovery.py): by default a torn tail
   ends the replay and damage to synced records raises CorruptionError. ``engine.recovery`` reports what happened.
4. Flush the recovered memtables to L0, write a fresh MANIFEST holding the whole state, point CURRENT to it, then
   delete the replayed WALs and the old MANIFEST. A crash at any step leaves the old state intact for next time.

``recover(...)`` does all of it and returns the state the engine starts from (a ``Recovery``): the version set,
the column families with their memtables, the keyspaces, the last sequence number and the new WAL.
"""

from __future__ import annotations

import re

from minidb.errors import CorruptionError

from .column_family import ColumnFamily
from .iterator import MergingIterator
from .jobs import write_tables
from .memtable import MemTable
from .table_outputs import TableOutputs, sst_name
from .version_set import CURRENT, CURRENT_TMP, CFState, VersionSet, parse_manifest_name
from .version import Version
from .wal import WalWriter, replay, wal_name
from .write_batch import apply_batch

_NUMBERED = re.compile(r"^(\d{6,})\.(sst|log)$")


def _numbered(name: str) -> tuple[int, str] | None:
    m = _NUMBERED.match(name)
    return (int(m.group(1)), m.group(2)) if m else None


def _ours(name: str) -> bool:
    return _numbered(name) is not None or parse_manifest_name(name) is not None or name in (CURRENT, CURRENT_TMP)


def recover(device, db, cf_options: dict, counters, job_context) -> Recovery:
    """Create or recover the database on ``device`` (see the module docstring) and return its state.

    ``db``, ``cf_options``: the engine's options; ``counters``: the engine's counters (the recovery flush adds its
    key comparisons); ``job_context(versions, families)``: the JobContext a recovery flush writes its L0 files with.
    """
    state = Recovery(device, db, cf_options, counters, job_context)
    state._open()
    return state


def num_levels(cf_options: dict, cf_name: str) -> int:
    """Levels of column family ``cf_name`` (the default family's options for one not configured)."""
    return cf_options.get(cf_name, cf_options["default"]).num_levels


class Recovery:
    """The state of a database just opened: what ``recover`` returns (see the module docstring)."""

    def __init__(self, device, db, cf_options: dict, counters, job_context) -> None:
        self.device = device  # where the database is
        self.db = db  # database options
        self.cf_options = cf_options  # options per column family name
        self.counters = counters  # the engine's counters
        self._job_context_for = job_context  # (versions, families) -> JobContext of a recovery flush
        self.vs: VersionSet | None = None  # the MANIFEST's state, once read or created
        self.cfs: dict = {}  # column family id -> ColumnFamily
        self.memtables: list = []  # active memtable per column family id
        self.keyspaces: dict[str, tuple[int, bytes]] = {}  # keyspace -> (column family id, 4-byte key prefix)
        self.last_sequence = 0  # sequence number of the last write recovered
        self.wal: WalWriter | None = None  # the new WAL the engine writes to
        self.recovery: dict = {}  # what the WAL replay did (wal_recovery.ReplayReport.as_dict())

    def _job_context(self):
        return self._job_context_for(self.vs, self.cfs)

    def _open(self) -> None:
        with self.device.stats.cause("recovery"):
            self.vs = VersionSet(self.device)
            if not self.device.exists(CURRENT):
                self._create()
            else:
                self.vs.recover(self._num_levels)
            self._attach_families()
            self._remove_orphans()
            wal_numbers = sorted(n for n, kind in filter(None, map(_numbered, self.device.list())) if kind == "log")
            replayed, report = replay(self.device, wal_numbers, self._replay_record, self.db.wal_recovery_mode)
            self.recovery = report.as_dict()
            self.last_sequence = max(self.vs.last_sequence, replayed)
            new_wal = self.vs.new_file_number()
            for cf in self.cfs.values():
                if cf.mem.entries:
                    self._recovery_flush(cf)
                cf.state.log_number = new_wal
            self.vs.last_sequence = self.last_sequence
            self.vs.write_new_manifest()
            for n in wal_numbers:
                self.device.delete(wal_name(n))
            self.wal = WalWriter(self.device, new_wal, self.db.wal_sync, not self.db.reproduce_2018_disk_full_bug)
            self.wal.synced_seq = self.last_sequence

    def _num_levels(self, cf_name: str) -> int:
        return num_levels(self.cf_options, cf_name)

    def _create(self) -> None:
        for name in self.device.list():
            if _ours(name):
                self.device.delete(name)  # debris of a creation that crashed before CURRENT existed
        self.vs.cfs[0] = CFState(0, "default", Version.empty(self._num_levels("default")))
        self.vs.next_file_number = 1  # the first MANIFEST is written at the end of _open, like every open's

    def _attach_families(self) -> None:
        """Give each family of the MANIFEST its options; create the configured families it lacks."""
        for name in self.cf_options:
            if self.vs.cf_by_name(name) is None:
                cf_id = max(self.vs.cfs) + 1
                self.vs.cfs[cf_id] = CFState(cf_id, name, Version.empty(self._num_levels(name)))
        for cf_id, state in sorted(self.vs.cfs.items()):
            options = self.cf_options.get(state.name, self.cf_options["default"])
            self.cfs[cf_id] = ColumnFamily(state, options)
        self.memtables = [None] * (max(self.cfs) + 1)
        for cf in self.cfs.values():
            self.memtables[cf.id] = cf.mem
        mapping = self.db.keyspace_cf or {}
        for ks, (ks_id, cf_id, unique) in self.vs.keyspaces.items():
            wanted = mapping.get(ks)
            actual = self.cfs[cf_id].name
            if wanted is not None and wanted != actual:
                raise ValueError(f"bad option keyspace_cf: keyspace {ks!r} is stored in column family {actual!r}, "
                                 f"not {wanted!r}")
            self.keyspaces[ks] = (cf_id, ks_id.to_bytes(4, "big"))

    def _remove_orphans(self) -> None:
        live = {f.number for cf in self.cfs.values() for _, f in cf.version.all_files()}
        oldest_wal = min(cf.state.log_number for cf in self.cfs.values())
        top = self.vs.next_file_number
        for name in self.device.list():
            num = _numbered(name)
            if num is not None:
                top = max(top, num[0] + 1)
                orphan_sst = num[1] == "sst" and num[0] not in live and not self.vs.tail_dropped
                if orphan_sst or (num[1] == "log" and num[0] < oldest_wal):
                    self.device.delete(name)
            elif name == CURRENT_TMP or (parse_manifest_name(name) not in (None, self.vs.manifest_number)):
                self.device.delete(name)
        missing = [f.number for cf in self.cfs.values() for _, f in cf.version.all_files()
                   if not self.device.exists(sst_name(f.number))]
        if missing:
            raise CorruptionError(f"the MANIFEST names SSTs that do not exist: {missing[:10]}")
        self.vs.next_file_number = top  # never reuse the number of a file that was on the device

    def _replay_record(self, payload: bytes, wal_number: int) -> None:
        skip = [mem is not None and wal_number < self.cfs[i].state.log_number
                for i, mem in enumerate(self.memtables)]
        apply_batch(payload, self.memtables, skip)

    def _recovery_flush(self, cf) -> None:
        base, _ = cf.level_targets()
        ctx = self._job_context()
        outputs = TableOutputs(ctx, cf, 0, cf.options.compression_for(0, base, False), "recovery")
        write_tables(ctx, "recovery", lambda: MergingIterator([cf.mem.iterator()]), outputs)
        for f in outputs.files:
            cf.version.add(0, f)
            cf.stats.add_flush(f.size, 0.0)
        self.counters["key_compares"] += cf.mem.compares
        cf.mem = self.memtables[cf.id] = MemTable()
