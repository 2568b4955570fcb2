# cython: language_level=3
# distutils: libraries = z
"""The SST file format's framing (LevelDB's table/format.cc): block handles, block trailers, the footer.

See FORMAT.md for the whole layout. In short: every block is followed by a 5-byte trailer (compression type, then
crc32 of the block's stored bytes and the type byte); blocks are located by *handles* (varint64 offset, varint64
size of the stored bytes, trailer excluded); and the file ends with a fixed 48-byte footer holding the handles of
the metaindex block and of the index block, padded, then an 8-byte magic number that identifies the format.

The crc is zlib's CRC-32, computed on the bytes where they lie (``block_crc``), so writing or checking a block
copies nothing to checksum it. Every byte an SST holds is checksummed once when written and once per read, so on
x86-64 CPUs with carry-less multiplication (PCLMULQDQ, since 2010) the bulk of a block is folded 64 bytes per step,
as the Linux kernel's crc32-pclmul and zlib-ng do (Intel's "Fast CRC Computation for Generic Polynomials Using
PCLMULQDQ", 2009); zlib's table-driven C code does the rest, and everything elsewhere. Both give zlib's value.
"""


from libc.stdint cimport uint32_t, uint64_t

from minidb.errors import CorruptionError

from . import compression
from minidb.coding cimport get_varint64, load_le32, put_varint64

cdef extern from "zlib.h" nogil:
    unsigned long crc32(unsigned long crc, const unsigned char* buf, unsigned int n)

cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #include <immintrin.h>
    #define MINIDB_HAVE_FOLD 1

    /* One folding step: x times the constants (its low half by k's low, its high half by k's high) plus data. */
    __attribute__((target("pclmul,sse4.1")))
    static inline __m128i minidb_fold(__m128i x, __m128i k, __m128i data) {
        return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)),
                             data);
    }

    /* The CRC-32 register (not inverted) after n bytes, n >= 64 and a multiple of 16: four 128-bit lanes folded
       64 bytes per step, then into one lane, then reduced to 32 bits (Barrett). Constants: powers of x modulo the
       reflected polynomial 0xEDB88320, as in Linux's arch/x86/crypto/crc32-pclmul_asm.S. */
    __attribute__((target("pclmul,sse4.1")))
    static uint32_t minidb_crc32_fold(uint32_t reg, const unsigned char* p, size_t n) {
        const __m128i r2r1 = _mm_set_epi64x(0x00000001c6e41596LL, 0x0000000154442bd4LL);
        const __m128i r4r3 = _mm_set_epi64x(0x00000000ccaa009eLL, 0x00000001751997d0LL);
        const __m128i r5 = _mm_set_epi64x(0, 0x0000000163cd6124LL);
        const __m128i poly = _mm_set_epi64x(0x00000001f7011641LL, 0x00000001db710641LL);
        const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
        __m128i x1 = _mm_loadu_si128((const __m128i*)p), x2 = _mm_loadu_si128((const __m128i*)(p + 16));
        __m128i x3 = _mm_loadu_si128((const __m128i*)(p + 32)), x4 = _mm_loadu_si128((const __m128i*)(p + 48));
        __m128i t;
        x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)reg));
        p += 64;
        n -= 64;
        while (n >= 64) {
            x1 = minidb_fold(x1, r2r1, _mm_loadu_si128((const __m128i*)p));
            x2 = minidb_fold(x2, r2r1, _mm_loadu_si128((const __m128i*)(p + 16)));
            x3 = minidb_fold(x3, r2r1, _mm_loadu_si128((const __m128i*)(p + 32)));
            x4 = minidb_fold(x4, r2r1, _mm_loadu_si128((const __m128i*)(p + 48)));
            p += 64;
            n -= 64;
        }
        x1 = minidb_fold(x1, r4r3, x2);
        x1 = minidb_fold(x1, r4r3, x3);
        x1 = minidb_fold(x1, r4r3, x4);
        while (n >= 16) {
            x1 = minidb_fold(x1, r4r3, _mm_loadu_si128((const __m128i*)p));
            p += 16;
            n -= 16;
        }
        /* 128 -> 64 bits (appending 32 zero bits), then 64 -> 32, then Barrett reduction. */
        x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), _mm_clmulepi64_si128(r4r3, x1, 0x01));
        t = _mm_srli_si128(x1, 4);
        x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask32), r5, 0x00), t);
        t = x1;
        x1 = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask32), poly, 0x10), mask32);
        x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, poly, 0x00), t);
        return (uint32_t)_mm_extract_epi32(x1, 1);
    }

    static int minidb_fold_ok = -1;  /* does this CPU have PCLMULQDQ and SSE4.1? asked once */

    /* Bytes of the n at p the folding takes (0: zlib does them all); updates *crc (zlib's value) over them. */
    static size_t minidb_crc32_bulk(unsigned long* crc, const unsigned char* p, size_t n) {
        size_t bulk;
        if (minidb_fold_ok < 0) {
            __builtin_cpu_init();
            minidb_fold_ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
        }
        if (!minidb_fold_ok || n < 64)
            return 0;
        bulk = n & ~(size_t)15;
        *crc = ~minidb_crc32_fold(~(uint32_t)*crc, p, bulk) & 0xffffffffUL;
        return bulk;
    }
    #else
    static size_t minidb_crc32_bulk(unsigned long* crc, const unsigned char* p, size_t n) {
        (void)crc; (void)p; (void)n;
        return 0;
    }
    #endif
    """
    size_t minidb_crc32_bulk(unsigned long* crc, const unsigned char* p, size_t n) noexcept nogil

BLOCK_TRAILER_SIZE = 5  # 1 byte compression type + 4 bytes crc32
FOOTER_SIZE = 48  # two handles padded to 40 bytes, then the 8-byte magic number
MAGIC = 0x4D494E4944425354  # "MINIDBST" as a big-endian number, stored little-endian like LevelDB's magic
HANDLES_SIZE = 40  # room for two handles of at most 20 bytes each (two varint64 of up to 10 bytes)


cdef int decode_handle(const unsigned char* p, Py_ssize_t n, uint64_t* offset, uint64_t* size,
                       object origin) except -1:
    cdef const unsigned char* q = get_varint64(p, p + n, offset)
    if q != NULL:
        q = get_varint64(q, p + n, size)
    if q == NULL:
        raise CorruptionError(f"bad block handle in {origin}")
    return <int>(q - p)


def decode_handle_bytes(bytes data, origin="handle"):
    """``(offset, size, bytes used)`` of the handle at the start of ``data``; CorruptionError if malformed."""
    cdef uint64_t offset, size
    used = decode_handle(data, len(data), &offset, &size, origin)
    return offset, size, used


cdef unsigned long crc32_update(unsigned long crc, const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """zlib's ``crc32(crc, p, n)``: the CRC-32 ``crc`` continued over ``n`` bytes (folded where the CPU can)."""
    cdef size_t done = minidb_crc32_bulk(&crc, p, <size_t>n)
    p += done
    n -= <Py_ssize_t>done
    while n > 0x40000000:  # zlib takes lengths as unsigned int: feed a huge block in pieces
        crc = crc32(crc, p, 0x40000000)
        p += 0x40000000
        n -= 0x40000000
    return crc32(crc, p, <unsigned int>n)


