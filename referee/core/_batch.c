/* The Python binding of the batched API (texas42.h's t42_batch_*): `Batch(count, seed, rng)`
 * holds `count` matches in one C array and reads and writes flat buffers (numpy arrays, or
 * anything with the buffer protocol); referee/core/batch.py gives it numpy's shapes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "texas42.h"

typedef struct {
    PyObject_HEAD
    t42_match match;
} Match; /* as in _core.c, which owns the type */

extern PyTypeObject MatchType;

#define OUTPUTS 8 /* the arrays `bind` takes: t42_outputs' but `kept`, which is the batch's */

typedef struct {
    PyObject_HEAD
    t42_match *games;
    int size;
    uint64_t next_seed, rng, matches;
    Py_buffer held[OUTPUTS]; /* the arrays bound by `bind`, held until rebound or freed */
    uint8_t *kept;           /* what the bound states hold: the batch's own, never Python's */
    t42_outputs out;
    int bound;
} Batch;

static void release(Batch *self) {
    for (int k = 0; k < OUTPUTS; k++)
        if (self->held[k].obj)
            PyBuffer_Release(&self->held[k]);
    memset(self->held, 0, sizeof self->held);
    PyMem_Free(self->kept);
    self->kept = NULL;
    memset(&self->out, 0, sizeof self->out);
    self->bound = 0;
}

