"""Exercise 05: find the pages a crash tore, and repair them from the doublewrite buffer. Fill in every
NotImplementedError.

A crash in the middle of a page write can leave the page half new, half old: *torn*. The B+tree engine protects
its pages as InnoDB does: every batch of pages is first written to the doublewrite file and synced, and only then
to the pages' home positions in the tablespace. After a crash, recovery asks your ``TornPageRepair``'s three
methods, in this order:

1. ``newest_copies``: which copies in the doublewrite file may repair a page (you will use ``page_is_intact``);
2. ``needs_repair``: for each page with such a copy, whether its home image is damaged;

then writes the copy over each damaged page, and replays the redo log. Every page of the engine (FORMAT.md) starts
with a 40-byte header, integers little-endian:

=======  ====  =============================================================================
offset   size  field
=======  ====  =============================================================================
0        4     checksum: zlib's crc32 of the whole page computed with these 4 bytes as zero
4        4     page number (where the page belongs in the tablespace)
8        8     page LSN: the end of the last redo record applied to the page
=======  ====  =============================================================================

The notebook ``torn_pages.md`` walks you through it; ``pytest exercises/05_doublewrite`` grades your work, on its own,
then inside the engine crashed at many points: ``minidb.btree.open_btree(device, torn_page_repair=TornPageRepair())``
(the engine's plug point, whose contract the docstrings below state: minidb/btree/torn_page_repair.py holds the
engine's own repair, this exercise's answer, and your copy of the course has it compiled only).
"""

from __future__ import annotations


class TornPageRepair:
    """Torn-page repair: the B+tree engine takes an instance as ``torn_page_repair``."""

    def page_is_intact(self, image: bytes) -> bool:
        """Whether ``image`` (one page, of any page size) is a whole page as written: not all zero (a page never
        written has no checksum) and its stored checksum equals the crc32 of the page with the checksum field zeroed.
        """
        raise NotImplementedError("page_is_intact: see the notebook, section 'The checksum'")

    def newest_copies(self, slots: list[bytes], checkpoint_lsn: int) -> dict[int, bytes]:
        """The copies that may repair a page: ``{page number: image}``, for each page the intact slot image with the
        highest LSN, among the slots whose LSN is at least ``checkpoint_lsn``.

        ``slots`` are the doublewrite file's page images, in slot order; some are all zero (never used) or torn (the
        crash hit the doublewrite write itself, before its sync), some are old copies left by earlier batches. A copy
        older than the checkpoint cannot be used: the redo that would bring it up to date is gone.
        """
        raise NotImplementedError("newest_copies: see the notebook, section 'Which copy'")

    def needs_repair(self, page_no: int, home: bytes | None) -> bool:
        """Whether the home image of page ``page_no`` must be overwritten by its copy: it is missing (None: the file
        ends before it), all zero (never reached the disk), not intact, or holds another page's number (a write that
        landed in the wrong place). An intact image of this page is kept, whatever its LSN: redo brings it up to date.
        """
        raise NotImplementedError("needs_repair: see the notebook, section 'Which pages'")
