"""Hidden graded tests of exercise 05, torn-page repair: they count toward the grade, their output is withheld.

Only instructors have this file: ``minidb release`` leaves it out of the students' copy, and the Gradescope
autograder (``minidb autograder``) carries it. Students see each test's name and points once grades are published.
"""

from __future__ import annotations

import pytest

from minidb.btree import open_btree
from minidb.btree import page as pg
from minidb.btree.doublewrite import FILE as DOUBLEWRITE
from minidb.btree.tablespace import FILE as TABLESPACE
from minidb.errors import CorruptionError
from minidb.storage import SimDevice

PAGE = 4096
OPTIONS = dict(page_size=PAGE, buffer_pool_bytes=16 * PAGE, redo_log_bytes=64 * PAGE)


def closed_database() -> tuple[SimDevice, list[bytes]]:
    """A database of 3,000 rows closed cleanly, and the page images left in its doublewrite slots."""
    device = SimDevice()
    engine = open_btree(device, **OPTIONS)
    for i in range(3000):
        engine.put("primary", b"k%06d" % i, b"v" * 100)
    engine.close()
    area = device.open(DOUBLEWRITE, "doublewrite")
    data = area.read(0, area.size)
    return device, [data[i:i + PAGE] for i in range(0, len(data), PAGE) if any(data[i:i + PAGE])]


@pytest.mark.points(1)
@pytest.mark.hidden
def test_edge_cases(torn_pages):
    """A copy exactly at the checkpoint LSN qualifies, one LSN below it does not; no slots, no copies; the last
    byte of a page is covered by its checksum."""
    repair = torn_pages.TornPageRepair()
    _, slots = closed_database()
    at = slots[0]
    page = pg.Page(bytearray(at))
    assert repair.newest_copies([at], page.lsn) == {page.page_no: at}
    assert repair.newest_copies([at], page.lsn + 1) == {}
    assert repair.newest_copies([], 0) == {}
    assert not repair.needs_repair(page.page_no, at)
    assert repair.needs_repair(page.page_no, at[:-1] + bytes([at[-1] ^ 0xFF]))


@pytest.mark.points(2)
@pytest.mark.hidden
def test_an_old_copy_is_never_used(torn_pages):
    """A page damaged long after a clean close: its copies predate the checkpoint, so recovery must not roll it
    back to one of them; the damage is reported when the page is read."""
    repair = torn_pages.TornPageRepair()
    device, slots = closed_database()
    reader = open_btree(device, read_only=True, **OPTIONS)
    checkpoint_lsn = reader.redo.checkpoint_lsn
    reader.close()
    newest: dict[int, int] = {}
    for image in slots:
        page = pg.Page(bytearray(image))
        newest[page.page_no] = max(page.lsn, newest.get(page.page_no, 0))
    victim = max(page_no for page_no, lsn in newest.items() if lsn < checkpoint_lsn and page_no > 2)
    tablespace = device.open(TABLESPACE, "data")
    tablespace.write(victim * PAGE + PAGE // 2, b"\xaa" * (PAGE // 2))
    tablespace.sync()
    with pytest.raises(CorruptionError, match=rf"page {victim}: checksum mismatch"):
        engine = open_btree(device, torn_page_repair=repair, **OPTIONS)
        engine.check()