static int Batch_init(Batch *self, PyObject *args, PyObject *kwds) {
    int size;
    unsigned long long seed, rng = 1;
    static char *keywords[] = {"size", "seed", "rng", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iK|K", keywords, &size, &seed, &rng))
        return -1;
    if (size < 1) {
        PyErr_SetString(PyExc_ValueError, "a batch holds at least one match");
        return -1;
    }
    release(self); /* arrays bound to the matches before are not these matches' */
    PyMem_Free(self->games);
    self->games = PyMem_Malloc(sizeof(t42_match) * (size_t)size);
    if (!self->games) {
        self->size = 0;
        PyErr_NoMemory();
        return -1;
    }
    self->size = size;
    t42_batch_reset(self->games, size, (uint64_t)seed);
    self->next_seed = (uint64_t)seed + (uint64_t)size;
    self->rng = (uint64_t)rng, self->matches = 0;
    return 0;
}

static void Batch_dealloc(Batch *self) {
    release(self);
    PyMem_Free(self->games);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A buffer of exactly `bytes` bytes, or NULL when none was given; -1 on a wrong size. */
static int sized(Py_buffer *view, Py_ssize_t bytes, const char *name) {
    if (view->buf && view->len != bytes) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes expected, got %zd", name, bytes, view->len);
        return -1;
    }
    return 0;
}

/* A bound array of the item type the core writes ("f" float32, "B" uint8, "b" int8). */
static int typed(Py_buffer *view, const char *format, const char *name) {
    const char *given = view->format ? view->format : "B";
    if (given[0] == '<' || given[0] == '=' || given[0] == '@')
        given++;
    if (strcmp(given, format) != 0 && !(format[0] == 'B' && strcmp(given, "?") == 0)) {
        PyErr_Format(PyExc_TypeError, "%s: items of format '%s' expected, got '%s'", name,
                     format, view->format ? view->format : "B");
        return -1;
    }
    return 0;
}

/* bind(turns, masks, states, observations, marks, rewards, hands, ended): the arrays (each
 * writable, C-contiguous, of its exact size and item type, or None) that `step`, `random`
 * and the binding itself fill from now on; the states' record is the batch's own. */
static PyObject *Batch_bind(Batch *self, PyObject *args) {
    static const char *names[OUTPUTS] = {"turns", "masks", "states", "observations",
                                         "marks", "rewards", "hands", "ended"};
    static const char *formats[OUTPUTS] = {"B", "B", "f", "f", "b", "f", "B", "B"};
    Py_ssize_t n = self->size;
    const Py_ssize_t bytes[OUTPUTS] = {n, n * T42_ACTIONS, n * 4 * T42_STATE_SIZE * 4,
                                       n * T42_OBS_SIZE * 4, n * 2, n * 4 * 4, n, n};
    PyObject *given[OUTPUTS];
    if (!PyArg_UnpackTuple(args, "bind", OUTPUTS, OUTPUTS, &given[0], &given[1], &given[2],
                           &given[3], &given[4], &given[5], &given[6], &given[7]))
        return NULL;
    Py_buffer views[OUTPUTS];
    memset(views, 0, sizeof views);
    int flags = PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
    for (int k = 0; k < OUTPUTS; k++) {
        if (given[k] == Py_None)
            continue;
        if (PyObject_GetBuffer(given[k], &views[k], flags) < 0 ||
            sized(&views[k], bytes[k], names[k]) < 0 || typed(&views[k], formats[k], names[k])) {
            for (int j = 0; j <= k; j++)
                if (views[j].obj)
                    PyBuffer_Release(&views[j]);
            return NULL;
        }
    }
    uint8_t *kept = NULL;
    if (views[2].obj && !(kept = PyMem_Calloc((size_t)n, T42_KEPT))) {
        for (int k = 0; k < OUTPUTS; k++)
            if (views[k].obj)
                PyBuffer_Release(&views[k]);
        return PyErr_NoMemory();
    }
    release(self);
    memcpy(self->held, views, sizeof views);
    self->kept = kept;
    t42_outputs *out = &self->out;
    out->turns = self->held[0].buf, out->masks = self->held[1].buf;
    out->states = self->held[2].buf, out->kept = kept;
    out->observations = self->held[3].buf, out->marks = self->held[4].buf;
    out->rewards = self->held[5].buf, out->hands = self->held[6].buf;
    out->ended = self->held[7].buf;
    self->bound = 1;
    t42_batch_write(self->games, self->size, out);
    Py_RETURN_NONE;
}

static const t42_outputs *outputs(Batch *self) { return self->bound ? &self->out : NULL; }

static PyObject *Batch_observe(Batch *self, PyObject *args) {
    Py_buffer turns = {0}, masks = {0};
    if (!PyArg_ParseTuple(args, "w*w*", &turns, &masks))
        return NULL;
    PyObject *answer = NULL;
    if (!sized(&turns, self->size, "turns") &&
        !sized(&masks, (Py_ssize_t)self->size * T42_ACTIONS, "masks")) {
        t42_batch_observe(self->games, self->size, turns.buf, masks.buf);
        answer = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&turns);
    PyBuffer_Release(&masks);
    return answer;
}

/* step(actions): 0, writing the bound arrays, or the index + 1 of the first illegal
 * action's match as a negative number (nothing changed). */
static PyObject *Batch_step(Batch *self, PyObject *args) {
    Py_buffer actions = {0};
    if (!PyArg_ParseTuple(args, "y*", &actions))
        return NULL;
    PyObject *answer = NULL;
    int n = self->size;
    if (!sized(&actions, (Py_ssize_t)n * 8, "actions (int64)")) {
        int status = t42_batch_step(self->games, n, actions.buf, &self->next_seed,
                                    &self->matches, outputs(self));
        answer = PyLong_FromLong(status);
    }
    PyBuffer_Release(&actions);
    return answer;
}

/* random(steps, by_match=False): random legal play; by match, nothing is written until the
 * end (then the position, as `write`). Returns the hands finished. */
static PyObject *Batch_random(Batch *self, PyObject *args) {
    int steps, by_match = 0;
    if (!PyArg_ParseTuple(args, "i|p", &steps, &by_match))
        return NULL;
    /* The GIL stays held: another thread could step this batch meanwhile. */
    uint64_t hands = t42_batch_random(self->games, self->size, steps, &self->rng,
                                      &self->next_seed, &self->matches,
                                      by_match ? NULL : outputs(self));
    if (by_match && self->bound) { /* the position now; no single step's outcome */
        t42_outputs *out = &self->out;
        t42_batch_write(self->games, self->size, out);
        size_t n = (size_t)self->size;
        if (out->marks)
            memset(out->marks, 0, 2 * n);
        if (out->rewards)
            memset(out->rewards, 0, 4 * n * sizeof(float));
        if (out->hands)
            memset(out->hands, 0, n);
        if (out->ended)
            memset(out->ended, 0, n);
    }
    return PyLong_FromUnsignedLongLong(hands);
}

static PyObject *Batch_match(Batch *self, PyObject *args) {
    int i;
    if (!PyArg_ParseTuple(args, "i", &i))
        return NULL;
    if (i < 0 || i >= self->size) {
        PyErr_SetString(PyExc_IndexError, "no such match in the batch");
        return NULL;
    }
    Match *copy = PyObject_New(Match, &MatchType);
    if (copy)
        copy->match = self->games[i];
    return (PyObject *)copy;
}

static PyObject *Batch_counts(Batch *self, void *closure) {
    (void)closure;
    return Py_BuildValue("(KK)", (unsigned long long)self->matches,
                         (unsigned long long)self->next_seed);
}

static PyGetSetDef Batch_getset[] = {
    {"counts", (getter)Batch_counts, NULL, "(matches finished, the next match's seed)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef Batch_methods[] = {
    {"observe", (PyCFunction)Batch_observe, METH_VARARGS, "observe(turns, masks)"},
    {"bind", (PyCFunction)Batch_bind, METH_VARARGS,
     "bind(turns, masks, states, observations, marks, rewards, hands, ended)"},
    {"step", (PyCFunction)Batch_step, METH_VARARGS, "step(actions)"},
    {"random", (PyCFunction)Batch_random, METH_VARARGS,
     "random(steps, by_match=False): the hands finished"},
    {"match", (PyCFunction)Batch_match, METH_VARARGS, "match(i): a copy of match i"},
    {NULL, NULL, 0, NULL}};

PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "referee.core._texas42.Batch",
    .tp_basicsize = sizeof(Batch),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Many matches of Texas 42 stepped at once in the compiled core.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Batch_init,
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_methods = Batch_methods,
    .tp_getset = Batch_getset,
};
