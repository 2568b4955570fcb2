"""Walking the database: the structural check behind ``BTreeEngine.check()`` and the tree figures of ``stats()``.

``check_database`` (``check``) proves that the tablespace holds a valid forest of B+trees:

* every page of a tree is an index page of that tree, one level below its parent, reached exactly once;
* keys are strictly increasing in every page, and every key lies within the bounds its ancestors' separators give
  it (so a search always reaches the leaf that holds a key);
* every internal page has at least one child and its first record is the "minus infinity" record;
* the pages of each level are doubly linked left to right in key order (the leaf links scans follow), with no link
  leaving the level at either end;
* every page of the tablespace is used exactly once: page 0, a page of one tree, or a page on the free list.

Pages are taken from the buffer pool when there (without touching the LRU) and read from the tablespace
otherwise, checksum verified but not cached: the walk changes no engine state, though its reads are counted in
IOStats like any other. A leaf with changes waiting in the change buffer is checked as it is on disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import CorruptionError
from . import fsp
from . import page as pg


@dataclass
class TreeReport:
    """Figures of one tree found by the walk."""

    name: str  # keyspace (or internal tree) name
    height: int = 0  # levels (1: the root is a leaf)
    pages: set = field(default_factory=set)  # every page number of the tree
    leaf_pages: int = 0  # leaves
    internal_pages: int = 0  # non-leaf pages
    records: int = 0  # records in the leaves
    leaf_fill: list = field(default_factory=list)  # fill fraction of each leaf, left to right


class PageReader:
    """Pages for the walk: the pool's copy if cached, else a checked read from the tablespace (not cached)."""

    def __init__(self, pool, tablespace, stats) -> None:
        self.pool = pool
        self.tablespace = tablespace
        self.stats = stats

    def __call__(self, page_no: int, tag: str) -> pg.Page:
        frame = self.pool.peek(page_no)
        if frame is not None:
            return pg.Page(frame.buf)
        with self.stats.tag(tag):
            return pg.Page(self.tablespace.read_page(page_no))


def walk_tree(name: str, index_id: int, root: int, read) -> TreeReport:
    """Check one tree (see the module docstring) and measure it; CorruptionError on the first violation."""
    report = TreeReport(name)
    levels: dict[int, list[int]] = {}
    prev_next: dict[int, tuple[int, int]] = {}

    def fail(page_no: int, what: str) -> None:
        raise CorruptionError(f"index {name!r}, page {page_no}: {what}")

    def visit(page_no: int, lo: bytes | None, hi: bytes | None, level: int | None) -> None:
        if page_no in report.pages:
            fail(page_no, "reached twice")
        report.pages.add(page_no)
        page = read(page_no, name)
        if page.type != pg.INDEX_PAGE or page.index_id != index_id:
            fail(page_no, f"is not a page of this index (type {page.type}, index {page.index_id})")
        if level is not None and page.level != level:
            fail(page_no, f"is at level {page.level}, its parent expects {level}")
        levels.setdefault(page.level, []).append(page_no)
        prev_next[page_no] = (page.prev, page.next)
        keys = page.keys()
        first = 0 if page.is_leaf else 1
        if not page.is_leaf:
            if not keys:
                fail(page_no, "internal page without records")
            if keys[0] != b"":
                fail(page_no, f"first record of an internal page has key {keys[0]!r}, not minus infinity")
        for i in range(first, len(keys)):
            if i > first and keys[i - 1] >= keys[i]:
                fail(page_no, f"keys out of order at record {i}: {keys[i - 1]!r} >= {keys[i]!r}")
            if (lo is not None and keys[i] < lo) or (hi is not None and keys[i] >= hi):
                fail(page_no, f"key {keys[i]!r} outside its separators [{lo!r}, {hi!r})")
        if page.is_leaf:
            report.leaf_pages += 1
            report.records += len(keys)
            report.leaf_fill.append(page.fill)
            return
        report.internal_pages += 1
        children = [page.child(i) for i in range(len(keys))]
        for i, child in enumerate(children):
            child_lo = lo if i == 0 else keys[i]
            child_hi = keys[i + 1] if i + 1 < len(keys) else hi
            visit(child, child_lo, child_hi, page.level - 1)

    visit(root, None, None, None)
    report.height = max(levels) + 1
    for level, pages in levels.items():
        for i, page_no in enumerate(pages):
            prev, nxt = prev_next[page_no]
            want_prev = pages[i - 1] if i > 0 else pg.NIL_PAGE
            want_next = pages[i + 1] if i + 1 < len(pages) else pg.NIL_PAGE
            if prev != want_prev or nxt != want_next:
                fail(page_no, f"level-{level} links are prev={_no(prev)} next={_no(nxt)}, expected "
                              f"prev={_no(want_prev)} next={_no(want_next)}")
    return report


