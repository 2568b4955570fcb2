"""Opening a database: create it, or recover it from its MANIFEST and WALs (RocksDB's DBImpl::Recover).

Recovery, all of its IO attributed to the cause ``recovery``:

1. Read CURRENT and the MANIFEST it names: the file set of every column family, the keyspaces, the counters.
   Without CURRENT the device holds no database, and a new one is created (``create_if_missing``), but only where
   nothing could be lost: an empty device, or the debris of a creation that crashed before CURRENT existed (the
   first MANIFEST and ``CURRENT.tmp``, which hold no data). SSTs, WALs or other files without CURRENT are a
   database that lost its CURRENT: ``NotADatabaseError``, never an empty database over them.
2. Check the chain of files (wal_chain.py): every SST the MANIFEST names is there with its listed size, and the
   WALs numbered at or above the smallest log number vouch for each other and for the MANIFEST, which vouches for
   the newest; a file missing, cut, emptied, swapped or rolled back is ``CorruptionError`` naming it.
3. Replay those WALs in order into fresh memtables, skipping a family's records in WALs older than its log
   number (already flushed). Damage is met as ``wal_recovery_mode`` says (wal_recovery.py): by default a torn tail
   ends the replay and damage to synced records raises CorruptionError. ``engine.recovery`` reports what happened.
4. Only then, with everything checked, delete what no durable state names: SSTs absent from every version
   (outputs of jobs that crashed before their MANIFEST edit), other MANIFESTs, a stray ``CURRENT.tmp``, WALs older
   than every family's log number. If the MANIFEST's last edit was torn, unnamed SSTs are kept instead: that edit
   may have named them, so they are not provably obsolete, and ``minidb repair`` can still salvage them. An open
   that fails before this step has deleted nothing.
5. With ``avoid_flush_during_recovery`` (the default) the replayed WALs stay, the memtables hold their records
   until the next flush, and the MANIFEST read in step 1 goes on being appended to: an open that changes nothing
   durable writes only the new WAL's header, which waits for the first batch if the disk is full, so a database
   reopens on a full disk. Where replay stopped in the last WAL (a torn tail, or kPointInTimeRecovery's stop),
   that WAL is cut there (truncating needs no space), as a WAL followed by a newer one must read cleanly to its
   end. Replay that skipped damage (kSkipAnyCorruptedRecords) or stopped before the last WAL flushes instead, so
   the damage is not met again. Flushing: the memtables are flushed to L0, a fresh MANIFEST holding the whole
   state is written, CURRENT points to it and the replayed WALs and the old MANIFEST are deleted. Either way a
   new WAL, vouching for the last one kept, takes the writes from now on. A crash at any step leaves the old state
   intact for next time.

A ``read_only`` open does steps 1 to 3 only (the WALs are replayed into memory, up to the damage the mode stops
at): it creates, writes, renames and deletes nothing, and takes no lock, as RocksDB's OpenForReadOnly.

``recover(...)`` does all of it and returns the state the engine starts from (a ``Recovery``): the version set,
the column families with their memtables, the keyspaces, the last sequence number, the new WAL (None read-only)
and the WAL files on the device.
"""

from __future__ import annotations

import re

from minidb.errors import CorruptionError, DatabaseExistsError, DatabaseMissingError, NotADatabaseError

from .column_family import ColumnFamily
from .iterator import MergingIterator
from .jobs import write_tables
from .memtable import MemTable
from .table_outputs import TableOutputs, sst_name
from .version_set import CURRENT, CURRENT_TMP, CFState, VersionSet, manifest_name, parse_manifest_name
from .version import Version
from . import wal_chain
from .wal import WalHeader, WalWriter, read_wals, replay, wal_name
from .write_batch import apply_batch

_NUMBERED = re.compile(r"^(\d{6,})\.(sst|log)$")
# What a creation that crashed before CURRENT existed can leave: the first MANIFEST and the CURRENT it was writing.
# Neither holds data (the first WAL is created after CURRENT), so deleting them loses nothing.
CREATION_DEBRIS = (manifest_name(1), CURRENT_TMP)


