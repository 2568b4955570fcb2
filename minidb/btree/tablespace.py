"""The tablespace: the data file holding every page of every tree at ``page_no * page_size``.

Every read is checked: a page whose checksum does not match its bytes (a torn or corrupted write) or that carries
another page's number (a write that went to the wrong place) or whose structure is malformed despite a right
checksum (``page.structure_error``: offsets outside the page, keys out of order, links to itself) raises
``CorruptionError`` naming the file and the page, so damaged bytes are never read as data. An all-zero page was never written (a page allocated past the end
of what reached the disk) and has no checksum to check; reading past the end of the file gives such a page too.

**Growing.** A page gets its room in the file when it is allocated (``extend``), not when it is first written back,
as InnoDB extends a tablespace (``fsp_try_extend_data_file``, with ``posix_fallocate``) before it hands out a new
page. So a full disk is met by the statement that needs the page, which gets ``TableFullError`` (InnoDB's error
1114, "The table is full") and is rolled back, while page writes, which happen later in the background, never run
out of space. (InnoDB extends by whole extents; here the file grows by the page allocated, so the sizes other
chapters report are the pages in use.)

A read-only tablespace (a read-only open) never writes its file: page writes (doublewrite repairs, pages evicted
after recovery changed them) go to an in-memory overlay that later reads see, and are lost at close.

**Compressed tablespaces.** With a key block size (``open_btree(key_block_size=K)``, InnoDB's ``FILE_BLOCK_SIZE``
of a compressed general tablespace, whose every table has ``KEY_BLOCK_SIZE=K``), page ``n`` is a ``block``-byte
compressed image at ``n * block`` (page_zip.pyx), checked (checksum, page number, a zlib stream that expands to a
well-formed page) and expanded on every read. The block size is found in page 0's image when the file exists: its
byte 16 is the compressed-image marker and byte 17 the block size in KiB.
"""

from __future__ import annotations

import errno

from ..errors import CorruptionError, TableFullError
from . import page as pg
from . import page_zip as zp

FILE = "tablespace.ibd"


