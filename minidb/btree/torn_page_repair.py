"""How recovery finds torn pages and the doublewrite copies that repair them: the plug point of exercise 05.

Recovery (doublewrite.py) asks a *repair* object, given as ``open_btree(..., torn_page_repair=...)`` (a plug
point, minidb/plug_point.py), three questions in plain values, the contract of ``TornPageRepair``; the engine's own
answers are ``DefaultRepair``'s.
The engine checks what it is told (``check_copies``): a copy must be one of the slots, for the page its header
names, so a wrong repair fails loudly instead of writing a page over another.
"""

from __future__ import annotations

import struct

from ..errors import CorruptionError
from ..plug_point import PlugPoint
from . import page as pg
from .tablespace import check_page

_HEAD = struct.Struct("<IQ")  # page number and LSN at offset 4 of a page or of a compressed image


class TornPageRepair(PlugPoint, option="torn_page_repair"):
    """The interface of torn-page repair (a plug point): three functions of plain values."""

    def page_is_intact(self, image: bytes) -> bool:
        """Whether the page image is whole: written (not all zero) and its stored checksum is its checksum."""
        raise NotImplementedError

    def newest_copies(self, slots: list[bytes], checkpoint_lsn: int) -> dict[int, bytes]:
        """{page number: the intact slot image of that page with the highest LSN}, among slots whose LSN is at least
        ``checkpoint_lsn`` (older copies cannot be brought up to date by the redo log)."""
        raise NotImplementedError

    def needs_repair(self, page_no: int, home: bytes | None) -> bool:
        """Whether the home image of page ``page_no`` (None: past the end of the file) must be restored."""
        raise NotImplementedError


class DefaultRepair(TornPageRepair):
    """The engine's answers: a home page is repaired unless it passes every check of a page read."""

    def __init__(self, valid=None) -> None:
        self.valid = valid  # valid(page_no, image) -> bool, the tablespace's check; None: an uncompressed page's

    def page_is_intact(self, image):
        return not pg.is_zero(image) and pg.stored_checksum(image) == pg.checksum(image)

    def newest_copies(self, slots, checkpoint_lsn):
        newest: dict[int, tuple[int, bytes]] = {}  # page number -> (LSN, image)
        for image in slots:
            if not self.page_is_intact(image):
                continue  # an empty slot, or a copy torn before the doublewrite sync
            page_no, lsn = _HEAD.unpack_from(image, 4)
            if lsn >= checkpoint_lsn and lsn >= newest.get(page_no, (-1, b""))[0]:
                newest[page_no] = (lsn, image)
        return {page_no: image for page_no, (_, image) in newest.items()}

    def needs_repair(self, page_no, home):
        if home is None or pg.is_zero(home):
            return True
        if self.valid is not None:
            return not self.valid(page_no, home)
        try:
            check_page(page_no, home)
        except CorruptionError:
            return True
        return False

    def __repr__(self) -> str:
        return "DefaultRepair()"


def check_copies(repair, copies, slots: list[bytes]) -> dict[int, bytes]:
    """``copies`` if each is a slot's image, under its own page number, else ValueError naming ``repair``."""
    if not isinstance(copies, dict):
        raise ValueError(f"torn_page_repair {repair!r}: newest_copies returned {type(copies).__name__}; it must be "
                         f"a dict {{page number: slot image}}")
    images = set(slots)
    for page_no, image in copies.items():
        if not isinstance(image, bytes) or image not in images:
            raise ValueError(f"torn_page_repair {repair!r}: newest_copies gave page {page_no!r} an image that is not "
                             f"one of the doublewrite slots")
        holds = _HEAD.unpack_from(image, 4)[0]
        if isinstance(page_no, bool) or not isinstance(page_no, int) or holds != page_no:
            raise ValueError(f"torn_page_repair {repair!r}: newest_copies gave page {page_no!r} the copy of page "
                             f"{holds}; a copy would be written over another page")
    return copies
