/* texas42.h: the rules of Texas 42 in C, the same rules as referee/rules (the readable
 * reference and the oracle this library is tested against; see protocol/RULES.md).
 *
 * A whole match is one plain struct (no pointers: copy it with memcpy or `=` to clone), dealt
 * from a 64-bit seed exactly as protocol/deal-test-vectors.md says. Every action is one small
 * integer, the canonical action index below, the same in every language:
 *
 *   0        pass
 *   1..12    bid 30..41 points            (T42_BID + points - 30)
 *   13..17   all tricks for 1..5 marks    (T42_ALL_TRICKS + marks - 1)
 *   18..26   trump t, a point contract    (T42_TRUMP + t)
 *   27..44   trump t with 1 or 2 piles    (T42_TRUMP_PILES + 2 t + piles - 1)
 *   45..72   play tile i                  (T42_PLAY + i)
 *
 * A trump t is 0-6 (a number), 7 (doubles) or 8 (no trump); tile i is the i-th of the 28 in
 * canonical order ([0|0], [0|1], ... [0|6], [1|1], ... [6|6]); seats are 0-3 (A-D, clockwise),
 * partnerships 0 (A+C) and 1 (B+D).
 *
 * t42_apply checks everything before it changes anything: an illegal action returns a
 * negative T42_ERR_* code and leaves the match exactly as it was.
 *
 * Threads: matches share nothing, but the first t42_new_match fills static tables (the
 * rules' and the deal's); make that call before starting threads that use the library.
 */
#ifndef TEXAS42_H
#define TEXAS42_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define T42_TILES 28
#define T42_SEATS 4
#define T42_TRICKS 7
#define T42_MARKS_TO_WIN 7
#define T42_NO_SEAT 4

#define T42_PASS 0
#define T42_BID 1
#define T42_ALL_TRICKS 13
#define T42_TRUMP 18
#define T42_TRUMP_PILES 27
#define T42_PLAY 45
#define T42_ACTIONS 73

/* Acted events in one hand at most: 4 bids, 1 declaration, 28 plays. */
#define T42_MAX_ACTED 33

#define T42_DOUBLES 7
#define T42_NO_TRUMP 8

enum t42_phase { T42_BIDDING = 0, T42_DECLARING = 1, T42_PLAYING = 2, T42_OVER = 3 };
enum t42_outcome { T42_MADE = 0, T42_SET = 1, T42_PASSED = 2 };

enum t42_error {
    T42_OK = 0,
    T42_ERR_NOT_AN_ACTION = -1, /* not an index of the table above */
    T42_ERR_GAME_OVER = -2,     /* the match is over */
    T42_ERR_NOT_YOUR_TURN = -3,
    T42_ERR_WRONG_PHASE = -4,
    T42_ERR_INVALID_BID = -5,
    T42_ERR_INVALID_DECLARATION = -6,
    T42_ERR_TILE_NOT_IN_HAND = -7,
    T42_ERR_MUST_FOLLOW_SUIT = -8
};

/* The contract: the winning bid (points 30-41, or all tricks for `marks`), trump, piles. */
typedef struct {
    uint8_t declarer;
    uint8_t all_tricks; /* 1: an all-tricks bid of `bid` marks; 0: a point bid of `bid` */
    uint8_t bid;
    uint8_t trump;      /* 0-8 */
    uint8_t piles;      /* 1 or 2 face up under all tricks; 0 for a point contract */
} t42_contract;

typedef struct {
    uint8_t outcome;    /* enum t42_outcome */
    int8_t winner;      /* the partnership that scores; -1 after four passes */
    uint8_t marks;
    uint8_t points[2];
    uint8_t tricks;
    uint8_t has_contract;
    t42_contract contract;
} t42_result;

/* What one action caused, beyond itself (the `acted` event is always there). */
typedef struct {
    uint8_t trick_taken, trick_number, trick_winner, trick_points;
    uint8_t hand_ended;
    t42_result result;
    uint8_t hand_started;
    uint8_t next_dealer;
    uint32_t next_hand_number;
    uint8_t match_ended;
} t42_events;

