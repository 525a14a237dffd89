/* playbench.kernels._native: the one binding of the games' C kernels.
 *
 * Every call takes a batch of N envs as preallocated, C-contiguous buffers (NumPy arrays
 * through the buffer protocol) and loops over them in C with the GIL released:
 *
 *   step(kernel, actions, starts, state, cells, table, layouts, params,
 *        obs, mask, rewards, ends, scores, illegal, origins, progress[, masked])
 *        -> envs ended by this step
 *   reset(kernel, levels, state, cells, table, layouts)
 *   observe(kernel, state, cells, table, params, obs, mask, ends, scores, origins, progress)
 *   tally(...): the native vector env's count of a step (below)
 *   pick(generator, mask, width, out), below(generators, n, out): draws (draws.h)
 *
 * ``state`` is N rows of int64 (the kernel's integers), ``cells`` N rows of bytes (its
 * board), ``table`` and ``layouts`` the levels an env can be on, ``params`` the game's
 * int64 parameters, ``obs`` N records of bytes, ``mask`` N rows of int8. ``step`` plays
 * ``actions[i]`` (int64) in env i, except that an env whose run had ended is started again
 * on ``starts[i]`` (reward 0, not ended): a row of the level table (Delvewick) or a game
 * seed (Chimestep, Gem Swap, Cogcrawl). A refused action leaves the env as it
 * was, reward 0 and ``illegal[i]`` 1 (a kernel's step returns less than its ``lowest``
 * reward, 0 unless its row names one). Rewards are float64, scores int64, ends and illegal
 * one byte each; ``progress`` (float64) gets each run's progress, counted from its entry of
 * ``origins`` (int64: Delvewick's start level). With ``masked`` true, an action whose
 * entry in the mask row as it stands (the last observation's, with whatever entries a
 * caller zeroed since) is 0 is refused so, unplayed. The layouts must be framed in
 * bedrock (the Python side builds them from parsed levels only); every size is checked
 * here before any env is touched.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "chimestep.h"
#include "cogcrawl.h"
#include "delvewick.h"
#include "draws.h"
#include "gemswap.h"

typedef struct {
    const char *name;
    Py_ssize_t state_width, actions, params;
    void (*init)(void);
    int64_t (*step)(int64_t *, uint8_t *, const int64_t *, const uint8_t *, int64_t, int64_t);
    void (*reset)(int64_t *, uint8_t *, const int64_t *, const uint8_t *, int64_t, int64_t);
    void (*observe)(const int64_t *, const uint8_t *, const int64_t *, const int64_t *,
                    uint8_t *, int8_t *);
    /* the run's progress (view.progress), from the state, the table and its origin */
    double (*progress)(const int64_t *, const uint8_t *, const int64_t *, const int64_t *,
                       int64_t);
    Py_ssize_t score_at, table_width;
    int (*over)(const int64_t *); /* the run has ended */
    /* what is wrong with the level table, an env's row, a start, or the record: NULL when
     * nothing is (each kernel indexes its tables with these, so all are checked first) */
    const char *(*table_error)(const int64_t *, Py_ssize_t, Py_ssize_t);
    const char *(*env_error)(const int64_t *, const int64_t *, Py_ssize_t, Py_ssize_t);
    const char *(*start_error)(int64_t, Py_ssize_t);
    const char *(*record_error)(const int64_t *, Py_ssize_t);
    int64_t lowest; /* the lowest reward a step gives (Gem Swap's hint costs points) */
} Kernel;

static const Kernel KERNELS[] = {
    {"delvewick", DW_STATE, DW_ACTIONS, DP_PARAMS, dw_init, dw_step, dw_reset, dw_observe,
     dw_progress, DW_SCORE, DL_FIELDS, dw_over, dw_table_error, dw_env_error,
     dw_start_error, dw_record_error},
    {"chimestep", CS_STATE, CS_ACTIONS, CP_PARAMS, cs_init, cs_step, cs_reset, cs_observe,
     cs_progress, CS_SCORE, 1, cs_over, cs_table_error, cs_env_error, cs_start_error,
     cs_record_error},
    {"gemswap", GS_STATE, GS_ACTIONS, GP_PARAMS, gs_init, gs_step, gs_reset, gs_observe,
     gs_progress, GS_SCORE, 1, gs_over, gs_table_error, gs_env_error, gs_start_error,
     gs_record_error, -GS_HINT_COST},
    {"cogcrawl", CC_STATE, CC_ACTIONS, CCP_PARAMS, cc_init, cc_step, cc_reset, cc_observe,
     cc_progress, CC_SCORE, 1, cc_over, cc_table_error, cc_env_error, cc_start_error,
     cc_record_error, 0},
};
#define KERNEL_COUNT ((Py_ssize_t)(sizeof KERNELS / sizeof KERNELS[0]))

