/* The batched API of texas42.h: many matches stepped at once on flat arrays, for training an
 * agent; each step is t42_legal and t42_apply on one match after another. */
#include <string.h>

#include "texas42.h"

void t42_batch_reset(t42_match *games, int n, uint64_t first_seed) {
    for (int i = 0; i < n; i++)
        t42_new_match(&games[i], first_seed + (uint64_t)i);
}

void t42_batch_observe(const t42_match *games, int n, uint8_t *turns, uint8_t *masks) {
    uint8_t legal[T42_ACTIONS];
    for (int i = 0; i < n; i++) {
        if (turns)
            turns[i] = games[i].turn;
        if (masks) {
            uint8_t *mask = masks + (size_t)T42_ACTIONS * (size_t)i;
            memset(mask, 0, T42_ACTIONS);
            int count = t42_legal(&games[i], legal);
            for (int k = 0; k < count; k++)
                mask[legal[k]] = 1;
        }
    }
}

static int is_legal(const t42_match *game, int64_t action) {
    uint8_t legal[T42_ACTIONS];
    int count = t42_legal(game, legal);
    for (int k = 0; k < count; k++)
        if (legal[k] == action)
            return 1;
    return 0;
}

/* Apply one legal action to a match; score and replace it when it ends. */
static void step_one(t42_match *game, int action, uint64_t *next_seed, int8_t *marks,
                     uint8_t *hand, uint8_t *ended) {
    t42_events ev;
    t42_apply(game, game->turn, action, &ev);
    if (marks) {
        marks[0] = marks[1] = 0;
        if (ev.hand_ended && ev.result.winner >= 0)
            marks[ev.result.winner] = (int8_t)ev.result.marks;
    }
    if (hand)
        *hand = ev.hand_ended;
    if (ended)
        *ended = ev.match_ended;
    if (ev.match_ended)
        t42_new_match(game, (*next_seed)++);
}

int t42_batch_step(t42_match *games, int n, const int64_t *actions, uint64_t *next_seed,
                   int8_t *marks, uint8_t *hands, uint8_t *ended) {
    for (int i = 0; i < n; i++)
        if (actions[i] < 0 || actions[i] >= T42_ACTIONS || !is_legal(&games[i], actions[i]))
            return -(i + 1);
    for (int i = 0; i < n; i++)
        step_one(&games[i], (int)actions[i], next_seed, marks ? marks + 2 * i : NULL,
                 hands ? hands + i : NULL, ended ? ended + i : NULL);
    return 0;
}

/* xorshift64*: the random play's generator (the deal stays SHA-256). */
static uint64_t next_random(uint64_t *state) {
    *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1DULL;
}

uint64_t t42_batch_random(t42_match *games, int n, int steps, uint64_t *rng,
                          uint64_t *next_seed, uint64_t *matches) {
    uint64_t hands = 0;
    uint8_t legal[T42_ACTIONS];
    if (!*rng)
        *rng = 1; /* xorshift stays at zero from zero */
    /* Match by match, each its `steps` steps in a row: its state stays in the cache. */
    for (int i = 0; i < n; i++)
        for (int s = 0; s < steps; s++) {
            int count = t42_legal(&games[i], legal);
            int action = legal[((next_random(rng) >> 32) * (uint64_t)count) >> 32];
            uint8_t hand, ended;
            step_one(&games[i], action, next_seed, NULL, &hand, &ended);
            hands += hand;
            *matches += ended;
        }
    return hands;
}
