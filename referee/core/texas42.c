/* The hand and the match as a state machine: bidding, trump, tricks, the early end, marks.
 * The same rules, checks and order as referee/rules/hand.py and match.py, which stay the
 * readable reference; every rule question in play is one lookup in the tables below. */
#include <string.h>

#include "texas42.h"

#define TRUMP_SUIT 7

static uint8_t LOW[T42_TILES], HIGH[T42_TILES], COUNT[T42_TILES];
static uint8_t CALLED[9][T42_TILES];      /* the suit a tile calls when led, by trump */
static uint32_t FOLLOWERS[9][8];          /* the tiles that follow a suit, as a bit mask */
static int8_t STRENGTH[9][8][T42_TILES];  /* how strongly a tile bids for a trick; -1 cannot */
static int ready = 0;

static int is_trump(int trump, int tile) {
    if (trump == T42_NO_TRUMP)
        return 0;
    if (trump == T42_DOUBLES)
        return LOW[tile] == HIGH[tile];
    return LOW[tile] == trump || HIGH[tile] == trump;
}

static int shows(int suit, int tile) { return LOW[tile] == suit || HIGH[tile] == suit; }

static void make_tables(void) {
    int i = 0;
    for (int low = 0; low < 7; low++)
        for (int high = low; high < 7; high++, i++) {
            LOW[i] = (uint8_t)low, HIGH[i] = (uint8_t)high;
            int sum = low + high;
            COUNT[i] = (uint8_t)(sum == 5 ? 5 : sum == 10 ? 10 : 0);
        }
    for (int trump = 0; trump < 9; trump++)
        for (int tile = 0; tile < T42_TILES; tile++) {
            int trumps = is_trump(trump, tile), double_ = LOW[tile] == HIGH[tile];
            CALLED[trump][tile] = (uint8_t)(trumps ? TRUMP_SUIT : HIGH[tile]);
            for (int suit = 0; suit < 8; suit++) {
                int follows = suit == TRUMP_SUIT ? trumps : !trumps && shows(suit, tile);
                if (follows)
                    FOLLOWERS[trump][suit] |= 1u << tile;
                int strength = -1;
                if (trumps)
                    strength = trump == T42_DOUBLES ? 100 + LOW[tile]
                               : 100 + (double_ ? 7 : LOW[tile] + HIGH[tile] - trump);
                else if (suit != TRUMP_SUIT && shows(suit, tile))
                    strength = double_ ? 7 : LOW[tile] + HIGH[tile] - suit;
                STRENGTH[trump][suit][tile] = (int8_t)strength;
            }
        }
    ready = 1;
}

static void ensure_tables(void) {
    if (!ready)
        make_tables();
}

/* A table's entry for a tile, or -1 for a number that is not a tile. */
static int entry(const uint8_t table[T42_TILES], int tile) {
    ensure_tables();
    return tile >= 0 && tile < T42_TILES ? table[tile] : -1;
}

int t42_tile_low(int tile) { return entry(LOW, tile); }
int t42_tile_high(int tile) { return entry(HIGH, tile); }
int t42_count(int tile) { return entry(COUNT, tile); }

static void deal_hand(t42_match *m, uint32_t number, int dealer) {
    uint8_t tiles[T42_TILES];
    t42_shuffled(m->seed, number, tiles);
    uint8_t marks[2] = {m->marks[0], m->marks[1]};
    uint64_t seed = m->seed;
    int8_t winner = m->winner;
    memset(m, 0, sizeof *m);
    m->seed = seed, m->marks[0] = marks[0], m->marks[1] = marks[1], m->winner = winner;
    m->hand_marks[0] = marks[0], m->hand_marks[1] = marks[1];
    m->hand_number = number;
    m->dealer = (uint8_t)dealer;
    m->phase = T42_BIDDING;
    m->turn = (uint8_t)((dealer + 1) % 4);
    m->high_bidder = T42_NO_SEAT;
    /* Position p goes to the seat p + 1 places clockwise of the dealer. */
    for (int p = 0; p < T42_TILES; p++) {
        int seat = (dealer + 1 + p) % 4;
        m->hands[seat][p / 4] = tiles[p];
        m->held_tiles[seat] |= 1u << tiles[p];
    }
    for (int s = 0; s < 4; s++)
        m->held[s] = 7;
}

void t42_new_match(t42_match *m, uint64_t seed) {
    ensure_tables();
    memset(m, 0, sizeof *m);
    m->seed = seed;
    m->winner = -1;
    deal_hand(m, 1, t42_first_dealer(seed));
}

