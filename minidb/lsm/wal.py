"""The write-ahead log: every write batch is appended here before it touches a memtable.

One WAL file (``NNNNNN.log``) is written at a time; the engine starts a new one whenever it seals a memtable, so a
WAL can be deleted once every column family has flushed the memtables it fed (the MANIFEST records, per column
family, the oldest WAL still needed: its *log number*).

**Sync policy** (``wal_sync``): ``"write"`` syncs after every batch (nothing acknowledged is ever lost);
``("every", N)`` syncs after every N batches (a crash loses at most the last N-1 acknowledged batches);
``"none"`` never syncs on its own (a crash loses what the OS had not written). Whatever the policy, a WAL is synced
in full before the next WAL receives its first record, and on close.

**Group commit** (``group_commit = True``, set by a server with the binary log on): under ``"write"``, a batch's
record waits in memory, and the server's flush stage writes the records of the whole group in one append and syncs
them (``sync``), as MySQL 5.7 flushes the engines' logs once per binlog group (sql/binlog.cc,
``MYSQL_BIN_LOG::process_flush_stage_queue``: ``ha_flush_logs``; MyRocks's prepare then leaves the WAL unsynced,
its test ``2pc_group_commit`` counting fewer WAL syncs than commits). A batch is then acknowledged by the server
once its group is flushed. A WAL started meanwhile (a sealed memtable's successor) writes its header with its first
group, not with a write and a sync of its own: until then it is an empty file, as when a full disk held its header
back. A failed group append is cut back and its records stay waiting for the next ``sync``.

**Failures.** A batch is one append. A full disk may still let part of it through (a short write, as POSIX
``write(2)`` does: ``Device.short_writes``); the writer then cuts the file back to where the record began
(``truncate``), so no half record is left for a later record to follow, and the client's error means "not
written". Likewise if the append succeeded but the sync failed. Should the cut itself fail, a whole record stays
and the error says so (``record_kept``): the engine then applies it, like RocksDB, where a write that got an IO error
may or may not be in the database. The 2018 engine of the teaching mode did not cut (``cut_failed_appends=False``):
the partial record stays, and a restart meets it as a torn tail (wal_recovery.py).

**The chain.** Every WAL starts with a header record (``WalHeader``) naming the WAL itself, the WAL before it that
holds records (its *predecessor*) with that file's size, and the MANIFEST in use with its size, all as of the moment
the WAL was started. Each WAL thus vouches for the one before it and for the MANIFEST: recovery (wal_chain.py) finds
a WAL that is missing, cut, emptied, extended, swapped or replaced by an older copy, and a MANIFEST cut or rolled
back, from the headers of the WALs that follow. The header is written and synced when the WAL is created (one small
append and one sync per WAL), so that the WAL exists durably from its start and the MANIFEST's next edit can
require it; on a full disk the header waits for the first batch's append, and under group commit for the first
group's. After every MANIFEST edit the WAL being written gets a **mark** (``ManifestMark``: the MANIFEST's number
and size with that edit), one small append synced with the next batch, so that edits made since the WAL started are
vouched for too.

**Recovery** reads the WALs in order and applies their records. A crash can leave the tail of the last WAL torn
(sectors of unsynced writes lost): nothing after it was promised. Damage anywhere else is corruption of synced
data: in a WAL that is not the last (it was synced in full before its successor started), in the last WAL before a
record whose ``synced`` field shows the writer had synced past the damaged spot (see write_batch.py), or damage that
does not look like a torn write (``Drop.torn`` from log_reader.py: complete records with a wrong checksum and no
lost sector). What replay does with each is the recovery mode's call (``wal_recovery_mode``, wal_recovery.py): by
default a torn tail ends the replay silently and corruption raises ``CorruptionError``. A record whose sequence
numbers run past the 7-byte maximum is corruption in every mode.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from minidb.errors import CorruptionError

from .dbformat import MAX_SEQUENCE
from .log_reader import Drop, scan
from .log_writer import LogWriter
from .wal_recovery import DEFAULT, Problem, ReplayReport, decide
from .write_batch import batch_header


def wal_name(number: int) -> str:
    """File name of WAL number ``number``."""
    return f"{number:06d}.log"


# The header record: magic, then six fixed64 fields. Read as a batch, its first 8 bytes would be a sequence number
# past the 7-byte maximum, so a header is never taken for a batch (nor a batch for a header).
_HEADER = struct.Struct("<8sQQQQQ")
_HEADER_MAGIC = b"MDBWALH2"


@dataclass(frozen=True)
class WalHeader:
    """The first record of a WAL (see the module docstring): what the WAL vouches for."""

    number: int  # the WAL's own file number (a WAL found under another name was swapped or copied)
    predecessor: int  # the newest earlier WAL holding records when this one started (0: none)
    predecessor_size: int  # that WAL's size in bytes then (it was synced in full, and never grows again)
    manifest: int  # the number of the MANIFEST in use then
    manifest_size: int  # that MANIFEST's size then (its edits up to there were synced)

    def encode(self) -> bytes:
        """The record's payload."""
        return _HEADER.pack(_HEADER_MAGIC, self.number, self.predecessor, self.predecessor_size, self.manifest,
                            self.manifest_size)

    @classmethod
    def decode(cls, payload: bytes) -> WalHeader | None:
        """The header ``payload`` holds, or None if it is not a header (a batch)."""
        if len(payload) != _HEADER.size or payload[:8] != _HEADER_MAGIC:
            return None
        return cls(*_HEADER.unpack(payload)[1:])