class Tablespace:
    """Page-sized (or block-sized) reads and writes of the data file, with checksums."""

    def __init__(self, device, page_size: int, create: bool = False, read_only: bool = False,
                 block: int | None = None, zip_stats=None) -> None:
        self.device = device  # where the file lives
        self.page_size = page_size  # bytes per page
        if not create and not device.exists(FILE):
            raise CorruptionError(f"{FILE} is missing: the redo checkpoint says a database is here")
        self.file = device.open(FILE, "data", create=create)  # the data file
        self.overlay: dict[int, bytes] | None = {} if read_only else None  # read-only: page writes kept here
        found = False if create else self.recorded_block()
        self.compressed = found is not None if found is not False else block is not None  # pages are zip images
        self.block = (found or block or page_size) if self.compressed else page_size  # bytes per page on disk
        self.zip_stats = zip_stats if zip_stats is not None else zp.ZipStats()  # compressions and expansions

    def recorded_block(self):
        """The key block size page 0's image records; None if page 0 is an uncompressed page; False if page 0 was
        never written (a creation that crashed early: the option decides)."""
        head = self.file.read(0, 18) if self.file.size >= 18 else b""
        if len(head) < 18 or pg.is_zero(head):
            return False
        if zp.is_image(head):
            if head[17] << 10 not in zp.KEY_BLOCK_SIZES:
                raise CorruptionError(f"{FILE} page 0: compressed image of an unknown block size ({head[17]} KiB)")
            return head[17] << 10
        return None

    @property
    def key_block_size(self) -> int | None:
        """The key block size in KiB (``open_btree``'s option) of a compressed tablespace, or None."""
        return self.block >> 10 if self.compressed else None

    def read_page(self, page_no: int) -> bytearray:
        """The page's bytes, checked (see the module docstring)."""
        return self.read_frame(page_no)[0]

    def page_of(self, raw) -> bytearray:
        """The page an image read with ``read_raw`` (and checked) holds: expanded if compressed (not counted as
        the engine's work: for readers of a damaged database)."""
        if not self.compressed or pg.is_zero(raw):
            return bytearray(raw)
        return zp.expand(raw, self.page_size, zp.ZipStats())[0]

    def read_frame(self, page_no: int):
        """(the page's bytes, its compressed copy or None), checked; a never-written page is zeros with no copy."""
        raw = self._read(page_no) or bytes(self.block)
        self.check(page_no, raw)
        if not self.compressed:
            return bytearray(raw), None
        if pg.is_zero(raw):
            return bytearray(self.page_size), None
        return zp.expand(raw, self.page_size, self.zip_stats)

    def _read(self, page_no: int) -> bytes | None:
        """The page's bytes, zero-padded if the file ends inside it (a torn extension); None past the end."""
        if self.overlay is not None and page_no in self.overlay:
            return self.overlay[page_no]
        offset = page_no * self.block
        size = self.file.size
        if offset >= size:
            return None
        n = min(self.block, size - offset)
        return self.file.read(offset, n).ljust(self.block, b"\0")

    def check(self, page_no: int, buf) -> None:
        """CorruptionError unless ``buf`` is a valid image of page ``page_no`` (or a never-written zero page)."""
        check_page(page_no, buf, self._expand if self.compressed else None)

    def _expand(self, page_no: int, image) -> bytes:
        """The page a compressed image holds, for a check (not counted as the engine's work)."""
        try:
            return zp.expand(image, self.page_size, zp.ZipStats())[0]
        except CorruptionError as exc:
            raise CorruptionError(f"{FILE} page {page_no}: checksum right but {exc}") from None

    def valid(self, page_no: int, buf) -> bool:
        """True if ``buf`` passes ``check`` for ``page_no``."""
        try:
            self.check(page_no, buf)
        except CorruptionError:
            return False
        return True

    def read_raw(self, page_no: int) -> bytes | None:
        """The page's bytes unchecked, or None past the end of the file (for doublewrite recovery)."""
        return self._read(page_no)

    def write_page(self, page_no: int, data: bytes) -> None:
        """Write one page image (its checksum already stamped) at its home position."""
        if self.overlay is not None:
            self.overlay[page_no] = bytes(data)
            return
        self.file.write(page_no * self.block, data)

    def extend(self, pages: int) -> None:
        """Make room in the file for pages ``[0, pages)``; TableFullError (the statement fails) if the device is
        full."""
        try:
            self.file.allocate(pages * self.block)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            raise TableFullError(errno.ENOSPC, f"The table is full: {FILE} cannot grow to {pages} pages (no space "
                                               f"left on device); the statement is rolled back (InnoDB error 1114)",
                                 FILE) from exc

    def sync(self) -> None:
        """Make the page writes so far durable."""
        if self.overlay is None:
            self.file.sync()

    @property
    def size(self) -> int:
        """Bytes of the data file (with a read-only overlay: as if its pages had been written)."""
        pages = max(self.overlay, default=-1) + 1 if self.overlay else 0
        return max(self.file.size, pages * self.block)


def check_page(page_no: int, buf, expand=None) -> None:
    """CorruptionError unless ``buf`` is a valid image of page ``page_no`` (or a never-written zero page): its
    checksum, its page number (a misdirected write) and its structure; ``expand(page_no, buf)`` gives the page a
    compressed image holds (None: ``buf`` is the page)."""
    stored = pg.stored_checksum(buf)
    if stored != pg.checksum(buf):
        if pg.is_zero(buf):
            return
        what = "" if expand is None else f" in its {len(buf)}-byte compressed image"
        raise CorruptionError(f"{FILE} page {page_no}: checksum mismatch{what} (stored {stored:#010x}, computed "
                              f"{pg.checksum(buf):#010x}): torn or corrupted page")
    found = int.from_bytes(bytes(buf[pg.PAGE_NO_OFFSET:pg.PAGE_NO_OFFSET + 4]), "little")
    if found != page_no:
        raise CorruptionError(f"{FILE} page {page_no}: holds page {found} (a misdirected write)")
    page = buf if expand is None else expand(page_no, buf)
    problem = pg.structure_error(page, page_no)
    if problem is not None:
        raise CorruptionError(f"{FILE} page {page_no}: checksum right but malformed: {problem}")
