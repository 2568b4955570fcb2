# Order-preserving key encoding; see keycodec.pyx for the format.

cdef enum:
    TAG_NULL = 0x00   # SQL NULL: sorts before every value, as in MySQL ascending indexes
    TAG_BYTES = 0x01  # bytes, escaped and terminated
    TAG_STR = 0x02    # str as UTF-8, escaped and terminated
    TAG_INT32 = 0x0C  # signed 32-bit int (a column declared int32), 4 bytes big-endian with the sign bit flipped
    TAG_INT = 0x10    # signed 64-bit int, 8 bytes big-endian with the sign bit flipped
    TAG_FLOAT = 0x21  # IEEE double, 8 bytes big-endian, transformed so that bytes sort like numbers

cpdef bytes encode_key(object values, bytes int32=*)
cpdef tuple decode_key(bytes key)
