/* Each seat's information state and observation as float32 tensors, the layouts of
 * referee/env/layout.py (the Python encoders, referee/env/tensors.py, are the reference a
 * test holds these to, float for float). */
#include <string.h>

#include "tensors.h"

static int relative(int seat, int observer) { return (seat - observer) & 3; }

/* The tiles `seat` was dealt this hand: those it holds and those it played. */
static uint32_t dealt(const t42_match *m, int seat) {
    uint32_t tiles = m->held_tiles[seat];
    for (int k = 0; k < m->acted_count; k++)
        if (m->acted_by[k] == seat && m->acted[k] >= T42_PLAY)
            tiles |= 1u << (m->acted[k] - T42_PLAY);
    return tiles;
}

void t42_state_header(const t42_match *m, int seat, float *out) {
    memset(out, 0, T42_STATE_HISTORY * sizeof *out);
    out[T42_STATE_DEALER + relative(m->dealer, seat)] = 1;
    out[T42_STATE_MARKS] = m->hand_marks[seat & 1] / 7.0f;
    out[T42_STATE_MARKS + 1] = m->hand_marks[1 - (seat & 1)] / 7.0f;
    for (uint32_t tiles = dealt(m, seat); tiles; tiles &= tiles - 1)
        out[T42_STATE_DEALT + lowest(tiles)] = 1;
}

void t42_information_state(const t42_match *m, int seat, float out[T42_STATE_SIZE]) {
    memset(out + T42_STATE_HISTORY, 0, (T42_STATE_SIZE - T42_STATE_HISTORY) * sizeof *out);
    t42_state_header(m, seat, out);
    for (int k = 0; k < m->acted_count; k++)
        t42_state_acted(out, seat, k, m->acted_by[k], m->acted[k], 1);
}

/* The bid's action index (1-17) of a contract. */
static int bid_index(const t42_contract *c) {
    return c->all_tricks ? T42_ALL_TRICKS + c->bid - 1 : T42_BID + c->bid - 30;
}

void t42_observation(const t42_match *m, int seat, float out[T42_OBS_SIZE]) {
    memset(out, 0, T42_OBS_SIZE * sizeof *out);
    int us = seat & 1;
    out[T42_OBS_DEALER + relative(m->dealer, seat)] = 1;
    out[T42_OBS_MARKS] = m->hand_marks[us] / 7.0f;
    out[T42_OBS_MARKS + 1] = m->hand_marks[1 - us] / 7.0f;
    out[T42_OBS_PHASE + m->phase] = 1;
    if (m->turn != T42_NO_SEAT)
        out[T42_OBS_TURN + relative(m->turn, seat)] = 1;
    for (uint32_t tiles = m->held_tiles[seat]; tiles; tiles &= tiles - 1)
        out[T42_OBS_HAND + lowest(tiles)] = 1;
    for (int s = 0; s < 4; s++)
        out[T42_OBS_HAND_SIZES + relative(s, seat)] = m->held[s] / 7.0f;
    for (int k = 0; k < m->bids; k++)
        out[T42_OBS_BIDS + 18 * k + m->bid_actions[k]] = 1;
    const t42_contract *c = &m->contract;
    if (m->has_contract) {
        float *at = out + T42_OBS_CONTRACT;
        at[relative(c->declarer, seat)] = 1;
        at[4 + bid_index(c) - 1] = 1;
        at[4 + 17 + c->trump] = 1;
        if (c->piles)
            at[4 + 17 + 9 + c->piles - 1] = 1;
    }
    for (int k = 0; k < m->trick_size; k++) {
        float *slot = out + T42_OBS_TRICK + 32 * k;
        slot[relative((m->trick_leader + k) & 3, seat)] = 1;
        slot[4 + m->trick_tiles[k]] = 1;
    }
    /* Every captured pile is taken; the shown ones (all, or the last `piles` under all
     * tricks) also seen, whose, and their tiles. */
    int covered = m->has_contract && c->piles && m->piles > c->piles ? m->piles - c->piles : 0;
    for (int n = 0; n < m->piles; n++) {
        float *slot = out + T42_OBS_PILES + 32 * n;
        slot[0] = 1;
        if (n < covered)
            continue;
        slot[1] = 1;
        slot[m->pile_sides[n] == us ? 2 : 3] = 1;
        for (int k = 0; k < 4; k++)
            slot[4 + m->pile_tiles[n][k]] = 1;
    }
}
