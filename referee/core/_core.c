/* The Python binding of the compiled rules core (texas42.h): a match as a small object whose
 * values are the core's integers (seats 0-3, the canonical action index, tiles 0-27);
 * referee/core/engine.py turns them into the protocol's JSON forms. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "texas42.h"

typedef struct {
    PyObject_HEAD
    t42_match match;
} Match;

PyTypeObject MatchType; /* shared with _batch.c */
extern PyTypeObject BatchType;

static int Match_init(Match *self, PyObject *args, PyObject *kwds) {
    unsigned long long seed;
    static char *keywords[] = {"seed", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "K", keywords, &seed))
        return -1;
    t42_new_match(&self->match, (uint64_t)seed);
    return 0;
}

static PyObject *Match_turn(Match *self, void *closure) {
    (void)closure;
    if (self->match.turn == T42_NO_SEAT)
        Py_RETURN_NONE;
    return PyLong_FromLong(self->match.turn);
}

/* The legal actions as bytes: each byte one action index, in the canonical order. */
static PyObject *Match_legal(Match *self, PyObject *unused) {
    (void)unused;
    uint8_t legal[T42_ACTIONS];
    int n = t42_legal(&self->match, legal);
    return PyBytes_FromStringAndSize((const char *)legal, n);
}

/* An error code (a negative int), None (nothing beyond the action itself), or the tuple of
 * what else happened: (trick?, number, winner, points, hand_end?, outcome, side, marks,
 * points AC, points BD, tricks, contract?, declarer, all tricks?, bid, trump, piles,
 * hand_start?, hand number, dealer, match_end?). */
static PyObject *Match_apply(Match *self, PyObject *args) {
    int seat, action;
    if (!PyArg_ParseTuple(args, "ii", &seat, &action))
        return NULL;
    t42_events ev;
    int error = t42_apply(&self->match, seat, action, &ev);
    if (error)
        return PyLong_FromLong(error);
    if (!ev.trick_taken && !ev.hand_ended)
        Py_RETURN_NONE;
    const t42_result *r = &ev.result;
    const t42_contract *c = &r->contract;
    return Py_BuildValue("(iiiiiiiiiiiiiiiiiiIii)", ev.trick_taken, ev.trick_number,
                         ev.trick_winner, ev.trick_points, ev.hand_ended, r->outcome, r->winner,
                         r->marks, r->points[0], r->points[1], r->tricks, r->has_contract,
                         c->declarer, c->all_tricks, c->bid, c->trump, c->piles,
                         ev.hand_started, (unsigned)ev.next_hand_number, ev.next_dealer,
                         ev.match_ended);
}

/* information_state(seat, out) and observation(seat, out): the seat's tensor written into a
 * float32 buffer of T42_STATE_SIZE or T42_OBS_SIZE floats. */
static PyObject *write_tensor(Match *self, PyObject *args, int state) {
    int seat;
    Py_buffer out = {0};
    if (!PyArg_ParseTuple(args, "iw*", &seat, &out))
        return NULL;
    Py_ssize_t floats = state ? T42_STATE_SIZE : T42_OBS_SIZE;
    PyObject *answer = NULL;
    if (seat < 0 || seat > 3)
        PyErr_SetString(PyExc_ValueError, "a seat is 0-3");
    else if (out.len != floats * 4 || !PyBuffer_IsContiguous(&out, 'C'))
        PyErr_Format(PyExc_ValueError, "%zd float32 expected", floats);
    else {
        if (state)
            t42_information_state(&self->match, seat, out.buf);
        else
            t42_observation(&self->match, seat, out.buf);
        answer = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&out);
    return answer;
}

static PyObject *Match_information_state(Match *self, PyObject *args) {
    return write_tensor(self, args, 1);
}

static PyObject *Match_observation(Match *self, PyObject *args) {
    return write_tensor(self, args, 0);
}

static PyObject *Match_copy(Match *self, PyObject *unused) {
    (void)unused;
    Match *other = PyObject_New(Match, &MatchType);
    if (other)
        other->match = self->match;
    return (PyObject *)other;
}

/* The whole state: (hand number, dealer, phase, turn, the four hands as bytes, this hand's
 * bid actions as bytes, the contract or None, the trick's tiles as bytes, its leader,
 * points AC, BD, tricks won AC, BD, the piles' tiles as bytes (4 a pile), their sides as
 * bytes, marks AC, BD, the match's winner or -1). */
static PyObject *Match_raw(Match *self, PyObject *unused) {
    (void)unused;
    const t42_match *m = &self->match;
    PyObject *contract;
    if (m->has_contract) {
        const t42_contract *c = &m->contract;
        contract = Py_BuildValue("(iiiii)", c->declarer, c->all_tricks, c->bid, c->trump,
                                 c->piles);
    } else {
        contract = Py_NewRef(Py_None);
    }
    if (!contract)
        return NULL;
    return Py_BuildValue(
        "(Iiii(y#y#y#y#)y#Ny#iiiiiy#y#iii)", (unsigned)m->hand_number, m->dealer, m->phase,
        m->turn == T42_NO_SEAT ? -1 : m->turn, (const char *)m->hands[0], (Py_ssize_t)m->held[0],
        (const char *)m->hands[1], (Py_ssize_t)m->held[1], (const char *)m->hands[2],
        (Py_ssize_t)m->held[2], (const char *)m->hands[3], (Py_ssize_t)m->held[3],
        (const char *)m->bid_actions, (Py_ssize_t)m->bids, contract,
        (const char *)m->trick_tiles, (Py_ssize_t)m->trick_size, m->trick_leader, m->points[0],
        m->points[1], m->tricks_won[0], m->tricks_won[1], (const char *)m->pile_tiles,
        (Py_ssize_t)(4 * m->piles), (const char *)m->pile_sides, (Py_ssize_t)m->piles,
        m->marks[0], m->marks[1], m->winner);
}