typedef struct {
    uint64_t seed;
    uint32_t hand_number;
    uint8_t dealer, phase, turn; /* turn: T42_NO_SEAT once the hand (or match) is over */
    uint8_t hands[4][8];         /* each seat's tiles still held, in dealt order (then unused) */
    uint8_t held[4];
    uint32_t held_tiles[4];      /* the same tiles as a mask: bit i for tile i */
    uint8_t bid_actions[4];      /* this hand's bids and passes, in order (seats follow) */
    uint8_t bids;
    uint8_t high_points, high_marks, high_bidder; /* high_bidder: T42_NO_SEAT if none */
    uint8_t has_contract;
    t42_contract contract;
    uint8_t trick_tiles[4];      /* the trick in progress, in play order */
    uint8_t trick_size, trick_leader;
    uint8_t suit, best;          /* the suit called (7: trump), the seat winning it so far */
    int8_t best_strength;
    uint8_t points[2], tricks_won[2];
    uint8_t pile_tiles[7][4];    /* every captured trick, tiles sorted */
    uint8_t pile_sides[7];
    uint8_t piles;
    uint8_t marks[2];
    int8_t winner;               /* the match's winner once a side has 7 marks, else -1 */
    uint8_t hand_marks[2];       /* the marks before this hand */
    uint8_t acted_count;         /* this hand's actions in order (every `acted` event) */
    uint8_t acted[T42_MAX_ACTED], acted_by[T42_MAX_ACTED];
} t42_match;

/* The deal (protocol/deal-test-vectors.md). `t42_shuffled` writes the 28 tiles of hand
 * `hand_number` in shuffled order, position 0 first. */
int t42_first_dealer(uint64_t seed);
void t42_shuffled(uint64_t seed, uint32_t hand_number, uint8_t tiles[T42_TILES]);

/* Whether the deal's SHA-256 runs on the processor's SHA extensions (x86-64): `wanted` -1
 * only asks, 0 turns them off (the portable code, the same hashes), 1 back on where the
 * processor has them. Returns whether they are in use. */
int t42_sha_extensions(int wanted);

/* A new match: the first dealer drawn from the seed, hand 1 dealt, bidding begun. */
void t42_new_match(t42_match *m, uint64_t seed);

/* The legal actions in the canonical order (plays: the seat's tiles in dealt order, only
 * those that follow when it can follow); returns how many (0 once the match is over). */
int t42_legal(const t42_match *m, uint8_t out[T42_ACTIONS]);

/* Let `seat` take `action`; fills `events` (which may be NULL); T42_OK or a T42_ERR_*. */
int t42_apply(t42_match *m, int seat, int action, t42_events *events);

/* Facts of the rules, for bindings: a tile's halves and its count (-1: not a tile). */
int t42_tile_low(int tile);
int t42_tile_high(int tile);
int t42_count(int tile);

/* Each seat's two tensors, float32 0s and 1s (marks and hand sizes as fractions of 7), in the
 * layouts docs/env.md tables (referee/env/layout.py names the blocks; a test holds the two
 * equal). Seats in them are relative to the seat they are for: 0 itself, 1 its left, 2 its
 * partner, 3 its right. The information state is everything the seat was sent this hand (the
 * dealer, the marks before it, its seven tiles, every acted event in order); the observation
 * is its view now (covered piles hidden). Both write the whole tensor. */
#define T42_STATE_DEALER 0
#define T42_STATE_MARKS 4
#define T42_STATE_DEALT 6
#define T42_STATE_HISTORY 34
#define T42_STATE_ACTED 77 /* a history slot: who (4) and the action (73) */
#define T42_STATE_SIZE 2575

