/* Gem Swap's step in C: the rules of playbench/games/gemswap (rules.py) on the board of
 * gemswap_board.h (board.py), one env at a time. The Python rules are the reference;
 * tests/kernels/test_gemswap.py plays both side by side and compares the full state, the
 * observation, the mask, the reward and the end at every step. The env's cells are the
 * board: 64 colours (0-6, 7 a colour bomb), then 64 kinds (0 plain, 1 row blaster, 2
 * column blaster, 3 area bomb, 4 colour bomb), row 1 first. A set of cells is a 64-bit
 * mask, bit k for cell k.
 */
#ifndef PLAYBENCH_GEMSWAP_H
#define PLAYBENCH_GEMSWAP_H

#include <stdint.h>
#include <string.h>

#include "gemswap_board.h"

/* the per-env integers (int64, GS_STATE a row) */
enum {
    GS_MOVES,    /* swaps played; the run has ended at GS_MOVES_PER_GAME */
    GS_SCORE,
    GS_RNG,      /* the generator's 64-bit state, as int64 */
    GS_SELECTED, /* the selected cell, or -1 */
    GS_HINTED,   /* 1 while a bought hint stands */
    GS_STATE
};
/* the observation record's byte offsets */
/* the record's offsets, and 1 to leave the dominated hint out of the mask (0 to keep it) */
enum { GP_COLORS_AT, GP_KINDS_AT, GP_STATS_AT, GP_HIDE_HINT, GP_PARAMS };

#define GS_BLASTER_LINE 4
#define GS_BOMB_LINE 5
#define GS_MOVES_PER_GAME 30
#define GS_POINTS_PER_GEM 10
#define GS_HINT_COST 50
#define GS_DOUBLE_BOMB_POINTS 500
#define GS_PROGRESS_SCORE 10000
/* actions: the swaps, then hint */
#define GS_HINT GS_SWAPS
#define GS_ACTIONS (GS_SWAPS + 1)
/* a refused action: below the lowest reward, the hint's cost */
#define GS_REFUSED (-GS_HINT_COST - 1)

static const int64_t GS_CREATE_POINTS[GK_KINDS] = {0, 50, 50, 100, 200};
static const int64_t GS_SET_OFF_POINTS[GK_KINDS] = {0, 50, 50, 80, 150};

/* -- a step of a swap ------------------------------------------------------------------- */
/* the cells a special at ``cell`` clears when it goes off (rules._blast) */
static uint64_t gs_blast(const uint8_t *colors, int cell, int kind, int common) {
    if (kind == GK_ROW) return 0xFFULL << (cell / GS_SIDE * GS_SIDE);
    if (kind == GK_COLUMN) return 0x0101010101010101ULL << (cell % GS_SIDE);
    if (kind == GK_AREA) return GS_AREA[cell];
    uint64_t hit = 0;
    for (int other = 0; other < GS_CELLS; other++)
        if (colors[other] == common) hit |= 1ULL << other;
    return hit;
}

/* set off every special in ``*cleared`` but those ``done`` already, in board order, then
 * each special their blasts hit, in the order hit, adding what they clear to ``*cleared``;
 * their points (rules._set_off) */
static int64_t gs_set_off(const uint8_t *colors, const uint8_t *kinds, uint64_t *cleared,
                          uint64_t done) {
    int queue[GS_CELLS], head = 0, tail = 0, common = -1;
    int64_t bonus = 0;
    for (int cell = 0; cell < GS_CELLS; cell++)
        if (*cleared >> cell & 1 && kinds[cell] != GK_PLAIN && !(done >> cell & 1))
            queue[tail++] = cell;
    while (head < tail) {
        int cell = queue[head++], kind = kinds[cell];
        done |= 1ULL << cell;
        if (kind >= GK_KINDS) continue; /* no such gem: a board only the rules made */
        bonus += GS_SET_OFF_POINTS[kind];
        if (kind == GK_BOMB && common < 0) { /* the most common colour, the first on ties */
            int counts[GS_COLORS] = {0};
            for (int other = 0; other < GS_CELLS; other++)
                if (colors[other] < GS_COLORS) counts[colors[other]]++;
            common = 0;
            for (int color = 1; color < GS_COLORS; color++)
                if (counts[color] > counts[common]) common = color;
        }
        uint64_t hit = gs_blast(colors, cell, kind, common) & ~*cleared;
        *cleared |= hit;
        for (int other = 0; other < GS_CELLS; other++)
            if (hit >> other & 1 && kinds[other] != GK_PLAIN) queue[tail++] = other;
    }
    return bonus;
}

