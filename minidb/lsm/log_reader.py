"""scan: reads a log back (LevelDB's db/log_reader.cc); see log_format.py.

It reports, in file order, the records it could decode and the places it had to drop bytes. The WAL and the
MANIFEST decide whether a drop is a torn tail (normal after a crash) or corruption, because only they know what was
synced; neither applies a record found after a drop.

After a drop the reader looks for the next intact fragment byte by byte, so a damaged header cannot hide the records
after it. ``torn`` says whether damage that runs to the end of the file looks like a write cut short by a crash:
a crash loses whole sectors of what was not synced, leaving them zero or beyond the end of the file, while a flipped
bit or stray bytes leave every sector non-zero and the records complete (minidb/storage/torn.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..crc import crc32
from minidb.storage.torn import lost_sector

from .log_format import BLOCK_SIZE, FIRST, FULL, HEADER_SIZE, LAST, MIDDLE, ZERO


@dataclass(frozen=True)
class Record:
    """A logical record read back: ``payload`` spans file bytes ``[start, end)``."""

    start: int  # offset of its first fragment's header
    end: int  # offset just past its last fragment
    payload: bytes  # the record's data


@dataclass(frozen=True)
class Drop:
    """Bytes the reader could not decode, starting at ``offset``.

    ``tail``: no intact record follows in the file. ``torn``: the damaged bytes, up to the next intact record, are
    shaped like a torn write (see the module docstring). A caller that knows what was synced decides from these what the drop means: RocksDB's WAL recovery
    modes are such decisions (tolerate a torn tail, stop at the first drop, or tolerate nothing).
    """

    offset: int  # where the damage starts
    reason: str  # what was wrong (bad checksum, truncated record, ...)
    tail: bool = False  # nothing intact after it
    torn: bool = False  # a tail that looks like a torn write


def _intact_at(data: bytes, pos: int) -> bool:
    """Whether an intact fragment (known type, inside its block and the data, checksum right) starts at ``pos``."""
    if BLOCK_SIZE - pos % BLOCK_SIZE < HEADER_SIZE or pos + HEADER_SIZE > len(data):
        return False
    ftype = data[pos + 6]
    if ftype not in (FULL, FIRST, MIDDLE, LAST):
        return False
    end = pos + HEADER_SIZE + int.from_bytes(data[pos + 4:pos + 6], "little")
    if end > len(data) or end > pos - pos % BLOCK_SIZE + BLOCK_SIZE:
        return False
    crc = int.from_bytes(data[pos:pos + 4], "little")
    return crc32(data[pos + HEADER_SIZE:end], crc32(data[pos + 6:pos + 7])) == crc


def _next_fragment(data: bytes, pos: int) -> int:
    """The offset of the first intact fragment at or after ``pos``, or ``len(data)``."""
    n = len(data)
    # Only an offset whose type byte (6 bytes on) is a fragment type can start one: find those with bytes.find,
    # keeping each type's next occurrence so that the search stays linear in the bytes skipped.
    nxt = {t: data.find(bytes((t,)), pos + 6) for t in (FULL, FIRST, MIDDLE, LAST)}
    while True:
        live = [i for i in nxt.values() if i >= 0]
        if not live:
            return n
        i = min(live)
        if _intact_at(data, i - 6):
            return i - 6
        t = data[i]
        nxt[t] = data.find(bytes((t,)), i + 1)


def torn(data: bytes, offset: int, end: int | None = None) -> bool:
    """Whether the damaged bytes ``data[offset:end]`` (``end``: the next intact record, or the end of the data)
    look like a torn write (see the module docstring): some sector's share of them is all zero, or, running to the
    end of the data, the fragments from ``offset`` run past it."""
    if lost_sector(data[:end], offset):
        return True
    if end is not None and end < len(data):
        return False
    n = len(data)
    pos = offset
    while pos < n:
        if BLOCK_SIZE - pos % BLOCK_SIZE < HEADER_SIZE:
            pos += BLOCK_SIZE - pos % BLOCK_SIZE  # trailer padding
            continue
        if pos + HEADER_SIZE > n:
            return True
        pos += HEADER_SIZE + int.from_bytes(data[pos + 4:pos + 6], "little")
    return pos > n


def scan(data: bytes) -> list[Record | Drop]:
    """Every record and every drop of log ``data``, in file order, drops marked ``tail`` and ``torn``."""
    events = _scan(data)
    out: list[Record | Drop] = []
    next_start = None  # start of the next record, scanning backwards
    for e in reversed(events):
        if isinstance(e, Record):
            next_start = e.start
            out.append(e)
        else:
            out.append(Drop(e.offset, e.reason, tail=next_start is None, torn=torn(data, e.offset, next_start)))
    return out[::-1]


def _scan(data: bytes) -> list[Record | Drop]:
    out: list[Record | Drop] = []
    pos = 0
    n = len(data)
    scratch: list[bytes] | None = None  # fragments of a record in progress
    start = 0  # offset of the record in progress
    while pos < n:
        in_block = pos % BLOCK_SIZE
        block_end = pos - in_block + BLOCK_SIZE
        if BLOCK_SIZE - in_block < HEADER_SIZE:
            pos = block_end  # trailer padding
            continue
        if pos + HEADER_SIZE > n:
            out.append(Drop(pos, "truncated fragment header at the end of the log"))
            scratch = None
            break
        crc = int.from_bytes(data[pos:pos + 4], "little")
        length = int.from_bytes(data[pos + 4:pos + 6], "little")
        ftype = data[pos + 6]
        end = pos + HEADER_SIZE + length
        if ftype == ZERO and length == 0 and crc == 0:
            reason = "zeroed bytes (space never written)"
        elif end > block_end:
            reason = f"fragment length {length} crosses its block"
        elif end > n:
            reason = f"fragment of {length} bytes truncated by the end of the log"
        elif crc32(data[pos + HEADER_SIZE:end], crc32(data[pos + 6:pos + 7])) != crc:
            reason = "fragment checksum mismatch"
        elif ftype not in (FULL, FIRST, MIDDLE, LAST):
            reason = f"unknown fragment type {ftype}"
        else:
            reason = ""
        if reason:
            if scratch is not None:
                out.append(Drop(start, "record cut short by damage"))
                scratch = None
            out.append(Drop(pos, reason))
            # Look on for the next intact fragment, byte by byte: a damaged header may hold any length, so neither
            # it nor the block boundary says where the damage ends, and skipping to the next block would hide
            # every record after the damage in the same block (LevelDB skips; RocksDB's recovery modes then decide
            # what a skipped record means). Callers never apply a record that follows a drop; they use it to tell
            # damage to synced records from a torn tail.
            pos = _next_fragment(data, pos + 1)
            continue
        frag = data[pos + HEADER_SIZE:end]
        if ftype == FULL:
            if scratch is not None:
                out.append(Drop(start, "record missing its last fragment"))
            out.append(Record(pos, end, frag))
            scratch = None
        elif ftype == FIRST:
            if scratch is not None:
                out.append(Drop(start, "record missing its last fragment"))
            scratch, start = [frag], pos
        elif scratch is None:
            out.append(Drop(pos, "fragment without the start of its record"))
        elif ftype == MIDDLE:
            scratch.append(frag)
        else:
            out.append(Record(start, end, b"".join(scratch + [frag])))
            scratch = None
        pos = end
    if scratch is not None:
        out.append(Drop(start, "record cut short by the end of the log"))
    return out
