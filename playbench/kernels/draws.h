/* Random draws for a batch of envs, in C (playbench.kernels.draws is their Python side):
 *
 * - a uniformly random legal index for each row of an action mask, from one uniform double
 *   a row (the generator's next_double, as Generator.random draws it): the row's legal
 *   indices in order, the one at floor(u * count) (capped at the last; 0 for a row with
 *   none), as the NumPy form in draws.py picks it;
 * - a number below n from each of N NumPy generators, the very number (and the very draws)
 *   that generator.integers(n) takes: Lemire's method, as NumPy bounds its integers.
 */
#ifndef PLAYBENCH_DRAWS_H
#define PLAYBENCH_DRAWS_H

#include <stdint.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* NumPy's bit generator as its capsule "BitGenerator" holds it (numpy/random/bitgen.h,
 * the layout NumPy's C API for extending its generators has kept since 1.17) */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} draws_bitgen;

/* a number in [0, n) as Generator.integers(n) draws it (n >= 1): NumPy bounds ranges up to
 * 2**32 on the generator's 32-bit outputs and wider ones on its 64-bit outputs */
static uint64_t draws_below(draws_bitgen *g, uint64_t n) {
    uint64_t top = n - 1;
    if (top == 0) return 0;
    if (top == 0xFFFFFFFFu) return g->next_uint32(g->state);
    if (top < 0xFFFFFFFFu) {
        uint64_t m = (uint64_t)g->next_uint32(g->state) * n;
        uint32_t leftover = (uint32_t)m;
        if (leftover < n) {
            uint32_t threshold = (uint32_t)((0xFFFFFFFFu - top) % n);
            while (leftover < threshold) {
                m = (uint64_t)g->next_uint32(g->state) * n;
                leftover = (uint32_t)m;
            }
        }
        return m >> 32;
    }
    unsigned __int128 m = (unsigned __int128)g->next_uint64(g->state) * n;
    uint64_t leftover = (uint64_t)m;
    if (leftover < n) {
        uint64_t threshold = (UINT64_MAX - top) % n;
        while (leftover < threshold) {
            m = (unsigned __int128)g->next_uint64(g->state) * n;
            leftover = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

#if defined(__SSE2__)
/* bit j set for each nonzero byte j of row[0..16) */
static inline uint64_t draws_legal16(const int8_t *row) {
    __m128i bytes = _mm_loadu_si128((const __m128i *)row);
    return ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_setzero_si128())) & 0xFFFFu;
}
#else
static inline uint64_t draws_legal16(const int8_t *row) {
    uint64_t bits = 0;
    for (int j = 0; j < 16; j++) bits |= (uint64_t)(row[j] != 0) << j;
    return bits;
}
#endif

/* bit j set for each nonzero byte from + j of row[from..min(from + 64, width)) */
static inline uint64_t draws_word(const int8_t *row, int64_t from, int64_t width) {
    int64_t end = width - from < 64 ? width : from + 64, j = from;
    uint64_t bits = 0;
    for (; j + 16 <= end; j += 16) bits |= draws_legal16(row + j) << (j - from);
    for (; j < end; j++) bits |= (uint64_t)(row[j] != 0) << (j - from);
    return bits;
}

#define DRAWS_BYTES 0x0101010101010101ULL

/* each byte of x replaced by how many of its bits are set */
static inline uint64_t draws_byte_ones(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    return (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
}

/* how many bits of a word are set (no library call where the compiler may not use the
 * popcnt instruction) */
static inline int64_t draws_ones(uint64_t x) {
    return (int64_t)((draws_byte_ones(x) * DRAWS_BYTES) >> 56);
}

/* the place of the k-th set bit of a byte (filled by draws_init) */
static uint8_t DRAWS_NTH8[256][8];

static void draws_init(void) {
    for (int b = 0; b < 256; b++)
        for (int j = 0, k = 0; j < 8; j++)
            if (b >> j & 1) DRAWS_NTH8[b][k++] = (uint8_t)j;
}

/* the place of the set bit of x that has k set bits below it (k is below x's count),
 * without a branch: the bytes' running counts say which byte holds it */
static inline int64_t draws_select(uint64_t x, int64_t k) {
    uint64_t running = draws_byte_ones(x) * DRAWS_BYTES; /* byte i: bits set in bytes 0..i */
    /* the high bit of byte i is set where running_i <= k (every byte is at most 64) */
    uint64_t at_most = ((uint64_t)k * DRAWS_BYTES | 0x8080808080808080ULL) - running;
    int64_t byte = (int64_t)((((at_most & 0x8080808080808080ULL) >> 7) * DRAWS_BYTES) >> 56);
    int64_t before = (int64_t)(running << 8 >> (8 * byte) & 0xFF); /* bytes 0..byte-1 */
    return 8 * byte + DRAWS_NTH8[x >> (8 * byte) & 0xFF][k - before];
}

/* row[0..width)'s legal index at u (in [0, 1)) of the way through its legal ones: the one
 * with floor(u * count) legal ones before it (capped at the last); 0 when it has none */
static int64_t draws_pick(const int8_t *row, int64_t width, double u) {
    int64_t count = 0;
    for (int64_t j = 0; j < width; j += 64) count += draws_ones(draws_word(row, j, width));
    if (count == 0) return 0;
    int64_t k = (int64_t)(u * (double)count);
    if (k >= count) k = count - 1;
    for (int64_t j = 0;; j += 64) {
        uint64_t bits = draws_word(row, j, width);
        int64_t here = draws_ones(bits);
        if (k < here) return j + draws_select(bits, k);
        k -= here;
    }
}

#endif
