"""Is there a B+tree database on this device? The question an open asks before creating one.

The checkpoint file (``redo-checkpoint``) marks a database: it is written last when a database is created, in one
atomic rename, and never deleted. Without it the device holds no database, but it may hold one that *lost* its
checkpoint file (deleted by mistake, or by a tool that knew no better), and creating an empty database there would
delete the tablespace, the doublewrite file and the redo log: every row. So a new database is created only where
nothing can be lost:

* an empty device;
* the debris of a creation that crashed before its checkpoint file existed: the tablespace, the doublewrite file,
  the first redo file and ``redo-checkpoint.tmp``, with the first redo file holding at most the creation's own
  redo group, and the tablespace no page beyond the creation's three. No client write can have happened before the
  checkpoint existed (``open_btree`` returns only after it), so these hold no data.

Anything else without a checkpoint raises ``NotADatabaseError`` naming the device and what is missing.

The page size is fixed when a database is created and recorded twice, in the checkpoint blocks and in page 0.
Opening with another ``page_size`` is the caller's mistake (``ValueError``) when both say the same other size; a
checkpoint naming a size page 0 does not confirm is damage (``check_page_size``).

What a database was created with, its page size (recorded in the checkpoint) and key block size (in page 0), is
read by ``btree_format_of``: a copy of the database reopens with these (``minidb repair``).
"""

from __future__ import annotations

from ..errors import CorruptionError, DatabaseExistsError, DatabaseMissingError, NotADatabaseError
from . import doublewrite as dw
from . import page as pg
from . import tablespace as ts
from .fsp import FIRST_FREE_PAGE, OFF_PAGE_SIZE, read_u32
from .options import DEFAULT_PAGE_SIZE
from .redo_log import CHECKPOINT_FILE, FILE_HEADER_SIZE, GROUP, GROUP_MAGIC, file_name, read_checkpoint

FIRST_REDO = file_name(1)
CREATION_FILES = (ts.FILE, dw.FILE, FIRST_REDO, CHECKPOINT_FILE + ".tmp")  # what a creation writes before it


def database_exists(device, page_size: int, *, create_if_missing: bool, error_if_exists: bool,
                    read_only: bool) -> bool:
    """True if ``device`` holds a B+tree database; False if a new one may be created there (its creation debris
    may then be deleted); otherwise raise what the options call for (see the module docstring)."""
    if device.exists(CHECKPOINT_FILE):
        if error_if_exists:
            raise DatabaseExistsError(f"{device!r} already holds a B+tree database (error_if_exists=True)")
        return True
    files = device.list()
    if files and not _creation_debris(device, files, page_size):
        shown = ", ".join(files[:6]) + (f" and {len(files) - 6} more" if len(files) > 6 else "")
        raise NotADatabaseError(
            f"{device!r} holds files ({shown}) but no {CHECKPOINT_FILE}: not a B+tree database, or one whose "
            f"checkpoint file was lost; refusing to create a new database over them (restore {CHECKPOINT_FILE}, "
            f"or move the files away)")
    if read_only or not create_if_missing:
        why = "read_only=True" if read_only else "create_if_missing=False"
        raise DatabaseMissingError(f"{device!r} holds no B+tree database ({why})")
    return False


def _creation_debris(device, files: list[str], page_size: int) -> bool:
    """True if ``files`` can only be what a crashed creation left (see the module docstring)."""
    if any(name not in CREATION_FILES for name in files):
        return False
    if ts.FILE in files and device.size(ts.FILE) > FIRST_FREE_PAGE * page_size:
        return False
    return FIRST_REDO not in files or _groups(device, FIRST_REDO) <= 1


def _groups(device, name: str) -> int:
    """How many redo groups (by their headers, unchecked) follow the file header of redo file ``name``."""
    f = device.open(name, "redo")
    try:
        data = f.read(0, f.size)
    finally:
        f.close()
    count, pos = 0, FILE_HEADER_SIZE
    while pos + GROUP.size <= len(data):
        magic, nbytes = GROUP.unpack_from(data, pos)[:2]
        if magic != GROUP_MAGIC:
            break
        count += 1
        pos += GROUP.size + nbytes
    return count


def check_page_size(device, recorded: int, page_size: int) -> None:
    """Nothing if the checkpoint's page size ``recorded`` is the ``page_size`` asked for; else ValueError if page 0
    confirms ``recorded`` (the database has other pages than the caller said), CorruptionError if it does not."""
    if recorded == page_size:
        return
    if recorded in pg.PAGE_SIZES and device.exists(ts.FILE):
        space = ts.Tablespace(device, recorded, read_only=True)
        try:
            head = space.read_page(0)
        except CorruptionError:
            head = None
        if head is not None and read_u32(head, OFF_PAGE_SIZE) == recorded:
            raise ValueError(f"page_size {page_size} does not match the database on {device!r}, which has "
                             f"{recorded}-byte pages (the page size is fixed when a database is created)")
    raise CorruptionError(f"redo-checkpoint names {recorded}-byte pages, which page 0 of {ts.FILE} does not "
                          f"confirm (opened with page_size {page_size}): a damaged checkpoint")


def btree_format_of(dev) -> dict:
    """The page size and key block size (None: not compressed) the B+tree on ``dev`` was created with."""
    page_size = page_size_of(dev)
    key_block_size = ts.Tablespace(dev, page_size).key_block_size if dev.exists(ts.FILE) else None
    return {"page_size": page_size, "key_block_size": key_block_size}


def page_size_of(dev) -> int:
    """The page size the B+tree checkpoint records (the default if the checkpoint is unreadable)."""
    try:
        cp = read_checkpoint(dev)
    except CorruptionError:
        cp = None
    return cp.page_size if cp is not None and cp.page_size in pg.PAGE_SIZES else DEFAULT_PAGE_SIZE
