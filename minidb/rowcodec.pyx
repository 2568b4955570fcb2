"""Row encoding: the non-key columns of a row packed as compactly as their types allow.

A table stores each row as one key-value pair of its primary index: the key holds the primary-key columns
(``minidb.keycodec``, order-preserving), the value holds every other column in this format. Values are never
compared, so they need no order; only size matters. The schema says each column's type, so the bytes carry no type
tags and no column names (InnoDB's compact row format and MyRocks's value format work the same way)::

    NULL bitmap          ceil(columns / 8) bytes; bit i set means column i is NULL and has no body
    body of column 0     int: 8 bytes, int32: 4 bytes, float: 8 bytes (all little-endian);
    body of column 1     str/bytes: a varint length (7 bits a byte, low bits first), then the bytes
    ...

For example the value of an insert-benchmark row (a 64-bit date, three int32 ids, a float price and a 10-byte
string; the primary key is in the key) takes 1 + 8 + 3 * 4 + 8 + (1 + 10) = 40 bytes.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcpy

# Column types a schema may use, with the bytes each takes (None: varint length + bytes).
COLUMN_TYPES = {"int": COL_INT, "int32": COL_INT32, "float": COL_FLOAT, "str": COL_STR, "bytes": COL_BYTES}


cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object unicode, Py_ssize_t* size) except NULL
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)


cdef inline Py_ssize_t _varint_size(uint64_t v) noexcept nogil:
    cdef Py_ssize_t n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


cdef inline Py_ssize_t _put_varint(unsigned char* out, Py_ssize_t pos, uint64_t v) noexcept nogil:
    while v >= 0x80:
        out[pos] = <unsigned char>((v & 0x7F) | 0x80)
        v >>= 7
        pos += 1
    out[pos] = <unsigned char>v
    return pos + 1


cdef inline Py_ssize_t _put_le(unsigned char* out, Py_ssize_t pos, uint64_t v, int width) noexcept nogil:
    cdef int i
    for i in range(width):
        out[pos + i] = <unsigned char>(v >> (8 * i))
    return pos + width


cdef inline uint64_t _get_le(const unsigned char* p, int width) noexcept nogil:
    cdef uint64_t v = 0
    cdef int i
    for i in range(width):
        v |= (<uint64_t>p[i]) << (8 * i)
    return v


cdef class RowCodec:
    """Encodes and decodes tuples whose columns have the given types (names from ``COLUMN_TYPES``).

    ``names`` (optional) are the columns' names, used in error messages; by default columns are numbered.
    """

    def __init__(self, types, names=None):
        codes = []
        for t in types:
            if t not in COLUMN_TYPES:
                raise ValueError(f"unknown column type {t!r}; known types: {', '.join(COLUMN_TYPES)}")
            codes.append(COLUMN_TYPES[t])
        self.types = tuple(types)
        self.names = tuple(names) if names is not None else tuple(str(i) for i in range(len(codes)))
        if len(self.names) != len(codes):
            raise ValueError(f"{len(codes)} column types but {len(self.names)} names")
        self._codes = bytes(codes)
        self._n = len(codes)
        self._bitmap = (self._n + 7) // 8

    cpdef bytes encode(self, object values):
        """The encoding of ``values`` (a sequence with one value, or None, per column)."""
        cdef Py_ssize_t n = self._n, i, size = self._bitmap, pos, length
        cdef const unsigned char* codes = <const unsigned char*>PyBytes_AS_STRING(self._codes)
        cdef const char* data
        cdef object v
        cdef int64_t iv
        cdef double d
        cdef uint64_t u
        cdef unsigned char code
        if len(values) != n:
            raise ValueError(f"row has {len(values)} values, expected {n} ({', '.join(self.types)})")
        for i in range(n):
            v = values[i]
            if v is None:
                continue
            code = codes[i]
            if code == COL_INT or code == COL_INT32 or code == COL_FLOAT:
                if code == COL_FLOAT:
                    if not isinstance(v, (float, int)) or isinstance(v, bool):
                        raise ValueError(f"column {self.names[i]} is float, got {type(v).__name__} {v!r}")
                elif not isinstance(v, int) or isinstance(v, bool):
                    raise ValueError(f"column {self.names[i]} is {self.types[i]}, got {type(v).__name__} {v!r}")
                size += 4 if code == COL_INT32 else 8
            elif code == COL_STR:
                if not isinstance(v, str):
                    raise ValueError(f"column {self.names[i]} is str, got {type(v).__name__} {v!r}")
                try:
                    PyUnicode_AsUTF8AndSize(v, &length)
                except UnicodeEncodeError:
                    raise ValueError(f"column {self.names[i]}: {v!r} is not valid Unicode (lone surrogate)") from None
                size += _varint_size(length) + length
            else:
                if not isinstance(v, bytes):
                    raise ValueError(f"column {self.names[i]} is bytes, got {type(v).__name__} {v!r}")
                length = PyBytes_GET_SIZE(v)
                size += _varint_size(length) + length
        out = PyBytes_FromStringAndSize(NULL, size)
        cdef unsigned char* buf = <unsigned char*>PyBytes_AS_STRING(out)
        for i in range(self._bitmap):
            buf[i] = 0
        pos = self._bitmap
        for i in range(n):
            v = values[i]
            if v is None:
                buf[i >> 3] |= <unsigned char>(1 << (i & 7))
                continue
            code = codes[i]
            if code == COL_INT:
                try:
                    iv = v
                except OverflowError:
                    raise ValueError(f"column {self.names[i]}: {v} is outside the signed 64-bit range") from None
                pos = _put_le(buf, pos, <uint64_t>iv, 8)
            elif code == COL_INT32:
                if not -2147483648 <= v <= 2147483647:
                    raise ValueError(f"column {self.names[i]}: {v} is outside the signed 32-bit range of an int32 "
                                     f"column")
                iv = v
                pos = _put_le(buf, pos, <uint64_t>iv, 4)
            elif code == COL_FLOAT:
                d = v
                memcpy(&u, &d, 8)
                pos = _put_le(buf, pos, u, 8)
            elif code == COL_STR:
                data = PyUnicode_AsUTF8AndSize(v, &length)
                pos = _put_varint(buf, pos, length)
                memcpy(buf + pos, data, length)
                pos += length
            else:
                length = PyBytes_GET_SIZE(v)
                pos = _put_varint(buf, pos, length)
                memcpy(buf + pos, PyBytes_AS_STRING(v), length)
                pos += length
        return out

    cpdef tuple decode(self, bytes data):
        """The values ``encode`` turned into ``data``; ValueError naming the column if ``data`` is malformed."""
        cdef const unsigned char* p = <const unsigned char*>PyBytes_AS_STRING(data)
        cdef const unsigned char* codes = <const unsigned char*>PyBytes_AS_STRING(self._codes)
        cdef Py_ssize_t size = PyBytes_GET_SIZE(data), pos = self._bitmap, i, width
        cdef uint64_t u, length
        cdef int shift
        cdef double d
        cdef unsigned char code
        cdef list out = []
        if size < self._bitmap:
            raise ValueError(f"bad row value: {size} bytes cannot hold the {self._bitmap}-byte NULL bitmap")
        for i in range(self._n):
            if p[i >> 3] & (1 << (i & 7)):
                out.append(None)
                continue
            code = codes[i]
            if code == COL_STR or code == COL_BYTES:
                length = 0
                shift = 0
                while True:
                    if pos >= size or shift > 63:
                        raise ValueError(f"bad row value: length of column {self.names[i]} is cut short at offset "
                                         f"{pos}")
                    length |= (<uint64_t>(p[pos] & 0x7F)) << shift
                    pos += 1
                    if not p[pos - 1] & 0x80:
                        break
                    shift += 7
                if length > <uint64_t>(size - pos):
                    raise ValueError(f"bad row value: column {self.names[i]} needs {length} bytes at offset {pos}, "
                                     f"only {size - pos} left")
                if code == COL_STR:
                    try:
                        out.append(PyUnicode_DecodeUTF8(<const char*>p + pos, length, "strict"))
                    except UnicodeDecodeError:
                        raise ValueError(f"bad row value: column {self.names[i]} is not UTF-8") from None
                else:
                    out.append(PyBytes_FromStringAndSize(<const char*>p + pos, length))
                pos += length
                continue
            width = 4 if code == COL_INT32 else 8
            if pos + width > size:
                raise ValueError(f"bad row value: column {self.names[i]} is cut short at offset {pos}")
            u = _get_le(p + pos, width)
            pos += width
            if code == COL_INT:
                out.append(<int64_t>u)
            elif code == COL_INT32:
                out.append(<int32_t>u)
            else:
                memcpy(&d, &u, 8)
                out.append(d)
        if pos != size:
            raise ValueError(f"bad row value: {size - pos} bytes left over after the last column")
        return tuple(out)
