"""Reference solution of exercise 05: torn-page detection and repair from the doublewrite buffer, in plain Python.

A page is trusted only if its checksum matches; a copy is used only if it is trusted and new enough for the redo
log to finish it. Read it after trying the exercise yourself.
"""

from __future__ import annotations

import struct
import zlib

HEADER = struct.Struct("<IIQ")  # checksum, page number, page LSN: the first 16 bytes of every page


class TornPageRepair:
    """Torn-page repair: the B+tree engine takes an instance as ``torn_page_repair``."""

    def page_is_intact(self, image: bytes) -> bool:
        """Not all zero, and the stored checksum is the crc32 of the page with the checksum field zeroed."""
        if not any(image):
            return False
        stored = HEADER.unpack_from(image)[0]
        return stored == zlib.crc32(image[4:], zlib.crc32(b"\0\0\0\0"))

    def newest_copies(self, slots: list[bytes], checkpoint_lsn: int) -> dict[int, bytes]:
        """For each page, its intact copy with the highest LSN, if that LSN is at least the checkpoint's."""
        best: dict[int, tuple[int, bytes]] = {}
        for image in slots:
            if not self.page_is_intact(image):
                continue  # empty, or torn before the doublewrite file was synced
            _, page_no, lsn = HEADER.unpack_from(image)
            if lsn >= checkpoint_lsn and (page_no not in best or lsn > best[page_no][0]):
                best[page_no] = (lsn, image)
        return {page_no: image for page_no, (_, image) in best.items()}

    def needs_repair(self, page_no: int, home: bytes | None) -> bool:
        """Missing, never written, torn, or another page's image."""
        if home is None or not self.page_is_intact(home):
            return True
        return HEADER.unpack_from(home)[1] != page_no
