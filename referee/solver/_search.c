/* The strong bot's make-or-set search in C: the same search as referee/solver/search.py
 * (which stays as the fallback where no compiler was found, and as the oracle the tests hold
 * this one to), 30 to 60 times faster.
 *
 * A hand's play is searched exactly with every hand known ("double dummy"), on 28-bit tile
 * masks: is the declarers' bid reached with best play on both sides? An AND/OR tree: the
 * declarers need one tile that makes, the defenders one that sets; each answer of a position at
 * a trick boundary is remembered in a table (a lossy cache: a position it lost is searched
 * again, which changes no answer). The rules come as tables from Python (solver.Tables), so
 * this file knows no rule of its own.
 *
 * Pruned (``pruned``: the Python wrapper's default, as the Python search's): of twin tiles in
 * a hand (equal count and suits, no other seat's tile between them) one is tried, and a seat
 * following a trick tries the cheap play first (solver.pruning.follow_order): the same
 * answers from about half the positions at the first lead.
 *
 * Budgets: ``max_nodes`` positions (a count: the same on every machine, so a seeded bot
 * answers the same way and replays exactly), and a monotonic-clock ``deadline`` as the safety
 * net, read every 4,096 positions. A search past either returns None, and nothing
 * half-searched is remembered.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define TILES 28
#define SUITS 8
#define TOTAL_POINTS 42
#define CLOCK_EVERY 4095 /* a power of two, minus one */
#define OUT_OF_TIME -1
#ifndef TABLE_BITS
#define TABLE_BITS 17 /* entries of the table of answers: 6 MiB */
#endif

typedef struct {
    uint64_t low;  /* hands A and B */
    uint64_t high; /* hands C and D, the leader and the declarers' points */
    uint32_t owner; /* the search that wrote it (0: nobody) */
    int8_t value;
} Entry;

/* One table for every search of the process, allocated once: each search owns the entries
   it wrote (an ``owner`` of its own), so a new search starts as if the table were empty,
   without clearing it — clearing megabytes (or touching fresh pages) for each contract cost
   more than the search of a late trick. The GIL is held throughout a search. */
static Entry *table = NULL;
static uint64_t table_mask = 0;
static uint32_t owners = 0;

typedef struct {
    PyObject_HEAD
    int8_t called[TILES];
    uint32_t followers[SUITS];
    int8_t strength[SUITS][TILES];
    int8_t points[TILES];
    /* Tiles in the order they are tried: leading, by the strength each has in the suit it
       calls; following a suit, by strength in that suit (ties: the lower index first). */
    int8_t lead_order[TILES];
    int8_t suit_order[SUITS][TILES];
    int declarers; /* 0: A+C, 1: B+D */
    int target;    /* the bid's points, or -1: all tricks */
    long long nodes;
    long long max_nodes; /* -1: no bound */
    double deadline;     /* monotonic seconds; a negative one: none */
    uint32_t owner;      /* this search's mark on the entries it writes */
    int pruned;          /* twins tried once, follows cheap first */
    uint32_t twins[TILES];          /* the tiles that may be each tile's twins */
    uint32_t between[TILES][TILES]; /* and what lies between two of them */
} Solver;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Has the search used up a budget? Counted positions every time, the clock now and then. */
static int spent(Solver *s) {
    if (s->max_nodes >= 0 && s->nodes > s->max_nodes)
        return 1;
    if (s->deadline >= 0 && !(s->nodes & CLOCK_EVERY) && now() > s->deadline)
        return 1;
    return 0;
}

/* A trick being played: who has played, the tiles' points so far, and who is winning it. */
typedef struct {
    int played;  /* tiles down */
    int suit;    /* the suit called; -1 before the lead */
    int last;    /* the seat that played last */
    int best;    /* the winning tile's strength */
    int winner;  /* and its seat */
    int points;  /* the trick's points so far (1 for the trick itself, with the count) */
} Trick;

static int play(Solver *s, uint32_t *hands, int seat, Trick trick, int ours, int theirs);

