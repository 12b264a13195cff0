/* The seeded deal of protocol/deal-test-vectors.md (version 1), word for word:
 * a stream labelled L is the 32-bit big-endian words of SHA-256("texas42/v1/" L "/" k),
 * k = 0, 1, 2, ...; uniform(n) draws by rejection; the first dealer is uniform(4) on the
 * stream "S/dealer"; hand h is a Fisher-Yates shuffle on the stream "S/hand/h". */
#include <string.h>

#include "sha256.h"
#include "texas42.h"

typedef struct {
    char text[96]; /* "texas42/v1/<label>/" then the block number is written after it */
    int prefix;    /* the length of the text before the block number */
    uint32_t block;
    uint32_t words[16]; /* two blocks' words, hashed together */
    int next;      /* the next unused word of `words` (16: none left) */
} stream;

/* `number` in decimal without leading zeros at `out`; returns its length (snprintf's job,
 * done by hand: the deal formats a number for every block it hashes). */
static int decimal(char *out, uint64_t number) {
    char digits[20];
    int n = 0;
    do
        digits[n++] = (char)('0' + number % 10);
    while (number /= 10);
    for (int i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

/* The stream labelled "<seed>/<kind>" (then "/<hand>" when hand is not 0). */
static void stream_open(stream *s, uint64_t seed, const char *kind, uint32_t hand) {
    static const char head[] = "texas42/v1/";
    int n = (int)sizeof head - 1;
    memcpy(s->text, head, (size_t)n);
    n += decimal(s->text + n, seed);
    s->text[n++] = '/';
    size_t length = strlen(kind);
    memcpy(s->text + n, kind, length);
    n += (int)length;
    if (hand) {
        s->text[n++] = '/';
        n += decimal(s->text + n, hand);
    }
    s->text[n++] = '/';
    s->prefix = n;
    s->block = 0;
    s->next = 16;
}

static uint32_t stream_word(stream *s) {
    if (s->next == 16) {
        char second[sizeof s->text];
        memcpy(second, s->text, (size_t)s->prefix);
        int first_length = s->prefix + decimal(s->text + s->prefix, s->block);
        int second_length = s->prefix + decimal(second + s->prefix, s->block + 1);
        s->block += 2;
        uint8_t digests[2][32];
        t42_sha256_pair((const uint8_t *)s->text, (size_t)first_length, (const uint8_t *)second,
                        (size_t)second_length, digests[0], digests[1]);
        const uint8_t *d = digests[0];
        for (int i = 0; i < 16; i++)
            s->words[i] = (uint32_t)d[4 * i] << 24 | (uint32_t)d[4 * i + 1] << 16 |
                          (uint32_t)d[4 * i + 2] << 8 | (uint32_t)d[4 * i + 3];
        s->next = 0;
    }
    return s->words[s->next++];
}

/* A uniform integer in [0, n), with no modulo bias: x is accepted below 2**32 - 2**32 mod n. */
static uint32_t uniform(stream *s, uint32_t n) {
    uint64_t limit = 4294967296ULL - 4294967296ULL % n;
    for (;;) {
        uint32_t x = stream_word(s);
        if (x < limit)
            return x % n;
    }
}

int t42_first_dealer(uint64_t seed) {
    stream s;
    stream_open(&s, seed, "dealer", 0);
    return (int)uniform(&s, 4);
}

void t42_shuffled(uint64_t seed, uint32_t hand_number, uint8_t tiles[T42_TILES]) {
    stream s;
    stream_open(&s, seed, "hand", hand_number);
    for (int i = 0; i < T42_TILES; i++)
        tiles[i] = (uint8_t)i;
    for (int i = T42_TILES - 1; i > 0; i--) {
        int j = (int)uniform(&s, (uint32_t)i + 1);
        uint8_t swap = tiles[i];
        tiles[i] = tiles[j];
        tiles[j] = swap;
    }
}
