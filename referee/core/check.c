/* `make check`: the core against the published deal vectors (protocol/deal-test-vectors.md),
 * then random legal play of whole matches for a speed figure. Exits 1 on a wrong deal. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "texas42.h"

static const struct {
    unsigned long long seed;
    char dealer;
    const char *hands; /* A, B, C, D: each seat's seven tiles in dealt order, "lh" a tile */
} VECTORS[] = {
    {0ULL, 'B', "24154445333603" "22350625661311" "56012305021246" "14042634005516"},
    {1ULL, 'B', "12151605262413" "03351444362322" "06453355460066" "25040111345602"},
    {42ULL, 'B', "34010205561466" "45221135240604" "03130012232526" "55161533364446"},
    {18446744073709551615ULL, 'C',
     "34552203122306" "00022526450115" "11365646143544" "13246633160405"},
};

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void) {
    int wrong = 0;
    for (size_t v = 0; v < sizeof VECTORS / sizeof VECTORS[0]; v++) {
        t42_match m;
        t42_new_match(&m, VECTORS[v].seed);
        char dealt[57] = {0};
        for (int seat = 0; seat < 4; seat++)
            for (int i = 0; i < 7; i++) {
                dealt[14 * seat + 2 * i] = (char)('0' + t42_tile_low(m.hands[seat][i]));
                dealt[14 * seat + 2 * i + 1] = (char)('0' + t42_tile_high(m.hands[seat][i]));
            }
        int ok = "ABCD"[m.dealer] == VECTORS[v].dealer && !strcmp(dealt, VECTORS[v].hands);
        printf("seed %llu: %s\n", VECTORS[v].seed, ok ? "the published deal" : "WRONG DEAL");
        wrong += !ok;
    }
    double start = seconds();
    uint64_t hands = t42_random_matches(0, 20000, 42);
    double spent = seconds() - start;
    printf("random legal play: %llu hands in %.2f s, %.0f hands/s on one core\n",
           (unsigned long long)hands, spent, (double)hands / spent);
    return wrong ? 1 : 0;
}
