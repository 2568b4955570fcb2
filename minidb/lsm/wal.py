"""The write-ahead log: every write batch is appended here before it touches a memtable.

One WAL file (``NNNNNN.log``) is written at a time; the engine starts a new one whenever it seals a memtable, so a
WAL can be deleted once every column family has flushed the memtables it fed (the MANIFEST records, per column
family, the oldest WAL still needed: its *log number*).

**Sync policy** (``wal_sync``): ``"write"`` syncs after every batch (nothing acknowledged is ever lost);
``("every", N)`` syncs after every N batches (a crash loses at most the last N-1 acknowledged batches);
``"none"`` never syncs on its own (a crash loses what the OS had not written). Whatever the policy, a WAL is synced
in full before the next WAL receives its first record, and on close.

**Failures.** A batch is one append, and a device guarantees a failed append changes nothing, so a full disk leaves
no half record for a later write to follow. If the append succeeded but the sync failed, the record is cut off
again (``truncate``), so the client's error means "not written"; should even that fail, the record stays, complete,
and the error says so (``record_kept``): the engine then applies it, like RocksDB, where a write that got an IO error
may or may not be in the database.

**Recovery** reads the WALs in order and applies their records. A crash can leave the tail of the last WAL torn
(sectors of unsynced writes lost): the reader stops at the first damaged record, silently, because nothing after it
was promised. Damage anywhere else is corruption of synced data and raises ``CorruptionError``: in a WAL that is not
the last (it was synced in full before its successor started), or in the last WAL before a record whose ``synced``
field shows the writer had synced past the damaged spot (see write_batch.py).
"""

from __future__ import annotations

from minidb.errors import CorruptionError

from .log_reader import Drop, scan
from .log_writer import LogWriter
from .write_batch import batch_header


def wal_name(number: int) -> str:
    """File name of WAL number ``number``."""
    return f"{number:06d}.log"


class WalWriter:
    """Appends batch payloads to one WAL file under a sync policy; see the module docstring."""

    def __init__(self, device, number: int, sync: str | tuple) -> None:
        self.number = number  # file number
        self.name = wal_name(number)  # file name
        self.file = device.open(self.name, kind="wal", create=True)  # the device file
        self.size = self.file.size  # bytes in the file
        self.writer = LogWriter(self.size)  # record framing
        self.sync_policy = sync  # "write", ("every", N) or "none"
        self.unsynced = 0  # records appended since the last sync
        self.synced_seq = 0  # largest sequence number known durable in this WAL or an older one

    def append(self, payload: bytes, last_seq: int) -> None:
        """Append one batch (its last sequence number is ``last_seq``) and sync as the policy says.

        Raises OSError if the batch could not be written (or made durable as the policy requires); the error's
        ``record_kept`` attribute is True in the one case the record nevertheless stayed in the file.
        """
        data, block_offset = self.writer.encode(payload)
        start = self.size
        self.file.append(data)  # a failure here changed nothing
        self.size += len(data)
        self.writer.commit(block_offset)
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
                    exc.record_kept = False
                except OSError:
                    exc.record_kept = True
                raise exc

    def _sync_due(self) -> bool:
        if self.sync_policy == "write":
            return True
        if self.sync_policy == "none":
            return False
        return self.unsynced >= self.sync_policy[1]

    def _sync(self, last_seq: int) -> None:
        self.file.sync()
        self.unsynced = 0
        self.synced_seq = max(self.synced_seq, last_seq)

    def sync(self, last_seq: int) -> None:
        """Make every record so far durable (records up to sequence ``last_seq``)."""
        if self.unsynced:
            self._sync(last_seq)

    def close(self) -> None:
        """Release the file handle (sync first if the records must survive)."""
        self.file.close()


def replay(device, numbers: list[int], apply) -> tuple[int, int | None]:
    """Apply the records of WALs ``numbers`` (ascending) with ``apply(payload, wal_number)``.

    Returns the largest sequence number applied (0 if none) and the offset in the last WAL where its torn tail
    starts (None if it has none); raises CorruptionError for damage that is not a torn tail (see the module
    docstring).
    """
    last_good = 0
    hole = None  # (file name, offset, reason, last_good at the hole, in the last WAL?) of the first damage
    for i, number in enumerate(numbers):
        name = wal_name(number)
        f = device.open(name, kind="wal")
        try:
            data = f.read(0, f.size)
        finally:
            f.close()
        last_file = i == len(numbers) - 1
        for event in scan(data):
            if isinstance(event, Drop):
                if hole is None:
                    hole = (name, event.offset, event.reason, last_good, last_file)
                continue
            seq, count, synced = batch_header(event.payload)
            if hole is not None:
                if synced > hole[3]:
                    raise CorruptionError(
                        f"WAL {hole[0]} offset {hole[1]}: {hole[2]}, in records that were synced (the record at "
                        f"{name} offset {event.start} was written after sequence {synced} was durable)")
                continue  # after a torn tail: these records were never promised durable
            apply(event.payload, number)
            if count:
                last_good = max(last_good, seq + count - 1)
        if hole is not None and not hole[4]:
            raise CorruptionError(f"WAL {hole[0]} offset {hole[1]}: {hole[2]}, in a WAL that was synced in full "
                                  f"before a newer one started")
    return last_good, None if hole is None else hole[1]
