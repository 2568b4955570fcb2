"""Order-preserving key encoding: tuples of ints, floats, strings, bytes and None become bytes that sort alike.

Engines compare keys as unsigned bytes (``memcmp``). A table's index key is a *tuple* of column values, so the
table layer needs an encoding where comparing the bytes gives the same answer as comparing the tuples::

    a < b   exactly when   encode_key(a) < encode_key(b)

Each value is a one-byte type tag followed by its body (the tags are FoundationDB's tuple-layer codes where one
exists, so NULL sorts first, as it does in a MySQL ascending index):

========  =====  ==========================================================================================
type      tag    body
========  =====  ==========================================================================================
None      0x00   nothing
bytes     0x01   the bytes with every 0x00 written as 0x00 0xFF, then the terminator 0x00 0x01
str       0x02   its UTF-8 bytes, escaped and terminated the same way
int32     0x0C   4 bytes big-endian of the signed 32-bit value with the sign bit flipped (a value the caller
                 marks as one of an int32 column: see below)
int       0x10   8 bytes big-endian of the signed 64-bit value with the sign bit flipped
float     0x21   8 bytes big-endian of the IEEE double: positive numbers get the sign bit set, negative
                 numbers have every bit inverted
========  =====  ==========================================================================================

Why each trick works:

* **ints**: two's complement puts negative numbers *above* positive ones when read as unsigned; flipping the sign
  bit maps -2^63..2^63-1 onto 0..2^64-1 in order, and big-endian makes byte order equal numeric order.
* **floats**: an IEEE double's bits already order positive numbers correctly; setting the sign bit lifts them above
  every negative number, and inverting a negative number's bits reverses their order, which is what is needed
  because a larger magnitude means a smaller negative number. ``-0.0`` is stored as ``0.0`` (SQL treats them as
  equal); NaN is refused because it has no place in an order.
* **strings and bytes**: a plain length prefix would sort by length first, and plain concatenation would let
  ``("a", "b")`` and ``("ab",)`` collide. Escaping each 0x00 as 0x00 0xFF and ending with 0x00 0x01 makes the
  terminator smaller than any byte that can follow inside the string, so a string sorts before its extensions,
  and the value after it in the tuple can never be mistaken for part of it (CockroachDB's
  ``EncodeBytesAscending`` uses the same escape and terminator).

**Column widths.** A Python int carries no width, but a column does: MySQL stores an ``INT`` in 4 bytes and a
``BIGINT`` in 8, in InnoDB's records and in MyRocks's memcomparable keys alike. So ``encode_key(values, int32)``
takes, for a table's key, one flag byte per value (nonzero: the value belongs to an ``int32`` column) and writes
those values in 4 bytes instead of 8; the table layer (``minidb.table``) passes its key columns' flags. A column
holds values of one type, so an ``int32`` body is only ever compared with another, and the order holds; the tag
keeps the key self-describing, so ``decode_key`` needs no schema.

Because every value is self-delimiting, ``encode_key(prefix)`` is a byte prefix of ``encode_key(prefix + rest)``:
an index lookup on leading columns is a scan from ``encode_key(prefix)`` to ``prefix_end(encode_key(prefix))``.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memcpy

from minidb.coding cimport load_be32, load_be64, store_be32, store_be64


cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object unicode, Py_ssize_t* size) except NULL
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)


cdef uint64_t SIGN = 0x8000000000000000ULL
cdef uint32_t SIGN32 = 0x80000000U


cdef inline Py_ssize_t _count_zeros(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, zeros = 0
    for i in range(n):
        if p[i] == 0:
            zeros += 1
    return zeros


cdef inline Py_ssize_t _put_escaped(unsigned char* out, Py_ssize_t pos, const unsigned char* p,
                                    Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef unsigned char c
    for i in range(n):
        c = p[i]
        out[pos] = c
        pos += 1
        if c == 0:
            out[pos] = 0xFF
            pos += 1
    out[pos] = 0x00
    out[pos + 1] = 0x01
    return pos + 2


cdef inline uint64_t _int_bits(object v) except? 0:
    cdef int64_t iv
    try:
        iv = v
    except OverflowError:
        raise ValueError(f"int key value {v} is outside the signed 64-bit range") from None
    return (<uint64_t>iv) ^ SIGN


cdef inline uint32_t _int32_bits(object v) except? 0:
    cdef int64_t iv
    try:
        iv = v
    except OverflowError:
        iv = SIGN  # out of range below
    if not -2147483648 <= iv <= 2147483647:
        raise ValueError(f"int32 key value {v} is outside the signed 32-bit range")
    return (<uint32_t><int32_t>iv) ^ SIGN32


cdef inline uint64_t _float_bits(object v) except? 0:
    cdef double d = v
    cdef uint64_t u
    if d != d:
        raise ValueError("NaN cannot be part of a key: it has no place in an order")
    if d == 0.0:
        d = 0.0  # -0.0 == 0.0: store both the same way
    memcpy(&u, &d, 8)
    if u & SIGN:
        return ~u
    return u | SIGN


cdef str _describe(object v):
    return f"{type(v).__name__} {v!r}"


cpdef bytes encode_key(object values, bytes int32=None):
    """The order-preserving encoding of the tuple (or list) ``values``; an int at a position whose byte in
    ``int32`` is nonzero takes 4 bytes (see the module docstring: column widths)."""
    if not isinstance(values, (tuple, list)):
        raise ValueError(f"a key is a tuple of values, got {_describe(values)}")
    cdef Py_ssize_t size = 0, pos = 0, n, i = 0, nflags = 0
    cdef const unsigned char* flags = NULL
    cdef const char* data
    cdef object v
    if int32 is not None:
        nflags = PyBytes_GET_SIZE(int32)
        flags = <const unsigned char*>PyBytes_AS_STRING(int32)
    for v in values:
        if v is None:
            size += 1
        elif isinstance(v, bool):
            raise ValueError(f"bool {v!r} is not a key type; use int 0/1")
        elif isinstance(v, int):
            size += 5 if i < nflags and flags[i] else 9
        elif isinstance(v, float):
            size += 9
        elif isinstance(v, bytes):
            n = PyBytes_GET_SIZE(v)
            size += 3 + n + _count_zeros(<const unsigned char*>PyBytes_AS_STRING(v), n)
        elif isinstance(v, str):
            try:
                data = PyUnicode_AsUTF8AndSize(v, &n)
            except UnicodeEncodeError:
                raise ValueError(f"str key value {v!r} is not valid Unicode (lone surrogate)") from None
            size += 3 + n + _count_zeros(<const unsigned char*>data, n)
        else:
            raise ValueError(f"{_describe(v)} is not a key type: use None, int, float, str or bytes")
        i += 1
    out = PyBytes_FromStringAndSize(NULL, size)
    cdef unsigned char* buf = <unsigned char*>PyBytes_AS_STRING(out)
    i = -1
    for v in values:
        i += 1
        if v is None:
            buf[pos] = TAG_NULL
            pos += 1
        elif isinstance(v, int) and i < nflags and flags[i]:
            buf[pos] = TAG_INT32
            store_be32(buf + pos + 1, _int32_bits(v))
            pos += 5
        elif isinstance(v, int):
            buf[pos] = TAG_INT
            store_be64(buf + pos + 1, _int_bits(v))
            pos += 9
        elif isinstance(v, float):
            buf[pos] = TAG_FLOAT
            store_be64(buf + pos + 1, _float_bits(v))
            pos += 9
        elif isinstance(v, bytes):
            buf[pos] = TAG_BYTES
            pos = _put_escaped(buf, pos + 1, <const unsigned char*>PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v))
        else:
            data = PyUnicode_AsUTF8AndSize(v, &n)
            buf[pos] = TAG_STR
            pos = _put_escaped(buf, pos + 1, <const unsigned char*>data, n)
    return out


cdef object _unescape(const unsigned char* p, Py_ssize_t start, Py_ssize_t end, Py_ssize_t escapes, bint text):
    """The string body p[start:end] (escapes still in it) with each 0x00 0xFF turned back into 0x00."""
    cdef Py_ssize_t n = end - start - escapes, i = start, j = 0
    if escapes == 0:
        if text:
            return PyUnicode_DecodeUTF8(<const char*>p + start, n, "strict")
        return PyBytes_FromStringAndSize(<const char*>p + start, n)
    raw = PyBytes_FromStringAndSize(NULL, n)
    cdef unsigned char* out = <unsigned char*>PyBytes_AS_STRING(raw)
    while i < end:
        out[j] = p[i]
        j += 1
        i += 2 if p[i] == 0 else 1
    if text:
        return PyUnicode_DecodeUTF8(<const char*>out, n, "strict")
    return raw


cpdef tuple decode_key(bytes key):
    """The tuple that ``encode_key`` turned into ``key``; ValueError naming the offset if ``key`` is malformed."""
    cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(key)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(key), pos = 0, i, escapes, start
    cdef unsigned char tag
    cdef uint64_t u
    cdef double d
    cdef list out = []
    while pos < n:
        tag = p[pos]
        pos += 1
        if tag == TAG_NULL:
            out.append(None)
        elif tag == TAG_INT32:
            if pos + 4 > n:
                raise ValueError(f"bad encoded key {key!r}: number at offset {pos - 1} is cut short")
            out.append(<int32_t>(load_be32(p + pos) ^ SIGN32))
            pos += 4
        elif tag == TAG_INT or tag == TAG_FLOAT:
            if pos + 8 > n:
                raise ValueError(f"bad encoded key {key!r}: number at offset {pos - 1} is cut short")
            u = load_be64(p + pos)
            pos += 8
            if tag == TAG_INT:
                out.append(<int64_t>(u ^ SIGN))
            else:
                u = (u ^ SIGN) if (u & SIGN) else ~u
                memcpy(&d, &u, 8)
                out.append(d)
        elif tag == TAG_BYTES or tag == TAG_STR:
            start = pos
            escapes = 0
            i = pos
            while True:
                if i + 1 >= n:
                    raise ValueError(f"bad encoded key {key!r}: string at offset {start - 1} has no terminator")
                if p[i] != 0:
                    i += 1
                elif p[i + 1] == 0xFF:
                    escapes += 1
                    i += 2
                elif p[i + 1] == 0x01:
                    break
                else:
                    raise ValueError(f"bad encoded key {key!r}: bad escape 0x00 0x{p[i + 1]:02x} at offset {i}")
            try:
                out.append(_unescape(p, start, i, escapes, tag == TAG_STR))
            except UnicodeDecodeError:
                raise ValueError(f"bad encoded key {key!r}: string at offset {start - 1} is not UTF-8") from None
            pos = i + 2
        else:
            raise ValueError(f"bad encoded key {key!r}: unknown type tag 0x{tag:02x} at offset {pos - 1}")
    return tuple(out)


def prefix_end(bytes prefix):
    """The smallest key greater than every key that starts with ``prefix`` (None if there is none).

    Scanning ``[prefix, prefix_end(prefix))`` visits exactly the keys that start with ``prefix``: drop trailing
    0xFF bytes, then add one to the last byte (FoundationDB calls this ``strinc``).
    """
    cdef bytes stripped = prefix.rstrip(b"\xff")
    cdef Py_ssize_t n = len(stripped)
    if n == 0:
        return None
    return stripped[:n - 1] + bytes((stripped[n - 1] + 1,))