/* The contract's result once a trick is taken: 1 made, 0 set, -2 still open. */
static int settled(Solver *s, int ours, int theirs, uint32_t left) {
    if (s->target < 0)
        return left ? -2 : 1;
    if (ours >= s->target)
        return 1;
    if (theirs > TOTAL_POINTS - s->target)
        return 0;
    return -2;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static const Trick NEW_TRICK = {0, -1, 0, -1, 0, 1};

/* The value of the position where ``leader`` leads a new trick, remembered. */
static int lead(Solver *s, uint32_t *hands, int leader, int ours, int theirs) {
    uint64_t low = (uint64_t)hands[0] | ((uint64_t)hands[1] << 28);
    uint64_t high = (uint64_t)hands[2] | ((uint64_t)hands[3] << 28) |
                    ((uint64_t)leader << 56) | ((uint64_t)ours << 58);
    Entry *entry = &table[mix(low ^ mix(high)) & table_mask];
    if (entry->owner == s->owner && entry->high == high && entry->low == low) {
        s->nodes += 1; /* a position answered from memory takes time too */
        return entry->value;
    }
    int value = play(s, hands, leader, NEW_TRICK, ours, theirs);
    if (value != OUT_OF_TIME) {
        entry->low = low;
        entry->high = high;
        entry->value = (int8_t)value;
        entry->owner = s->owner;
    }
    return value;
}

/* The trick once ``seat`` has played ``tile`` to it. */
static inline Trick played(const Solver *s, Trick trick, int seat, int tile) {
    if (trick.played == 0)
        trick.suit = s->called[tile];
    int strength = s->strength[trick.suit][tile];
    if (strength > trick.best) {
        trick.best = strength;
        trick.winner = seat;
    }
    trick.points += s->points[tile];
    trick.played += 1;
    trick.last = seat;
    return trick;
}

/* The value once the last tile of the trick is down: the next seat plays, or the trick is
   complete and scored. */
static int after(Solver *s, uint32_t *hands, Trick trick, int ours, int theirs) {
    if (trick.played < 4)
        return play(s, hands, (trick.last + 1) & 3, trick, ours, theirs);
    if ((trick.winner & 1) == s->declarers)
        ours += trick.points;
    else if (s->target < 0)
        return 0;
    else
        theirs += trick.points;
    int result = settled(s, ours, theirs, hands[0] | hands[1] | hands[2] | hands[3]);
    if (result != -2)
        return result;
    return lead(s, hands, trick.winner, ours, theirs);
}

/* The tried tile ``tile`` is a twin of (the same value), or -1: ``others`` the tiles the other
   seats hold. */
static int twin_of(const Solver *s, uint32_t tried, int tile, uint32_t others, Trick trick) {
    for (uint32_t candidates = tried & s->twins[tile]; candidates; candidates &= candidates - 1) {
        int x = __builtin_ctz(candidates);
        if (s->between[x][tile] & others)
            continue;
        if (!trick.played || (s->strength[trick.suit][x] > trick.best) ==
                                 (s->strength[trick.suit][tile] > trick.best))
            return x;
    }
    return -1;
}

/* The tiles ``playable`` to a trick under way, in the order a pruned search tries them (as
   solver.pruning.follow_order): the highest rank first, ties in strength order. Returns how
   many. */
static int follow_order(const Solver *s, uint32_t playable, int seat, Trick trick,
                        int8_t *out) {
    const int8_t *strength = s->strength[trick.suit];
    const int8_t *order = s->suit_order[trick.suit];
    int ahead = (trick.winner & 1) == (seat & 1);
    int ranks[TILES];
    int count = 0;
    for (int i = 0; i < TILES; i++) {
        int tile = order[i];
        if (!(playable >> tile & 1))
            continue;
        int rank;
        if (ahead)
            rank = s->points[tile] * 64 - strength[tile];
        else if (strength[tile] > trick.best)
            rank = 4096 + s->points[tile] * 64 - strength[tile];
        else
            rank = -s->points[tile] * 64 - strength[tile];
        int j = count++;
        while (j > 0 && ranks[j - 1] < rank) {
            ranks[j] = ranks[j - 1];
            out[j] = out[j - 1];
            j--;
        }
        ranks[j] = rank;
        out[j] = (int8_t)tile;
    }
    return count;
}

static int play(Solver *s, uint32_t *hands, int seat, Trick trick, int ours, int theirs) {
    s->nodes += 1;
    if (spent(s))
        return OUT_OF_TIME;
    uint32_t hand = hands[seat];
    const int8_t *order;
    uint32_t playable = hand;
    if (trick.played == 0) {
        order = s->lead_order;
    } else {
        order = s->suit_order[trick.suit];
        if (hand & s->followers[trick.suit])
            playable = hand & s->followers[trick.suit];
    }
    int declaring = (seat & 1) == s->declarers;
    int left = __builtin_popcount(playable);
    int8_t ranked[TILES];
    if (s->pruned && trick.played)
        order = ranked, left = follow_order(s, playable, seat, trick, ranked);
    uint32_t others = s->pruned ? (hands[0] | hands[1] | hands[2] | hands[3]) & ~hand : 0;
    uint32_t tried = 0;
    for (int i = 0; left; i++) {
        int tile = order[i];
        if (!(playable >> tile & 1))
            continue;
        left--;
        if (s->pruned && twin_of(s, tried, tile, others, trick) >= 0)
            continue;
        tried |= 1u << tile;
        hands[seat] = hand & ~(1u << tile);
        int value = after(s, hands, played(s, trick, seat, tile), ours, theirs);
        hands[seat] = hand;
        if (value == OUT_OF_TIME)
            return OUT_OF_TIME;
        if (value == declaring) /* the declarers found a make, or the defenders a set */
            return value;
    }
    return !declaring;
}

/* -- Python ----------------------------------------------------------------------------- */

static int read_ints(PyObject *sequence, int8_t *out, Py_ssize_t count, const char *what) {
    PyObject *fast = PySequence_Fast(sequence, what);
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != count) {
        PyErr_Format(PyExc_ValueError, "%s: %zd values expected", what, count);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        long value = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (value == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        if (value < -128 || value > 127) {
            PyErr_Format(PyExc_ValueError, "%s: %ld out of range", what, value);
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int8_t)value;
    }
    Py_DECREF(fast);
    return 0;
}

/* ``count`` tile masks from a Python sequence. */
static int read_masks(PyObject *sequence, uint32_t *out, Py_ssize_t count, const char *what) {
    PyObject *fast = PySequence_Fast(sequence, what);
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != count) {
        PyErr_Format(PyExc_ValueError, "%s: %zd masks expected", what, count);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        unsigned long value = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(fast, i));
        if (PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (uint32_t)value;
    }
    Py_DECREF(fast);
    return 0;
}