/* the sizes every call shares, read and checked from the buffers */
typedef struct {
    const Kernel *k;
    Py_ssize_t n, cells, levels, record;
} Shape;

static int fail(const char *message) {
    PyErr_SetString(PyExc_ValueError, message);
    return -1;
}

static int kernel_of(Py_ssize_t index, Shape *shape) {
    if (index < 0 || index >= KERNEL_COUNT) return fail("no kernel of that number");
    shape->k = &KERNELS[index];
    return 0;
}

/* n from a buffer of n items of ``size`` bytes */
static int count_of(const Py_buffer *buffer, Py_ssize_t size, Shape *shape) {
    if (buffer->len % size) return fail("a per-env buffer's size is no whole number of envs");
    shape->n = buffer->len / size;
    return 0;
}

static int rows_of(const Py_buffer *buffer, Py_ssize_t n, Py_ssize_t width, const char *what) {
    if (buffer->len != n * width) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd bytes, not %zd", what, buffer->len,
                     n * width);
        return -1;
    }
    return 0;
}

/* the table's levels fit the cells */
static int check_table(Shape *s, const Py_buffer *table, const Py_buffer *layouts) {
    Py_ssize_t width = (Py_ssize_t)sizeof(int64_t) * s->k->table_width;
    if (table->len == 0 || table->len % width) return fail("the level table is malformed");
    s->levels = table->len / width;
    if (layouts->len != s->levels * s->cells) return fail("the layouts do not match the table");
    const char *error = s->k->table_error((const int64_t *)table->buf, s->levels, s->cells);
    return error ? fail(error) : 0;
}

/* every env's row is one the kernel can step */
static int check_envs(const Shape *s, const int64_t *state, const int64_t *table) {
    for (Py_ssize_t i = 0; i < s->n; i++) {
        const char *error =
            s->k->env_error(state + i * s->k->state_width, table, s->levels, s->cells);
        if (error) return fail(error);
    }
    return 0;
}

static int check_starts(const Shape *s, const int64_t *starts, int keep) {
    for (Py_ssize_t i = 0; i < s->n; i++) {
        if (keep && starts[i] == -1) continue;
        const char *error = s->k->start_error(starts[i], s->levels);
        if (error) return fail(error);
    }
    return 0;
}

static int check_record(const Shape *s, const int64_t *params) {
    const char *error = s->k->record_error(params, s->record);
    return error ? fail(error) : 0;
}

