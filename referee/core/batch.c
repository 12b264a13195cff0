/* The batched API of texas42.h: many matches stepped at once on flat arrays, for training an
 * agent, with what a training loop reads written after every step (t42_outputs). */
#include <string.h>

#include "tensors.h"

void t42_batch_reset(t42_match *games, int n, uint64_t first_seed) {
    for (int i = 0; i < n; i++)
        t42_new_match(&games[i], first_seed + (uint64_t)i);
}

static void write_mask(const t42_match *game, uint8_t *mask) {
    uint8_t legal[T42_ACTIONS];
    memset(mask, 0, T42_ACTIONS);
    int count = t42_legal(game, legal);
    for (int k = 0; k < count; k++)
        mask[legal[k]] = 1;
}

void t42_batch_observe(const t42_match *games, int n, uint8_t *turns, uint8_t *masks) {
    for (int i = 0; i < n; i++) {
        if (turns)
            turns[i] = games[i].turn;
        if (masks)
            write_mask(&games[i], masks + (size_t)T42_ACTIONS * (size_t)i);
    }
}

/* A slot's four information states, and `kept`: the count of history slots they hold, then
 * who took each action and the action (what a new hand must clear). */
static float *states_of(const t42_outputs *out, int i) {
    return out->states + (size_t)i * 4 * T42_STATE_SIZE;
}

static void write_states(const t42_match *game, float *states, uint8_t *kept) {
    for (int seat = 0; seat < 4; seat++)
        t42_information_state(game, seat, states + seat * T42_STATE_SIZE);
    kept[0] = game->acted_count;
    memcpy(kept + 1, game->acted_by, T42_MAX_ACTED);
    memcpy(kept + 1 + T42_MAX_ACTED, game->acted, T42_MAX_ACTED);
}

/* Bring a slot's information states up to date after one action: the action's two floats a
 * seat, or after a new hand (or match) the header and the last hand's history cleared. */
static void update_states(const t42_match *game, float *states, uint8_t *kept, int seat,
                          int action, int new_hand) {
    if (!new_hand) {
        int k = kept[0]++;
        kept[1 + k] = (uint8_t)seat, kept[1 + T42_MAX_ACTED + k] = (uint8_t)action;
        for (int o = 0; o < 4; o++)
            t42_state_acted(states + o * T42_STATE_SIZE, o, k, seat, action, 1);
        return;
    }
    for (int o = 0; o < 4; o++) {
        float *state = states + o * T42_STATE_SIZE;
        for (int k = 0; k < kept[0]; k++)
            t42_state_acted(state, o, k, kept[1 + k], kept[1 + T42_MAX_ACTED + k], 0);
        t42_state_header(game, o, state);
    }
    kept[0] = 0;
}

static void write_position(const t42_match *game, const t42_outputs *out, int i) {
    if (out->turns)
        out->turns[i] = game->turn;
    if (out->masks)
        write_mask(game, out->masks + (size_t)T42_ACTIONS * (size_t)i);
    if (out->observations)
        t42_observation(game, game->turn, out->observations + (size_t)i * T42_OBS_SIZE);
}

void t42_batch_write(const t42_match *games, int n, const t42_outputs *out) {
    for (int i = 0; i < n; i++) {
        if (out->states && out->kept)
            write_states(&games[i], states_of(out, i), out->kept + (size_t)i * T42_KEPT);
        write_position(&games[i], out, i);
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

/* Apply one legal action to match i; score and replace it when it ends; write `out`. */
static int step_one(t42_match *game, int i, int action, uint64_t *next_seed,
                    const t42_outputs *out) {
    t42_events ev;
    int seat = game->turn;
    t42_apply(game, seat, action, &ev);
    if (ev.match_ended)
        t42_new_match(game, (*next_seed)++);
    if (!out)
        return ev.hand_ended | ev.match_ended << 1;
    int winner = ev.hand_ended ? ev.result.winner : -1, marks = ev.result.marks;
    if (out->marks) {
        out->marks[2 * i] = (int8_t)(winner == 0 ? marks : 0);
        out->marks[2 * i + 1] = (int8_t)(winner == 1 ? marks : 0);
    }
    if (out->rewards)
        for (int s = 0; s < 4; s++) {
            int won = winner < 0 ? 0 : (s & 1) == winner ? marks : -marks;
            out->rewards[4 * i + s] = (float)won;
        }
    if (out->hands)
        out->hands[i] = ev.hand_ended;
    if (out->ended)
        out->ended[i] = ev.match_ended;
    if (out->states && out->kept)
        update_states(game, states_of(out, i), out->kept + (size_t)i * T42_KEPT, seat, action,
                      ev.hand_ended);
    write_position(game, out, i);
    return ev.hand_ended | ev.match_ended << 1;
}

int t42_batch_step(t42_match *games, int n, const int64_t *actions, uint64_t *next_seed,
                   uint64_t *matches, const t42_outputs *out) {
    for (int i = 0; i < n; i++)
        if (actions[i] < 0 || actions[i] >= T42_ACTIONS || !is_legal(&games[i], actions[i]))
            return -(i + 1);
    for (int i = 0; i < n; i++)
        *matches += (uint64_t)step_one(&games[i], i, (int)actions[i], next_seed, out) >> 1;
    return 0;
}

/* How many matches ahead a round asks for their rows. */
#define AHEAD 4

/* xorshift64*: the random play's generator (the deal stays SHA-256). */
static uint64_t next_random(uint64_t *state) {
    *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1DULL;
}

static int random_step(t42_match *game, int i, uint64_t *rng, uint64_t *next_seed,
                       const t42_outputs *out) {
    uint8_t legal[T42_ACTIONS];
    int count = t42_legal(game, legal);
    int action = legal[((next_random(rng) >> 32) * (uint64_t)count) >> 32];
    return step_one(game, i, action, next_seed, out);
}

/* Ask the cache for the history row a match's next action will write in each seat's state
 * (its first line, the seat's, and the lines of the actions its phase allows): a round steps
 * matches 41 KB apart, so without this every row is a miss. */
static void prefetch_row(const t42_match *game, const t42_outputs *out, int i) {
#if defined(__GNUC__)
    if (!out->states || !out->kept)
        return;
    static const uint8_t first[4] = {T42_PASS, T42_TRUMP, T42_PLAY, T42_PLAY};
    int k = out->kept[(size_t)i * T42_KEPT];
    const float *row = states_of(out, i) + T42_STATE_HISTORY + k * T42_STATE_ACTED;
    for (int seat = 0; seat < 4; seat++, row += T42_STATE_SIZE) {
        __builtin_prefetch(row, 1, 3);
        __builtin_prefetch(row + 4 + first[game->phase], 1, 3);
        __builtin_prefetch(row + 4 + T42_ACTIONS - 1, 1, 3);
    }
#else
    (void)game, (void)out, (void)i;
#endif
}

uint64_t t42_batch_random(t42_match *games, int n, int steps, uint64_t *rng,
                          uint64_t *next_seed, uint64_t *matches, const t42_outputs *out) {
    uint64_t hands = 0;
    if (!*rng)
        *rng = 1; /* xorshift stays at zero from zero */
    for (int outer = 0; outer < (out ? steps : n); outer++)
        for (int inner = 0; inner < (out ? n : steps); inner++) {
            int i = out ? inner : outer;
            if (out && i + AHEAD < n)
                prefetch_row(&games[i + AHEAD], out, i + AHEAD);
            int what = random_step(&games[i], i, rng, next_seed, out);
            hands += what & 1;
            *matches += what >> 1;
        }
    return hands;
}