/* a special made by a match: where, its colour and kind */
typedef struct {
    int cell, color, kind;
} Made;

/* set off, score, clear, place the specials made, collapse: the step's points, times its
 * cascade number (rules._resolve_step) */
static int64_t gs_resolve_step(uint8_t *colors, uint8_t *kinds, uint64_t *rng, int64_t step,
                               uint64_t cleared, const Made *made, int count, uint64_t fired,
                               int64_t bonus) {
    uint64_t words[GS_CELLS / 8], any = 0;
    memcpy(words, kinds, GS_CELLS);
    for (int k = 0; k < GS_CELLS / 8; k++) any |= words[k];
    if (any) bonus += gs_set_off(colors, kinds, &cleared, fired);
    for (int k = 0; k < count; k++) bonus += GS_CREATE_POINTS[made[k].kind];
    int64_t points = ((int64_t)__builtin_popcountll(cleared) * GS_POINTS_PER_GEM + bonus) * step;
    for (int k = 0; k < count; k++) {
        colors[made[k].cell] = (uint8_t)made[k].color;
        kinds[made[k].cell] = (uint8_t)made[k].kind;
        cleared &= ~(1ULL << made[k].cell);
    }
    gs_collapse(colors, kinds, cleared, rng);
    return points;
}

/* the lines grouped into matches (lines sharing a gem are one), each match's special, and
 * the step resolved; ``a`` and ``b`` are the swapped cells (-1 in a cascade)
 * (rules._resolve_matches) */
static int64_t gs_resolve_matches(uint8_t *colors, uint8_t *kinds, uint64_t *rng, int64_t step,
                                  const Run *runs, int count, int a, int b) {
    int group[GS_RUNS_MAX], made_count = 0;
    uint64_t cells[GS_RUNS_MAX], cleared = 0;
    Made made[GS_RUNS_MAX];
    for (int k = 0; k < count; k++) {
        cells[k] = gs_run_cells(&runs[k]);
        group[k] = k;
        cleared |= cells[k];
    }
    /* a line joins the group of every earlier line it shares a gem with */
    for (int k = 0; k < count; k++)
        for (int j = 0; j < k; j++)
            if (cells[k] & cells[j] && group[j] != group[k]) {
                int from = group[j], to = group[k];
                for (int m = 0; m <= k; m++)
                    if (group[m] == from) group[m] = to;
            }
    for (int k = 0; k < count; k++) {
        int lines = 0, longest = 0, kind;
        uint64_t all = 0, across = 0, down = 0;
        for (int j = k; j < count; j++) {
            if (group[j] != group[k]) continue;
            lines++;
            all |= cells[j];
            if (runs[j].length > longest) longest = runs[j].length;
            if (runs[j].step == 1)
                across |= cells[j];
            else
                down |= cells[j];
        }
        int first = 1; /* is k the group's first line */
        for (int j = 0; j < k; j++)
            if (group[j] == group[k]) first = 0;
        if (!first) continue;
        if (lines > 1)
            kind = longest >= GS_BOMB_LINE ? GK_BOMB : GK_AREA;
        else if (runs[k].length >= GS_BOMB_LINE)
            kind = GK_BOMB;
        else if (runs[k].length == GS_BLASTER_LINE)
            kind = runs[k].step == 1 ? GK_ROW : GK_COLUMN;
        else
            continue;
        int place;
        if (a >= 0 && all >> a & 1)
            place = a;
        else if (b >= 0 && all >> b & 1)
            place = b;
        else if (lines > 1) /* the top-most, then left-most, gem its lines share */
            place = __builtin_ctzll(across & down);
        else /* the middle gem (the left or upper of two) */
            place = runs[k].first + (runs[k].length - 1) / 2 * runs[k].step;
        made[made_count].cell = place;
        made[made_count].color = kind == GK_BOMB ? GS_NO_COLOR : colors[place];
        made[made_count++].kind = kind;
    }
    return gs_resolve_step(colors, kinds, rng, step, cleared, made, made_count, 0, 0);
}

