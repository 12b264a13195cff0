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
    uint32_t words[16]; /* two blocks' words, hashed together (one for a single draw) */
    int next;      /* the next unused word of `words` */
    int end;       /* how many words `words` holds: 16, or 8 for a stream hashed singly */
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
static void stream_open(stream *s, uint64_t seed, const char *kind, uint32_t hand, int pairs) {
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
    s->next = s->end = pairs ? 16 : 8;
}

static uint32_t stream_word(stream *s) {
    if (s->next == s->end && s->end == 8) {
        int length = s->prefix + decimal(s->text + s->prefix, s->block++);
        t42_sha256_words((const uint8_t *)s->text, (size_t)length, s->words);
        s->next = 0;
    } else if (s->next == s->end) {
        char second[sizeof s->text];
        memcpy(second, s->text, (size_t)s->prefix);
        int first_length = s->prefix + decimal(s->text + s->prefix, s->block);
        int second_length = s->prefix + decimal(second + s->prefix, s->block + 1);
        s->block += 2;
        t42_sha256_pair_words((const uint8_t *)s->text, (size_t)first_length,
                              (const uint8_t *)second, (size_t)second_length, s->words);
        s->next = 0;
    }
    return s->words[s->next++];
}

/* A uniform integer in [0, n), with no modulo bias: x is accepted below 2**32 - 2**32 mod n.
 * For the n of a deal (at most 28) the limit and x mod n come from tables, without a
 * division: x mod n = ((M x mod 2**64) n) >> 64 with M = floor((2**64 - 1) / n) + 1 (Lemire,
 * exact for every 32-bit x). */
#define TABLED 29
static uint64_t LIMIT[TABLED], MAGIC[TABLED];

static void make_tables(void) {
    for (uint64_t n = 2; n < TABLED; n++) {
        LIMIT[n] = 4294967296ULL - 4294967296ULL % n;
        MAGIC[n] = UINT64_MAX / n + 1;
    }
}

static uint32_t uniform(stream *s, uint32_t n) {
    if (n >= 2 && n < TABLED) {
        if (!MAGIC[2])
            make_tables();
        for (;;) {
            uint32_t x = stream_word(s);
            if (x < LIMIT[n])
#ifdef __SIZEOF_INT128__
                return (uint32_t)(((unsigned __int128)(MAGIC[n] * x) * n) >> 64);
#else
                return x % n;
#endif
        }
    }
    uint64_t limit = 4294967296ULL - 4294967296ULL % n;
    for (;;) {
        uint32_t x = stream_word(s);
        if (x < limit)
            return x % n;
    }
}

int t42_first_dealer(uint64_t seed) {
    stream s;
    stream_open(&s, seed, "dealer", 0, 0);
    return (int)uniform(&s, 4);
}

void t42_shuffled(uint64_t seed, uint32_t hand_number, uint8_t tiles[T42_TILES]) {
    stream s;
    stream_open(&s, seed, "hand", hand_number, 1);
    for (int i = 0; i < T42_TILES; i++)
        tiles[i] = (uint8_t)i;
    for (int i = T42_TILES - 1; i > 0; i--) {
        int j = (int)uniform(&s, (uint32_t)i + 1);
        uint8_t swap = tiles[i];
        tiles[i] = tiles[j];
        tiles[j] = swap;
    }
}