static PyObject *first_dealer(PyObject *module, PyObject *args) {
    (void)module;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "K", &seed))
        return NULL;
    return PyLong_FromLong(t42_first_dealer((uint64_t)seed));
}

static PyObject *shuffled(PyObject *module, PyObject *args) {
    (void)module;
    unsigned long long seed;
    unsigned int hand;
    if (!PyArg_ParseTuple(args, "KI", &seed, &hand))
        return NULL;
    uint8_t tiles[T42_TILES];
    t42_shuffled((uint64_t)seed, hand, tiles);
    return PyBytes_FromStringAndSize((const char *)tiles, T42_TILES);
}

static PyObject *sha_extensions(PyObject *module, PyObject *args) {
    (void)module;
    int wanted = -1;
    if (!PyArg_ParseTuple(args, "|i", &wanted))
        return NULL;
    return PyBool_FromLong(t42_sha_extensions(wanted));
}

/* deals(seed, count): shuffle hand 1 of `count` seeds from `seed` (the deal alone, for its
 * share of a speed figure), without the GIL; returns a checksum so none is skipped. */
static PyObject *deals(PyObject *module, PyObject *args) {
    (void)module;
    unsigned long long seed, count;
    if (!PyArg_ParseTuple(args, "KK", &seed, &count))
        return NULL;
    unsigned long long sum = 0;
    Py_BEGIN_ALLOW_THREADS
    uint8_t tiles[T42_TILES];
    for (unsigned long long k = 0; k < count; k++) {
        t42_shuffled((uint64_t)(seed + k), 1, tiles);
        sum += tiles[0];
    }
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong(sum);
}

/* Random legal play of whole matches, without the GIL; returns the hands played. */
static PyObject *random_matches(PyObject *module, PyObject *args) {
    (void)module;
    unsigned long long seed, count, rng;
    if (!PyArg_ParseTuple(args, "KKK", &seed, &count, &rng))
        return NULL;
    uint64_t hands;
    Py_BEGIN_ALLOW_THREADS
    hands = t42_random_matches((uint64_t)seed, (uint64_t)count, (uint64_t)rng);
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong(hands);
}

static PyGetSetDef Match_getset[] = {
    {"turn", (getter)Match_turn, NULL, "the seat to act (0-3), None once over", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef Match_methods[] = {
    {"legal", (PyCFunction)Match_legal, METH_NOARGS, "the legal action indices, as bytes"},
    {"apply", (PyCFunction)Match_apply, METH_VARARGS, "apply(seat, action): events or an error"},
    {"copy", (PyCFunction)Match_copy, METH_NOARGS, "an independent copy"},
    {"raw", (PyCFunction)Match_raw, METH_NOARGS, "the whole state as a tuple"},
    {"information_state", (PyCFunction)Match_information_state, METH_VARARGS,
     "information_state(seat, out): the seat's information state into float32 out"},
    {"observation", (PyCFunction)Match_observation, METH_VARARGS,
     "observation(seat, out): the seat's observation into float32 out"},
    {NULL, NULL, 0, NULL}};

PyTypeObject MatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "referee.core._texas42.Match",
    .tp_basicsize = sizeof(Match),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A match of Texas 42 in the compiled core.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Match_init,
    .tp_methods = Match_methods,
    .tp_getset = Match_getset,
};

static PyMethodDef module_methods[] = {
    {"first_dealer", first_dealer, METH_VARARGS, "the first dealer (0-3) of a seed"},
    {"shuffled", shuffled, METH_VARARGS, "shuffled(seed, hand): the 28 tiles in dealt order"},
    {"sha_extensions", sha_extensions, METH_VARARGS,
     "sha_extensions(wanted=-1): whether the deal hashes on the SHA extensions (0: off, 1: on)"},
    {"deals", deals, METH_VARARGS, "deals(seed, count): shuffle count deals; a checksum"},
    {"random_matches", random_matches, METH_VARARGS,
     "random_matches(seed, count, rng): play whole matches at random; the hands played"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "referee.core._texas42",
                                    "The compiled rules core (texas42.h).", -1, module_methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__texas42(void) {
    /* Fill the core's tables now, under the GIL: the functions that release it then only
       read them. */
    t42_match warm;
    t42_new_match(&warm, 0);
    t42_first_dealer(0);
    uint8_t tiles[T42_TILES];
    t42_shuffled(0, 1, tiles);
    if (PyType_Ready(&MatchType) < 0 || PyType_Ready(&BatchType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    if (PyModule_AddObjectRef(m, "Match", (PyObject *)&MatchType) < 0 ||
        PyModule_AddObjectRef(m, "Batch", (PyObject *)&BatchType) < 0 ||
        PyModule_AddIntConstant(m, "STATE_SIZE", T42_STATE_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "OBSERVATION_SIZE", T42_OBS_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "KEPT", T42_KEPT) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