static PyObject *step(PyObject *self, PyObject *args) {
    Py_ssize_t index;
    int masked = 0;
    Py_buffer actions, starts, state, cells, table, layouts, params, obs, mask, rewards, ends,
        scores, illegal, origins, progress;
    if (!PyArg_ParseTuple(args, "ny*y*w*w*y*y*y*w*w*w*w*w*w*y*w*|p", &index, &actions,
                          &starts, &state, &cells, &table, &layouts, &params, &obs, &mask,
                          &rewards, &ends, &scores, &illegal, &origins, &progress, &masked))
        return NULL;
    Shape s;
    Py_ssize_t ended = -1;
    if (kernel_of(index, &s) || count_of(&actions, 8, &s)) goto done;
    if (s.n == 0) {
        ended = 0;
        goto done;
    }
    s.cells = cells.len / s.n;
    s.record = obs.len / s.n;
    if (rows_of(&starts, s.n, 8, "starts") ||
        rows_of(&state, s.n, 8 * s.k->state_width, "state") ||
        rows_of(&cells, s.n, s.cells, "cells") || rows_of(&obs, s.n, s.record, "obs") ||
        rows_of(&params, 1, 8 * s.k->params, "params") ||
        rows_of(&mask, s.n, s.k->actions, "mask") || rows_of(&rewards, s.n, 8, "rewards") ||
        rows_of(&ends, s.n, 1, "ends") || rows_of(&scores, s.n, 8, "scores") ||
        rows_of(&illegal, s.n, 1, "illegal") || rows_of(&origins, s.n, 8, "origins") ||
        rows_of(&progress, s.n, 8, "progress") || check_table(&s, &table, &layouts))
        goto done;
    const int64_t *t = (const int64_t *)table.buf, *p = (const int64_t *)params.buf;
    const int64_t *a = (const int64_t *)actions.buf, *go = (const int64_t *)starts.buf;
    int64_t *st = (int64_t *)state.buf;
    if (check_envs(&s, st, t) || check_record(&s, p) || check_starts(&s, go, 0)) goto done;
    ended = 0;
    Py_BEGIN_ALLOW_THREADS;
    const Kernel *k = s.k;
    uint8_t *c = (uint8_t *)cells.buf, *o = (uint8_t *)obs.buf, *e = (uint8_t *)ends.buf;
    uint8_t *bad = (uint8_t *)illegal.buf, *lay = (uint8_t *)layouts.buf;
    int8_t *m = (int8_t *)mask.buf;
    double *r = (double *)rewards.buf;
    int64_t *sc = (int64_t *)scores.buf;
    const int64_t *og = (const int64_t *)origins.buf;
    double *pr = (double *)progress.buf;
    for (Py_ssize_t i = 0; i < s.n; i++) {
        int64_t *row = st + i * k->state_width;
        uint8_t *board = c + i * s.cells;
        int64_t gained = 0;
        bad[i] = 0;
        if (k->over(row)) {
            k->reset(row, board, t, lay, s.cells, go[i]);
        } else if (masked && (a[i] < 0 || a[i] >= k->actions || !m[i * k->actions + a[i]])) {
            bad[i] = 1; /* outside the mask row as it stands: refused unplayed */
        } else {
            gained = k->step(row, board, t, lay, s.cells, a[i]);
            if (gained < k->lowest) {
                gained = 0;
                bad[i] = 1;
            }
        }
        r[i] = (double)gained;
        e[i] = (uint8_t)k->over(row);
        ended += e[i];
        sc[i] = row[k->score_at];
        k->observe(row, board, t, p, o + i * s.record, m + i * k->actions);
        pr[i] = k->progress(row, board, t, p, og[i]);
    }
    Py_END_ALLOW_THREADS;
done:
    PyBuffer_Release(&actions);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&state);
    PyBuffer_Release(&cells);
    PyBuffer_Release(&table);
    PyBuffer_Release(&layouts);
    PyBuffer_Release(&params);
    PyBuffer_Release(&obs);
    PyBuffer_Release(&mask);
    PyBuffer_Release(&rewards);
    PyBuffer_Release(&ends);
    PyBuffer_Release(&scores);
    PyBuffer_Release(&illegal);
    PyBuffer_Release(&origins);
    PyBuffer_Release(&progress);
    if (ended < 0) return NULL;
    return PyLong_FromSsize_t(ended);
}