int t42_legal(const t42_match *m, uint8_t out[T42_ACTIONS]) {
    int n = 0;
    if (m->phase == T42_PLAYING) {
        int seat = m->turn;
        uint32_t suit = m->trick_size ? FOLLOWERS[m->contract.trump][m->suit] : 0;
        uint32_t allowed = m->held_tiles[seat] & suit ? suit : ~0u; /* must follow, or free */
        for (int i = 0; i < m->held[seat]; i++) { /* without a branch: the tiles are random */
            int tile = m->hands[seat][i];
            out[n] = (uint8_t)(T42_PLAY + tile);
            n += (int)(allowed >> tile & 1);
        }
    } else if (m->phase == T42_BIDDING) {
        out[n++] = T42_PASS;
        if (m->high_marks) {
            out[n++] = (uint8_t)(T42_ALL_TRICKS + m->high_marks);
        } else {
            for (int p = m->high_points ? m->high_points + 1 : 30; p <= 41; p++)
                out[n++] = (uint8_t)(T42_BID + p - 30);
            out[n++] = T42_ALL_TRICKS, out[n++] = T42_ALL_TRICKS + 1;
        }
    } else if (m->phase == T42_DECLARING) {
        if (m->high_marks)
            for (int a = T42_TRUMP_PILES; a < T42_PLAY; a++)
                out[n++] = (uint8_t)a;
        else
            for (int a = T42_TRUMP; a < T42_TRUMP_PILES; a++)
                out[n++] = (uint8_t)a;
    }
    return n;
}

static void finish(t42_match *m, const t42_result *result, t42_events *ev) {
    ev->hand_ended = 1;
    ev->result = *result;
    m->phase = T42_OVER;
    m->turn = T42_NO_SEAT;
}

static int bid(t42_match *m, int seat, int action, t42_events *ev) {
    if (m->phase != T42_BIDDING)
        return T42_ERR_WRONG_PHASE;
    if (action >= T42_BID && action < T42_ALL_TRICKS) {
        int points = action - T42_BID + 30;
        if (m->high_marks || points <= m->high_points)
            return T42_ERR_INVALID_BID;
        m->high_points = (uint8_t)points, m->high_bidder = (uint8_t)seat;
    } else if (action >= T42_ALL_TRICKS) {
        int marks = action - T42_ALL_TRICKS + 1;
        if (m->high_marks ? marks != m->high_marks + 1 : marks > 2)
            return T42_ERR_INVALID_BID;
        m->high_marks = (uint8_t)marks, m->high_bidder = (uint8_t)seat;
    }
    m->bid_actions[m->bids++] = (uint8_t)action;
    if (m->bids < 4) {
        m->turn = (uint8_t)((seat + 1) % 4);
    } else if (m->high_bidder == T42_NO_SEAT) {
        t42_result passed = {T42_PASSED, -1, 0, {0, 0}, 0, 0, {0, 0, 0, 0, 0}};
        finish(m, &passed, ev);
    } else {
        m->phase = T42_DECLARING;
        m->turn = m->high_bidder;
    }
    return T42_OK;
}

static int declare(t42_match *m, int seat, int action) {
    if (m->phase != T42_DECLARING)
        return T42_ERR_WRONG_PHASE;
    int piled = action >= T42_TRUMP_PILES;
    if (piled != (m->high_marks != 0))
        return T42_ERR_INVALID_DECLARATION;
    t42_contract *c = &m->contract;
    c->declarer = (uint8_t)seat;
    c->all_tricks = (uint8_t)piled;
    c->bid = piled ? m->high_marks : m->high_points;
    c->trump = (uint8_t)(piled ? (action - T42_TRUMP_PILES) / 2 : action - T42_TRUMP);
    c->piles = (uint8_t)(piled ? (action - T42_TRUMP_PILES) % 2 + 1 : 0);
    m->has_contract = 1;
    m->phase = T42_PLAYING;
    return T42_OK;
}

/* The result the captured tricks prove, if they prove one yet (hand.py's proven_result). */
static int proven(const t42_match *m, t42_result *r) {
    const t42_contract *c = &m->contract;
    int declarers = c->declarer % 2, defenders = 1 - declarers;
    int tricks = m->tricks_won[0] + m->tricks_won[1];
    int made;
    if (c->all_tricks) {
        if (m->tricks_won[defenders])
            made = 0;
        else if (tricks == T42_TRICKS)
            made = 1;
        else
            return 0;
    } else if (m->points[declarers] >= c->bid) {
        made = 1;
    } else if (m->points[defenders] > 42 - c->bid) {
        made = 0;
    } else {
        return 0;
    }
    r->outcome = made ? T42_MADE : T42_SET;
    r->winner = (int8_t)(made ? declarers : defenders);
    r->marks = c->all_tricks ? c->bid : 1;
    r->points[0] = m->points[0], r->points[1] = m->points[1];
    r->tricks = (uint8_t)tricks;
    r->has_contract = 1;
    r->contract = *c;
    return 1;
}

/* Take `tile` out of a hand's eight bytes, the tiles after it moving up (dealt order kept),
 * without a branch: the tile's place is random, so a search loop mispredicts. Its byte is the
 * lowest zero byte of hand ^ tile (tiles are unique; bytes past the held ones come later). */
static void remove_tile(uint8_t hand[8], int tile) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL;
    uint64_t bytes;
    memcpy(&bytes, hand, 8);
    uint64_t x = bytes ^ (ones * (uint64_t)tile);
    uint64_t zero = (x - ones) & ~x & (ones << 7);
    int at = __builtin_ctzll(zero) / 8;
    uint64_t kept = (1ULL << (8 * at)) - 1;
    bytes = (bytes & kept) | ((bytes >> 8) & ~kept);
    memcpy(hand, &bytes, 8);