_MARK = struct.Struct("<8sQQ")
_MARK_MAGIC = b"MDBMARK2"  # like the header's, never the start of a batch
MARK_TAG = "manifest-mark"  # the IO tag of marks: writes that a full disk only leaves out (``WalWriter.mark``)


@dataclass(frozen=True)
class ManifestMark:
    """A record saying the MANIFEST had this size (every edit up to there synced) when it was written."""

    manifest: int  # the MANIFEST's number
    manifest_size: int  # its size in bytes

    def encode(self) -> bytes:
        """The record's payload."""
        return _MARK.pack(_MARK_MAGIC, self.manifest, self.manifest_size)

    @classmethod
    def decode(cls, payload: bytes) -> ManifestMark | None:
        """The mark ``payload`` holds, or None if it is not a mark."""
        if len(payload) != _MARK.size or payload[:8] != _MARK_MAGIC:
            return None
        return cls(*_MARK.unpack(payload)[1:])


def is_batch(payload: bytes) -> bool:
    """Whether a WAL record's ``payload`` is a write batch, not a header or a mark."""
    return WalHeader.decode(payload) is None and ManifestMark.decode(payload) is None


class WalWriter:
    """Appends batch payloads to one new WAL file under a sync policy; see the module docstring.

    ``header`` is what the WAL vouches for (its ``number`` is this WAL's); it is written at once if the device takes
    it, else with the first batch (under ``group_commit``, with the first group).
    """

    def __init__(self, device, header: WalHeader, sync: str | tuple, cut_failed_appends: bool = True,
                 group_commit: bool = False) -> None:
        self.device = device  # where the file lives
        self.header = header  # what its first record says
        self.number = header.number  # file number
        self.name = wal_name(self.number)  # file name
        self.file = device.open(self.name, kind="wal", create=True)  # the device file
        self.size = self.file.size  # bytes in the file
        self.synced_size = self.size  # bytes known durable
        self.writer = LogWriter(self.size)  # record framing
        self.sync_policy = sync  # "write", ("every", N) or "none"
        self.unsynced = 0  # batches appended since the last sync
        self.synced_seq = 0  # largest sequence number known durable in this WAL or an older one
        self.cut_failed_appends = cut_failed_appends  # take back what a failed append left (see the module doc)
        self.group_commit = group_commit  # "write" records wait for the server's group commit (module docstring)
        self._waiting = bytearray()  # under group commit: framed records not yet in the file (the end of ``size``)
        self._pending = header.encode()  # the header record, until it is in the file
        if self.defers_syncs:  # the header waits for the first group, which writes it with its records
            self._buffer(self._pending)
            self._pending = None
            return
        try:
            self._append_header()
            self._sync(self.synced_seq)
        except OSError:
            pass  # a full disk: it goes with the first batch, whose append then fails or succeeds with it

    def successor(self, number: int, manifest: tuple[int, int], last_seq: int) -> WalWriter:
        """A new WAL ``number`` to follow this one, which the caller has synced in full (records up to sequence
        ``last_seq``); ``manifest`` is the (number, size) of the MANIFEST in use."""
        if self.size:
            before = (self.number, self.size)
        else:  # nothing in this one, not even its header: the new one vouches for the WAL this one followed
            before = (self.header.predecessor, self.header.predecessor_size)
        wal = WalWriter(self.device, WalHeader(number, *before, *manifest), self.sync_policy, self.cut_failed_appends,
                        self.group_commit)
        wal.synced_seq = last_seq
        return wal

    def _append_header(self) -> None:
        data, block_offset = self.writer.encode(self._pending)
        self.file.append(data)  # a failed append leaves nothing (Device), so the header stays pending
        self.size += len(data)
        self.writer.commit(block_offset)
        self._pending = None

    def append(self, payload: bytes, last_seq: int, batch: bool = True) -> None:
        """Append one batch (its last sequence number is ``last_seq``) and sync as the policy says (``batch``
        False: a mark, which the sync policy does not count).

        Raises OSError if the batch could not be written (or made durable as the policy requires); the error's
        ``record_kept`` attribute is True in the one case the record nevertheless stayed in the file.
        """
        if self._grouped():
            self._buffer(payload)
            self.unsynced += batch
            return
        header = self._pending
        if header is not None:  # the header, then the batch, in one write
            framing = LogWriter(self.size)
            head, offset = framing.encode(header)
            framing.commit(offset)
            data, block_offset = framing.encode(payload)
            data = head + data
        else:
            data, block_offset = self.writer.encode(payload)
        start = self.size
        try:
            self.file.append(data)
        except OSError:
            if self.file.size != start:  # a short write left part of the record
                if self.cut_failed_appends:
                    self.file.truncate(start)
                else:
                    self.size = self.file.size
                    self.writer = LogWriter(self.size)
            raise
        self.size += len(data)
        self.writer.commit(block_offset)
        self._pending = None
        if not batch:
            return
        self.unsynced += 1
        if self._sync_due():
            try:
                self._sync(last_seq)
            except OSError as exc:
                try:
                    self.file.truncate(start)
                    self.size = start
                    self.writer = LogWriter(start)
                    self.unsynced -= 1
                    self._pending = header  # if the header went with the batch, it is pending again
                    exc.record_kept = False
                except OSError:
                    exc.record_kept = True
                raise exc

    def mark(self, manifest: int, size: int) -> None:
        """Append a ``ManifestMark`` (synced with the next batch, or when the WAL is closed); a full disk only
        leaves the mark out (it adds evidence, it holds no data)."""
        try:
            with self.file.device.stats.tag(MARK_TAG):
                self.append(ManifestMark(manifest, size).encode(), self.synced_seq, batch=False)
        except OSError:
            pass

    @property
    def defers_syncs(self) -> bool:
        """True while batches leave their syncs to the server's group commit (a ``"write"`` policy under it)."""
        return self.group_commit and self.sync_policy == "write"

    def _grouped(self) -> bool:
        """True while a record waits for the group in memory: ``defers_syncs``, with the header already in the file
        (a header still pending goes with a direct append, as without group commit)."""
        return self.defers_syncs and self._pending is None

    def _buffer(self, payload: bytes) -> None:
        """Frame ``payload`` as the next record and keep it waiting for the group's write."""
        data, block_offset = self.writer.encode(payload)
        self._waiting += data
        self.size += len(data)
        self.writer.commit(block_offset)

    def _write_waiting(self) -> None:
        """Append the records waiting for group commit in one write; on failure cut it back and keep them waiting."""
        start = self.file.size
        try:
            self.file.append(self._waiting)
        except OSError:
            if self.file.size != start:
                self.file.truncate(start)
            raise
        self._waiting.clear()

    def _sync_due(self) -> bool:
        if self.sync_policy == "write":
            return True
        if self.sync_policy == "none":
            return False
        return self.unsynced >= self.sync_policy[1]

    def _sync(self, last_seq: int) -> None:
        if self._waiting:
            self._write_waiting()
        self.file.sync()
        self.unsynced = 0
        self.synced_size = self.size
        self.synced_seq = max(self.synced_seq, last_seq)

    def sync(self, last_seq: int) -> None:
        """Make every record so far durable (records up to sequence ``last_seq``)."""
        if self.size != self.synced_size:
            self._sync(last_seq)

    def close(self) -> None:
        """Release the file handle (sync first if the records must survive)."""
        self.file.close()