def _numbered(name: str) -> tuple[int, str] | None:
    m = _NUMBERED.match(name)
    return (int(m.group(1)), m.group(2)) if m else None


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
        self.wal: WalWriter | None = None  # the new WAL the engine writes to (None when read_only)
        self.wal_numbers: list[int] = []  # WAL files on the device, oldest first
        self.recovery: dict = {}  # what the WAL replay did (wal_recovery.ReplayReport.as_dict())

    def _job_context(self):
        return self._job_context_for(self.vs, self.cfs)

    def _open(self) -> None:
        read_only = self.db.read_only
        with self.device.stats.cause("recovery"):
            self.vs = VersionSet(self.device)
            if self._database_exists():
                self.vs.recover(self._num_levels)
            else:
                self._create()
            families_added = self._attach_families()
            # Everything is checked and replayed before any file is deleted: an open that finds damage changes
            # nothing, and one that gets through deletes only what the state it proved whole makes obsolete.
            self._check_live_files()
            oldest = min(cf.state.log_number for cf in self.cfs.values())
            wal_numbers = sorted(n for n, kind in filter(None, map(_numbered, self.device.list()))
                                 if kind == "log" and n >= oldest)
            logs = read_wals(self.device, wal_numbers)
            synced = wal_chain.check(logs, wal_chain.Expected(oldest, self.vs.tracked_wal, self.vs.manifest_number,
                                                              self.vs.manifest_intact))
            replayed, report = replay(logs, self._replay_record, self.db.wal_recovery_mode, synced)
            self.recovery = report.as_dict()
            self.last_sequence = max(self.vs.last_sequence, replayed)
            if read_only:
                return
            self._remove_orphans(oldest)
            keep_wals = self.db.avoid_flush_during_recovery and report.skipped == 0 and (
                report.stop is None or report.stop[0] == wal_numbers[-1])
            if keep_wals:
                if report.stop is not None:
                    f = self.device.open(wal_name(report.stop[0]), kind="wal")
                    f.truncate(report.stop[1])
                    f.close()
                self.wal_numbers = list(wal_numbers)
                if families_added or not self.vs.manifest_clean:
                    self.vs.last_sequence = self.last_sequence
                    self.vs.write_new_manifest()
                else:
                    self.vs.append_to_recovered()
                new_wal = self.vs.new_file_number()  # after the MANIFEST: a new database's first one is number 1
                predecessor = self._newest_holding(wal_numbers)
            else:
                new_wal = self.vs.new_file_number()
                for cf in self.cfs.values():
                    if cf.mem.entries:
                        self._recovery_flush(cf)
                    cf.state.log_number = new_wal
                self.vs.last_sequence = self.last_sequence
                self.vs.write_new_manifest()
                for n in wal_numbers:
                    self.device.delete(wal_name(n))
                predecessor = (0, 0)  # the replayed WALs are gone, and below every log number
            header = WalHeader(new_wal, *predecessor, self.vs.manifest_number, self.vs.manifest_size)
            self.wal = WalWriter(self.device, header, self.db.wal_sync, not self.db.reproduce_2018_disk_full_bug)
            self.wal.synced_seq = self.last_sequence
            self.wal_numbers.append(new_wal)
            self.vs.wal = self.wal

    def _newest_holding(self, numbers: list[int]) -> tuple[int, int]:
        """(number, size) of the newest of WALs ``numbers`` that holds records, as they are now; (0, 0) if none."""
        for n in reversed(numbers):
            size = self.device.size(wal_name(n))
            if size:
                return n, size
        return 0, 0

    def _database_exists(self) -> bool:
        """True if the device holds a database (CURRENT exists); False if one may be created here; otherwise the
        error the options call for (see the module docstring)."""
        if self.device.exists(CURRENT):
            if self.db.error_if_exists:
                raise DatabaseExistsError(f"{self.device!r} already holds an LSM database (error_if_exists=True)")
            return True
        files = [n for n in self.device.list() if n not in CREATION_DEBRIS]
        if files:
            shown = ", ".join(files[:6]) + (f" and {len(files) - 6} more" if len(files) > 6 else "")
            raise NotADatabaseError(
                f"{self.device!r} holds files ({shown}) but no {CURRENT}: not an LSM database, or one whose "
                f"{CURRENT} was lost; refusing to create a new database over them (restore {CURRENT}, which names "
                f"the MANIFEST in use, or move the files away)")
        if self.db.read_only or not self.db.create_if_missing:
            why = "read_only=True" if self.db.read_only else "create_if_missing=False"
            raise DatabaseMissingError(f"{self.device!r} holds no LSM database ({why})")
        return False

    def _num_levels(self, cf_name: str) -> int:
        return num_levels(self.cf_options, cf_name)

    def _create(self) -> None:
        for name in self.device.list():
            self.device.delete(name)  # CREATION_DEBRIS: nothing else is here (see _database_exists)
        self.vs.cfs[0] = CFState(0, "default", Version.empty(self._num_levels("default")))
        self.vs.next_file_number = 1  # the first MANIFEST is written at the end of _open, like every open's

    def _attach_families(self) -> bool:
        """Give each family of the MANIFEST its options; create the configured families it lacks (True if any)."""
        added = False
        for name in self.cf_options:
            if self.vs.cf_by_name(name) is None:
                cf_id = max(self.vs.cfs) + 1
                self.vs.cfs[cf_id] = CFState(cf_id, name, Version.empty(self._num_levels(name)))
                added = True
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
        return added

    def _remove_orphans(self, oldest_wal: int) -> None:
        live = {f.number for cf in self.cfs.values() for _, f in cf.version.all_files()}
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
        self.vs.next_file_number = top  # never reuse the number of a file that was on the device

    def _check_live_files(self) -> None:
        """Every SST the MANIFEST names is there with the size it lists (its properties are checked when it is
        first read, table_reader.py)."""
        files = [f for cf in self.cfs.values() for _, f in cf.version.all_files()]
        missing = [f.number for f in files if not self.device.exists(sst_name(f.number))]
        if missing:
            raise CorruptionError(f"the MANIFEST names SSTs that do not exist: "
                                  f"{', '.join(map(sst_name, missing[:10]))}")
        for f in files:
            size = self.device.size(sst_name(f.number))
            if size != f.size:
                raise CorruptionError(f"{sst_name(f.number)} holds {size} bytes, but the MANIFEST lists {f.size}: "
                                      f"cut, extended or replaced by another file")

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
