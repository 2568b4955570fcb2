"""The WAL files of one engine: the one being written, the older ones still holding unflushed memtables, and the
switch to a new one when memtables are sealed (RocksDB's SwitchMemtable).

Sealing makes the active memtables of some column families immutable (they wait for a flush) and starts a new WAL,
the old one synced in full, so that each WAL holds the writes of the memtables sealed with it. Once a flush has
written a family's memtables, the WALs older than every family's oldest unflushed memtable are deleted.
"""

from __future__ import annotations

from .column_family import SealedMemTable
from .memtable import MemTable
from .wal import WalWriter, wal_name


class WalFiles:
    """The WAL files of one engine; see the module docstring."""

    def __init__(self, device, versions, memtables: list, writer: WalWriter | None, numbers: list[int]) -> None:
        self.device = device  # where the WALs live
        self.versions = versions  # version_set.VersionSet: new file numbers, the MANIFEST each WAL names
        self.memtables = memtables  # the engine's active memtable per column family id (apply_batch's view)
        self.writer = writer  # the WAL being written (None when read_only)
        self.numbers = numbers  # WAL files on the device, oldest first

    def seal(self, families, last_sequence: int) -> None:
        """Make the active memtables of ``families`` immutable and start a new WAL (the old one synced in full up
        to ``last_sequence``), which names the old one and the MANIFEST in its header (wal.py's chain)."""
        versions = self.versions
        with self.device.stats.cause("foreground"):
            self.writer.sync(last_sequence)
            number = versions.new_file_number()
            new_wal = self.writer.successor(number, (versions.manifest_number, versions.manifest_size),
                                            last_sequence)
        versions.wal = new_wal  # the WAL every MANIFEST edit from now on records
        for cf in families:
            cf.imm.append(SealedMemTable(cf.mem, number))
            cf.mem = self.memtables[cf.id] = MemTable()
        self.writer.close()
        self.writer = new_wal
        self.numbers.append(number)

    def delete_obsolete(self, families) -> None:
        """Delete the WALs older than the oldest unflushed memtable of ``families`` (every column family)."""
        oldest = min(cf.state.log_number for cf in families)
        while self.numbers and self.numbers[0] < oldest and self.numbers[0] != self.writer.number:
            number = self.numbers.pop(0)
            if self.device.exists(wal_name(number)):
                self.device.delete(wal_name(number))

    def close(self) -> None:
        """Close the WAL being written (if any)."""
        if self.writer is not None:
            self.writer.close()