@dataclass
class WalLog:
    """A WAL read back whole: its records and drops (log_reader.scan), and what its header vouches for."""

    number: int  # file number
    name: str  # file name
    size: int  # bytes
    events: list  # log_reader Records and Drops, in file order

    @property
    def header(self) -> WalHeader | None:
        """Its header: the first record, if intact at offset 0 (None for an empty or damaged start)."""
        first = self.events[0] if self.events else None
        if isinstance(first, Drop) or first is None or first.start:
            return None
        return WalHeader.decode(first.payload)

    def manifest_marks(self) -> list[tuple[int, int]]:
        """(MANIFEST number, size) its header and its intact marks record, in file order."""
        out = [(self.header.manifest, self.header.manifest_size)] if self.header is not None else []
        for event in self.events:
            mark = None if isinstance(event, Drop) else ManifestMark.decode(event.payload)
            if mark is not None:
                out.append((mark.manifest, mark.manifest_size))
        return out

    @property
    def first_is_batch(self) -> bool:
        """Its first record, intact at offset 0, is a batch: no header (an older format, or damage)."""
        first = self.events[0] if self.events else None
        return first is not None and not isinstance(first, Drop) and not first.start and self.header is None


def read_wals(device, numbers: list[int]) -> list[WalLog]:
    """WALs ``numbers`` read back (ascending); CorruptionError for a batch whose sequence numbers pass the 7-byte
    maximum."""
    logs = []
    for number in numbers:
        name = wal_name(number)
        f = device.open(name, kind="wal")
        try:
            data = f.read(0, f.size)
        finally:
            f.close()
        events = scan(data)
        for event in events:
            if not isinstance(event, Drop) and is_batch(event.payload):
                seq, count, _ = batch_header(event.payload)
                if seq + count > MAX_SEQUENCE:
                    raise CorruptionError(f"WAL {name} offset {event.start}: sequence numbers {seq}+{count} are "
                                          f"past the 7-byte maximum {MAX_SEQUENCE}")
        logs.append(WalLog(number, name, len(data), events))
    return logs


