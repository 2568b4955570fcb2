"""Key encoding: byte order equals tuple order, decoding inverts encoding, malformed keys are refused."""

import math
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.keycodec import decode_key, encode_key, prefix_end

INT64 = st.integers(min_value=-2**63, max_value=2**63 - 1)
INT32 = st.integers(min_value=-2**31, max_value=2**31 - 1)
FLOATS = st.floats(allow_nan=False)
TEXT = st.text()  # hypothesis leaves out lone surrogates by default
BLOBS = st.binary()
ATOMS = {"int": INT64, "int32": INT32, "float": FLOATS, "str": TEXT, "bytes": BLOBS}


def order_key(values):
    """Python's order for a tuple with NULLs first (Python itself cannot compare None with a value)."""
    return tuple((0,) if v is None else (1, v) for v in values)


@st.composite
def same_shape_tuples(draw, min_size=2):
    """(int32 flags, tuples): tuples whose positions share a type (as an index's columns do), with NULLs anywhere,
    and encode_key's flags for them (1 where the type is int32)."""
    types = draw(st.lists(st.sampled_from(sorted(ATOMS)), min_size=1, max_size=4))
    row = st.tuples(*[st.one_of(st.none(), ATOMS[t]) for t in types])
    return bytes(t == "int32" for t in types), draw(st.lists(row, min_size=min_size, max_size=30))


@given(same_shape_tuples())
def test_byte_order_is_tuple_order(shaped):
    int32, values = shaped
    by_value = sorted(values, key=order_key)
    by_bytes = sorted(values, key=lambda v: encode_key(v, int32))
    assert [order_key(v) for v in by_value] == [order_key(v) for v in by_bytes]


@given(same_shape_tuples(min_size=1))
def test_decode_inverts_encode(shaped):
    int32, values = shaped
    for v in values:
        assert decode_key(encode_key(v, int32)) == v


@given(st.lists(TEXT, min_size=1, max_size=3), st.lists(TEXT, min_size=1, max_size=3))
def test_string_boundaries_never_blur(a, b):
    # ("a", "b") and ("ab",) must not collide or misorder: the terminator keeps each value separate
    assert (encode_key(tuple(a)) < encode_key(tuple(b))) == (tuple(a) < tuple(b))


@given(st.tuples(INT64, TEXT), st.tuples(INT64, TEXT, FLOATS))
def test_a_prefix_encodes_to_a_byte_prefix(short, longer):
    full = short + longer[2:]
    assert encode_key(full).startswith(encode_key(short))


@given(INT64, INT64)
def test_ints_compare_like_numbers(a, b):
    assert (encode_key((a,)) < encode_key((b,))) == (a < b)


def test_int_format_is_big_endian_with_the_sign_bit_flipped():
    assert encode_key((0,)) == b"\x10\x80" + b"\x00" * 7
    assert encode_key((-1,)) == b"\x10\x7f" + b"\xff" * 7
    assert encode_key((1,)) == b"\x10\x80" + b"\x00" * 6 + b"\x01"


def test_an_int32_column_takes_4_bytes_big_endian_with_the_sign_bit_flipped():
    assert encode_key((0,), b"\x01") == b"\x0c\x80\x00\x00\x00"
    assert encode_key((-1,), b"\x01") == b"\x0c\x7f\xff\xff\xff"
    assert encode_key((-2**31, 2**31 - 1), b"\x01\x01") == b"\x0c\x00\x00\x00\x00\x0c\xff\xff\xff\xff"
    # the flags name positions: an unflagged int, a NULL and values past the flags keep their own encodings
    assert encode_key((7, 7, None, 7), b"\x00\x01\x01") == (encode_key((7,)) + encode_key((7,), b"\x01")
                                                          + b"\x00" + encode_key((7,)))
    assert encode_key((7, "x"), b"\x01\x01") == encode_key((7,), b"\x01") + encode_key(("x",))


@given(INT32, INT32)
def test_int32s_compare_like_numbers(a, b):
    assert (encode_key((a,), b"\x01") < encode_key((b,), b"\x01")) == (a < b)


@pytest.mark.parametrize("value", [2**31, -2**31 - 1, 2**63, -2**70])
def test_an_int32_out_of_range_is_refused(value):
    with pytest.raises(ValueError, match="32-bit"):
        encode_key((value,), b"\x01")


def test_float_format_and_negative_zero():
    assert encode_key((1.5,)) == b"\x21" + bytes([0xBF, 0xF8]) + b"\x00" * 6
    assert encode_key((-0.0,)) == encode_key((0.0,))
    bits = struct.unpack(">Q", struct.pack(">d", -1.5))[0]
    assert encode_key((-1.5,)) == b"\x21" + struct.pack(">Q", bits ^ 0xFFFFFFFFFFFFFFFF)
    assert decode_key(encode_key((math.inf,))) == (math.inf,)


def test_strings_escape_zero_and_end_with_the_terminator():
    assert encode_key((b"a\x00b",)) == b"\x01a\x00\xffb\x00\x01"
    assert encode_key(("",)) == b"\x02\x00\x01"
    assert encode_key((None,)) == b"\x00"


@pytest.mark.parametrize("bad, message", [
    ((2**63,), "64-bit"),
    ((-2**63 - 1,), "64-bit"),
    ((math.nan,), "NaN"),
    ((True,), "bool"),
    (([1],), "not a key type"),
    (("\ud800",), "surrogate"),
])
def test_unencodable_values_are_refused(bad, message):
    with pytest.raises(ValueError, match=message):
        encode_key(bad)


def test_a_key_must_be_a_tuple_or_list():
    assert encode_key([1, "x"]) == encode_key((1, "x"))
    with pytest.raises(ValueError, match="tuple"):
        encode_key(5)


@pytest.mark.parametrize("bad, message", [
    (b"\x10\x80", "cut short"),
    (b"\x0c\x80\x00\x00", "cut short"),
    (b"\x02abc", "no terminator"),
    (b"\x02a\x00\x07", "bad escape"),
    (b"\x7f", "unknown type tag"),
    (b"\x02\xff\xfe\x00\x01", "not UTF-8"),
])
def test_malformed_keys_are_refused_with_the_offset(bad, message):
    with pytest.raises(ValueError, match=message):
        decode_key(bad)


@given(BLOBS, BLOBS)
def test_prefix_end_bounds_exactly_the_keys_with_the_prefix(prefix, key):
    end = prefix_end(prefix)
    inside = key.startswith(prefix)
    in_range = key >= prefix and (end is None or key < end)
    assert inside == in_range


def test_prefix_end_examples():
    assert prefix_end(b"ab") == b"ac"
    assert prefix_end(b"a\xff\xff") == b"b"
    assert prefix_end(b"\xff") is None