#else
    int i = 0;
    while (hand[i] != tile)
        i++;
    for (; i < 7; i++)
        hand[i] = hand[i + 1];
#endif
}

static int play(t42_match *m, int seat, int tile, t42_events *ev) {
    if (m->phase != T42_PLAYING)
        return T42_ERR_WRONG_PHASE;
    uint32_t held = m->held_tiles[seat];
    if (!(held >> tile & 1))
        return T42_ERR_TILE_NOT_IN_HAND;
    int trump = m->contract.trump;
    if (m->trick_size) {
        uint32_t followers = FOLLOWERS[trump][m->suit];
        if (!(followers >> tile & 1) && (held & followers))
            return T42_ERR_MUST_FOLLOW_SUIT;
    } else {
        m->suit = CALLED[trump][tile];
        m->best_strength = -1;
        m->trick_leader = (uint8_t)seat;
    }
    remove_tile(m->hands[seat], tile);
    m->held[seat]--;
    m->held_tiles[seat] &= ~(1u << tile);
    m->trick_tiles[m->trick_size++] = (uint8_t)tile;
    int strength = STRENGTH[trump][m->suit][tile];
    if (strength > m->best_strength)
        m->best = (uint8_t)seat, m->best_strength = (int8_t)strength;
    if (m->trick_size < 4) {
        m->turn = (uint8_t)((seat + 1) % 4);
        return T42_OK;
    }
    int winner = m->best, side = winner % 2;
    int points = 1;
    uint8_t *pile = m->pile_tiles[m->piles];
    for (int k = 0; k < 4; k++) {
        points += COUNT[m->trick_tiles[k]];
        pile[k] = m->trick_tiles[k];
    }
    for (int a = 1; a < 4; a++) /* sorted, as the table shows a pile */
        for (int b = a; b > 0 && pile[b - 1] > pile[b]; b--) {
            uint8_t swap = pile[b];
            pile[b] = pile[b - 1], pile[b - 1] = swap;
        }
    m->pile_sides[m->piles++] = (uint8_t)side;
    m->points[side] = (uint8_t)(m->points[side] + points);
    m->tricks_won[side]++;
    m->trick_size = 0;
    m->turn = (uint8_t)winner;
    ev->trick_taken = 1, ev->trick_number = m->piles;
    ev->trick_winner = (uint8_t)winner, ev->trick_points = (uint8_t)points;
    t42_result result;
    if (proven(m, &result))
        finish(m, &result, ev);
    return T42_OK;
}

int t42_apply(t42_match *m, int seat, int action, t42_events *events) {
    t42_events ignored;
    t42_events *ev = events ? events : &ignored;
    memset(ev, 0, sizeof *ev);
    if (action < 0 || action >= T42_ACTIONS || seat < 0 || seat > 3)
        return T42_ERR_NOT_AN_ACTION;
    if (m->winner >= 0 || m->turn != seat)
        return m->phase == T42_OVER ? T42_ERR_GAME_OVER : T42_ERR_NOT_YOUR_TURN;
    int error;
    if (action >= T42_PLAY)
        error = play(m, seat, action - T42_PLAY, ev);
    else if (action < T42_TRUMP)
        error = bid(m, seat, action, ev);
    else
        error = declare(m, seat, action);
    if (error)
        return error;
    m->acted[m->acted_count] = (uint8_t)action, m->acted_by[m->acted_count++] = (uint8_t)seat;
    if (!ev->hand_ended)
        return T42_OK;
    /* The match: score the hand, then deal the next one or end. */
    const t42_result *r = &ev->result;
    if (r->winner >= 0) {
        m->marks[r->winner] = (uint8_t)(m->marks[r->winner] + r->marks);
        if (m->marks[r->winner] >= T42_MARKS_TO_WIN) {
            m->winner = r->winner;
            ev->match_ended = 1;
            return T42_OK;
        }
    }
    ev->hand_started = 1;
    ev->next_hand_number = m->hand_number + 1;
    ev->next_dealer = (uint8_t)((m->dealer + 1) % 4);
    deal_hand(m, ev->next_hand_number, ev->next_dealer);
    return T42_OK;
}

/* xorshift64*: the random play of the speed figure (not the deal, which is SHA-256). */
static uint64_t next_random(uint64_t *state) {
    *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1DULL;
}

uint64_t t42_random_matches(uint64_t seed, uint64_t count, uint64_t rng) {
    uint64_t hands = 0, state = rng | 1;
    t42_match m;
    uint8_t legal[T42_ACTIONS];
    for (uint64_t k = 0; k < count; k++) {
        t42_new_match(&m, seed + k);
        while (m.winner < 0) {
            int n = t42_legal(&m, legal);
            int action = legal[((next_random(&state) >> 32) * (uint64_t)n) >> 32];
            t42_events ev;
            t42_apply(&m, m.turn, action, &ev);
            hands += ev.hand_ended;
        }
    }
    return hands;
}
