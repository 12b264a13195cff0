/* SHA-256 (FIPS 180-4), written for this library and placed in the public domain: the deal
 * hashes messages of a few dozen bytes, so one function over the whole message is enough.
 * On x86-64 processors with the SHA extensions the compression runs on them (chosen at run
 * time, so one build runs everywhere): the deal is most of the time of a hand played at
 * random, and they make it several times faster. */
#include "sha256.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define T42_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static const uint32_t INITIAL[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress(uint32_t state[8], const uint8_t block[64]) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
               (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    state[0] += a, state[1] += b, state[2] += c, state[3] += d;
    state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

#ifdef T42_SHA_NI
/* The compression on the SHA extensions: the state as ABEF and CDGH, four rounds a step. */
__attribute__((target("sha,sse4.1,ssse3"))) static void compress_ni(uint32_t state[8],
                                                                    const uint8_t block[64]) {
    const __m128i order = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    __m128i abef_saved = abef, cdgh_saved = cdgh;
    __m128i w[16];
    for (int g = 0; g < 16; g++) {
        if (g < 4)
            w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * g)), order);
        else
            w[g] = _mm_sha256msg2_epu32(
                _mm_add_epi32(_mm_sha256msg1_epu32(w[g - 4], w[g - 3]),
                              _mm_alignr_epi8(w[g - 1], w[g - 2], 4)),
                w[g - 1]);
        __m128i message = _mm_add_epi32(w[g], _mm_loadu_si128((const __m128i *)&K[4 * g]));
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(message, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef_saved);
    cdgh = _mm_add_epi32(cdgh, cdgh_saved);
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

/* Two blocks of two messages at once: their rounds interleave, and the SHA units, whose
 * steps wait on one another within a message, are kept busy twice as often. */
__attribute__((target("sha,sse4.1,ssse3"))) static void compress_ni2(uint32_t state[2][8],
                                                                     const uint8_t block[2][64]) {
    const __m128i order = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i abef[2], cdgh[2], abef_saved[2], cdgh_saved[2], w[2][16];
    for (int m = 0; m < 2; m++) {
        __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[m][0]), 0xB1);
        __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[m][4]), 0x1B);
        abef[m] = abef_saved[m] = _mm_alignr_epi8(cdab, efgh, 8);
        cdgh[m] = cdgh_saved[m] = _mm_blend_epi16(efgh, cdab, 0xF0);
    }
    for (int g = 0; g < 16; g++) {
        __m128i k = _mm_loadu_si128((const __m128i *)&K[4 * g]);
        for (int m = 0; m < 2; m++) {
            if (g < 4)
                w[m][g] = _mm_shuffle_epi8(
                    _mm_loadu_si128((const __m128i *)(block[m] + 16 * g)), order);
            else
                w[m][g] = _mm_sha256msg2_epu32(
                    _mm_add_epi32(_mm_sha256msg1_epu32(w[m][g - 4], w[m][g - 3]),
                                  _mm_alignr_epi8(w[m][g - 1], w[m][g - 2], 4)),
                    w[m][g - 1]);
            __m128i message = _mm_add_epi32(w[m][g], k);
            cdgh[m] = _mm_sha256rnds2_epu32(cdgh[m], abef[m], message);
            abef[m] = _mm_sha256rnds2_epu32(abef[m], cdgh[m], _mm_shuffle_epi32(message, 0x0E));
        }
    }
    for (int m = 0; m < 2; m++) {
        __m128i feba = _mm_shuffle_epi32(_mm_add_epi32(abef[m], abef_saved[m]), 0x1B);
        __m128i dchg = _mm_shuffle_epi32(_mm_add_epi32(cdgh[m], cdgh_saved[m]), 0xB1);
        _mm_storeu_si128((__m128i *)&state[m][0], _mm_blend_epi16(feba, dchg, 0xF0));
        _mm_storeu_si128((__m128i *)&state[m][4], _mm_alignr_epi8(dchg, feba, 8));
    }
}

/* Whether the processor has the SHA extensions (and the SSE levels they come with). */
static int has_sha_ni(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
        return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 29) & 1;
}
#endif

typedef void (*compression)(uint32_t state[8], const uint8_t block[64]);

/* The compression in use: chosen on the first hash, or by t42_sha_extensions. */
static compression found = NULL;

static compression chosen(void) {
    if (!found) {
#ifdef T42_SHA_NI
        found = has_sha_ni() ? compress_ni : compress;
#else
        found = compress;
#endif
    }
    return found;
}

int t42_sha_extensions(int wanted) {
    if (wanted == 0)
        found = compress;
    else if (wanted > 0)
        found = NULL;
    return chosen() != compress;
}

void t42_sha256_words(const uint8_t *message, size_t length, uint32_t state[8]) {
    memcpy(state, INITIAL, sizeof INITIAL);
    compression step = chosen();
    size_t done = 0;
    for (; length - done >= 64; done += 64)
        step(state, message + done);
    uint8_t tail[128] = {0};
    size_t rest = length - done;
    memcpy(tail, message + done, rest);
    tail[rest] = 0x80;
    size_t blocks = rest + 9 <= 64 ? 1 : 2;
    uint64_t bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++)
        tail[blocks * 64 - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t i = 0; i < blocks; i++)
        step(state, tail + 64 * i);
}

/* A message of at most 55 bytes as its one padded block. */
static void padded(uint8_t block[64], const uint8_t *message, size_t length) {
    memset(block, 0, 64);
    memcpy(block, message, length);
    block[length] = 0x80;
    uint64_t bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++)
        block[63 - i] = (uint8_t)(bits >> (8 * i));
}

void t42_sha256_pair_words(const uint8_t *first, size_t first_length, const uint8_t *second,
                           size_t second_length, uint32_t words[16]) {
#ifdef T42_SHA_NI
    if (chosen() == compress_ni && first_length <= 55 && second_length <= 55) {
        uint8_t blocks[2][64];
        uint32_t(*state)[8] = (uint32_t(*)[8])words;
        padded(blocks[0], first, first_length);
        padded(blocks[1], second, second_length);
        memcpy(state[0], INITIAL, sizeof INITIAL);
        memcpy(state[1], INITIAL, sizeof INITIAL);
        compress_ni2(state, (const uint8_t(*)[64])blocks);
        return;
    }
#endif
    t42_sha256_words(first, first_length, words);
    t42_sha256_words(second, second_length, words + 8);
}