/* the accepted swap of ``a`` and ``b`` with all its cascades: its points (rules.play_swap) */
static int64_t gs_play_swap(uint8_t *colors, uint8_t *kinds, uint64_t *rng, int a, int b) {
    Run runs[GS_RUNS_MAX];
    int64_t points;
    if (colors[a] == GS_NO_COLOR || colors[b] == GS_NO_COLOR) {
        uint64_t fired, cleared = 0;
        int64_t bonus;
        if (colors[a] == GS_NO_COLOR && colors[b] == GS_NO_COLOR) {
            cleared = ~0ULL;
            fired = 1ULL << a | 1ULL << b;
            bonus = GS_DOUBLE_BOMB_POINTS;
        } else {
            int bomb = colors[a] == GS_NO_COLOR ? a : b, color = colors[a + b - bomb];
            for (int cell = 0; cell < GS_CELLS; cell++)
                if (colors[cell] == color) cleared |= 1ULL << cell;
            cleared |= 1ULL << bomb;
            fired = 1ULL << bomb;
            bonus = GS_SET_OFF_POINTS[GK_BOMB];
        }
        points = gs_resolve_step(colors, kinds, rng, 1, cleared, NULL, 0, fired, bonus);
    } else {
        uint8_t color = colors[a], kind = kinds[a];
        colors[a] = colors[b];
        kinds[a] = kinds[b];
        colors[b] = color;
        kinds[b] = kind;
        /* the board was still, so every line passes through a or b */
        int count = gs_find_runs(colors, runs);
        points = gs_resolve_matches(colors, kinds, rng, 1, runs, count, a, b);
    }
    for (int64_t step = 2;; step++) {
        int count = gs_find_runs(colors, runs);
        if (!count) break;
        points += gs_resolve_matches(colors, kinds, rng, step, runs, count, -1, -1);
    }
    return points;
}

/* -- the kernel's calls ----------------------------------------------------------------- */
/* the legal swaps of the board a step ended on, for the observation the binding writes
 * next, of the same board (taken once, by the board's address; a thread's own) */
typedef struct {
    const uint8_t *board;
    uint64_t across, down;
} Flags;
static _Thread_local Flags gs_flags_kept;

/* a fresh run on game seed ``seed``: the table's board (reshuffled when it has no legal
 * swap) when its row says so, else a dealt one (rules.new) */
static void gs_reset(int64_t *s, uint8_t *cells, const int64_t *table, const uint8_t *layouts,
                     int64_t count, int64_t seed) {
    uint64_t rng = cs_mix((uint64_t)seed + GOLDEN_GAMMA);
    memset(s, 0, sizeof(int64_t) * GS_STATE);
    s[GS_SELECTED] = -1;
    if (table[0]) {
        memcpy(cells, layouts, GS_BOARD);
        if (!gs_has_legal_swap(cells)) gs_reshuffle(cells, cells + GS_CELLS, &rng);
    } else {
        gs_deal(cells, cells + GS_CELLS, &rng);
    }
    s[GS_RNG] = (int64_t)rng;
}

/* one action of the 113: the reward, or GS_REFUSED when the rules refuse it (the env is
 * left as it was) */
static int64_t gs_step(int64_t *s, uint8_t *cells, const int64_t *table, const uint8_t *layouts,
                       int64_t count, int64_t action) {
    if (action < 0 || action >= GS_ACTIONS || s[GS_MOVES] >= GS_MOVES_PER_GAME)
        return GS_REFUSED;
    if (action == GS_HINT) {
        s[GS_SCORE] -= GS_HINT_COST;
        s[GS_HINTED] = 1;
        return -GS_HINT_COST;
    }
    int a = GS_A[action], b = GS_B[action];
    if (!gs_legal_swap(cells, (int)action)) return GS_REFUSED;
    uint64_t rng = (uint64_t)s[GS_RNG];
    int64_t points = gs_play_swap(cells, cells + GS_CELLS, &rng, a, b);
    s[GS_MOVES] += 1;
    s[GS_SCORE] += points;
    s[GS_SELECTED] = -1;
    s[GS_HINTED] = 0;
    if (s[GS_MOVES] < GS_MOVES_PER_GAME) {
        uint64_t across, down;
        gs_swap_flags(cells, &across, &down);
        if (!(across | down)) {
            gs_reshuffle(cells, cells + GS_CELLS, &rng);
            gs_swap_flags(cells, &across, &down);
        }
        gs_flags_kept = (Flags){cells, across, down};
    }
    s[GS_RNG] = (int64_t)rng;
    return points;
}