cdef uint32_t block_crc(const unsigned char* stored, Py_ssize_t n, unsigned char code) noexcept nogil:
    """The crc32 of a block's trailer: over its ``n`` stored bytes, then its compression type byte."""
    return <uint32_t>crc32_update(crc32_update(0, stored, n), &code, 1)


def crc32_of(bytes data, unsigned long start=0):
    """``zlib.crc32(data, start)``, computed as blocks are checksummed (folded where the CPU can)."""
    return crc32_update(start & 0xFFFFFFFF, data, len(data))


def decode_block(bytes stored_with_trailer, str origin):
    """``(raw contents, compression code)`` of a block read with its trailer: checks the crc, then decompresses."""
    cdef Py_ssize_t n = len(stored_with_trailer) - BLOCK_TRAILER_SIZE
    if n < 0:
        raise CorruptionError(f"truncated block in {origin}")
    cdef const unsigned char* p = stored_with_trailer
    if block_crc(p, n, p[n]) != load_le32(p + n + 1):
        raise CorruptionError(f"block checksum mismatch in {origin}")
    code = p[n]
    return compression.decompress(code, stored_with_trailer[:n], origin), code


def encode_footer(bytes metaindex_handle, bytes index_handle):
    """The 48-byte footer."""
    handles = metaindex_handle + index_handle
    return handles + b"\0" * (HANDLES_SIZE - len(handles)) + MAGIC.to_bytes(8, "little")


def decode_footer(bytes footer, str origin):
    """``((metaindex offset, size), (index offset, size))`` from the footer; CorruptionError if it is not one."""
    if len(footer) != FOOTER_SIZE or int.from_bytes(footer[HANDLES_SIZE:], "little") != MAGIC:
        raise CorruptionError(f"not an SST (bad magic number) in {origin}")
    m_off, m_size, used = decode_handle_bytes(footer, origin)
    i_off, i_size, _ = decode_handle_bytes(footer[used:], origin)
    return (m_off, m_size), (i_off, i_size)


def encode_varint(uint64_t value):
    """``value`` as a varint (7 bits per byte, low groups first)."""
    cdef unsigned char buf[10]
    cdef int n = put_varint64(buf, value)
    return (<char*>buf)[:n]


def decode_varint(bytes data, Py_ssize_t pos, str origin="record"):
    """``(value, position after it)`` of the varint at ``data[pos]``; CorruptionError if malformed."""
    cdef uint64_t value
    cdef const unsigned char* p = data
    if pos < 0 or pos > len(data):
        raise CorruptionError(f"varint position {pos} outside {len(data)} bytes in {origin}")
    cdef const unsigned char* q = get_varint64(p + pos, p + len(data), &value)
    if q == NULL:
        raise CorruptionError(f"bad varint at byte {pos} in {origin}")
    return value, q - p