def _no(page_no: int) -> str:
    return "NIL" if page_no == pg.NIL_PAGE else str(page_no)


def walk_free_list(read, head: int, count: int, page_count: int) -> set[int]:
    """The pages on the free list, checked (type, bounds, no cycle, count)."""
    pages: set[int] = set()
    page_no = head
    while page_no != pg.NIL_PAGE:
        if page_no in pages or not fsp.FIRST_FREE_PAGE <= page_no < page_count:
            raise CorruptionError(f"free list: page {page_no} is repeated or out of range")
        pages.add(page_no)
        page = read(page_no, "__free")
        if page.type != pg.FREE_PAGE:
            raise CorruptionError(f"free list: page {page_no} has type {page.type}, not free")
        page_no = page.next
    if len(pages) != count:
        raise CorruptionError(f"free list: {len(pages)} pages, the file-space header says {count}")
    return pages


def check_space(trees: list[TreeReport], free: set[int], page_count: int) -> None:
    """Every page below ``page_count`` is page 0, in exactly one tree, or free."""
    owner: dict[int, str] = {fsp.FSP_PAGE: "the file-space header"}
    for name, pages in [(t.name, t.pages) for t in trees] + [("the free list", free)]:
        for page_no in pages:
            if page_no >= page_count:
                raise CorruptionError(f"page {page_no} of {name} is beyond the {page_count} pages of the tablespace")
            if page_no in owner:
                raise CorruptionError(f"page {page_no} belongs to both {owner[page_no]} and {name}")
            owner[page_no] = name
    lost = sorted(set(range(page_count)) - owner.keys())
    if lost:
        raise CorruptionError(f"pages {lost[:10]} belong to no tree and are not free (leaked)")


def check_database(engine) -> dict:
    """``check`` on the database of ``engine`` (a BTreeEngine): every tree, the catalog's and the change buffer's
    included, the free list, and every page used once; then that every leaf the change buffer holds entries for is
    a leaf of their index. Raises CorruptionError on the first violation; returns a summary."""
    read = PageReader(engine.pool, engine.tablespace, engine.device.stats)
    internal = [engine.tree_by_id[fsp.CATALOG_INDEX_ID], engine.tree_by_id[fsp.CHANGE_BUFFER_INDEX_ID]]
    reports = [walk_tree(t.name, t.index_id, t.root, read)
               for t in internal + [engine.trees[n] for n in engine.keyspaces()]]
    head = read(fsp.FSP_PAGE, "__fsp").buf
    page_count = fsp.read_u32(head, fsp.OFF_PAGE_COUNT)
    free = walk_free_list(read, fsp.read_u32(head, fsp.OFF_FREE_HEAD), fsp.read_u32(head, fsp.OFF_FREE_COUNT),
                          page_count)
    check_space(reports, free, page_count)
    by_name = {r.name: r for r in reports}
    for page_no, index_id in engine.change_buffer.owner.items():
        tree = engine.tree_by_id.get(index_id)
        if tree is None or page_no not in by_name[tree.name].pages:
            raise CorruptionError(f"change buffer: entries for page {page_no}, which is not a page of index "
                                  f"{index_id}")
    return {
        "pages": page_count,
        "free_pages": len(free),
        "keyspaces": {r.name: {"height": r.height, "leaf_pages": r.leaf_pages,
                               "internal_pages": r.internal_pages, "records": r.records} for r in reports},
    }
