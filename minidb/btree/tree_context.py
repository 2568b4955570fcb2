"""TreeContext: what the trees of one database, and its change buffer, work with, handed to them by the engine.

A tree does not hold the engine. It gets the collaborators it needs, the same for every tree of a database:

* the **pager**, which brings pages into the buffer pool and takes them out (pager.py);
* the **file space**, which allocates and frees pages (fsp.py);
* a **mini-transaction provider**, ``current_mtr()``: the open mini-transaction every change is logged in (the
  engine opens a system one when none is open; mtr.pyx);
* the **policies**: the leaf split policy (split_policy.py) and the fill factor;
* the page's limits (size, longest key and record), the engine's event counters (splits, merges, ...), every tree
  by index id, and the change buffer, which is set once it is built (its own entries live in one of the trees).

The engine builds one context each time it opens the database (and again when it recovers after a failure).
``page_tag`` names the keyspace a page belongs to, for the IO counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import page as pg


@dataclass
class TreeContext:
    """The collaborators of the trees of one database; see the module docstring."""

    pager: Any  # pager.Pager: fetch, fix and release pages
    fsp: Any  # fsp.FileSpace: allocate and free pages
    current_mtr: Callable[[], Any]  # the open mini-transaction (mtr.Mtr), a system one opened if none is
    split_policy: Any  # split_policy.SplitPolicy for leaves
    fill_factor: float  # how full ascending inserts leave pages
    page_size: int  # bytes per page
    max_key: int  # most bytes per key
    max_record: int  # most bytes of key + value per record
    counters: dict  # the engine's event counters: splits, root_splits, merges, root_lifts
    trees: dict = field(default_factory=dict)  # index id -> BTree, internal trees included
    change_buffer: Any = None  # change_buffer.ChangeBuffer, once built


def page_tag(trees: dict, frame) -> str:
    """The IO tag of the page in ``frame``: its keyspace (``trees``: index id -> tree), or __fsp, __free, __catalog,
    __change_buffer (the pager tags every page IO with it)."""
    page = pg.Page(frame.buf)
    if page.type == pg.INDEX_PAGE:
        tree = trees.get(page.index_id)
        return tree.name if tree is not None else f"__index{page.index_id}"
    return {pg.FSP_PAGE_TYPE: "__fsp", pg.FREE_PAGE: "__free"}.get(page.type, "")
