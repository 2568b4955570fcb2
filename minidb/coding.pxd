# cython: language_level=3
"""Fixed-width and variable-length integer coding, as LevelDB's util/coding.h defines it (shared by the LSM
formats and the key codec).

Every on-disk structure of the LSM engine (blocks, WAL records, version edits) is built from these few encodings:

* fixed32 / fixed64 little-endian (block trailers, restart arrays, footers);
* big-endian 64-bit for the internal-key trailer, so that equal user keys sort by sequence number with ``memcmp``
  of the trailer bytes; big-endian 32 and 64-bit for the key codec's numbers, for the same reason;
* varint32 / varint64: 7 bits per byte, low groups first, high bit set on every byte but the last.

All functions are ``inline`` and ``nogil`` so the hot loops that cimport them pay no call overhead.
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t


cdef inline void store_le32(unsigned char* p, uint32_t v) noexcept nogil:
    p[0] = v & 0xff
    p[1] = (v >> 8) & 0xff
    p[2] = (v >> 16) & 0xff
    p[3] = (v >> 24) & 0xff


cdef inline uint32_t load_le32(const unsigned char* p) noexcept nogil:
    return (<uint32_t>p[0]) | (<uint32_t>p[1] << 8) | (<uint32_t>p[2] << 16) | (<uint32_t>p[3] << 24)


cdef inline void store_be32(unsigned char* p, uint32_t v) noexcept nogil:
    p[0] = (v >> 24) & 0xff
    p[1] = (v >> 16) & 0xff
    p[2] = (v >> 8) & 0xff
    p[3] = v & 0xff


cdef inline uint32_t load_be32(const unsigned char* p) noexcept nogil:
    return (<uint32_t>p[0] << 24) | (<uint32_t>p[1] << 16) | (<uint32_t>p[2] << 8) | (<uint32_t>p[3])


cdef inline void store_be64(unsigned char* p, uint64_t v) noexcept nogil:
    cdef int i
    for i in range(8):
        p[7 - i] = (v >> (8 * i)) & 0xff


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* 8 bytes as a big-endian number: one load and a byte swap where the CPU is little-endian (a byte loop is not
       compiled to that), the bytes one by one elsewhere. */
    static inline uint64_t minidb_load_be64(const unsigned char* p) {
    #if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint64_t v;
        memcpy(&v, p, 8);
        return __builtin_bswap64(v);
    #else
        uint64_t v = 0;
        int i;
        for (i = 0; i < 8; i++)
            v = (v << 8) | p[i];
        return v;
    #endif
    }
    """
    uint64_t load_be64 "minidb_load_be64"(const unsigned char* p) noexcept nogil


cdef inline int put_varint64(unsigned char* dst, uint64_t v) noexcept nogil:
    """Write ``v`` as a varint at ``dst`` (at most 10 bytes); return the number of bytes written."""
    cdef int n = 0
    while v >= 0x80:
        dst[n] = (v & 0x7f) | 0x80
        v >>= 7
        n += 1
    dst[n] = <unsigned char>v
    return n + 1


cdef inline const unsigned char* get_varint64(const unsigned char* p, const unsigned char* limit,
                                              uint64_t* out) noexcept nogil:
    """Decode a varint at ``p`` (not past ``limit``) into ``out``; return the byte after it, or NULL if malformed."""
    cdef uint64_t result = 0
    cdef int shift = 0
    cdef uint64_t byte
    while shift <= 63 and p < limit:
        byte = p[0]
        p += 1
        if byte & 0x80:
            result |= (byte & 0x7f) << shift
        else:
            result |= byte << shift
            out[0] = result
            return p
        shift += 7
    return NULL


cdef inline void store_le64(unsigned char* p, uint64_t v) noexcept nogil:
    cdef int i
    for i in range(8):
        p[i] = (v >> (8 * i)) & 0xff


cdef inline uint64_t load_le64(const unsigned char* p) noexcept nogil:
    cdef uint64_t v = 0
    cdef int i
    for i in range(8):
        v |= (<uint64_t>p[i]) << (8 * i)
    return v
