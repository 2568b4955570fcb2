"""Graded tests of exercise 05, torn-page repair, on its own. Run them with ``pytest exercises/05_doublewrite``.

The page images are real pages of the B+tree engine (``minidb.btree.page``); a torn image is what a crash leaves:
the first sectors (512 bytes each) of the new image, the rest of the old one. Hypothesis draws pages, tears and
doublewrite files of every shape. The ``torn_pages`` fixture is your module (``--student PATH`` grades another file
or folder instead).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from minidb.btree import page as pg
from minidb.grading.repeatable import repeatable

PAGE = 4096
SECTOR = 512  # what a crash keeps or loses as a whole


def page_image(page_no: int, lsn: int, rows: int = 20, seed: int = 0, size: int = PAGE) -> bytes:
    """An index page as the engine writes it: ``rows`` records, the LSN, the checksum stamped."""
    rng = random.Random(seed)
    buf = bytearray(size)
    page = pg.Page(buf)
    page.init(page_no, pg.INDEX_PAGE, 0, 1)
    for i in range(rows):
        page.put(b"key%06d" % i, rng.randbytes(rng.randrange(1, 120)))
    page.lsn = lsn
    pg.stamp_checksum(buf)
    return bytes(buf)


def torn(new: bytes, old: bytes, sectors: int) -> bytes:
    """What a crash leaves of a write of ``new`` over ``old``: the first ``sectors`` sectors of new, then old."""
    cut = sectors * SECTOR
    return new[:cut] + old[cut:]


def describe(image: bytes | None) -> str:
    """A page image in a failure message: its page number and LSN, or what it is."""
    if image is None:
        return "None"
    if not any(image):
        return "an all-zero page"
    page = pg.Page(bytearray(image))
    return f"page {page.page_no} at LSN {page.lsn} (checksum {'ok' if pg.stored_checksum(image) == pg.checksum(image) else 'bad'})"


@pytest.mark.points(2)
def test_checksum_by_example(torn_pages):
    """A page as written is intact; torn, flipped, zeroed or blank it is not."""
    repair = torn_pages.TornPageRepair()
    new, old = page_image(5, 900, seed=1), page_image(5, 700, seed=2)
    assert repair.page_is_intact(new) is True, "a page as the engine wrote it must be intact"
    assert repair.page_is_intact(page_image(9, 1, rows=0, size=16384)) is True, "any page size"
    assert repair.page_is_intact(torn(new, old, 4)) is False, "half new, half old: torn"
    flipped = bytearray(new)
    flipped[3000] ^= 1
    assert repair.page_is_intact(bytes(flipped)) is False, "one flipped bit changes the crc32"
    assert repair.page_is_intact(bytes(PAGE)) is False, "an all-zero page was never written: it has no checksum"
    assert repair.page_is_intact(new[:2048] + bytes(2048)) is False, "the end of the page never reached the disk"


@pytest.mark.points(3)
@repeatable
@given(page_no=st.integers(0, 2**32 - 1), lsns=st.tuples(st.integers(0, 2**63), st.integers(0, 2**63)),
       rows=st.integers(0, 30), seeds=st.tuples(st.integers(0, 99), st.integers(100, 199)),
       sectors=st.integers(0, PAGE // SECTOR))
@example(page_no=3, lsns=(100, 50), rows=20, seeds=(1, 101), sectors=1)
def test_torn_pages_are_never_intact(torn_pages, page_no, lsns, rows, seeds, sectors):
    """Whatever the page, a tear that mixes two different images fails the checksum; a tear that keeps one whole
    image is that image."""
    repair = torn_pages.TornPageRepair()
    new = page_image(page_no, lsns[0], rows, seeds[0])
    old = page_image(page_no, lsns[1], rows, seeds[1])
    image = torn(new, old, sectors)
    whole = image in (new, old)
    assert repair.page_is_intact(image) is whole, (
        f"{sectors} of {PAGE // SECTOR} sectors of {describe(new)} over {describe(old)}: "
        f"page_is_intact must be {whole}")


def doublewrite_file(rng: random.Random, pages: list[int], checkpoint_lsn: int):
    """Slots as a doublewrite file holds them after many batches, and what newest_copies must answer."""
    slots, expected = [], {}
    for page_no in pages:
        # A page's copies have distinct LSNs: each was written after another change to the page.
        for lsn in rng.sample(range(checkpoint_lsn // 2, checkpoint_lsn * 2), rng.randrange(1, 4)):
            written = page_image(page_no, lsn, rng.randrange(0, 8), rng.randrange(10**6))
            # Torn before the sync, sometimes (a tear that loses only zeros leaves the page whole).
            image = torn(written, bytes(PAGE), rng.randrange(1, PAGE // SECTOR)) if rng.random() < 0.2 else written
            if image == written and lsn >= checkpoint_lsn and lsn > expected.get(page_no, (-1, b""))[0]:
                expected[page_no] = (lsn, image)
            slots.append(image)
    slots += [bytes(PAGE)] * rng.randrange(0, 5)  # slots never used
    rng.shuffle(slots)
    return slots, {page_no: image for page_no, (_, image) in expected.items()}


@pytest.mark.points(2)
def test_newest_copies_by_example(torn_pages):
    """Of three copies of page 7 the newest intact one; page 8's only copy predates the checkpoint; page 9's is
    torn; empty slots are skipped."""
    repair = torn_pages.TornPageRepair()
    new7, mid7, torn7 = page_image(7, 1500, seed=1), page_image(7, 1200, seed=2), page_image(7, 1800, seed=3)
    slots = [mid7, bytes(PAGE), new7, torn(torn7, bytes(PAGE), 3), page_image(8, 900),
             torn(page_image(9, 1600), bytes(PAGE), 5), bytes(PAGE)]
    copies = repair.newest_copies(slots, 1000)
    assert isinstance(copies, dict), f"newest_copies must return a dict, got {type(copies).__name__}"
    assert sorted(copies) == [7], (
        f"only page 7 has a usable copy (page 8's is older than the checkpoint, page 9's is torn); got "
        f"{sorted(copies)}")
    assert copies[7] == new7, f"page 7: the intact copy with the highest LSN (1500), got {describe(copies[7])}"


@pytest.mark.points(3)
@repeatable
@given(seed=st.integers(0, 10**6), pages=st.lists(st.integers(0, 5000), min_size=0, max_size=8, unique=True),
       checkpoint_lsn=st.integers(2, 10**12))
def test_newest_copies_of_any_doublewrite_file(torn_pages, seed, pages, checkpoint_lsn):
    """Many batches' copies, some torn, some older than the checkpoint: for each page its newest usable copy."""
    repair = torn_pages.TornPageRepair()
    slots, expected = doublewrite_file(random.Random(seed), pages, checkpoint_lsn)
    copies = repair.newest_copies(list(slots), checkpoint_lsn)
    assert isinstance(copies, dict) and sorted(copies) == sorted(expected), (
        f"checkpoint LSN {checkpoint_lsn}: pages with a usable copy are {sorted(expected)}, got "
        f"{sorted(copies) if isinstance(copies, dict) else copies!r}")
    for page_no, image in expected.items():
        assert copies[page_no] == image, (
            f"page {page_no}: expected {describe(image)}, got {describe(copies[page_no])}; the copies were "
            f"{[describe(s) for s in slots if any(s) and pg.Page(bytearray(s)).page_no == page_no]}")


@pytest.mark.points(3)
def test_needs_repair(torn_pages):
    """Missing, blank, torn or misdirected home pages are repaired; intact ones are kept, old or new."""
    repair = torn_pages.TornPageRepair()
    new, old = page_image(12, 5000, seed=4), page_image(12, 4000, seed=5)
    cases = [
        (None, True, "the file ends before the page"),
        (bytes(PAGE), True, "the page never reached the disk"),
        (torn(new, old, 2), True, "the crash tore the page"),
        (page_image(13, 5000), True, "page 13's image at page 12's place: a misdirected write"),
        (new, False, "an intact page is kept"),
        (old, False, "an intact older page is kept: the redo log brings it up to date"),
    ]
    for home, expected, why in cases:
        answer = repair.needs_repair(12, home)
        assert answer is expected, f"needs_repair(12, {describe(home)}) = {answer!r}: {why}"
