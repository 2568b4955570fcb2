"""Opening a database: create it, or recover it from its MANIFEST and WALs (RocksDB's DBImpl::Recover).

Recovery, all of its IO attributed to the cause ``recovery``:

1. Read CURRENT and the MANIFEST it names: the file set of every column family, the keyspaces, the counters.
   Without CURRENT the device holds no database, and a new one is created (``create_if_missing``), but only where
   nothing could be lost: an empty device, or the debris of a creation that crashed before CURRENT existed (the
   first MANIFEST and ``CURRENT.tmp``, which hold no data). SSTs, WALs or other files without CURRENT are a
   database that lost its CURRENT: ``NotADatabaseError``, never an empty database over them.
2. Delete what no durable state names: SSTs absent from every version (outputs of jobs that crashed before their
   MANIFEST edit), other MANIFESTs, a stray ``CURRENT.tmp``, WALs older than every family's log number.
3. Replay the remaining WALs in order into fresh memtables, skipping a family's records in WALs older than its log
   number (already flushed). A torn tail ends the replay (and is cut off, so the WAL can be kept); damage to
   synced records raises CorruptionError.
4. With ``avoid_flush_during_recovery`` (the default) the replayed WALs stay, the memtables hold their records
   until the next flush, and the MANIFEST read in step 1 goes on being appended to: an open that changes nothing
   durable writes nothing, so a database reopens on a full disk. Otherwise the memtables are flushed to L0, a fresh
   MANIFEST holding the whole state is written, CURRENT points to it and the replayed WALs and the old MANIFEST are
   deleted. Either way a new, empty WAL takes the writes from now on. A crash at any step leaves the old state
   intact for next time.

A ``read_only`` open does steps 1 and 3 only (the WALs are replayed into memory, torn tail and all): it creates,
writes, renames and deletes nothing, and takes no lock, as RocksDB's OpenForReadOnly.
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
from .wal import WalWriter, replay, wal_name
from .write_batch import apply_batch

_NUMBERED = re.compile(r"^(\d{6,})\.(sst|log)$")
# What a creation that crashed before CURRENT existed can leave: the first MANIFEST and the CURRENT it was writing.
# Neither holds data (the first WAL is created after CURRENT), so deleting them loses nothing.
CREATION_DEBRIS = (manifest_name(1), CURRENT_TMP)


def _numbered(name: str) -> tuple[int, str] | None:
    m = _NUMBERED.match(name)
    return (int(m.group(1)), m.group(2)) if m else None


class RecoveryMixin:
    """``_open``: create or recover the database (see the module docstring)."""

    def _open(self) -> None:
        read_only = self.db.read_only
        with self.device.stats.cause("recovery"):
            self.vs = VersionSet(self.device)
            if self._database_exists():
                self.vs.recover(self._num_levels)
            else:
                self._create()
            families_added = self._attach_families()
            if not read_only:
                self._remove_orphans()
            self._check_live_files()
            wal_numbers = sorted(n for n, kind in filter(None, map(_numbered, self.device.list())) if kind == "log")
            replayed_last, torn_at = replay(self.device, wal_numbers, self._replay_record)
            self.last_sequence = max(self.vs.last_sequence, replayed_last)
            self._wal_numbers = []  # WAL files on the device, oldest first
            if read_only:
                self.wal = None
                return
            if self.db.avoid_flush_during_recovery:
                if torn_at is not None:
                    # Cut the torn tail off (truncating needs no space): the WAL is kept, and a WAL followed by a
                    # newer one must read cleanly to its end.
                    f = self.device.open(wal_name(wal_numbers[-1]), kind="wal")
                    f.truncate(torn_at)
                    f.close()
                self._wal_numbers = list(wal_numbers)
                if families_added or not self.vs.manifest_clean:
                    self.vs.last_sequence = self.last_sequence
                    self.vs.write_new_manifest()
                else:
                    self.vs.append_to_recovered()
                new_wal = self.vs.new_file_number()
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
            self.wal = WalWriter(self.device, new_wal, self.db.wal_sync)
            self.wal.synced_seq = self.last_sequence
            self._wal_numbers.append(new_wal)

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
        o = self.cf_options.get(cf_name, self.cf_options["default"])
        return o.num_levels

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
        self._memtables = [None] * (max(self.cfs) + 1)
        for cf in self.cfs.values():
            self._memtables[cf.id] = cf.mem
        mapping = self.db.keyspace_cf or {}
        for ks, (ks_id, cf_id, unique) in self.vs.keyspaces.items():
            wanted = mapping.get(ks)
            actual = self.cfs[cf_id].name
            if wanted is not None and wanted != actual:
                raise ValueError(f"bad option keyspace_cf: keyspace {ks!r} is stored in column family {actual!r}, "
                                 f"not {wanted!r}")
            self._ks_table[ks] = (cf_id, ks_id.to_bytes(4, "big"))
        return added

    def _remove_orphans(self) -> None:
        live = {f.number for cf in self.cfs.values() for _, f in cf.version.all_files()}
        oldest_wal = min(cf.state.log_number for cf in self.cfs.values())
        top = self.vs.next_file_number
        for name in self.device.list():
            num = _numbered(name)
            if num is not None:
                top = max(top, num[0] + 1)
                if (num[1] == "sst" and num[0] not in live) or (num[1] == "log" and num[0] < oldest_wal):
                    self.device.delete(name)
            elif name == CURRENT_TMP or (parse_manifest_name(name) not in (None, self.vs.manifest_number)):
                self.device.delete(name)
        self.vs.next_file_number = top  # never reuse the number of a file that was on the device

    def _check_live_files(self) -> None:
        missing = [f.number for cf in self.cfs.values() for _, f in cf.version.all_files()
                   if not self.device.exists(sst_name(f.number))]
        if missing:
            raise CorruptionError(f"the MANIFEST names SSTs that do not exist: {missing[:10]}")

    def _replay_record(self, payload: bytes, wal_number: int) -> None:
        skip = [mem is not None and wal_number < self.cfs[i].state.log_number
                for i, mem in enumerate(self._memtables)]
        apply_batch(payload, self._memtables, skip)

    def _recovery_flush(self, cf) -> None:
        base, _ = cf.level_targets()
        outputs = TableOutputs(self, cf, 0, cf.options.compression_for(0, base, False), "recovery")
        write_tables(self, "recovery", lambda: MergingIterator([cf.mem.iterator()]), outputs)
        for f in outputs.files:
            cf.version.add(0, f)
            cf.stats.add_flush(f.size, 0.0)
        self.counters["key_compares"] += cf.mem.compares
        cf.mem = self._memtables[cf.id] = MemTable()
