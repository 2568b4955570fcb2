"""Verifying the files of a B+tree database: the checkpoint, the redo chain, every tablespace page.

* ``redo-checkpoint``: a valid block (its newest) gives the checkpoint LSN and the page size.
* Redo files: each header intact; numbers consecutive; each file starting where the one before ends; every group
  from the header on intact (checksum, LSN, end byte); damage only as a torn tail of the last file.
* ``tablespace.ibd``: every page passes its checksum, carries its own number and is well formed
  (``page.structure_error``); never-written (zero) pages are counted apart.
* ``doublewrite.dblwr``: its size is whole pages (its images are checked by recovery, which uses one only when a
  page's home copy is torn).
"""

from __future__ import annotations

import struct
import zlib

from ..btree import page as pg
from ..btree.doublewrite import FILE as DOUBLEWRITE
from ..btree.redo_log import (CHECKPOINT_FILE, FILE_HEADER, FILE_HEADER_SIZE, FILE_MAGIC, GROUP, VERSION,
                              check_torn_tail, group_at, padding, torn_header, read_checkpoint)
from ..btree.tablespace import FILE as TABLESPACE
from ..btree.tablespace import Tablespace
from ..errors import CorruptionError
from . import FileReport


def verify(dev) -> list[FileReport]:
    """A report per file of the B+tree database on ``dev`` (see the module docstring)."""
    reports = []
    page_size = None
    try:
        cp = read_checkpoint(dev)
        if cp is None:
            reports.append(FileReport(CHECKPOINT_FILE, False, "missing: the database has no checkpoint"))
        else:
            page_size = cp.page_size
            if page_size not in pg.PAGE_SIZES:
                raise CorruptionError(f"{CHECKPOINT_FILE}: page size {page_size}")
            reports.append(FileReport(CHECKPOINT_FILE, True, f"checkpoint LSN {cp.lsn}, {page_size}-byte pages"))
    except CorruptionError as exc:
        reports.append(FileReport(CHECKPOINT_FILE, False, str(exc)))
    reports += _redo(dev)
    if dev.exists(TABLESPACE):
        reports.append(_tablespace(dev, page_size))
    else:
        reports.append(FileReport(TABLESPACE, False, "missing"))
    if dev.exists(DOUBLEWRITE):
        size = dev.size(DOUBLEWRITE)
        ok = page_size is None or size % page_size == 0
        reports.append(FileReport(DOUBLEWRITE, ok, f"{size} bytes" + ("" if ok else ": not whole pages")))
    known = {r.name for r in reports}
    for name in sorted(dev.list()):
        if name not in known:
            reports.append(FileReport(name, True, "not a database file (ignored)"))
    return sorted(reports, key=lambda r: r.name)


def _redo(dev) -> list[FileReport]:
    names = sorted(n for n in dev.list("redo-") if n.endswith(".log") and n[5:-4].isdigit())
    out = []
    prev_number = prev_end = None
    for i, name in enumerate(names):
        number = int(name[5:-4])
        last = i == len(names) - 1
        f = dev.open(name, "redo")
        try:
            data = f.read(0, f.size)
            head = data[:FILE_HEADER_SIZE]
            if len(head) < FILE_HEADER_SIZE or head[:8] != FILE_MAGIC:
                bad = "a torn header (a file started just before a crash)" if last and torn_header(f) else None
                out.append(FileReport(name, bad is not None, bad or "offset 0: bad redo file header"))
                continue
        finally:
            f.close()
        magic, version, start = FILE_HEADER.unpack_from(head)
        (crc,) = struct.unpack_from("<I", head, FILE_HEADER.size)
        if version != VERSION or crc != zlib.crc32(head[:FILE_HEADER.size]):
            out.append(FileReport(name, False, f"offset 0: bad redo file header (version {version})"))
            continue
        lsn = None  # where this file's intact groups end, once known
        try:
            if prev_number is not None and number != prev_number + 1:
                raise CorruptionError(f"redo-{prev_number + 1:08d}.log is missing before it")
            if prev_end is not None and start != prev_end:
                raise CorruptionError(f"starts at LSN {start}, but the file before ends at LSN {prev_end}")
            body = data[FILE_HEADER_SIZE:]
            pos, lsn, groups = 0, start, 0
            while (nbytes := group_at(body, pos, lsn)) is not None:
                pos += GROUP.size + nbytes
                lsn += GROUP.size + nbytes
                groups += 1
            detail = f"{groups} groups, LSN {start} to {lsn}"
            if pos != len(body) and not padding(body, pos, FILE_HEADER_SIZE):
                where = f"offset {FILE_HEADER_SIZE + pos} (LSN {lsn})"
                if not last:
                    raise CorruptionError(f"{where}: damaged group in a file synced in full before the next one")
                check_torn_tail(body, pos, lsn, FILE_HEADER_SIZE, where)
                detail += f", then a torn tail at offset {FILE_HEADER_SIZE + pos} (a crash's unsynced write)"
            out.append(FileReport(name, True, detail))
        except CorruptionError as exc:
            out.append(FileReport(name, False, str(exc)))
        prev_number, prev_end = number, lsn
    return out


def _tablespace(dev, page_size) -> FileReport:
    if page_size is None:
        return FileReport(TABLESPACE, False, "not checked: the page size is in the damaged checkpoint")
    ts = Tablespace(dev, page_size)
    pages = ts.size // ts.block  # a compressed tablespace holds key blocks
    zero, bad = 0, []
    for page_no in range(pages):
        raw = ts.read_raw(page_no)
        if pg.is_zero(raw):
            zero += 1
            continue
        try:
            ts.check(page_no, raw)
        except CorruptionError as exc:
            bad.append(str(exc))
    tail = ts.size % ts.block
    detail = f"{pages} pages ({zero} never written)"
    if tail:
        bad.append(f"{TABLESPACE}: {tail} bytes after the last whole page")
    if bad:
        return FileReport(TABLESPACE, False, f"{len(bad)} damaged of {detail}: " + "; ".join(bad[:3]))
    return FileReport(TABLESPACE, True, detail)
