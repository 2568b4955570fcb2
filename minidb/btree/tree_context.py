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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


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
