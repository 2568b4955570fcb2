# cython: language_level=3
# distutils: libraries = z
"""CRC-32, the checksum of every page, redo group, SST block and WAL fragment: zlib's value, computed faster.

Every byte an engine writes is checksummed once, and once more each time it is read, so the checksum is on the
hot path of both engines. The value is zlib's CRC-32 (``zlib.crc32``, polynomial 0x04C11DB7 with its bits
reflected), which FORMAT.md names; how it is computed is this module's business:

* on x86-64 CPUs that multiply without carries (PCLMULQDQ, every one since 2010) the bulk of a buffer is *folded*:
  the CRC of a message is its remainder modulo the polynomial over GF(2), and the part of the message 512 bits
  ahead can be multiplied by x^512 mod P (a constant) and added (xored) to what follows, so four 128-bit lanes
  advance 64 bytes per step, then merge into one, and a Barrett reduction turns the last 128 bits into the 32-bit
  CRC (Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction", Intel, 2009; the
  constants as in Linux's arch/x86/crypto/crc32-pclmul_asm.S);
* zlib's own C code (linked, not rewritten) does the rest: buffers under 64 bytes, the tail under 16, and
  everything on other CPUs or compilers.

Both give zlib's value bit for bit (tests/test_crc.py), so a file written on one machine reads on any other.
"""

from libc.stdint cimport uint32_t

cdef extern from "zlib.h" nogil:
    unsigned long zlib_crc32 "crc32"(unsigned long crc, const unsigned char* buf, unsigned int n)

cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #include <immintrin.h>

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


cdef uint32_t crc32_update(uint32_t crc, const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """zlib's ``crc32(crc, p, n)``: the CRC-32 ``crc`` continued over the ``n`` bytes at ``p``."""
    cdef unsigned long c = crc
    cdef size_t done = minidb_crc32_bulk(&c, p, <size_t>n)
    p += done
    n -= <Py_ssize_t>done
    while n > 0x40000000:  # zlib takes lengths as unsigned int: feed a huge buffer in pieces
        c = zlib_crc32(c, p, 0x40000000)
        p += 0x40000000
        n -= 0x40000000
    return <uint32_t>zlib_crc32(c, p, <unsigned int>n)


def crc32(const unsigned char[::1] data, uint32_t start=0):
    """``zlib.crc32(data, start)`` for any contiguous buffer (bytes, bytearray, memoryview)."""
    if data.shape[0] == 0:
        return start
    return crc32_update(start, &data[0], data.shape[0])