/* Tiles by strength, strongest first; ties keep the lower index first (a stable sort). */
static void sort_by(int8_t *order, const int8_t *key) {
    for (int i = 0; i < TILES; i++)
        order[i] = (int8_t)i;
    for (int i = 1; i < TILES; i++) {
        int8_t tile = order[i];
        int j = i - 1;
        while (j >= 0 && key[order[j]] < key[tile]) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = tile;
    }
}

static int Solver_init(Solver *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"called", "followers", "strength", "points", "declarers",
                            "target", "max_nodes", "deadline", "twins", "between", "pruned",
                            NULL};
    PyObject *called, *followers, *strength, *points, *twins = NULL, *between = NULL;
    int declarers, target, pruned = 0;
    long long max_nodes = -1;
    double deadline = -1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOii|LdOOp", names, &called, &followers,
                                     &strength, &points, &declarers, &target, &max_nodes,
                                     &deadline, &twins, &between, &pruned))
        return -1;
    if (pruned && (twins == NULL || between == NULL)) {
        PyErr_SetString(PyExc_ValueError, "pruned: the twins and between tables are needed");
        return -1;
    }
    memset(self->twins, 0, sizeof self->twins);
    if (pruned && (read_masks(twins, self->twins, TILES, "twins") < 0))
        return -1;
    if (pruned) {
        PyObject *rows = PySequence_Fast(between, "between");
        if (rows == NULL)
            return -1;
        if (PySequence_Fast_GET_SIZE(rows) != TILES) {
            Py_DECREF(rows);
            PyErr_SetString(PyExc_ValueError, "between: 28 rows expected");
            return -1;
        }
        for (int i = 0; i < TILES; i++) {
            if (read_masks(PySequence_Fast_GET_ITEM(rows, i), self->between[i], TILES,
                           "between") < 0) {
                Py_DECREF(rows);
                return -1;
            }
        }
        Py_DECREF(rows);
    }
    self->pruned = pruned;
    if (declarers < 0 || declarers > 1 || target < -1 || target > TOTAL_POINTS) {
        PyErr_SetString(PyExc_ValueError, "declarers 0 or 1, target -1 (all tricks) to 42");
        return -1;
    }
    if (read_ints(called, self->called, TILES, "called") < 0 ||
        read_ints(points, self->points, TILES, "points") < 0)
        return -1;
    if (read_masks(followers, self->followers, SUITS, "followers") < 0)
        return -1;
    PyObject *fast = PySequence_Fast(strength, "strength");
    if (fast == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != SUITS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "strength: 8 rows expected");
        return -1;
    }
    for (int i = 0; i < SUITS; i++) {
        if (read_ints(PySequence_Fast_GET_ITEM(fast, i), self->strength[i], TILES, "strength") <
            0) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    for (int tile = 0; tile < TILES; tile++) {
        if (self->called[tile] < 0 || self->called[tile] >= SUITS) {
            PyErr_SetString(PyExc_ValueError, "called: suits are 0 to 7");
            return -1;
        }
    }
    int8_t lead_strength[TILES];
    for (int tile = 0; tile < TILES; tile++)
        lead_strength[tile] = self->strength[self->called[tile]][tile];
    sort_by(self->lead_order, lead_strength);
    for (int suit = 0; suit < SUITS; suit++)
        sort_by(self->suit_order[suit], self->strength[suit]);
    self->declarers = declarers;
    self->target = target;
    self->max_nodes = max_nodes;
    self->deadline = deadline;
    self->nodes = 0;
    if (++owners == 0) { /* 4 billion searches: every mark is used; start the table afresh */
        memset(table, 0, (table_mask + 1) * sizeof(Entry));
        owners = 1;
    }
    self->owner = owners;
    return 0;
}

