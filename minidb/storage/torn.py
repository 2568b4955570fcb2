"""What a torn write looks like, for log readers that must tell a crash's torn tail from damage.

A crash loses whole sectors of what was written since the last sync: each such sector keeps its old contents (zeros,
for bytes appended to a log) or, past the last sector that reached the media, is not in the file at all (see
``SimDevice``'s crash model, and the atomic sector writes real disks promise). So damage at the end of a log is a
torn write only if some sector's share of it is all zero, or the log's framing says a record runs past the end of
the file. A flipped bit or stray bytes in complete records show neither, and are reported as corruption.
"""

from __future__ import annotations

SECTOR = 512  # the unit a crash keeps or loses
_ZERO = bytes(SECTOR)


def lost_sector(data: bytes, start: int, base: int = 0) -> bool:
    """Whether some sector's share of ``data[start:]`` is all zero; ``data[0]`` is at file offset ``base``."""
    n = len(data)
    while start < n:
        stop = min(n, start + SECTOR - (base + start) % SECTOR)
        if data[start:stop] == _ZERO[:stop - start]:
            return True
        start = stop
    return False
