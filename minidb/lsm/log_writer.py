"""LogWriter: frames records in the log format (LevelDB's db/log_writer.cc); see log_format.py.

A record becomes one byte string to append, so a record costs one write request, and a failed write leaves nothing
behind (devices guarantee a failed write changes nothing).
"""

from __future__ import annotations

from ..crc import crc32
from .log_format import BLOCK_SIZE, FIRST, FULL, HEADER_SIZE, LAST, MIDDLE


def _fragment(ftype: int, data: bytes) -> bytes:
    t = bytes((ftype,))
    crc = crc32(data, crc32(t))  # zlib's CRC-32 of the type byte and the data
    return crc.to_bytes(4, "little") + len(data).to_bytes(2, "little") + t + data


class LogWriter:
    """Frames records for a log file whose current length is ``offset`` (to resume appending after a reopen)."""

    def __init__(self, offset: int = 0) -> None:
        self.block_offset = offset % BLOCK_SIZE  # position inside the current block

    def encode(self, payload: bytes) -> tuple[bytes, int]:
        """The bytes that append ``payload`` as one logical record, and the block offset after them.

        The writer's own position is not moved: call ``commit(new_offset)`` once the bytes are on the device, so a
        failed append leaves the writer where the file still is.
        """
        out = []
        pos = self.block_offset
        left = memoryview(payload)
        begin = True
        while True:
            leftover = BLOCK_SIZE - pos
            if leftover < HEADER_SIZE:
                out.append(b"\0" * leftover)  # too small for a header: pad the block
                pos = 0
            avail = BLOCK_SIZE - pos - HEADER_SIZE
            n = min(len(left), avail)
            end = n == len(left)
            ftype = FULL if begin and end else FIRST if begin else LAST if end else MIDDLE
            out.append(_fragment(ftype, bytes(left[:n])))
            pos += HEADER_SIZE + n
            left = left[n:]
            begin = False
            if end:
                return b"".join(out), pos

    def commit(self, block_offset: int) -> None:
        """Record that the bytes returned by ``encode`` reached the file."""
        self.block_offset = block_offset
