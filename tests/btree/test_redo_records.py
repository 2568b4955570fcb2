"""Redo records: what the mini-transaction logs, replayed on the page as it was, rebuilds it byte for byte."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.btree import page as pg
from minidb.btree.buffer_pool import BufferPool
from minidb.btree.mtr import Mtr
from minidb.btree.redo_log import GROUP
from minidb.btree.redo_records import COMMIT, CUT, DEL, FIELD, INIT, PUT, apply, decode
from minidb.errors import CorruptionError


def replay(before: bytearray, mtr) -> bytearray:
    page = bytearray(before)
    with mtr.group() as group:
        records = decode(bytes(group[GROUP.size:]))
    assert records[-1] == (COMMIT, None)
    for rec in records[:-1]:
        apply(page, rec)
    return page


operations = st.lists(st.tuples(st.sampled_from(["put", "delete", "cut", "link"]), st.integers(0, 300),
                                st.integers(0, 120)), max_size=60)


@given(operations)
def test_replaying_an_mtr_rebuilds_the_page(ops):
    pool = BufferPool(4096, 4)
    frame = pool.add(5, bytearray(4096), False)
    mtr = Mtr()
    mtr.begin(1, GROUP.size)
    mtr.init(frame, pg.INDEX_PAGE, 0, 9, pg.NIL_PAGE, pg.NIL_PAGE, 0, [(b"k%03d" % i, b"v") for i in range(0, 40, 3)])
    before = bytearray(frame.buf)
    mtr.begin(2, GROUP.size)  # replay from the initialised page
    for op, n, size in ops:
        page = pg.Page(frame.buf)
        if op == "put":
            mtr.put(frame, b"k%03d" % n, bytes([n % 256]) * size, 4096)
        elif op == "delete":
            mtr.delete(frame, b"k%03d" % n)
        elif op == "cut":
            mtr.cut(frame, min(n % 7, page.nrecs), n % 2)
        else:
            mtr.set_u32(frame, pg.NEXT_OFFSET, n)
    assert replay(before, mtr) == frame.buf


def test_init_copy_and_record_kinds():
    pool = BufferPool(4096, 4)
    src = pool.add(1, bytearray(4096), False)
    dst = pool.add(2, bytearray(4096), False)
    mtr = Mtr()
    mtr.begin(1, GROUP.size)
    mtr.init(src, pg.INDEX_PAGE, 0, 3, pg.NIL_PAGE, pg.NIL_PAGE, 0, [(b"%02d" % i, b"x" * i) for i in range(20)])
    mtr.init_copy(dst, pg.INDEX_PAGE, 0, 3, 1, pg.NIL_PAGE, 0, src, 12)
    mtr.set_u8(dst, pg.FLAGS_OFFSET, 1)
    mtr.delete(dst, b"15")
    with mtr.group() as group:
        kinds = [r[0] for r in decode(bytes(group[GROUP.size:]))]
    assert kinds == [INIT, INIT, FIELD, DEL, COMMIT]
    assert pg.Page(dst.buf).keys() == [b"%02d" % i for i in range(12, 20) if i != 15]
    assert sorted({PUT, DEL, INIT, CUT, FIELD}) == [1, 2, 3, 4, 5]


def test_malformed_records_are_corruption():
    with pytest.raises(CorruptionError, match="unknown redo record type 9"):
        decode(b"\x09\x00\x00\x00\x00")
    with pytest.raises(CorruptionError, match="redo record truncated"):
        decode(b"\x01\x05\x00\x00\x00\x03\x00\x01\x00ab")
    page = bytearray(4096)
    pg.Page(page).init(3, pg.INDEX_PAGE, 0, 1)
    with pytest.raises(CorruptionError, match="redo PUT of 5001 bytes does not fit in page 3"):
        apply(page, (PUT, 3, b"k", b"x" * 5000))
    with pytest.raises(CorruptionError, match="redo CUT keeps 5 records of page 3, which holds 0"):
        apply(page, (CUT, 3, 5, 0))


def test_a_reused_mtr_starts_empty():
    pool = BufferPool(4096, 4)
    frame = pool.add(1, bytearray(4096), False)
    mtr = Mtr()
    for seq in (1, 2):
        mtr.begin(seq, GROUP.size)
        assert mtr.empty and mtr.frames == [] and len(mtr) == 0
        mtr.init(frame, pg.INDEX_PAGE, 0, 3, pg.NIL_PAGE, pg.NIL_PAGE, 0, [(bytes([random.randrange(256)]), b"")])
        assert mtr.frames == [frame] and frame.mtr == seq and mtr.nrecords == 1
