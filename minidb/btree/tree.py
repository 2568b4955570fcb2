"""BTree: one index (keyspace) as a B+tree of pages: the complete get, put, delete and scan.

Each operation first tries ``TreeCore``'s fast path (tree_core.pyx), which finishes in C when every page it needs
is in the buffer pool and no page has to split or merge. Otherwise it comes back here:

* **Miss**: read the missing page (pager.fetch) and try again. For a leaf of a non-unique index whose change
  would fit, the change buffer records the change instead of reading the leaf (change_buffer.py).
* **Split** (``_insert_split``): the overfull page's records, with the new one, are divided by the split policy
  (split_policy.py); the left part stays in the page, the right part goes to a new page linked after it, and a
  separator is inserted into the parent, which may split in turn. The root never moves: when it overflows, its
  records go down into two new children and it becomes their parent, one level higher.
* **Merge** (``_delete_merge``): a page left below the merge threshold (50% by default) is merged into its left
  sibling, or its right sibling into it, if the result fits within the fill factor; the parent loses one record
  and may merge in turn. A root left with one child takes that child's records and the tree gets one level lower.

**Compressed pages** (a tablespace with a key block size, page_zip.pyx) fill up when their compressed copy does,
which a byte count cannot foresee. A split there (``_insert_compressed``) divides the page's old records only,
posts the separator to the parent, and tries the insert again from the root; a page whose rows do not compress
splits as many times as it takes, as InnoDB retries after each split. Where every old record stays left, the page
is not compressed again (a non-root page stays as it is; a root's image is copied whole to its new child), since
the same records laid out anew, with new sibling links, might compress a byte past the block. A merge happens only
if the merged page compresses into its block.

Every change goes through the open mini-transaction (mtr.pyx), so it is redo-logged as it is made, and every
put or delete first records the key's old value as undo (kept by the mtr only for a client batch). Splits log the
new page as INIT, the left page as CUT (plus PUT when the new record stays left) and the separator as a PUT into the
parent; sibling links are FIELD records.
"""

from __future__ import annotations

import struct

from ..errors import CorruptionError
from . import page as pg
from . import page_zip as zp
from .redo_records import build
from .split_plan import default_split
from .split_policy import DEFAULT_POLICY, DefaultSplitPolicy, check_separator, check_split
from .tree_core import DONE, MISS, MISSING, TreeCore

_CHILD = struct.Struct("<I")


def child_value(page_no: int) -> bytes:
    """The value of an internal record pointing at ``page_no``."""
    return _CHILD.pack(page_no)


def sizes_with(page, key: bytes, value: bytes) -> tuple[int, bool, bool, list[int]]:
    """What a split policy is given for a full ``page`` once ``key`` -> ``value`` is in it: the key's position, whether
    it replaces a record, whether it goes past the last record of an ascending page, and the records' sizes."""
    pos, found = page.search(key)
    ascending = not found and pos == page.nrecs and bool(page.flags & pg.LAST_AT_END)
    sizes = page.record_sizes()
    size = pg.RECORD_OVERHEAD + len(key) + len(value)
    if found:
        sizes[pos] = size
    else:
        sizes.insert(pos, size)
    return pos, found, ascending, sizes