/* the observation record (the colour and kind planes, then moves left and score as
 * float32) and the mask row */
static void gs_observe(const int64_t *s, const uint8_t *cells, const int64_t *table,
                       const int64_t *params, uint8_t *record, int8_t *mask) {
    memcpy(record + params[GP_COLORS_AT], cells, GS_CELLS);
    memcpy(record + params[GP_KINDS_AT], cells + GS_CELLS, GS_CELLS);
    double score = (double)s[GS_SCORE] / GS_PROGRESS_SCORE;
    score = score < 1.0 ? score : 1.0;
    float stats[2] = {
        (float)((double)(GS_MOVES_PER_GAME - s[GS_MOVES]) / GS_MOVES_PER_GAME),
        (float)(score > -1.0 ? score : -1.0),
    };
    memcpy(record + params[GP_STATS_AT], stats, sizeof stats);
    if (s[GS_MOVES] >= GS_MOVES_PER_GAME) {
        memset(mask, 0, GS_ACTIONS);
        return;
    }
    uint64_t across, down;
    if (gs_flags_kept.board == cells) {
        across = gs_flags_kept.across;
        down = gs_flags_kept.down;
    } else {
        gs_swap_flags(cells, &across, &down);
    }
    gs_flags_kept.board = NULL;
    /* the swaps in gs_init's order: each cell's across swap, then its down swap */
    int k = 0;
    for (int cell = 0; cell < GS_CELLS; cell++) {
        if (cell % GS_SIDE < GS_SIDE - 1) mask[k++] = (int8_t)(across >> cell & 1);
        if (cell < GS_CELLS - GS_SIDE) mask[k++] = (int8_t)(down >> cell & 1);
    }
    mask[GS_HINT] = params[GP_HIDE_HINT] == 0;
}

static int gs_over(const int64_t *s) { return s[GS_MOVES] >= GS_MOVES_PER_GAME; }

/* the run's progress as view.progress gives it: the score over 10,000, between 0 and 1 */
#define GS_PROGRESS_SCORE 10000
static double gs_progress(const int64_t *s, const uint8_t *cells, const int64_t *table,
                          const int64_t *params, int64_t origin) {
    double done = (double)(s[GS_SCORE] > 0 ? s[GS_SCORE] : 0) / GS_PROGRESS_SCORE;
    return done < 1.0 ? done : 1.0;
}

/* -- the binding's checks: what is wrong, or NULL --------------------------------------- */
static const char *gs_table_error(const int64_t *t, Py_ssize_t levels, Py_ssize_t cells) {
    if (cells < GS_BOARD) return "the cells are too few for the board";
    for (Py_ssize_t k = 0; k < levels; k++)
        if (t[k] != 0 && t[k] != 1) return "a table row is neither a dealt nor a given board";
    return NULL;
}

static const char *gs_env_error(const int64_t *s, const int64_t *t, Py_ssize_t levels,
                                Py_ssize_t cells) {
    if (s[GS_MOVES] < 0 || s[GS_MOVES] > GS_MOVES_PER_GAME) return "an env's moves are wrong";
    if (s[GS_SELECTED] < -1 || s[GS_SELECTED] >= GS_CELLS) return "an env's selection is off the board";
    if (s[GS_HINTED] != 0 && s[GS_HINTED] != 1) return "an env's hint is neither bought nor not";
    if (s[GS_SCORE] < -((int64_t)1 << 53) || s[GS_SCORE] > (int64_t)1 << 53)
        return "an env's score is out of range";
    return NULL;
}

static const char *gs_start_error(int64_t seed, Py_ssize_t levels) {
    return seed < 0 ? "a seed is negative" : NULL;
}

static const char *gs_record_error(const int64_t *p, Py_ssize_t record) {
    for (int k = 0; k < GP_PARAMS; k++)
        if (p[k] < 0) return "the observation record does not fit its parameters";
    if (p[GP_COLORS_AT] + GS_CELLS > record || p[GP_KINDS_AT] + GS_CELLS > record ||
        p[GP_STATS_AT] + 8 > record)
        return "the observation record does not fit its parameters";
    if (p[GP_HIDE_HINT] > 1) return "whether to hide the hint is neither 0 nor 1";
    return NULL;
}

#endif
