"""Row encoding: round trips for every column type, compact sizes, clear errors for bad rows and bad bytes."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minidb.rowcodec import COLUMN_TYPES, RowCodec

VALUES = {
    "int": st.integers(min_value=-2**63, max_value=2**63 - 1),
    "int32": st.integers(min_value=-2**31, max_value=2**31 - 1),
    "float": st.floats(allow_nan=False),
    "str": st.text(),
    "bytes": st.binary(max_size=300),  # past 127 bytes the length takes a two-byte varint
}


@st.composite
def typed_rows(draw):
    types = draw(st.lists(st.sampled_from(sorted(COLUMN_TYPES)), min_size=1, max_size=12))
    row = tuple(draw(st.one_of(st.none(), VALUES[t])) for t in types)
    return types, row


@given(typed_rows())
def test_decode_inverts_encode(case):
    types, row = case
    codec = RowCodec(types)
    assert codec.decode(codec.encode(row)) == row


def test_sizes_are_the_documented_ones():
    codec = RowCodec(["int", "int32", "int32", "int32", "float", "str"])
    assert len(codec.encode((1, 2, 3, 4, 5.0, "x" * 10))) == 1 + 8 + 3 * 4 + 8 + 1 + 10
    assert len(codec.encode((None,) * 6)) == 1  # NULLs cost only their bitmap bit
    assert len(RowCodec(["bytes"]).encode((b"x" * 200,))) == 1 + 2 + 200  # 200 needs a two-byte varint
    assert len(RowCodec(["int"] * 9).encode((0,) * 9)) == 2 + 9 * 8  # nine columns need two bitmap bytes


@pytest.mark.parametrize("types, row, message", [
    (["int"], ("1",), "column 0 is int"),
    (["int32"], (2**31,), "32-bit"),
    (["int"], (2**63,), "64-bit"),
    (["str"], (b"x",), "column 0 is str"),
    (["bytes"], ("x",), "column 0 is bytes"),
    (["float"], ("1.0",), "column 0 is float"),
    (["int"], (True,), "column 0 is int"),
    (["int", "int"], (1,), "expected 2"),
])
def test_bad_rows_are_refused(types, row, message):
    with pytest.raises(ValueError, match=message):
        RowCodec(types).encode(row)


def test_unknown_type_is_refused():
    with pytest.raises(ValueError, match="unknown column type 'decimal'"):
        RowCodec(["decimal"])


@pytest.mark.parametrize("data, message", [
    (b"", "NULL bitmap"),
    (b"\x00\x01\x02", "cut short"),
    (b"\x00" + b"\x00" * 8 + b"\x05ab", "needs 5 bytes"),
    (b"\x00" + b"\x00" * 8 + b"\x00" + b"extra", "left over"),
    (b"\x00" + b"\x00" * 8 + b"\x80", "cut short"),
])
def test_bad_bytes_are_refused(data, message):
    codec = RowCodec(["int", "str"])
    with pytest.raises(ValueError, match=message):
        codec.decode(data)
