"""The block and page parsers on arbitrary bytes that pass their checksum: they return data from inside the block
or page, or raise CorruptionError; never a crash, never another exception, never bytes from outside."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minidb.btree import page as pg
from minidb.btree.page import Page
from minidb.btree.tablespace import Tablespace
from minidb.errors import CorruptionError
from minidb.lsm.block import Block
from minidb.lsm.block_builder import BlockBuilder
from minidb.lsm.dbformat import pack_internal_key
from minidb.lsm.format import decode_block, encode_varint
from minidb.storage import SimDevice


def valid_block(n=30, interval=4):
    b = BlockBuilder(interval)
    for i in range(n):
        b.add_entry(pack_internal_key(b"key%04d" % i, 5, 1), b"value-%d" % i)
    return b.finish_block()


def read_block(data, internal=True):
    """Every entry of the block made from ``data``, and a few seeks; CorruptionError is the only way to fail."""
    block = Block(data, "fuzz", internal)
    entries = block.iterator().entries()
    for k, v in entries:
        assert v in data  # a value is a slice of the block, never bytes from outside it
        block.iterator().seek_key(k)
    return entries


mutations = st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=0, max_value=255)), max_size=6)


@settings(max_examples=300, deadline=None)
@given(mutations, st.integers(min_value=0, max_value=40), st.booleans())
def test_a_mutated_block_is_read_within_bounds_or_rejected(changes, cut, internal):
    data = bytearray(valid_block())
    for pos, value in changes:
        data[pos % len(data)] = value
    data = bytes(data[:len(data) - cut])
    try:
        read_block(data, internal)
    except CorruptionError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600), st.booleans())
def test_arbitrary_bytes_as_a_block(data, internal):
    try:
        read_block(data, internal)
    except CorruptionError:
        pass


@given(st.binary(max_size=300), st.integers(min_value=0, max_value=3))
def test_a_stored_block_with_a_bad_trailer_is_corruption(stored, code):
    try:
        decode_block(stored, "fuzz")
    except CorruptionError:
        pass


def test_lengths_whose_sum_wraps_around_are_rejected():
    # non_shared + vlen = 2**64 + 5 wraps to 5, which the old bounds check (a sum) took for a small entry.
    entry = encode_varint(0) + encode_varint(2**64 - 5) + encode_varint(10) + b"k" * 20
    data = entry + (0).to_bytes(4, "little") + (1).to_bytes(4, "little")
    with pytest.raises(CorruptionError, match="reaches outside"):
        Block(data, "wrap", False)


@pytest.mark.parametrize("index,offset,message", [
    (0, 3, "first restart point is not 0"),
    (1, 5, "is not an entry boundary"),  # inside the first entry
])
def test_restart_points_must_be_entry_boundaries(index, offset, message):
    data = bytearray(valid_block(8, 2))
    nrestarts = int.from_bytes(data[-4:], "little")
    at = len(data) - 4 - 4 * nrestarts + 4 * index
    data[at:at + 4] = offset.to_bytes(4, "little")
    with pytest.raises(CorruptionError, match=message):
        Block(bytes(data), "restarts")


def test_keys_out_of_order_are_rejected():
    good = BlockBuilder(1)
    good.add_entry(b"a", b"1")
    good.add_entry(b"b", b"2")
    data = bytearray(good.finish_block())
    data[3] = ord("c")  # the first key becomes "c", above the second
    with pytest.raises(CorruptionError, match="not above"):
        Block(bytes(data), "order", False)


# -- pages ---------------------------------------------------------------------------------------------------------

def valid_page(level=0, n=40, page_no=7):
    p = Page(bytearray(4096))
    p.init(page_no, pg.INDEX_PAGE, level, 3)
    for i in range(n):
        p.append(b"" if level and i == 0 else b"key%04d" % i, (100 + i).to_bytes(4, "little") if level
                 else b"value-%d" % i)
    return p.buf


def read_page(buf, page_no=7):
    """Check a page the way the tablespace does; if accepted, read every record and search: only CorruptionError."""
    pg.stamp_checksum(buf)
    dev = SimDevice()
    ts = Tablespace(dev, 4096, create=True)
    ts.check(page_no, buf)
    page = Page(bytearray(buf))
    for k, v in page.records():
        assert k in buf and v in buf
    for k in page.keys():
        page.search(k)
        if page.level:
            page.child_slot(k)


@settings(max_examples=300, deadline=None)
@given(mutations, st.sampled_from([0, 1]))
def test_a_mutated_page_with_a_valid_checksum_is_read_within_bounds_or_rejected(changes, level):
    buf = valid_page(level)
    for pos, value in changes:
        buf[pos % len(buf)] = value
    buf[4:8] = (7).to_bytes(4, "little")  # keep its own page number: the structure is what is tested
    try:
        read_page(buf)
    except CorruptionError:
        pass


@pytest.mark.parametrize("field,value,message", [
    ("slot", 4090, "outside the heap"),
    ("next", 7, "sibling link to itself"),
    ("heap_top", 5000 % 65536, "overlap or leave the page"),
    ("type", 9, "unknown page type"),
])
def test_malformed_pages_are_named(field, value, message):
    buf = valid_page()
    if field == "slot":
        buf[4094:4096] = value.to_bytes(2, "little")
    elif field == "next":
        buf[pg.NEXT_OFFSET:pg.NEXT_OFFSET + 4] = value.to_bytes(4, "little")
    elif field == "heap_top":
        buf[26:28] = value.to_bytes(2, "little")
    else:
        buf[16] = value
    with pytest.raises(CorruptionError, match=message):
        read_page(buf)


@pytest.mark.parametrize("change", ["record count zeroed", "record count lowered", "value length shrunk",
                                    "garbage count raised"])
def test_a_leaf_whose_heap_does_not_add_up_is_rejected(change):
    # a right checksum over a wrong count or length: records and garbage no longer fill the heap exactly
    buf = valid_page()
    n = int.from_bytes(buf[24:26], "little")
    if change == "record count zeroed":
        buf[24:26] = (0).to_bytes(2, "little")
    elif change == "record count lowered":
        buf[24:26] = (n - 3).to_bytes(2, "little")
    elif change == "value length shrunk":
        off = int.from_bytes(buf[4094:4096], "little")  # record 0
        buf[off + 2:off + 4] = (int.from_bytes(buf[off + 2:off + 4], "little") - 1).to_bytes(2, "little")
    else:
        buf[28:30] = (4).to_bytes(2, "little")
    with pytest.raises(CorruptionError, match="a record count, a slot or a length is wrong"):
        read_page(buf)


def test_an_internal_page_pointing_at_itself_is_rejected():
    buf = valid_page(level=1, n=5)
    page = Page(buf)
    off = int.from_bytes(buf[4096 - 4:4096 - 2], "little")  # record 1
    klen = int.from_bytes(buf[off:off + 2], "little")
    buf[off + 4 + klen:off + 8 + klen] = (7).to_bytes(4, "little")
    assert page.child(1) == 7
    with pytest.raises(CorruptionError, match="as its child"):
        read_page(buf)
