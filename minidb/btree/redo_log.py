"""The redo log: groups of redo records appended at commit, synced by policy, replayed after a crash.

**LSN.** A log sequence number is a byte position in the endless stream of redo: a group that starts at LSN ``s``
and takes ``b`` bytes ends at ``s + b``, where the next one starts. Pages carry the end LSN of the last group
applied to them; the checkpoint LSN says where recovery starts.

**Files.** The stream is stored in a sequence of files ``redo-00000001.log``, ``redo-00000002.log``, ... each
starting with a 64-byte header (magic, version, the LSN its first group starts at, crc32). A group never spans two
files; a file is closed once the next group would take it past ``capacity / LOG_FILES`` bytes, and it is deleted
once the checkpoint has passed its last group (InnoDB 8.0.30+ does the same with its ``#ib_redoN`` files).

The files form a **chain**: their numbers are consecutive and each file starts at the LSN where the one before it
ends, so a missing, swapped or truncated middle file is found. A file is synced in full before the next one is
started, so only the last file can end in a torn write.

**Groups.** One mini-transaction is one group::

    magic u32 | body bytes u32 | start LSN u64 | crc32(body) u32 | ends u1, unsynced bytes u31 | body

The unsynced bytes say how far the log was durable when the group was appended (start LSN - unsynced = the synced
LSN; 2**31 - 1 stands for "at least that far behind"): a group found intact after a damaged one, with a synced LSN
past the damage, proves the damage hit groups that had been synced. The top bit (``ends``) repeats the body's last
byte, set for COMMIT: whether a group ends its transaction decides what recovery rolls back, so it is said twice,
and a group whose two disagree (a byte of the body changed with its crc recomputed, or of the header) is damage.

A client batch is one group, or several when it changes more pages than the pool can keep pinned: all but the last
end with CONTINUE (and carry the batch's undo), the last with COMMIT. Recovery replays a group only if its header is
intact, its LSN is the expected one, its crc matches and its last byte is COMMIT or CONTINUE. The first group failing
any of this is the end of the log only if it is a torn tail: in the last file, with no intact group after it whose
synced LSN is past it, and shaped like a torn write (a lost sector, or a group cut by the end of the file; see
minidb/storage/torn.py). Anything else raises ``CorruptionError`` naming the file and offset. A batch whose COMMIT
group is not in the log is rolled back from its undo.

**Log blocks.** InnoDB writes its log in whole blocks of 512 bytes (``OS_FILE_LOG_BLOCK_SIZE``; log0log.cc's
``log_write_up_to`` aligns the area it writes down and up to the block size): a write starts at the block holding
the end of the last write, whose bytes it writes again, and fills its own last block out to the boundary. Ours
writes the same areas (``BLOCK``): zero bytes follow a file's last group up to a block boundary, and the next write
overwrites them. A reader takes zeros after the last group, to the end of the file's last block, as its end
(``padding``). So a commit that adds 100 bytes of redo writes at least 512 (iostat counts what was written).
Recovery reads whole blocks as well and keeps the last one's bytes, so the first write after an open starts at
a block boundary too (InnoDB's ``recv_recovery_from_checkpoint_start`` copies ``recv_sys->last_block`` into
the log buffer for the same reason).

**Log buffer.** Groups are appended to an in-memory buffer (``innodb_log_buffer_size``) and written to the file at
the client commit that ends their batch, when the buffer fills, or when the write-ahead rule needs them on disk; so a
batch of many groups still costs one log write at commit.

**Sync policy** (``innodb_flush_log_at_trx_commit``): ``"commit"`` syncs at every client commit, ``("every",
N)`` at every Nth, ``"none"`` never at commit. Whatever the policy, a page is written only once the log is durable
up to the page's LSN (``flush_up_to``, the write-ahead rule), which may force a sync.

**Group commit** (``group_commit = True``, set by a server with the binary log on): a ``"commit"`` commit leaves its
groups in the log buffer, and the server's flush stage writes and syncs the buffer once for the whole group of
commits (``sync``), as MySQL 5.7 flushes InnoDB's redo for every prepared transaction of a binlog group
(sql/binlog.cc, ``MYSQL_BIN_LOG::process_flush_stage_queue``: ``ha_flush_logs``). A commit is then acknowledged
by the server once its group is flushed, not when ``commit`` returns.

**Read-only** (``read_only=True``, for a read-only open): recovery reads the log as usual but deletes and cuts
nothing, and groups appended afterwards (a rollback's, a read's change-buffer merges) stay in memory: ``write`` and
``sync`` drop the buffer instead of writing it, as a read-only engine's changes are never to be durable.

**Checkpoint** (``redo-checkpoint``): two 512-byte blocks written alternately (InnoDB's checkpoint blocks 1 and
2), each with a sequence number, the checkpoint LSN, the page size and a crc32. The valid block with the highest
sequence number wins, so a torn write of one block leaves the other. The file's existence marks a database.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from ..crc import crc32  # zlib's CRC-32, computed faster: a group body is every byte of redo
from ..errors import CorruptionError, NoSpaceError
from ..storage.torn import lost_sector
from .options import sync_mode


class RedoWriteError(OSError):
    """A write to the redo log failed for another reason than a full disk (which raises the device's
    ``NoSpaceError``). InnoDB cannot go on without its log and aborts; the engine stops (see failures.py)."""

    redo_write_failed = True  # (the mark the engine looks for; see _raise_write_failed)


def _raise_write_failed(exc: OSError, what: str) -> None:
    """Raise the error of a failed redo write ``exc``, marked ``redo_write_failed`` for the engine: a full disk's
    ``NoSpaceError`` as the device raised it (its message names the file and the operation), any other error as a
    ``RedoWriteError``."""
    if isinstance(exc, NoSpaceError):
        exc.redo_write_failed = True
        raise exc
    raise RedoWriteError(exc.errno, f"redo log write failed ({what}): {exc.strerror or exc}", exc.filename) from exc


BLOCK = 512  # OS_FILE_LOG_BLOCK_SIZE: every log write covers whole blocks of this size (see the module docstring)
GROUP = struct.Struct("<IIQII")  # magic, body bytes, start LSN, crc32 of the body, bytes not yet synced before it
UNSYNCED_MAX = 0x7FFFFFFF  # the unsynced field saturates here
ENDS_BIT = 0x80000000  # set in the unsynced field of a group whose body ends with COMMIT
GROUP_MAGIC = 0x4F444552  # b"REDO"
END_BYTES = (254, 255)  # redo_records.CONTINUE and COMMIT: the last byte of every complete group body
COMMIT_BYTE = END_BYTES[1]
FILE_HEADER = struct.Struct("<8sIQ")  # magic, version, LSN of the file's first group
FILE_HEADER_SIZE = 64  # the header, its crc32 and zero padding
FILE_MAGIC = b"MDBREDO1"
LOG_FILES = 32  # the capacity is spread over this many files (as InnoDB 8.0.30+ does)
LOG_BUFFER_BYTES = 16 << 20  # innodb_log_buffer_size's default: appended groups wait here to be written
CHECKPOINT_FILE = "redo-checkpoint"
CHECKPOINT = struct.Struct("<8sQQI")  # magic, sequence number, checkpoint LSN, page size
CHECKPOINT_MAGIC = b"MDBCKPT1"
CHECKPOINT_BLOCK = 512
VERSION = 3  # 3: the group header repeats COMMIT (ENDS_BIT); 2: unsynced bytes; older files are not read


def file_name(number: int) -> str:
    """Name of redo file ``number``."""
    return f"redo-{number:08d}.log"


def _file_number(name: str) -> int | None:
    if name.startswith("redo-") and name.endswith(".log") and name[5:-4].isdigit():
        return int(name[5:-4])
    return None


class Checkpoint(NamedTuple):
    """What a checkpoint block records (``CHECKPOINT``, after its magic)."""

    seq: int  # the block's sequence number: of the two blocks, the one with the higher is the newer
    lsn: int  # the checkpoint LSN: every change below it is in the tablespace, recovery starts here
    page_size: int  # the database's page size, fixed when it was created


def read_checkpoint(device) -> Checkpoint | None:
    """The newest valid checkpoint block; None if there is no checkpoint file (no database); CorruptionError if the
    file exists but no block is valid."""
    if not device.exists(CHECKPOINT_FILE):
        return None
    f = device.open(CHECKPOINT_FILE, "redo")
    data = f.read(0, f.size)
    best = None
    for i in range(2):
        block = data[i * CHECKPOINT_BLOCK:(i + 1) * CHECKPOINT_BLOCK]
        if len(block) < CHECKPOINT.size + 4:
            continue
        magic, seq, lsn, page_size = CHECKPOINT.unpack_from(block)
        (crc,) = struct.unpack_from("<I", block, CHECKPOINT.size)
        if magic == CHECKPOINT_MAGIC and crc == crc32(block[:CHECKPOINT.size]):
            if best is None or seq > best.seq:
                best = Checkpoint(seq, lsn, page_size)
    if best is None:
        raise CorruptionError(f"{CHECKPOINT_FILE}: neither checkpoint block is valid")
    return best


class RedoLog:
    """The redo log files of one database (see the module docstring)."""

    def __init__(self, device, capacity: int, redo_sync, read_only: bool = False) -> None:
        self.device = device  # where the files live
        self.read_only = read_only  # never write, cut or delete a file (see the module docstring)
        self.capacity = capacity  # redo_log_bytes: the checkpoint keeps the log since the checkpoint below this
        self.file_bytes = max(capacity // LOG_FILES, 4096)  # a file is closed once it would pass this size
        self.mode, self.every = sync_mode(redo_sync)  # commit sync policy
        self.files: list[list] = []  # [number, start LSN, File] oldest first; the last one is appended to
        self.lsn = 0  # end of the log: where the next group starts
        self.synced_lsn = 0  # the log is durable up to here
        self.checkpoint_lsn = 0  # recovery starts here
        self.checkpoint_seq = 0  # sequence number of the last checkpoint block written
        self.commits = 0  # client commits so far (for the every-N policy)
        self.group_commit = False  # "commit" syncs wait for the server's group commit (see the module docstring)
        self.groups = 0  # groups appended since open
        self._unsynced: list = []  # files written since their last sync
        self._buffer = bytearray()  # the log buffer: groups appended but not yet written to the last file
        self._end: int | None = None  # where the last file's groups end: the next write's data goes here
        self._block = b""  # the last file's bytes from its last block's start (if known) to ``_end``: written again
        self._cp_file = None  # the checkpoint file
        self.torn: str | None = None  # a newest file whose header never reached the disk: it holds nothing
        self._tail_cut: int | None = None  # where the last file's intact groups end, before a torn tail

    # -- creating and opening --------------------------------------------------------------------------------------
    def create(self, start_lsn: int = 0) -> None:
        """Start an empty log at ``start_lsn`` (a new database); the first checkpoint makes it a database."""
        for name in self.device.list("redo-"):
            self.device.delete(name)
        self.lsn = self.synced_lsn = self.checkpoint_lsn = start_lsn
        self._new_file(1, start_lsn)

    def open(self) -> None:
        """Open an existing log: read the checkpoint and find the files (recovery then reads the groups)."""
        seq, lsn, _ = read_checkpoint(self.device)
        self.checkpoint_seq, self.checkpoint_lsn = seq, lsn
        self._cp_file = self.device.open(CHECKPOINT_FILE, "redo")
        numbered = sorted((n, name) for name in self.device.list("redo-") if (n := _file_number(name)) is not None)
        for number, name in numbered:
            f = self.device.open(name, "redo")
            start = self._read_file_header(f)
            if start is None:
                # A header that never reached the disk (the last file, started just before a crash and never
                # synced) leaves a file holding nothing durable: drop it. Any other bad header is damage.
                if number == numbered[-1][0] and self.files and torn_header(f) and not holds_synced_groups(f):
                    f.close()
                    self.torn = name  # deleted once recovery has found no damage (discard_torn)
                    continue
                raise CorruptionError(f"{name} offset 0: bad redo file header")
            if self.files:
                prev_number, prev_start, _ = self.files[-1]
                if number != prev_number + 1:
                    raise CorruptionError(f"redo log: {file_name(prev_number + 1)} is missing (the chain goes from "
                                          f"{file_name(prev_number)} to {name})")
                if start <= prev_start:
                    raise CorruptionError(f"{name} offset 0: starts at LSN {start}, not after {file_name(prev_number)}"
                                          f" (LSN {prev_start}): redo files out of place")
                # A file before another holds whole groups only, then its last write's padding (if any).
                size, groups_end = self.files[-1][2].size, FILE_HEADER_SIZE + start - prev_start
                if size not in (groups_end, groups_end + -groups_end % BLOCK):
                    held = size - FILE_HEADER_SIZE
                    raise CorruptionError(f"{file_name(prev_number)} holds {held} bytes of groups from LSN "
                                          f"{prev_start}, but {name} starts at LSN {start}: a redo file cut short, "
                                          f"extended or replaced by another copy")
            self.files.append([number, start, f])
        # What is read back may have been written and never synced (a running engine recovering after an error):
        # nothing of it counts as durable until the files are synced again.
        self._unsynced = [f for _, _, f in self.files]
        if not self.files:
            raise CorruptionError(f"redo log: no redo file (the checkpoint is at LSN {lsn})")
        if self.files[0][1] > lsn:
            raise CorruptionError(f"redo log: the oldest file {file_name(self.files[0][0])} starts at LSN "
                                  f"{self.files[0][1]}, after the checkpoint LSN {lsn}")

    def _read_file_header(self, f) -> int | None:
        if f.size < FILE_HEADER_SIZE:
            return None
        head = f.read(0, FILE_HEADER_SIZE)
        magic, version, start = FILE_HEADER.unpack_from(head)
        (crc,) = struct.unpack_from("<I", head, FILE_HEADER.size)
        if magic != FILE_MAGIC or crc != crc32(head[:FILE_HEADER.size]):
            return None
        if version != VERSION:
            raise CorruptionError(f"{f.name}: redo format version {version}, but this minidb reads version {VERSION} "
                                  f"only (a database made by another minidb: recreate it)")
        return start

    def settle(self) -> None:
        """Drop what a crash left after the end of the log: delete the newest file if its header was torn
        (``torn``), cut a torn tail off the last file. Called once recovery has found no damage, and before the
        log is written again; a recovery that fails changes no redo file. A read-only log changes nothing."""
        if self.read_only:
            return
        if self.torn is not None:
            self.device.delete(self.torn)
            self.torn = None
        if self._tail_cut is not None:
            self.files[-1][2].truncate(self._tail_cut)  # new groups follow the last intact one
            self._tail_cut = None

    def _new_file(self, number: int, start_lsn: int) -> None:
        self.settle()  # the torn file's number comes next: the new file must not inherit its bytes
        f = self.device.open(file_name(number), "redo", create=True)
        head = FILE_HEADER.pack(FILE_MAGIC, VERSION, start_lsn)
        head += struct.pack("<I", crc32(head))
        head = head.ljust(FILE_HEADER_SIZE, b"\0")
        try:
            f.write(0, head)
        except OSError as exc:
            _raise_write_failed(exc, f"header of {f.name}")
        self._end, self._block = FILE_HEADER_SIZE, head
        self.files.append([number, start_lsn, f])
        self._unsynced.append(f)

    # -- reading (recovery) ----------------------------------------------------------------------------------------
    def read_groups(self):
        """Yield (start LSN, end LSN, body) of every complete group from the checkpoint on; afterwards ``self.lsn``
        is the end of the last one and a torn tail after it has been cut off. CorruptionError for damage that is
        not a torn tail (see the module docstring)."""
        lsn = self.lsn = self.synced_lsn = self.checkpoint_lsn  # the checkpoint was written after a sync
        first = max(j for j, (_, start, _) in enumerate(self.files) if start <= lsn)
        end_offset = None
        for i in range(first, len(self.files)):
            number, start, f = self.files[i]
            name = file_name(number)
            last = i == len(self.files) - 1
            if i == first:
                offset = FILE_HEADER_SIZE + (lsn - start)
            elif start == lsn:
                offset = FILE_HEADER_SIZE
            else:
                raise CorruptionError(f"{name} offset 0: starts at LSN {start}, but {file_name(number - 1)} ends at "
                                      f"LSN {lsn}: a redo file was cut short or replaced")
            if f.size < offset:
                raise CorruptionError(f"{name}: holds {f.size} bytes, but the checkpoint LSN {lsn} is at offset "
                                      f"{offset}")
            # whole blocks from the one holding the start, as InnoDB's recovery reads its log: the bytes of the
            # block holding the end are then at hand for the next write, which writes that block again
            base = offset - offset % BLOCK
            data = f.read(base, f.size - base)
            pos = offset - base
            while pos < len(data):
                nbytes = group_at(data, pos, lsn)
                if nbytes is None:
                    break
                body = data[pos + GROUP.size:pos + GROUP.size + nbytes]
                end = lsn + GROUP.size + nbytes
                self.lsn = end
                yield lsn, end, body
                lsn = end
                pos += GROUP.size + nbytes
            if last:
                tail = base + pos  # the file offset where the groups end
                self._end, self._block = tail, bytes(data[tail - tail % BLOCK - base:pos])
            if pos != len(data) and not padding(data, pos, base):
                where = f"{name} offset {base + pos} (LSN {lsn})"
                if not last:
                    raise CorruptionError(f"{where}: damaged redo group in a file that was synced in full before the "
                                          f"next one started")
                check_torn_tail(data, pos, lsn, base, where)
                end_offset = base + pos
        self.lsn = lsn
        if end_offset is not None and self.files[-1][2].size > end_offset:
            self._tail_cut = end_offset  # cut off once recovery found no damage, or before the next write (settle)
        # (read-only: groups appended later stay in memory, so what follows the end on disk is never read)

    # -- writing ---------------------------------------------------------------------------------------------------
    def append(self, group) -> tuple[int, int]:
        """Append one group to the log buffer; returns its (start, end) LSNs.

        ``group`` is a writable buffer: GROUP.size bytes left free for the header, then the body (the records,
        ending with COMMIT or CONTINUE). The header is filled in here.
        """
        self.settle()
        body = memoryview(group)[GROUP.size:]
        number, start, f = self.files[-1]
        size = f.size + len(self._buffer)
        if not self.read_only and size > FILE_HEADER_SIZE and size + len(group) > self.file_bytes:
            self.sync()  # a file is complete and durable before its successor starts (only the last can be torn)
            self._new_file(number + 1, self.lsn)
        unsynced = min(self.lsn - self.synced_lsn, UNSYNCED_MAX) | (ENDS_BIT if body[-1] == COMMIT_BYTE else 0)
        GROUP.pack_into(group, 0, GROUP_MAGIC, len(body), self.lsn, crc32(body), unsynced)
        self._buffer += group
        begin = self.lsn
        self.lsn += len(group)
        self.groups += 1
        if len(self._buffer) >= LOG_BUFFER_BYTES:
            self.write()
        return begin, self.lsn

    def write(self) -> None:
        """Write the log buffer to the last file, in one write (not synced)."""
        if not self._buffer:
            return
        if self.read_only:
            self._buffer.clear()
            return
        f = self.files[-1][2]
        end = f.size if self._end is None else self._end
        start = end - len(self._block)  # the start of the block holding the end, where known
        written = self._block + self._buffer
        try:
            f.write(start, written + bytes(-(start + len(written)) % BLOCK))
        except OSError as exc:
            _raise_write_failed(exc, f"{len(self._buffer)} bytes to {f.name}")
        self._end = start + len(written)
        keep = self._end % BLOCK  # the new last block's bytes so far
        self._block = bytes(written[len(written) - keep:]) if keep <= len(written) else bytes(written)
        self._buffer.clear()
        if f not in self._unsynced:
            self._unsynced.append(f)

    def commit(self, group) -> tuple[int, int]:
        """Append the group that ends a client batch, write the log buffer, and sync if the policy says so (under
        group commit, a ``"commit"`` policy leaves both to the server's ``sync``). ``group`` None: a batch that
        changed nothing, whose commit writes (and syncs) the groups before it."""
        lsns = self.append(group) if group is not None else (self.lsn, self.lsn)
        self.commits += 1
        if self.defers_syncs:
            return lsns
        try:
            self.write()
            if self.mode == "commit" or (self.mode == "every" and self.commits % self.every == 0):
                self.sync()
        except OSError:
            # The client will be told the commit failed: take the group back out of the log, so that a
            # restart (or the engine's rollback) does not take the batch as committed. If even that fails, the
            # outcome of the commit is unknown, as with any database whose log write failed. Without a group,
            # nothing is taken back: the groups before it stay in the buffer (a failed write changes nothing)
            # or in the file, for the next commit to write and sync.
            if group is not None:
                try:
                    self.unappend(lsns[0])
                except OSError:
                    pass
            raise
        return lsns

    @property
    def defers_syncs(self) -> bool:
        """True while commits leave their syncs to the server's group commit (a ``"commit"`` policy under it)."""
        return self.group_commit and self.mode == "commit"

    def unappend(self, start_lsn: int) -> None:
        """Remove the last group (which starts at ``start_lsn``) after its commit failed to write or sync."""
        number, start, f = self.files[-1]
        if start_lsn < start:
            raise CorruptionError(f"redo log: cannot remove the group at LSN {start_lsn}: it is not in the last file")
        self._buffer.clear()
        end = FILE_HEADER_SIZE + start_lsn - start
        if f.size > end:
            f.truncate(end)
        if self._end is not None and self._end > end:  # the group had been written: its block's start is unknown
            self._end, self._block = end, b""
        self.lsn = start_lsn

    def sync(self) -> None:
        """Make every group appended so far durable."""
        self.write()
        if not self.read_only:
            for f in self._unsynced:
                f.sync()
        self._unsynced.clear()
        self.synced_lsn = self.lsn

    def flush_up_to(self, lsn: int) -> None:
        """The write-ahead rule: make the log durable up to ``lsn`` before a page with that LSN is written."""
        if self.synced_lsn < lsn:
            self.sync()

    def write_checkpoint(self, lsn: int, page_size: int) -> None:
        """Record that recovery may start at ``lsn`` (every change before it is in the tablespace); then delete
        the redo files that hold only older groups."""
        if lsn > self.lsn:
            raise ValueError(f"checkpoint LSN {lsn} is past the end of the redo log ({self.lsn})")
        self.flush_up_to(self.lsn)
        self.checkpoint_seq += 1
        block = CHECKPOINT.pack(CHECKPOINT_MAGIC, self.checkpoint_seq, lsn, page_size)
        block += struct.pack("<I", crc32(block))
        block = block.ljust(CHECKPOINT_BLOCK, b"\0")
        if self._cp_file is None:
            # The first checkpoint creates the file, complete, under its final name in one atomic rename: the
            # file's existence is what marks a database, so a crash during creation leaves no half database.
            tmp = self.device.open(CHECKPOINT_FILE + ".tmp", "redo", create=True)
            tmp.write((self.checkpoint_seq % 2) * CHECKPOINT_BLOCK, block)
            tmp.sync()
            tmp.close()
            self.device.rename(CHECKPOINT_FILE + ".tmp", CHECKPOINT_FILE)
            self._cp_file = self.device.open(CHECKPOINT_FILE, "redo")
        else:
            self._cp_file.write((self.checkpoint_seq % 2) * CHECKPOINT_BLOCK, block)
            self._cp_file.sync()
        self.checkpoint_lsn = lsn
        while len(self.files) > 1 and self.files[1][1] <= lsn:
            number = self.files.pop(0)[0]
            self.device.delete(file_name(number))

    @property
    def buffered(self) -> int:
        """Bytes of groups in the log buffer, not yet written."""
        return len(self._buffer)

    @property
    def age(self) -> int:
        """Bytes of redo since the checkpoint (what recovery would replay)."""
        return self.lsn - self.checkpoint_lsn

    def file_names(self) -> list[str]:
        """The redo files, oldest first."""
        return [file_name(number) for number, _, _ in self.files]


def last_commit(device) -> int | None:
    """The end LSN of the last COMMIT group that can be read intact, following the chain of redo files on
    ``device`` from the oldest file's first group, or the checkpoint LSN if that is later (every batch before a
    checkpoint had ended); None if neither can be read. For a salvage without replay (minidb repair): a page whose
    LSN is at most this holds committed changes only."""
    try:
        cp = read_checkpoint(device)
    except CorruptionError:
        cp = None
    found = cp.lsn if cp is not None else None
    lsn = None  # where the next group must start
    numbered = sorted((n, name) for name in device.list("redo-") if (n := _file_number(name)) is not None)
    for _, name in numbered:
        f = device.open(name, "redo")
        try:
            data = f.read(0, f.size)
        finally:
            f.close()
        if len(data) < FILE_HEADER_SIZE:
            break
        magic, version, start = FILE_HEADER.unpack_from(data)
        (crc,) = struct.unpack_from("<I", data, FILE_HEADER.size)
        if magic != FILE_MAGIC or version != VERSION or crc != crc32(data[:FILE_HEADER.size]):
            break
        if lsn is not None and start != lsn:
            break  # a gap in the chain: nothing after it follows from what was read
        pos, lsn = FILE_HEADER_SIZE, start
        while (nbytes := group_at(data, pos, lsn)) is not None:
            pos += GROUP.size + nbytes
            lsn += GROUP.size + nbytes
            if data[pos - 1] == COMMIT_BYTE:
                found = max(found or 0, lsn)
        if pos != len(data):
            break  # damage: the groups after it are not read
    return found


def group_at(data: bytes, pos: int, lsn: int) -> int | None:
    """Body bytes of the intact group at ``data[pos]`` that should start at ``lsn``, or None if there is none."""
    if pos + GROUP.size > len(data):
        return None
    magic, nbytes, group_lsn, crc, unsynced = GROUP.unpack_from(data, pos)
    body_at = pos + GROUP.size
    if magic != GROUP_MAGIC or group_lsn != lsn or nbytes == 0 or nbytes > len(data) - body_at:
        return None
    body = data[body_at:body_at + nbytes]
    if crc32(body) != crc or body[-1] not in END_BYTES or (body[-1] == COMMIT_BYTE) != bool(unsynced & ENDS_BIT):
        return None
    return nbytes


def synced_lsn(data: bytes, at: int) -> int:
    """The synced LSN the group header at ``data[at]`` records (0 if its unsynced field saturated)."""
    _, _, group_lsn, _, unsynced = GROUP.unpack_from(data, at)
    unsynced &= UNSYNCED_MAX
    return group_lsn - unsynced if unsynced < UNSYNCED_MAX else 0


def _magic_offsets(data: bytes, start: int):
    """Every offset from ``start`` on where a group header could begin (its magic number is there)."""
    magic = GROUP_MAGIC.to_bytes(4, "little")
    at = data.find(magic, start)
    while 0 <= at <= len(data) - GROUP.size:
        yield at
        at = data.find(magic, at + 1)


def padding(data: bytes, pos: int, base: int) -> bool:
    """Whether ``data[pos:]`` (``data[0]`` at file offset ``base``) is the zeros a write put after the last group:
    all zero, fewer than ``BLOCK`` bytes, and ending the file at a block boundary."""
    n = len(data) - pos
    return 0 < n < BLOCK and (base + len(data)) % BLOCK == 0 and data[pos:] == bytes(n)


def check_torn_tail(data: bytes, pos: int, lsn: int, base: int, where: str) -> None:
    """CorruptionError unless the bytes from ``data[pos]`` (group LSN ``lsn``, file offset ``base + pos``) to the
    end of the last file are a torn tail: no intact group after them says they were synced, and they look torn."""
    for at in _magic_offsets(data, pos + 1):
        if group_at(data, at, lsn + at - pos) is not None:
            synced = synced_lsn(data, at)
            if synced > lsn:
                raise CorruptionError(f"{where}: damaged redo group, and the intact group at offset {base + at} "
                                      f"was appended once the log was synced to LSN {synced}: the damage hit "
                                      f"synced groups")
    if lost_sector(data, pos, base):
        return
    if pos + GROUP.size <= len(data):
        nbytes = GROUP.unpack_from(data, pos)[1]
        if nbytes <= len(data) - pos - GROUP.size:
            raise CorruptionError(f"{where}: damaged redo group, and the damage is not a torn write (no sector "
                                  f"lost, the group is not cut by the end of the file)")


def holds_synced_groups(f) -> bool:
    """Whether file ``f`` holds an intact group appended after the file had been synced (its header with it).

    A group at file offset ``at`` starting at LSN ``g`` puts the file's start at ``g - (at - FILE_HEADER_SIZE)``;
    its synced LSN ``g - unsynced`` is past that start only if a sync covered this file, header included.
    """
    data = f.read(0, f.size)
    for at in _magic_offsets(data, 0):
        _, _, group_lsn, _, unsynced = GROUP.unpack_from(data, at)
        if group_at(data, at, group_lsn) is not None and unsynced & UNSYNCED_MAX < at - FILE_HEADER_SIZE:
            return True
    return False


def torn_header(f) -> bool:
    """Whether the file header of ``f`` looks torn (short, or a lost sector in it) rather than damaged."""
    head = f.read(0, min(f.size, FILE_HEADER_SIZE))
    return len(head) < FILE_HEADER_SIZE or lost_sector(head, 0)
