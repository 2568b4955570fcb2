# Compact, schema-driven row encoding; see rowcodec.pyx for the format.

cdef enum:
    COL_INT = 1    # signed 64-bit int, 8 bytes little-endian
    COL_INT32 = 2  # signed 32-bit int, 4 bytes little-endian
    COL_FLOAT = 3  # IEEE double, 8 bytes little-endian
    COL_STR = 4    # UTF-8, varint length then the bytes
    COL_BYTES = 5  # varint length then the bytes

cdef class RowCodec:
    cdef readonly tuple types  # column type names, in column order
    cdef readonly tuple names  # column names, for error messages
    cdef bytes _codes  # one COL_* code per column
    cdef Py_ssize_t _n  # number of columns
    cdef Py_ssize_t _bitmap  # bytes of the NULL bitmap: one bit per column

    cpdef bytes encode(self, object values)
    cpdef tuple decode(self, bytes data)
