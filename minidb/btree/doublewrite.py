"""The doublewrite buffer: every page is written twice so that a torn page write can be repaired.

A crash in the middle of writing a 16 KiB page can leave it half old, half new ("torn"): its checksum fails and
the redo log cannot help, because redo records change a page, they do not rebuild it. InnoDB's answer, used here:

1. write the batch of pages to the doublewrite file (``doublewrite.dblwr``, ``SLOTS`` page slots) and sync it;
2. write each page to its home position in the tablespace, then sync the tablespace;
3. after a crash, before replaying redo, check each page found in the doublewrite file: if its home copy fails its
   checksum, copy the doublewrite image (which was synced before the home write began) over it.

Only copies whose LSN is at least the checkpoint LSN are used. A page torn by the crash was being written after
the last checkpoint began, so its copy qualifies; and any qualifying copy, even an older one left in a slot by an
earlier batch, is brought up to date by the redo replay that follows, which starts at the checkpoint. An older
copy could not be (the log before the checkpoint is gone), so it is never used: a page damaged in some other way
is reported by its checksum instead of being silently rolled back.

**The plug point** (exercise 05): recovery asks a *repair* object which pages are torn and which copies repair
them (torn_page_repair.py).

Every page write therefore costs twice the bytes (finding F2 of the book: InnoDB's write amplification doubles),
plus two syncs per batch. With doublewrite off, a torn page is still *detected* by its checksum (CorruptionError
naming the file and page), never read as data; it just cannot be repaired.

In a compressed tablespace the slots are key blocks and hold the compressed images, as written home.
"""

from __future__ import annotations

from .torn_page_repair import DefaultRepair, check_copies

FILE = "doublewrite.dblwr"
SLOTS = 64  # pages per doublewrite batch (InnoDB 5.7: 2 x 64-page chunks); larger batches are written in parts


class Doublewrite:
    """The doublewrite file of one database (see the module docstring)."""

    def __init__(self, device, page_size: int, stats, repair=None, valid=None) -> None:
        self.device = device  # where the file lives
        self.page_size = page_size  # bytes per slot: a page as written home (the key block size if compressed)
        self.stats = stats  # IO counters, for tagging each write with its keyspace
        # Finds torn pages and the copies that repair them (TornPageRepair); the engine's own asks ``valid``, the
        # tablespace's check of a home image, which knows compressed images.
        self.repair = repair or DefaultRepair(valid)
        self.file = device.open(FILE, "doublewrite", create=True)  # the slots
        # Its room is taken once, at open (InnoDB's doublewrite area is fixed at creation): page writes, which run
        # in the background, never need new space, so a full disk never stops them.
        self.file.allocate(SLOTS * page_size)

    def write(self, images: list[tuple[str, int, bytes]]) -> None:
        """Write up to SLOTS (tag, page number, image) to the slots and sync: one write per run of pages of the
        same tag (keyspace), so that IOStats can attribute the doublewrite bytes per index."""
        if len(images) > SLOTS:
            raise ValueError(f"a doublewrite batch holds at most {SLOTS} pages, got {len(images)}")
        start = 0
        while start < len(images):
            end = start
            while end < len(images) and images[end][0] == images[start][0]:
                end += 1
            with self.stats.tag(images[start][0]):
                self.file.write(start * self.page_size, b"".join(img for _, _, img in images[start:end]))
            start = end
        self.file.sync()

    def recover(self, tablespace, checkpoint_lsn: int) -> list[int]:
        """Repair torn home pages from valid doublewrite copies (see the module docstring); returns the page numbers
        restored."""
        size = self.file.size
        data = self.file.read(0, size) if size else b""
        ps = self.page_size
        slots = [data[i:i + ps] for i in range(0, len(data) - ps + 1, ps)]
        copies = check_copies(self.repair, self.repair.newest_copies(slots, checkpoint_lsn), slots)
        restored = [page_no for page_no in sorted(copies)
                    if self.repair.needs_repair(page_no, tablespace.read_raw(page_no))]
        for page_no in restored:
            tablespace.write_page(page_no, copies[page_no])
        if restored:
            tablespace.sync()
        return restored