static void Solver_dealloc(Solver *self) {
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A position from Python: hands (4 masks), turn, the trick as (seat, tile) pairs, and the
   points (declarers', defenders'). */
static int read_position(Solver *s, PyObject *args, uint32_t *hands, int *turn, Trick *out,
                         int *ours, int *theirs) {
    PyObject *tiles_down;
    unsigned int a, b, c, d;
    if (!PyArg_ParseTuple(args, "(IIII)iO(ii)", &a, &b, &c, &d, turn, &tiles_down, ours, theirs))
        return -1;
    hands[0] = a, hands[1] = b, hands[2] = c, hands[3] = d;
    uint32_t all = (1u << TILES) - 1;
    if ((a | b | c | d) & ~all || a & b || a & c || a & d || b & c || b & d || c & d) {
        PyErr_SetString(PyExc_ValueError, "hands: four disjoint masks of the 28 tiles");
        return -1;
    }
    if (*turn < 0 || *turn > 3) {
        PyErr_SetString(PyExc_ValueError, "turn: a seat 0 to 3");
        return -1;
    }
    PyObject *fast = PySequence_Fast(tiles_down, "trick");
    if (fast == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    Trick trick = NEW_TRICK;
    if (n > 3) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "trick: at most 3 tiles down");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int seat, tile;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "ii", &seat, &tile)) {
            Py_DECREF(fast);
            return -1;
        }
        if (seat < 0 || seat > 3 || tile < 0 || tile >= TILES) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "trick: (seat 0-3, tile 0-27) pairs");
            return -1;
        }
        trick = played(s, trick, seat, tile);
    }
    Py_DECREF(fast);
    *out = trick;
    return 0;
}

static PyObject *Solver_makes(Solver *self, PyObject *args) {
    uint32_t hands[4];
    int turn, ours, theirs;
    Trick trick;
    if (read_position(self, args, hands, &turn, &trick, &ours, &theirs) < 0)
        return NULL;
    int value = play(self, hands, turn, trick, ours, theirs);
    if (value == OUT_OF_TIME)
        Py_RETURN_NONE;
    return PyBool_FromLong(value);
}

/* For each tile the seat to play may play (in index order): do the declarers make after it?
   A dict {tile: bool}, or None when a budget ran out first. */