static PyObject *reset(PyObject *self, PyObject *args) {
    Py_ssize_t index;
    Py_buffer levels, state, cells, table, layouts;
    if (!PyArg_ParseTuple(args, "ny*w*w*y*y*", &index, &levels, &state, &cells, &table,
                          &layouts))
        return NULL;
    Shape s;
    int ok = 0;
    if (kernel_of(index, &s) || count_of(&levels, 8, &s)) goto done;
    if (s.n == 0) {
        ok = 1;
        goto done;
    }
    s.cells = cells.len / s.n;
    if (rows_of(&state, s.n, 8 * s.k->state_width, "state") ||
        rows_of(&cells, s.n, s.cells, "cells") || check_table(&s, &table, &layouts))
        goto done;
    const int64_t *go = (const int64_t *)levels.buf;
    if (check_starts(&s, go, 1)) goto done;
    for (Py_ssize_t i = 0; i < s.n; i++)
        if (go[i] >= 0)
            s.k->reset((int64_t *)state.buf + i * s.k->state_width,
                       (uint8_t *)cells.buf + i * s.cells, (const int64_t *)table.buf,
                       (const uint8_t *)layouts.buf, s.cells, go[i]);
    ok = 1;
done:
    PyBuffer_Release(&levels);
    PyBuffer_Release(&state);
    PyBuffer_Release(&cells);
    PyBuffer_Release(&table);
    PyBuffer_Release(&layouts);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

static PyObject *observe(PyObject *self, PyObject *args) {
    Py_ssize_t index;
    Py_buffer state, cells, table, params, obs, mask, ends, scores, origins, progress;
    if (!PyArg_ParseTuple(args, "ny*y*y*y*w*w*w*w*y*w*", &index, &state, &cells, &table,
                          &params, &obs, &mask, &ends, &scores, &origins, &progress))
        return NULL;
    Shape s;
    int ok = 0;
    if (kernel_of(index, &s) || count_of(&ends, 1, &s)) goto done;
    if (s.n == 0) {
        ok = 1;
        goto done;
    }
    s.cells = cells.len / s.n;
    s.record = obs.len / s.n;
    if (rows_of(&state, s.n, 8 * s.k->state_width, "state") ||
        rows_of(&cells, s.n, s.cells, "cells") || rows_of(&obs, s.n, s.record, "obs") ||
        rows_of(&params, 1, 8 * s.k->params, "params") ||
        rows_of(&mask, s.n, s.k->actions, "mask") || rows_of(&scores, s.n, 8, "scores") ||
        rows_of(&origins, s.n, 8, "origins") || rows_of(&progress, s.n, 8, "progress"))
        goto done;
    Py_ssize_t width = 8 * s.k->table_width;
    if (table.len == 0 || table.len % width) {
        fail("the level table is malformed");
        goto done;
    }
    s.levels = table.len / width;
    const int64_t *t = (const int64_t *)table.buf, *p = (const int64_t *)params.buf;
    const int64_t *st = (const int64_t *)state.buf;
    const char *error = s.k->table_error(t, s.levels, s.cells);
    if (error) {
        fail(error);
        goto done;
    }
    if (check_envs(&s, st, t) || check_record(&s, p)) goto done;
    for (Py_ssize_t i = 0; i < s.n; i++) {
        const int64_t *row = st + i * s.k->state_width;
        ((uint8_t *)ends.buf)[i] = (uint8_t)s.k->over(row);
        ((int64_t *)scores.buf)[i] = row[s.k->score_at];
        const uint8_t *board = (const uint8_t *)cells.buf + i * s.cells;
        s.k->observe(row, board, t, p, (uint8_t *)obs.buf + i * s.record,
                     (int8_t *)mask.buf + i * s.k->actions);
        int64_t origin = ((const int64_t *)origins.buf)[i];
        ((double *)progress.buf)[i] = s.k->progress(row, board, t, p, origin);
    }
    ok = 1;
done:
    PyBuffer_Release(&state);
    PyBuffer_Release(&cells);
    PyBuffer_Release(&table);
    PyBuffer_Release(&params);
    PyBuffer_Release(&obs);
    PyBuffer_Release(&mask);
    PyBuffer_Release(&ends);
    PyBuffer_Release(&scores);
    PyBuffer_Release(&origins);
    PyBuffer_Release(&progress);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

/* the vector env's count of a step (playbench.kernels.vector): each env's steps since its
 * episode began, whether the step ended it (by the game, or at ``cap`` steps as
 * Gymnasium's TimeLimit cuts it) and its normalised score; an env that had ended was
 * started again by this step and counts 0. Returns (refused, ended): the envs whose
 * action was refused, and those the step ended. */
static PyObject *tally(PyObject *self, PyObject *args) {
    long long cap;
    Py_buffer over, refused, scores, low, span, steps, ended, terminated, truncated, normalised;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*Lw*w*w*w*w*", &over, &refused, &scores, &low, &span,
                          &cap, &steps, &ended, &terminated, &truncated, &normalised))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = over.len, bad = 0, ending = 0;
    if (refused.len != n || ended.len != n || terminated.len != n || truncated.len != n ||
        scores.len != 8 * n || low.len != 8 * n || span.len != 8 * n || steps.len != 8 * n ||
        normalised.len != 8 * n) {
        fail("the tally's buffers do not hold one entry of each env");
        goto done;
    }
    const uint8_t *o = (const uint8_t *)over.buf, *r = (const uint8_t *)refused.buf;
    const int64_t *sc = (const int64_t *)scores.buf;
    const double *lo = (const double *)low.buf, *sp = (const double *)span.buf;
    int64_t *count = (int64_t *)steps.buf;
    uint8_t *e = (uint8_t *)ended.buf, *te = (uint8_t *)terminated.buf;
    uint8_t *tr = (uint8_t *)truncated.buf;
    double *norm = (double *)normalised.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        int going = !e[i];
        count[i] = going ? count[i] + 1 : 0;
        te[i] = (uint8_t)(going && o[i]);
        tr[i] = (uint8_t)(going && count[i] >= cap);
        e[i] = te[i] | tr[i];
        ending += e[i];
        bad += r[i] != 0;
        norm[i] = sp[i] != 0.0 ? ((double)sc[i] - lo[i]) / sp[i] : 0.0;
    }
    result = Py_BuildValue("nn", bad, ending);