def replay(logs: list[WalLog], apply, mode: str = DEFAULT, synced: dict[int, int] | None = None
           ) -> tuple[int, ReplayReport]:
    """Apply the batches of WALs ``logs`` (ascending, read by ``read_wals``) with ``apply(payload, wal_number)``,
    meeting damage as the recovery ``mode`` says (wal_recovery.py). ``synced``: WAL number -> bytes known synced
    (wal_chain.check), inside which damage is corruption, never a torn tail.

    Returns the largest sequence number applied (0 if none) and the replay's report (its ``stop``: the WAL number
    and offset where replay stopped, so that a WAL kept after recovery can be cut there); raises CorruptionError
    where the mode refuses damage.
    """
    report = ReplayReport(mode)
    synced = synced or {}
    events = []  # (WAL number, file name, event, in the last WAL?) in log order, headers and marks left out
    for i, log in enumerate(logs):
        for event in log.events:
            if isinstance(event, Drop) or is_batch(event.payload):
                events.append((log.number, log.name, event, i == len(logs) - 1))
    # later_synced[i]: the largest ``synced`` field of the records after event i (what the writer had made
    # durable by the time it wrote them).
    later_synced = [0] * (len(events) + 1)
    for i in range(len(events) - 1, -1, -1):
        e = events[i][2]
        later_synced[i] = max(later_synced[i + 1], 0 if isinstance(e, Drop) else batch_header(e.payload)[2])
    last_good = 0
    stopped = False
    for i, (number, name, event, last_file) in enumerate(events):
        if isinstance(event, Drop):
            if stopped:
                continue
            problem = Problem(name, event.offset, event.reason, *_corruption(event, last_file, later_synced[i + 1],
                                                                            last_good, synced.get(number, 0)))
            report.problems.append(problem.describe())
            if decide(mode, problem) == "skip":
                report.skipped += 1
            else:
                stopped = True
                report.stopped_at = problem.describe()
                report.stop = (number, event.offset)
            continue
        if stopped:
            report.records_not_replayed += 1
            continue
        seq, count, _ = batch_header(event.payload)
        apply(event.payload, number)
        report.records += 1
        if count:
            last_good = max(last_good, seq + count - 1)
    return last_good, report


def _corruption(drop: Drop, last_file: bool, later_synced: int, last_good: int, synced: int) -> tuple[bool, str]:
    """Whether ``drop`` is corruption rather than a torn tail, and the evidence (see the module docstring);
    ``synced``: the bytes of its WAL the MANIFEST recorded synced."""
    if not last_file:
        return True, "in a WAL that was synced in full before a newer one started"
    if drop.offset < synced:
        return True, f"in the first {synced} bytes, which the MANIFEST recorded synced"
    if later_synced > last_good:
        return True, (f"in records that were synced: a later record was written after sequence {later_synced} "
                      f"was durable, past the last intact one ({last_good})")
    if not drop.torn:
        return True, "the damage is not a torn write (no sector lost, no record cut by the end of the file)"
    return False, ""
