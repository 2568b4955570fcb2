"""scan: reads a log back (LevelDB's db/log_reader.cc); see log_format.py.

It reports, in file order, the records it could decode and the places it had to drop bytes. The WAL and the
MANIFEST decide whether a drop is a torn tail (normal after a crash) or corruption, because only they know what was
synced; neither applies a record found after a drop.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from .log_format import BLOCK_SIZE, FIRST, FULL, HEADER_SIZE, LAST, MIDDLE, ZERO


@dataclass(frozen=True)
class Record:
    """A logical record read back: ``payload`` spans file bytes ``[start, end)``."""

    start: int  # offset of its first fragment's header
    end: int  # offset just past its last fragment
    payload: bytes  # the record's data


@dataclass(frozen=True)
class Drop:
    """Bytes the reader could not decode, starting at ``offset``."""

    offset: int  # where the damage starts
    reason: str  # what was wrong (bad checksum, truncated record, ...)


def scan(data: bytes) -> list[Record | Drop]:
    """Every record and every drop of log ``data``, in file order (see the module docstring)."""
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
        elif zlib.crc32(data[pos + HEADER_SIZE:end], zlib.crc32(data[pos + 6:pos + 7])) & 0xFFFFFFFF != crc:
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
            # A bad checksum under a length that fits: look on right after the fragment. Callers never apply a
            # record that follows a drop, they only use it to tell corruption from a torn tail (so trusting a
            # length that was itself damaged cannot make them apply garbage). Otherwise resynchronise at the next
            # block, as LevelDB does.
            pos = end if reason == "fragment checksum mismatch" else block_end
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
