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
"""

from __future__ import annotations

import errno

from ..errors import CorruptionError, TableFullError
from . import page as pg

FILE = "tablespace.ibd"


class Tablespace:
    """Page-sized reads and writes of the data file, with checksums."""

    def __init__(self, device, page_size: int, create: bool = False, read_only: bool = False) -> None:
        self.device = device  # where the file lives
        self.page_size = page_size  # bytes per page
        if not create and not device.exists(FILE):
            raise CorruptionError(f"{FILE} is missing: the redo checkpoint says a database is here")
        self.file = device.open(FILE, "data", create=create)  # the data file
        self.overlay: dict[int, bytes] | None = {} if read_only else None  # read-only: page writes kept here

    def read_page(self, page_no: int) -> bytearray:
        """The page's bytes, checked (see the module docstring)."""
        buf = bytearray(self._read(page_no) or bytes(self.page_size))
        self.check(page_no, buf)
        return buf

    def _read(self, page_no: int) -> bytes | None:
        """The page's bytes, zero-padded if the file ends inside it (a torn extension); None past the end."""
        if self.overlay is not None and page_no in self.overlay:
            return self.overlay[page_no]
        offset = page_no * self.page_size
        size = self.file.size
        if offset >= size:
            return None
        n = min(self.page_size, size - offset)
        return self.file.read(offset, n).ljust(self.page_size, b"\0")

    def check(self, page_no: int, buf) -> None:
        """CorruptionError unless ``buf`` is a valid image of page ``page_no`` (or a never-written zero page)."""
        check_page(page_no, buf)

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
        self.file.write(page_no * self.page_size, data)

    def extend(self, pages: int) -> None:
        """Make room in the file for pages ``[0, pages)``; TableFullError (the statement fails) if the device is
        full."""
        try:
            self.file.allocate(pages * self.page_size)
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
        return max(self.file.size, pages * self.page_size)


def check_page(page_no: int, buf) -> None:
    """CorruptionError unless ``buf`` is a valid image of page ``page_no`` (or a never-written zero page): its
    checksum, its page number (a misdirected write) and its structure."""
    stored = pg.stored_checksum(buf)
    if stored != pg.checksum(buf):
        if pg.is_zero(buf):
            return
        raise CorruptionError(f"{FILE} page {page_no}: checksum mismatch (stored {stored:#010x}, computed "
                              f"{pg.checksum(buf):#010x}): torn or corrupted page")
    found = pg.Page(bytearray(buf)).page_no
    if found != page_no:
        raise CorruptionError(f"{FILE} page {page_no}: holds page {found} (a misdirected write)")
    problem = pg.structure_error(buf, page_no)
    if problem is not None:
        raise CorruptionError(f"{FILE} page {page_no}: checksum right but malformed: {problem}")