done:
    PyBuffer_Release(&over);
    PyBuffer_Release(&refused);
    PyBuffer_Release(&scores);
    PyBuffer_Release(&low);
    PyBuffer_Release(&span);
    PyBuffer_Release(&steps);
    PyBuffer_Release(&ended);
    PyBuffer_Release(&terminated);
    PyBuffer_Release(&truncated);
    PyBuffer_Release(&normalised);
    return result;
}

static PyObject *BIT_GENERATOR, *CAPSULE;

/* the bit generator inside a numpy.random.Generator, or NULL with an error set */
static draws_bitgen *bitgen_of(PyObject *generator) {
    PyObject *bits = PyObject_GetAttr(generator, BIT_GENERATOR);
    if (bits == NULL) return NULL;
    PyObject *capsule = PyObject_GetAttr(bits, CAPSULE);
    Py_DECREF(bits);
    if (capsule == NULL) return NULL;
    draws_bitgen *found = PyCapsule_GetPointer(capsule, "BitGenerator");
    Py_DECREF(capsule);
    return found;
}

/* a uniformly random legal index for each row of ``mask`` (rows of ``width`` int8, N of
 * them), one uniform double a row drawn from ``generator`` (a numpy.random.Generator, left
 * as its random(N) leaves it), into ``out`` (N int64) */
static PyObject *pick(PyObject *self, PyObject *args) {
    PyObject *generator;
    Py_ssize_t width;
    Py_buffer mask, out;
    if (!PyArg_ParseTuple(args, "Oy*nw*", &generator, &mask, &width, &out)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t rows = out.len / 8;
    if (width < 1 || out.len % 8 || mask.len != rows * width) {
        fail("pick needs N rows of width bytes and room for N indices");
        goto done;
    }
    draws_bitgen *g = bitgen_of(generator);
    if (g == NULL) goto done;
    const int8_t *m = (const int8_t *)mask.buf;
    int64_t *o = (int64_t *)out.buf;
    for (Py_ssize_t i = 0; i < rows; i++)
        o[i] = draws_pick(m + i * width, width, g->next_double(g->state));
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&mask);
    PyBuffer_Release(&out);
    return result;
}

/* out[i] = generators[i].integers(n): the same number from the same draws, each generator
 * left as that call leaves it (the generators are the caller's own: no lock is taken) */
static PyObject *below(PyObject *self, PyObject *args) {
    PyObject *generators;
    unsigned long long n;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "OKw*", &generators, &n, &out)) return NULL;
    PyObject *result = NULL, *list = PySequence_Fast(generators, "below needs a sequence");
    if (list == NULL) goto done;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(list);
    if (n < 1 || n > (1ULL << 63)) {
        fail("below needs 1 <= n <= 2**63");
        goto done;
    }
    if (out.len != 8 * count) {
        fail("below needs room for one int64 a generator");
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        draws_bitgen *g = bitgen_of(PySequence_Fast_GET_ITEM(list, i));
        if (g == NULL) goto done;
        ((int64_t *)out.buf)[i] = (int64_t)draws_below(g, n);
    }
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(list);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef METHODS[] = {
    {"step", step, METH_VARARGS, "Step N envs of one kernel (see the module docstring)."},
    {"reset", reset, METH_VARARGS, "Start the envs given a level row on it."},
    {"observe", observe, METH_VARARGS, "Write every env's observation, mask, end, score."},
    {"tally", tally, METH_VARARGS, "Count a vector env's step: steps, ends, normalised scores."},
    {"pick", pick, METH_VARARGS, "A random legal index for each row of a mask."},
    {"below", below, METH_VARARGS, "Each generator's integers(n), into an array."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "_native", "The games' C kernels (playbench.kernels).", -1, METHODS,
};

PyMODINIT_FUNC PyInit__native(void) {
    BIT_GENERATOR = PyUnicode_InternFromString("bit_generator");
    CAPSULE = PyUnicode_InternFromString("capsule");
    if (BIT_GENERATOR == NULL || CAPSULE == NULL) return NULL;
    PyObject *module = PyModule_Create(&MODULE);
    if (module == NULL) return NULL;
    PyObject *names = PyTuple_New(KERNEL_COUNT);
    if (names == NULL) {
        Py_DECREF(module);
        return NULL;
    }
    draws_init();
    for (Py_ssize_t i = 0; i < KERNEL_COUNT; i++) {
        KERNELS[i].init();
        PyTuple_SET_ITEM(names, i, PyUnicode_FromString(KERNELS[i].name));
    }
    if (PyModule_AddObject(module, "KERNELS", names) < 0 ||
        PyModule_AddStringConstant(module, "SOURCE", PLAYBENCH_KERNEL_SOURCE) < 0) {
        Py_DECREF(names);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