#define T42_OBS_DEALER 0
#define T42_OBS_MARKS 4
#define T42_OBS_PHASE 6
#define T42_OBS_TURN 10
#define T42_OBS_HAND 14
#define T42_OBS_HAND_SIZES 42
#define T42_OBS_BIDS 46      /* 4 slots of 18 (actions 0-17) */
#define T42_OBS_CONTRACT 118 /* declarer 4, bid 17, trump 9, piles 2 */
#define T42_OBS_TRICK 150    /* 4 slots of 32: who (4), the tile (28) */
#define T42_OBS_PILES 278    /* 7 slots of 32: taken, seen, ours, theirs, the tiles (28) */
#define T42_OBS_SIZE 502

void t42_information_state(const t42_match *m, int seat, float out[T42_STATE_SIZE]);
void t42_observation(const t42_match *m, int seat, float out[T42_OBS_SIZE]);

/* The batched API: `n` matches stepped at once, on flat arrays (numpy's, from Python). A
 * batch starts match i from seed `first_seed + i`; a match that ends is replaced at once by a
 * new one from the batch's next seed (`*next_seed`, then counted up), so every slot always
 * holds a match in play. */
void t42_batch_reset(t42_match *games, int n, uint64_t first_seed);

/* What the batch writes for a training loop, each array one row a match; any may be NULL.
 * After t42_batch_write and after every step they describe the position now:
 *   turns    n        the seat to act (0-3)
 *   masks    n x 73   its legal actions, 1 or 0
 *   states   n x 4 x T42_STATE_SIZE  each seat's information state, kept up to date in
 *            place: a step writes only what it changed (two floats a seat; a new hand its
 *            first 34 floats and clears the last hand's history), so it needs `kept`
 *   kept     n x T42_KEPT bytes, the batch's own record of what `states` holds
 *   observations n x T42_OBS_SIZE  the observation of the seat to act, written whole
 * and what the step did:
 *   marks    n x 2    marks each partnership scored (a hand ended)
 *   rewards  n x 4    each seat's reward: its side's marks scored minus the other side's
 *   hands    n        1 if a hand ended
 *   ended    n        1 if the match ended (the slot now holds a new match) */
#define T42_KEPT 68
typedef struct {
    uint8_t *turns, *masks;
    float *states;
    uint8_t *kept;
    float *observations;
    int8_t *marks;
    float *rewards;
    uint8_t *hands, *ended;
} t42_outputs;

/* Writes turns, masks, states (whole) and observations for every match. */
void t42_batch_write(const t42_match *games, int n, const t42_outputs *out);

/* Each match's seat to act (out[i], 0-3) and legal actions as a mask (masks[73 i + a]). */
void t42_batch_observe(const t42_match *games, int n, uint8_t *turns, uint8_t *masks);

/* One action for each match, by the seat to act. Every action is checked before any is
 * taken: if one is illegal, returns its match's index + 1 as a negative number and changes
 * nothing. Otherwise returns 0, adds the matches finished to `*matches` and writes `out`
 * (which may be NULL). */
int t42_batch_step(t42_match *games, int n, const int64_t *actions, uint64_t *next_seed,
                   uint64_t *matches, const t42_outputs *out);

/* `steps` rounds of random legal play, each round one action in every match (drawn in C by
 * the generator `*rng`), writing `out` (which may be NULL) as t42_batch_step does; ended
 * matches are replaced as there. Returns the hands finished and adds the matches finished
 * to `*matches`. With `out` NULL it plays match by match instead (each match's `steps`
 * steps in a row, its state in the cache: faster, and other games, as the draws come in
 * another order). */
uint64_t t42_batch_random(t42_match *games, int n, int steps, uint64_t *rng,
                          uint64_t *next_seed, uint64_t *matches, const t42_outputs *out);

/* Random legal play: `count` whole matches from seeds seed, seed + 1, ..., actions drawn by
 * a generator seeded with `rng`; returns the hands played (for a speed figure). */
uint64_t t42_random_matches(uint64_t seed, uint64_t count, uint64_t rng);

#ifdef __cplusplus
}
#endif
#endif