static PyObject *Solver_move_values(Solver *self, PyObject *args) {
    uint32_t hands[4];
    int turn, ours, theirs;
    Trick trick;
    if (read_position(self, args, hands, &turn, &trick, &ours, &theirs) < 0)
        return NULL;
    uint32_t hand = hands[turn];
    uint32_t playable = hand;
    if (trick.played && (hand & self->followers[trick.suit]))
        playable = hand & self->followers[trick.suit];
    PyObject *values = PyDict_New();
    if (values == NULL)
        return NULL;
    uint32_t others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hand;
    uint32_t tried = 0;
    int found[TILES];
    for (int tile = 0; tile < TILES; tile++) {
        if (!(playable >> tile & 1))
            continue;
        int twin = self->pruned ? twin_of(self, tried, tile, others, trick) : -1;
        int value;
        if (twin >= 0) {
            value = found[twin];
        } else {
            tried |= 1u << tile;
            hands[turn] = hand & ~(1u << tile);
            value = after(self, hands, played(self, trick, turn, tile), ours, theirs);
            hands[turn] = hand;
        }
        if (value == OUT_OF_TIME) {
            Py_DECREF(values);
            Py_RETURN_NONE;
        }
        found[tile] = value;
        PyObject *key = PyLong_FromLong(tile);
        if (key == NULL || PyDict_SetItem(values, key, value ? Py_True : Py_False) < 0) {
            Py_XDECREF(key);
            Py_DECREF(values);
            return NULL;
        }
        Py_DECREF(key);
    }
    return values;
}

static PyObject *Solver_get_nodes(Solver *self, void *closure) {
    return PyLong_FromLongLong(self->nodes);
}

static int Solver_set_nodes(Solver *self, PyObject *value, void *closure) {
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "nodes cannot be deleted");
        return -1;
    }
    long long nodes = PyLong_AsLongLong(value);
    if (nodes == -1 && PyErr_Occurred())
        return -1;
    self->nodes = nodes;
    return 0;
}

static PyObject *Solver_get_max_nodes(Solver *self, void *closure) {
    return PyLong_FromLongLong(self->max_nodes);
}

static int Solver_set_max_nodes(Solver *self, PyObject *value, void *closure) {
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "max_nodes cannot be deleted");
        return -1;
    }
    long long max_nodes = PyLong_AsLongLong(value);
    if (max_nodes == -1 && PyErr_Occurred())
        return -1;
    self->max_nodes = max_nodes < 0 ? -1 : max_nodes;
    return 0;
}

static PyObject *Solver_get_deadline(Solver *self, void *closure) {
    return PyFloat_FromDouble(self->deadline);
}

static int Solver_set_deadline(Solver *self, PyObject *value, void *closure) {
    double deadline = value == NULL ? -1.0 : PyFloat_AsDouble(value);
    if (deadline == -1.0 && PyErr_Occurred())
        return -1;
    self->deadline = deadline;
    return 0;
}

static PyObject *monotonic(PyObject *module, PyObject *unused) {
    return PyFloat_FromDouble(now());
}

static PyMethodDef Solver_methods[] = {
    {"makes", (PyCFunction)Solver_makes, METH_VARARGS,
     "makes(hands, turn, trick, points) -> bool | None: do the declarers make it?"},
    {"move_values", (PyCFunction)Solver_move_values, METH_VARARGS,
     "move_values(hands, turn, trick, points) -> dict[int, bool] | None"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Solver_getset[] = {
    {"nodes", (getter)Solver_get_nodes, (setter)Solver_set_nodes, "positions searched", NULL},
    {"max_nodes", (getter)Solver_get_max_nodes, (setter)Solver_set_max_nodes,
     "positions after which a search gives up (-1: no bound)", NULL},
    {"deadline", (getter)Solver_get_deadline, (setter)Solver_set_deadline,
     "monotonic seconds past which a search gives up (negative: never)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "referee.solver._search.Solver",
    .tp_basicsize = sizeof(Solver),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The make-or-set search of one contract (see referee/solver/search.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Solver_init,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
};

static PyMethodDef module_methods[] = {
    {"monotonic", monotonic, METH_NOARGS, "The clock deadlines are read on (seconds)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "referee.solver._search",
    "The strong bot's make-or-set search, compiled.", -1, module_methods,
};

PyMODINIT_FUNC PyInit__search(void) {
    if (PyType_Ready(&SolverType) < 0)
        return NULL;
    if (table == NULL) {
        size_t size = (size_t)1 << TABLE_BITS;
        table = PyMem_Calloc(size, sizeof(Entry));
        if (table == NULL)
            return PyErr_NoMemory();
        table_mask = size - 1;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(m, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
