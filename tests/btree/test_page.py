"""The slotted page: records in key order, slots, garbage and compaction, the ascending fill limit, checksums."""

import random
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.btree import page as pg
from minidb.btree.page import Page


def new_page(size=4096, level=0):
    p = Page(bytearray(size))
    p.init(7, pg.INDEX_PAGE, level, 3)
    return p


def test_header_fields_round_trip():
    p = new_page()
    assert (p.page_no, p.type, p.level, p.index_id, p.nrecs) == (7, pg.INDEX_PAGE, 0, 3, 0)
    assert p.prev == p.next == pg.NIL_PAGE
    p.prev, p.next, p.lsn = 5, 9, 123456789012
    assert (p.prev, p.next, p.lsn) == (5, 9, 123456789012)
    assert p.used == 0 and p.free == p.capacity == 4096 - pg.HEADER_BYTES


def test_random_inserts_keep_key_order_and_values():
    p = new_page()
    rng = random.Random(3)
    model = {}
    while True:
        k = b"%05d" % rng.randrange(10**5)
        v = bytes([rng.randrange(256)]) * rng.randrange(0, 40)
        if p.put(k, v) == pg.FULL:
            break
        model[k] = v
    assert p.keys() == sorted(model)
    assert all(p.get(k) == v for k, v in model.items())
    assert p.get(b"zzz") is None
    assert p.used == sum(pg.RECORD_OVERHEAD + len(k) + len(v) for k, v in model.items())


def test_replace_same_and_other_size():
    p = new_page()
    assert p.put(b"a", b"1234") == pg.INSERTED
    assert p.put(b"a", b"abcd") == pg.REPLACED  # same size: in place, no garbage
    assert p.garbage == 0
    assert p.put(b"a", b"longer value") == pg.REPLACED
    assert p.get(b"a") == b"longer value" and p.nrecs == 1


def test_delete_leaves_garbage_that_compaction_reclaims():
    p = new_page()
    for i in range(50):
        p.put(b"k%03d" % i, b"x" * 30)
    used = p.used
    for i in range(0, 50, 2):
        assert p.delete(b"k%03d" % i)
    assert not p.delete(b"k000")
    assert p.garbage > 0 and p.used < used
    p.compact()
    assert p.garbage == 0
    assert p.keys() == [b"k%03d" % i for i in range(1, 50, 2)]
    assert p.heap_top == pg.HEADER_BYTES + p.used - 2 * p.nrecs


def test_insert_compacts_when_only_garbage_has_room():
    p = new_page()
    i = 0
    while p.put(b"%06d" % i, b"x" * 60) != pg.FULL:
        i += 1
    for j in range(0, i, 2):
        p.delete(b"%06d" % j)
    assert p.garbage > 0
    assert p.put(b"%06d" % 1_000_000, b"y" * 300) == pg.INSERTED  # fits only after compaction
    assert p.garbage == 0


def test_ascending_inserts_stop_at_the_fill_limit_random_ones_do_not():
    limit = int(15 / 16 * (4096 - pg.HEADER_BYTES))
    p = new_page()
    i = 0
    while p.put(b"%06d" % i, b"x" * 40, limit) != pg.FULL:
        i += 1
    assert p.flags & pg.LAST_AT_END
    assert limit - 60 < p.used <= limit  # stopped at the fill limit, not when the page was full
    p.put(b"000000a", b"x" * 40, limit)  # an insert in the middle is not ascending: allowed past the limit
    assert p.used > limit - 60 and not p.flags & pg.LAST_AT_END


def test_internal_page_child_slot_treats_first_key_as_minus_infinity():
    p = new_page(level=1)
    p.extend([(b"", (10).to_bytes(4, "little")), (b"m", (11).to_bytes(4, "little")),
              (b"t", (12).to_bytes(4, "little"))])
    assert [p.child(p.child_slot(k)) for k in (b"", b"a", b"m", b"n", b"t", b"zz")] == [10, 10, 11, 11, 12, 12]


def test_cut_keeps_a_prefix():
    p = new_page()
    p.extend([(b"%02d" % i, b"v") for i in range(10)])
    p.cut(4)
    assert p.keys() == [b"00", b"01", b"02", b"03"]
    with pytest.raises(IndexError):
        p.cut(5)


def test_checksum_detects_any_changed_byte():
    p = new_page()
    p.put(b"key", b"value")
    p.stamp_checksum()
    assert p.checksum_ok()
    for offset in (5, 100, 4095):
        buf = bytearray(p.buf)
        buf[offset] ^= 0x01
        assert not Page(buf).checksum_ok()
    assert pg.is_zero(bytes(4096))


@pytest.mark.parametrize("size", [0, 3, 4, 5, 64, *pg.PAGE_SIZES])
@pytest.mark.parametrize("as_type", [bytes, bytearray, memoryview])
def test_checksum_is_zlibs_crc32_with_the_field_zeroed_whatever_holds_the_page(size, as_type):
    buf = random.Random(size).randbytes(size)
    assert pg.checksum(as_type(buf)) == zlib.crc32(b"\0\0\0\0" + buf[4:])


@pytest.mark.parametrize("size", pg.PAGE_SIZES)
def test_two_max_records_always_fit(size):
    n = pg.max_record_bytes(size)
    p = Page(bytearray(size))
    p.init(1, pg.INDEX_PAGE, 0, 3)
    assert p.put(b"a", b"x" * (n - 1)) == pg.INSERTED
    assert p.put(b"b", b"y" * (n - 1)) == pg.INSERTED


def test_wrong_page_size_is_refused():
    with pytest.raises(ValueError, match="a page must be 4096, 8192, 16384 bytes, got 100"):
        Page(bytearray(100))


@given(st.lists(st.binary(min_size=1, max_size=20), unique=True, max_size=120))
def test_keys_sort_like_python_bytes(keys):
    p = new_page()
    for k in keys:
        assert p.put(k, b"") == pg.INSERTED
    assert p.keys() == sorted(keys)
    assert all(p.search(k) == (i, True) for i, k in enumerate(sorted(keys)))


def test_keys_around_the_8_byte_compare_sort_like_python_bytes():
    # key_cmp compares keys of 8 bytes and more as big-endian integers and shorter ones byte by byte: keys of 7, 8
    # and 9 bytes that share long prefixes (and signed-looking bytes) cross from one way to the other.
    rng = random.Random(8)
    keys = {bytes(rng.choice((0x00, 0x01, 0x7F, 0x80, 0xFF)) for _ in range(rng.choice((1, 6, 7, 8, 9))))
            for _ in range(400)}
    p = new_page(16384)
    for k in keys:
        assert p.put(k, b"") == pg.INSERTED
    assert p.keys() == sorted(keys)
    assert all(p.search(k) == (i, True) for i, k in enumerate(sorted(keys)))
