"""zlib's crc32, the page checksum (page.pyx), computed four to five times faster on x86-64 CPUs that multiply
without carries (PCLMULQDQ, every x86-64 CPU since 2010).

The CRC of a message is its remainder modulo a polynomial over GF(2); a remainder can be "folded": the part of
the message 512 bits ahead is multiplied by x^512 mod P (a constant) and added (xored) to what follows, so four
128-bit lanes advance 64 bytes per step with eight carry-less multiplications, and a Barrett reduction turns the
last 128 bits into the 32-bit CRC. The method and its constants for zlib's polynomial (0x04C11DB7, bits reflected)
are Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction" (Intel, 2009), as
Linux's crc32-pclmul and Chromium's zlib use them. Elsewhere (another CPU or compiler) ``crc32`` is zlib's own.

The result is bit for bit zlib.crc32's, so pages written either way read either way (tests/btree/test_crc.py).
"""

import zlib

from libc.stdint cimport uint32_t

cdef extern from *:
    """
    #include <stddef.h>
    #include <stdint.h>
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #include <immintrin.h>
    #define MINIDB_CRC_FOLD 1

    /* The raw (not inverted) reflected CRC of len bytes, len >= 64 and a multiple of 16. */
    __attribute__((target("pclmul,sse4.1")))
    static uint32_t minidb_crc_fold(uint32_t crc, const unsigned char* p, size_t len) {
        const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);  /* x^(512+64), x^512 mod P */
        const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);  /* x^(128+64), x^128 mod P */
        const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124LL);                  /* x^64 mod P */
        const __m128i poly = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);   /* Barrett: mu, P */
        const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
        __m128i x1 = _mm_loadu_si128((const __m128i*) p), x2 = _mm_loadu_si128((const __m128i*) (p + 16));
        __m128i x3 = _mm_loadu_si128((const __m128i*) (p + 32)), x4 = _mm_loadu_si128((const __m128i*) (p + 48));
        __m128i t;
        x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int) crc));
        p += 64;
        len -= 64;
        while (len >= 64) {  /* four lanes, each folded 512 bits ahead onto the next 64 bytes */
            #define MINIDB_FOLD(x, k, off) \\
                t = _mm_clmulepi64_si128(x, k, 0x11); \\
                x = _mm_clmulepi64_si128(x, k, 0x00); \\
                x = _mm_xor_si128(_mm_xor_si128(x, t), _mm_loadu_si128((const __m128i*) (p + off)));
            MINIDB_FOLD(x1, k1k2, 0) MINIDB_FOLD(x2, k1k2, 16) MINIDB_FOLD(x3, k1k2, 32) MINIDB_FOLD(x4, k1k2, 48)
            p += 64;
            len -= 64;
        }
        /* the four lanes into one, 128 bits at a time */
        t = _mm_clmulepi64_si128(x1, k3k4, 0x11); x1 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, t), x2);
        t = _mm_clmulepi64_si128(x1, k3k4, 0x11); x1 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, t), x3);
        t = _mm_clmulepi64_si128(x1, k3k4, 0x11); x1 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, t), x4);
        while (len >= 16) {
            MINIDB_FOLD(x1, k3k4, 0)
            p += 16;
            len -= 16;
        }
        #undef MINIDB_FOLD
        /* 128 bits to 64 (appending 32 zero bits), then to 32 by Barrett reduction */
        t = _mm_clmulepi64_si128(x1, k3k4, 0x10);
        x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t);
        t = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), k5, 0x00);
        x1 = _mm_xor_si128(_mm_srli_si128(x1, 4), t);
        t = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), poly, 0x10);
        t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), poly, 0x00);
        x1 = _mm_xor_si128(x1, t);
        return (uint32_t) _mm_extract_epi32(x1, 1);
    }

    static int minidb_crc_fold_ok(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    }
    #else
    #define MINIDB_CRC_FOLD 0
    static uint32_t minidb_crc_fold(uint32_t crc, const unsigned char* p, size_t len) { return crc; }
    static int minidb_crc_fold_ok(void) { return 0; }
    #endif
    """
    uint32_t crc_fold "minidb_crc_fold"(uint32_t crc, const unsigned char* p, size_t n) noexcept nogil
    int crc_fold_ok "minidb_crc_fold_ok"() noexcept nogil

cdef bint FOLD = crc_fold_ok()  # this CPU multiplies without carries


cpdef uint32_t crc32(const unsigned char[::1] data, uint32_t crc=0):
    """zlib.crc32(data, crc): the same value, folded with PCLMULQDQ where the CPU has it."""
    cdef Py_ssize_t n = data.shape[0], head
    if not FOLD or n < 64:
        return zlib.crc32(data, crc)
    head = n & ~15  # the folding takes whole 16-byte blocks; zlib finishes the rest
    crc = ~crc_fold(~crc, &data[0], head)
    return zlib.crc32(data[head:], crc) if head < n else crc