class BTree(TreeCore):
    """One B+tree; see the module docstring. ``ctx`` (tree_context.py) holds what it works with."""

    def __init__(self, pool, name, index_id, root, unique, fill_limit, merge_limit, ctx) -> None:
        self.ctx = ctx  # pager, file space, mtr provider, split policy, change buffer, counters

    # -- reads ----------------------------------------------------------------------------------------------------
    def get(self, key: bytes) -> bytes | None:
        """The value of ``key`` or None, reading pages as needed."""
        while True:
            value = self.try_get(key)
            if value is not MISSING:
                return value
            self.ctx.pager.fetch(self.miss_page, self.name)

    def leaf_for(self, key: bytes):
        """The (fixed) frame of the leaf that holds or would hold ``key``."""
        while self.try_seek(key) != DONE:
            self.ctx.pager.fetch(self.miss_page, self.name)
        return self.ctx.pager.fix_cached(self.leaf_frame.page_no)

    def scan_step(self, key: bytes, exclusive: bool, hi: bytes | None, next_page: int | None):
        """One leaf's worth of a range scan: (records, resume).

        Records are those with key >= ``key`` (> if ``exclusive``) and < ``hi``, from the leaf holding ``key``,
        or from leaf ``next_page`` if given (following the leaf link). ``resume`` is None when the range is
        exhausted, else (last key returned, the next leaf's page number) to continue from.
        """
        if next_page is None:
            frame = self.leaf_for(key)
        else:
            frame = self.ctx.pager.fetch(next_page, self.name)
        page = pg.Page(frame.buf)
        if page.type != pg.INDEX_PAGE or page.index_id != self.index_id or not page.is_leaf:
            raise CorruptionError(f"index {self.name!r}: leaf link leads to page {frame.page_no}, "
                                  f"which is not a leaf of this index")
        if next_page is not None and page.nrecs and page.key(0) <= key:
            # Keys rise along the leaf chain: a link back (a cycle) would otherwise make the scan loop forever.
            raise CorruptionError(f"index {self.name!r}: leaf link leads to page {frame.page_no}, whose first key "
                                  f"is not above the keys before it")
        pos, found = page.search(key)
        if exclusive and found:
            pos += 1
        records = page.records(pos)
        if hi is not None and records and records[-1][0] >= hi:
            records = [r for r in records if r[0] < hi]
            return records, None
        if page.next == pg.NIL_PAGE:
            return records, None
        last = records[-1][0] if records else key
        return records, (last, page.next)

    def items(self, lo: bytes | None, hi: bytes | None) -> list[tuple[bytes, bytes]]:
        """Every (key, value) with lo <= key < hi, inside the current operation (no other change meanwhile)."""
        out = []
        key, exclusive, nxt = lo or b"", False, None
        while True:
            records, resume = self.scan_step(key, exclusive, hi, nxt)
            out.extend(records)
            if resume is None:
                return out
            (key, nxt), exclusive = resume, True

    # -- writes ---------------------------------------------------------------------------------------------------
    def put(self, key: bytes, value: bytes) -> None:
        """Insert or replace ``key`` (within the open mtr)."""
        mtr = self.ctx.current_mtr()
        while True:
            r = self.try_put(key, value, mtr)
            if r == DONE:
                return
            if r == MISS:
                if (self.buffered and self.miss_level == 0
                        and self.ctx.change_buffer.buffer(self, self.miss_page, key, value)):
                    return
                self.ctx.pager.fetch(self.miss_page, self.name)
                continue
            return self._insert_split(key, value)

    def delete(self, key: bytes) -> None:
        """Remove ``key`` if present (within the open mtr)."""
        mtr = self.ctx.current_mtr()
        while True:
            r = self.try_delete(key, mtr)
            if r == DONE:
                return
            if r == MISS:
                if (self.buffered and self.miss_level == 0
                        and self.ctx.change_buffer.buffer(self, self.miss_page, key, None)):
                    return
                self.ctx.pager.fetch(self.miss_page, self.name)
                continue
            return self._delete_merge(key)

    def _fix_path(self):
        """Frames and followed slots of the last descent (all in the pool), fixed."""
        path = self.path()
        return [self.ctx.pager.fix_cached(no) for no, _ in path], [slot for _, slot in path]

    # -- splits ---------------------------------------------------------------------------------------------------
    def _insert_split(self, key: bytes, value: bytes) -> None:
        frames, slots = self._fix_path()
        self.ctx.current_mtr().undo_before(frames[-1], self.index_id, key)
        if frames[-1].zip is not None:
            return self._insert_compressed(0, key, value)
        self._insert(frames, len(frames) - 1, key, value)

    # -- splits of compressed pages ----------------------------------------------------------------------------------
    def _insert_compressed(self, level: int, key: bytes, value: bytes) -> None:
        """Insert into the level-``level`` page covering ``key``, splitting it until the record fits its page and
        that page's compressed copy (see the module docstring)."""
        mtr = self.ctx.current_mtr()
        while True:
            frames = self._path_to(key, level)
            if mtr.put(frames[-1], key, value, self.fill_limit) != pg.FULL:
                return
            self._split_compressed(frames, key, value)

    def _path_to(self, key: bytes, level: int) -> list:
        """Frames from the root down to the level-``level`` page covering ``key`` (fixed)."""
        frame = self.ctx.pager.fetch(self.root, self.name)
        frames = [frame]
        while True:
            page = pg.Page(frame.buf)
            if page.level == level:
                return frames
            if page.level < level or page.nrecs == 0:
                raise CorruptionError(f"index {self.name!r}: no level-{level} page on the way to a key from page "
                                      f"{frame.page_no}")
            pos, found = page.search(key)
            frame = self.ctx.pager.fetch(page.child(pos if found else pos - 1), self.name)
            frames.append(frame)

    def _split_compressed(self, frames, key: bytes, value: bytes) -> None:
        """Split the full page ``frames[-1]`` in two without the new record (both halves are parts of a page that
        fit its block, so they fit too) and post the separator to its parent."""
        ctx = self.ctx
        mtr = ctx.current_mtr()
        frame = frames[-1]
        page = pg.Page(frame.buf)
        n = page.nrecs
        pos, found, k, merged_key = self._split_plan(frame, page, key, value)
        keep = k - 1 if not found and pos < k else k  # old records [0, keep) stay left
        if page.is_leaf:
            sep = self._leaf_separator(merged_key, k)
        else:
            if n < 2:
                raise RuntimeError(f"index {self.name!r}: internal page {frame.page_no} with {n} record is full")
            keep = min(max(keep, 1), n - 1)  # both halves keep a child; the right one's first key goes up
            sep = page.key(keep)
        ctx.counters["splits"] += 1
        if len(frames) == 1:
            return self._split_root(frame, page, keep, True, sep, None, None)
        new = ctx.fsp.alloc()
        old_next = page.next
        self._fill_right(new, frame, page, keep, False, sep, key, value, frame.page_no, old_next)
        if keep < n:
            self._fill_left(frame, keep, False, key, value)
        else:  # an ascending split keeps every record left: no recompression of a page at the edge of its block
            mtr.set_u8(frame, pg.FLAGS_OFFSET, 0)
        mtr.set_u32(frame, pg.NEXT_OFFSET, new.page_no)
        if old_next != pg.NIL_PAGE:
            mtr.set_u32(ctx.pager.fetch(old_next, self.name), pg.PREV_OFFSET, new.page_no)
        self._insert_compressed(page.level + 1, sep, child_value(new.page_no))

    def _insert(self, frames, d: int, key: bytes, value: bytes) -> None:
        """Insert into the page ``frames[d]`` of the path, splitting it (and maybe its ancestors) if full."""
        ctx = self.ctx
        mtr = ctx.current_mtr()
        frame = frames[d]
        if mtr.put(frame, key, value, self.fill_limit) != pg.FULL:
            return
        page = pg.Page(frame.buf)
        pos, found, k, merged_key = self._split_plan(frame, page, key, value)
        if page.is_leaf:
            sep = self._leaf_separator(merged_key, k)
        else:
            sep = merged_key(k)  # the first key of the right page moves up; the page keeps minus infinity
        # Old records [0, keep) stay left and [keep, n) go right; the new record joins its side.
        keep = k - 1 if not found and pos < k else k
        ctx.counters["splits"] += 1
        if d == 0:
            return self._split_root(frame, page, keep, pos < k, sep, key, value)
        new = ctx.fsp.alloc()
        old_next = page.next
        self._fill_right(new, frame, page, keep, pos >= k, sep, key, value, frame.page_no, old_next)
        self._fill_left(frame, keep, pos < k, key, value)
        mtr.set_u32(frame, pg.NEXT_OFFSET, new.page_no)
        if old_next != pg.NIL_PAGE:
            mtr.set_u32(ctx.pager.fetch(old_next, self.name), pg.PREV_OFFSET, new.page_no)
        self._insert(frames, d - 1, sep, child_value(new.page_no))

    def _fill_right(self, right, src, page, keep: int, new_here: bool, sep: bytes, key: bytes, value: bytes,
                    prev: int, nxt: int) -> None:
        """The right page of a split: records keep.. of ``src``, plus the new record if it goes right (``key``
        None: no new record). An internal right page stores its first record with an empty key (minus infinity);
        ``sep`` went up."""
        mtr = self.ctx.current_mtr()
        mtr.init_copy(right, pg.INDEX_PAGE, page.level, self.index_id, prev, nxt, 0, src, keep)
        if not page.is_leaf:
            if new_here and key is not None and key == sep:
                key = b""  # the new record itself is the first of the right page
            else:
                first = pg.Page(right.buf)
                child = first.value(0)
                mtr.delete(right, first.key(0))
                mtr.put(right, b"", child, self.ctx.page_size)
        if new_here and key is not None:
            mtr.put(right, key, value, self.ctx.page_size)

    def _fill_left(self, left, keep: int, new_here: bool, key: bytes, value: bytes) -> None:
        """The left page of a split: its first ``keep`` records, plus the new record if it stays left (``key``
        None: no new record)."""
        mtr = self.ctx.current_mtr()
        mtr.cut(left, keep, 0)
        if new_here and key is not None:
            mtr.put(left, key, value, self.ctx.page_size)

    def _split_root(self, root, page, keep: int, new_left: bool, sep: bytes, key: bytes, value: bytes) -> None:
        """The root overflowed: its records go to two new pages and it becomes their parent, one level up (``key``
        None: a compressed root, split without the new record)."""
        ctx = self.ctx
        mtr = ctx.current_mtr()
        lf = ctx.fsp.alloc()
        rf = ctx.fsp.alloc()
        if root.zip is None:
            mtr.init_copy(lf, pg.INDEX_PAGE, page.level, self.index_id, pg.NIL_PAGE, rf.page_no, 0, root, 0)
            self._fill_left(lf, keep, new_left, key, value)
        elif keep == page.nrecs:
            # every record stays left: the root's compressed image moves whole, as InnoDB's root raise copies it
            # (page_zip_copy_recs), since the same records laid out anew might not compress into the block again
            mtr.init_clone(lf, root, pg.NIL_PAGE, rf.page_no)
            mtr.set_u8(lf, pg.FLAGS_OFFSET, 0)
        else:  # the left half directly, compressed once (a part of a page that fit its block; no new record)
            mtr.init(lf, pg.INDEX_PAGE, page.level, self.index_id, pg.NIL_PAGE, rf.page_no, 0, page.records(0, keep))
        self._fill_right(rf, root, page, keep, not new_left, sep, key, value, lf.page_no, pg.NIL_PAGE)
        flags = pg.Page(rf.buf).flags
        mtr.init(root, pg.INDEX_PAGE, page.level + 1, self.index_id, pg.NIL_PAGE, pg.NIL_PAGE, flags,
                 [(b"", child_value(lf.page_no)), (sep, child_value(rf.page_no))])
        ctx.counters["root_splits"] += 1

    def _split_plan(self, frame, page, key: bytes, value: bytes):
        """Where the full page of ``frame`` (``page`` its view) splits once ``key`` -> ``value`` is in it: (pos,
        found, k, merged_key), ``pos`` and ``found`` the search's, ``k`` the first record of the right half among
        the page's records with the new one, ``merged_key(i)`` the key of record i among them."""
        if type(self.ctx.split_policy if page.is_leaf else DEFAULT_POLICY) is DefaultSplitPolicy:
            # The engine's own policy needs no list of sizes: it is computed on the page's bytes (split_plan.pyx).
            pos, found, k = default_split(frame, key, len(value), self.ctx.page_size - pg.HEADER_BYTES)
        else:
            pos, found, ascending, sizes = sizes_with(page, key, value)
            k = self._choose_split(sizes, pos, ascending, page.is_leaf)

        def merged_key(i: int) -> bytes:
            return key if i == pos else page.key(i - 1 if not found and i > pos else i)

        return pos, found, k, merged_key

    def _leaf_separator(self, merged_key, k: int) -> bytes:
        """The split policy's separator between the left leaf's last key and the right leaf's first, checked."""
        policy = self.ctx.split_policy
        left_last, right_first = merged_key(k - 1), merged_key(k)
        return check_separator(policy, policy.separator(left_last, right_first), left_last, right_first,
                               self.ctx.max_key)

    def _choose_split(self, sizes, pos: int, ascending: bool, leaf: bool) -> int:
        """Records that stay left, from the split policy (the plug-in for leaves), checked."""
        capacity = self.ctx.page_size - pg.HEADER_BYTES
        policy = self.ctx.split_policy if leaf else DEFAULT_POLICY
        k = policy.choose_split(sizes, pos, capacity, self.ctx.fill_factor, ascending)
        return check_split(policy, k, sizes, capacity)

    # -- merges ---------------------------------------------------------------------------------------------------
    def _delete_merge(self, key: bytes) -> None:
        frames, slots = self._fix_path()
        mtr = self.ctx.current_mtr()
        mtr.undo_before(frames[-1], self.index_id, key)
        mtr.delete(frames[-1], key)
        self._rebalance(frames, slots, len(frames) - 1)

    def _rebalance(self, frames, slots, d: int) -> None:
        """After a delete from ``frames[d]``: merge it with a sibling if it is below the merge threshold."""
        ctx = self.ctx
        mtr = ctx.current_mtr()
        frame = frames[d]
        if d == 0:
            return self._lift_root(frame)
        if pg.Page(frame.buf).used >= self.merge_limit:
            return
        parent = frames[d - 1]
        pp = pg.Page(parent.buf)
        slot = slots[d - 1]
        merged = False
        if slot > 0:
            left = ctx.pager.fetch(pp.child(slot - 1), self.name)
            sep = pp.key(slot)
            if self._merge_pages(left, frame, sep):
                mtr.delete(parent, sep)
                merged = True
        if not merged and slot + 1 < pp.nrecs:
            right = ctx.pager.fetch(pp.child(slot + 1), self.name)
            sep = pp.key(slot + 1)
            if self._merge_pages(frame, right, sep):
                mtr.delete(parent, sep)
                merged = True
        if merged:
            self._rebalance(frames, slots, d - 1)

    def _merge_pages(self, left, right, sep: bytes) -> bool:
        """Move every record of ``right`` into ``left`` (its left sibling) and free ``right``, if they fit."""
        ctx = self.ctx
        mtr = ctx.current_mtr()
        lp, rp = pg.Page(left.buf), pg.Page(right.buf)
        # ``used`` is the records' bytes with their overheads, so the fit is known before any record is copied out
        need = lp.used + rp.used
        if not rp.is_leaf and rp.nrecs:
            need += len(sep) - len(rp.key(0))  # the separator from the parent becomes a real key again
        if need > self.fill_limit:
            return False
        records = rp.records()
        if not rp.is_leaf and records:
            records[0] = (sep, records[0][1])
        nxt = rp.next
        if left.zip is not None:
            # A compressed page is rebuilt whole, from the very bytes the trial compressed, so the trial's answer
            # holds (record-by-record puts could pass through a state that compresses worse than the end result).
            merged = lp.records() + records
            trial = bytearray(len(left.buf))
            build(trial, left.page_no, pg.INDEX_PAGE, lp.level, lp.flags, self.index_id, lp.prev, nxt, merged)
            if not zp.fits(trial, left.zip):
                return False
            mtr.init(left, pg.INDEX_PAGE, lp.level, self.index_id, lp.prev, nxt, lp.flags, merged)
        else:
            for k, v in records:
                mtr.put(left, k, v, ctx.page_size)
            mtr.set_u32(left, pg.NEXT_OFFSET, nxt)
        if nxt != pg.NIL_PAGE:
            mtr.set_u32(ctx.pager.fetch(nxt, self.name), pg.PREV_OFFSET, left.page_no)
        ctx.fsp.free(right)
        ctx.counters["merges"] += 1
        return True

    def _lift_root(self, root) -> None:
        """While the root is an internal page with one child, it takes the child's records (one level less)."""
        ctx = self.ctx
        mtr = ctx.current_mtr()
        while True:
            rp = pg.Page(root.buf)
            if rp.is_leaf or rp.nrecs != 1:
                return
            child = ctx.pager.fetch(rp.child(0), self.name)
            cp = pg.Page(child.buf)
            mtr.init(root, pg.INDEX_PAGE, cp.level, self.index_id, pg.NIL_PAGE, pg.NIL_PAGE, cp.flags, cp.records())
            ctx.fsp.free(child)
            ctx.counters["root_lifts"] += 1
