"""VersionSet: the file sets of all column families, and the MANIFEST that makes every change to them durable.

The MANIFEST (``MANIFEST-NNNNNN``) is a log (log_format.py) of VersionEdits; the ``CURRENT`` file names the MANIFEST
in use. A change is durable once its edit is appended and synced, and only then applied in memory: a flush or a
compaction writes and syncs its output SSTs first, then logs the edit, then deletes what became obsolete. A crash
at any point leaves either the old file set or the new one, and output files the MANIFEST never named are orphans,
deleted at the next open.

At each open the engine writes a fresh MANIFEST holding one edit, a snapshot of the whole state, then points CURRENT
to it: it writes ``CURRENT.tmp``, syncs it and renames it over ``CURRENT`` (a rename is atomic), so a crash leaves
CURRENT naming either the old MANIFEST or the new one, both complete.

Every edit the engine logs carries the next file number and the last sequence number, so counters survive restarts,
and the WAL being written with its bytes synced so far (RocksDB's ``track_and_verify_wals_in_manifest`` tracks
WALs the same way): recovery finds that WAL missing or cut short (wal_chain.py). The first edit of every MANIFEST
carries the format version (``FORMAT_VERSION``); a MANIFEST without it is refused by name. MANIFEST records are
synced one at a time, so only the last can be torn by a crash: damage followed by a valid
record is corruption (``CorruptionError``), and so is damage at the end that does not look like a torn write
(``log_reader.torn``); a torn last edit is ignored, and ``tail_dropped`` tells recovery that the SSTs it may have
named are not provably orphans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from minidb.errors import CorruptionError

from .log_reader import Drop, scan
from .log_writer import LogWriter
from .version import Version
from .version_edit import FORMAT_VERSION, VersionEdit

CURRENT = "CURRENT"  # names the MANIFEST in use
CURRENT_TMP = "CURRENT.tmp"  # written, synced, then renamed over CURRENT
_MANIFEST_RE = re.compile(r"^MANIFEST-(\d{6,})$")


def manifest_name(number: int) -> str:
    """File name of MANIFEST number ``number``."""
    return f"MANIFEST-{number:06d}"


@dataclass
class CFState:
    """One column family as the MANIFEST knows it."""

    id: int  # column family id (0 is "default")
    name: str  # column family name
    version: Version  # its files
    log_number: int = 0  # WALs below this number hold none of its unflushed data
    compact_pointers: dict[int, bytes] = field(default_factory=dict)  # level -> internal key (round-robin picking)


class VersionSet:
    """The durable state of a database; see the module docstring."""

    def __init__(self, device) -> None:
        self.device = device  # where the MANIFEST and CURRENT live
        self.cfs: dict[int, CFState] = {}  # column families by id
        self.keyspaces: dict[str, tuple[int, int, bool]] = {}  # keyspace name -> (id, cf id, unique)
        self.next_file_number = 1  # file numbers below this are taken
        self.last_sequence = 0  # sequence numbers up to this are used (as of the last edit)
        self.manifest_number = 0  # the MANIFEST in use
        self.manifest_size = 0  # bytes in it
        self.file = None  # the MANIFEST's open file
        self.writer: LogWriter | None = None  # its record framing
        self.broken = False  # a failed append may have left bytes behind: the next edit starts a new MANIFEST
        self.tail_dropped = False  # recover() ignored a torn last edit
        self.numbers: set[int] = set()  # the file numbers in some version: a number may be in one place only
        self.manifest_clean = False  # recover() read the MANIFEST to its end without a torn edit (may append to it)
        self.manifest_intact = 0  # recover(): bytes of the MANIFEST up to the end of its last intact edit
        self.tracked_wal: tuple[int, int] | None = None  # (WAL number, synced bytes) its last edit recorded
        self.wal = None  # the WalWriter being written, recorded in every edit (the engine sets it)

    # -- state ---------------------------------------------------------------------------------------------------
    def cf_by_name(self, name: str) -> CFState | None:
        """The column family named ``name``, or None."""
        return next((cf for cf in self.cfs.values() if cf.name == name), None)

    def new_file_number(self) -> int:
        """Take the next file number."""
        n = self.next_file_number
        self.next_file_number += 1
        return n

    def apply(self, edit: VersionEdit, num_levels) -> None:
        """Apply ``edit`` in memory. ``num_levels(cf name)`` sizes the version of a family the edit creates."""
        for cf_id, name in edit.column_families:
            if cf_id in self.cfs:
                raise CorruptionError(f"MANIFEST creates column family {cf_id} ({name!r}) twice")
            self.cfs[cf_id] = CFState(cf_id, name, Version.empty(num_levels(name)))
        for ks_id, name, cf_id, unique in edit.keyspaces:
            self.keyspaces[name] = (ks_id, cf_id, unique)
        for cf_id, number in edit.log_numbers.items():
            self._cf(cf_id).log_number = number
        if edit.next_file_number is not None:
            self.next_file_number = max(self.next_file_number, edit.next_file_number)
        if edit.last_sequence is not None:
            self.last_sequence = max(self.last_sequence, edit.last_sequence)
        for cf_id, level, key in edit.compact_pointers:
            self._cf(cf_id).compact_pointers[level] = key
        for cf_id, level, number in edit.deleted_files:
            try:
                self._cf(cf_id).version.remove(level, number)
                self.numbers.discard(number)
            except KeyError:
                raise CorruptionError(f"MANIFEST deletes file {number} absent from L{level} of column family "
                                      f"{cf_id}") from None
        for cf_id, level, f in edit.new_files:
            version = self._cf(cf_id).version
            if level >= version.num_levels:
                raise ValueError(f"file {f.number} is in L{level} but column family {self._cf(cf_id).name!r} has "
                                 f"num_levels={version.num_levels}: open with num_levels > {level}")
            if f.number in self.numbers:
                raise CorruptionError(f"MANIFEST lists file {f.number} twice (again in L{level} of column family "
                                      f"{cf_id})")
            self.numbers.add(f.number)
            version.add(level, f)

    def _cf(self, cf_id: int) -> CFState:
        try:
            return self.cfs[cf_id]
        except KeyError:
            raise CorruptionError(f"MANIFEST names unknown column family {cf_id}") from None

    def wal_position(self) -> tuple[int, int] | None:
        """(number, synced bytes) of the WAL being written, for an edit; before there is one, what the recovered
        MANIFEST recorded."""
        return (self.wal.number, self.wal.synced_size) if self.wal is not None else self.tracked_wal

    def snapshot(self) -> VersionEdit:
        """One edit that recreates the whole state (the first of a MANIFEST: it carries the format version)."""
        edit = VersionEdit(next_file_number=self.next_file_number, last_sequence=self.last_sequence,
                           format=FORMAT_VERSION, wal=self.wal_position())
        for cf in sorted(self.cfs.values(), key=lambda c: c.id):
            edit.column_families.append((cf.id, cf.name))
            edit.log_numbers[cf.id] = cf.log_number
            for level, key in sorted(cf.compact_pointers.items()):
                edit.compact_pointers.append((cf.id, level, key))
            for level, f in cf.version.all_files():
                edit.new_files.append((cf.id, level, f))
        for name, (ks_id, cf_id, unique) in sorted(self.keyspaces.items(), key=lambda kv: kv[1][0]):
            edit.keyspaces.append((ks_id, name, cf_id, unique))
        return edit

    # -- the MANIFEST file ------------------------------------------------------------------------------------------
    def log_and_apply(self, edit: VersionEdit, last_sequence: int, num_levels) -> None:
        """Make ``edit`` durable, then apply it; on OSError nothing is applied (and the MANIFEST is intact)."""
        edit.next_file_number = self.next_file_number
        edit.last_sequence = max(self.last_sequence, last_sequence)
        edit.wal = self.wal_position()
        if self.broken:
            self.write_new_manifest()
        data, block_offset = self.writer.encode(edit.encode())
        start = self.manifest_size
        try:
            self.file.append(data)  # a full disk may let part of it through (Device.short_writes): cut it below
            self.file.sync()
        except OSError:
            try:
                self.file.truncate(start)
                self.writer = LogWriter(start)
            except OSError:
                self.broken = True  # the edit may or may not be in the file: never append after it
            raise
        self.manifest_size += len(data)
        self.writer.commit(block_offset)
        self.apply(edit, num_levels)
        if self.wal is not None:
            self.wal.mark(self.manifest_number, self.manifest_size)  # the WAL vouches for this edit (wal_chain.py)

    def write_new_manifest(self) -> None:
        """Start a new MANIFEST holding a snapshot of the state, point CURRENT to it, delete the old one."""
        old = self.manifest_number
        number = self.new_file_number()
        name = manifest_name(number)
        f = self.device.open(name, kind="manifest", create=True)
        try:
            writer = LogWriter(0)
            data, block_offset = writer.encode(self.snapshot().encode())
            f.append(data)
            f.sync()
            set_current(self.device, name)
        except OSError:
            f.close()
            if self.device.exists(name):
                self.device.delete(name)
            raise
        if self.file is not None:
            self.file.close()
        self.file, self.writer, self.manifest_number, self.manifest_size = f, writer, number, len(data)
        writer.commit(block_offset)
        self.broken = False
        if self.wal is not None:
            self.wal.mark(number, len(data))
        if old and self.device.exists(manifest_name(old)):
            self.device.delete(manifest_name(old))

    def append_to_recovered(self) -> None:
        """Go on appending to the MANIFEST ``recover`` read (which must be ``manifest_clean``) instead of writing a
        new one: an open that changes no durable state then writes nothing, and needs no free space."""
        assert self.manifest_clean, "a MANIFEST with a torn last edit must be replaced, not appended to"
        self.file = self.device.open(manifest_name(self.manifest_number), kind="manifest")
        self.manifest_size = self.file.size
        self.writer = LogWriter(self.manifest_size)

    def close(self) -> None:
        """Release the MANIFEST handle."""
        if self.file is not None:
            self.file.close()
            self.file = None

    # -- recovery -----------------------------------------------------------------------------------------------------
    def recover(self, num_levels) -> None:
        """Load the state from CURRENT and its MANIFEST (the caller checks CURRENT exists)."""
        cur = self.device.open(CURRENT, kind="manifest")
        try:
            text = cur.read(0, cur.size)
        finally:
            cur.close()
        name = text.decode(errors="replace").strip()
        m = _MANIFEST_RE.match(name)
        if not text.endswith(b"\n") or m is None:
            raise CorruptionError(f"CURRENT does not name a MANIFEST: {text[:80]!r}")
        if not self.device.exists(name):
            raise CorruptionError(f"CURRENT names {name}, which does not exist")
        f = self.device.open(name, kind="manifest")
        try:
            data = f.read(0, f.size)
        finally:
            f.close()
        events = scan(data)
        for event in events:
            if isinstance(event, Drop):
                if event.offset == 0:
                    raise CorruptionError(f"{name} offset 0: {event.reason}: its first edit, written and synced "
                                          f"before {CURRENT} named it, is damaged")
                if not event.tail:
                    raise CorruptionError(f"{name} offset {event.offset}: {event.reason}, before valid edits")
                if not event.torn:
                    raise CorruptionError(f"{name} offset {event.offset}: {event.reason}, and the damage is not a "
                                          f"torn write (no sector lost, no record cut by the end of the file)")
                self.tail_dropped = True
                break  # a torn last edit: it was never synced, so never acted upon
            edit = VersionEdit.decode(event.payload, f"{name} offset {event.start}")
            if event.start == 0:
                _check_format(name, edit.format)
            self.apply(edit, num_levels)
            self.manifest_intact = event.end
            if edit.wal is not None:
                self.tracked_wal = edit.wal
        if not events:
            raise CorruptionError(f"{name} is empty: {CURRENT} names it, so it held at least its first edit")
        self.manifest_clean = not self.tail_dropped
        if 0 not in self.cfs:
            raise CorruptionError(f"{name} does not create the default column family")
        for cf in self.cfs.values():
            for level in range(1, cf.version.num_levels):
                files = cf.version.levels[level]
                for a, b in zip(files, files[1:]):
                    if not a.largest_user < b.smallest_user:
                        raise CorruptionError(f"{name}: files {a.number} and {b.number} overlap in L{level} of "
                                              f"column family {cf.name!r}")
        self.manifest_number = int(m.group(1))
        self.next_file_number = max(self.next_file_number, self.manifest_number + 1)


def _check_format(name: str, version: int | None) -> None:
    """CorruptionError unless a MANIFEST's first edit says it is of ``FORMAT_VERSION``."""
    if version == FORMAT_VERSION:
        return
    if version is None:
        raise CorruptionError(f"{name}: its first edit names no format version: a MANIFEST written before format "
                              f"{FORMAT_VERSION} (which this minidb does not read: recreate the database), or a "
                              f"damaged one")
    raise CorruptionError(f"{name}: format version {version}, but this minidb reads version {FORMAT_VERSION} only")


def set_current(device, manifest: str) -> None:
    """Point CURRENT to ``manifest`` atomically (write a temporary file, sync it, rename it)."""
    if device.exists(CURRENT_TMP):
        device.delete(CURRENT_TMP)
    tmp = device.open(CURRENT_TMP, kind="manifest", create=True)
    try:
        tmp.append(manifest.encode() + b"\n")
        tmp.sync()
    finally:
        tmp.close()
    device.rename(CURRENT_TMP, CURRENT)


def parse_manifest_name(name: str) -> int | None:
    """The number of a MANIFEST file name, or None if ``name`` is not one."""
    m = _MANIFEST_RE.match(name)
    return int(m.group(1)) if m else None
