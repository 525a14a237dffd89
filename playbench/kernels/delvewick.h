/* Delvewick's tick in C: the rules of playbench/games/delvewick/rules.py, one env at a time.
 *
 * The Python rules are the reference; tests/kernels/test_delvewick.py plays both side by
 * side and compares the full state, the observation, the mask, the reward and the end at
 * every step. The board is the rules' flat board, bottom row first. The gravity pass scans
 * every cell bottom to top, left to right (the rules visit only the cells that can act,
 * which gives the same result); a cell an object rolled right into is not visited again.
 */
#ifndef PLAYBENCH_DELVEWICK_H
#define PLAYBENCH_DELVEWICK_H

#include <stdint.h>
#include <string.h>

/* the per-env integers (int64, DW_STATE a row) */
enum {
    DW_LEVEL,     /* row of the level table */
    DW_POS,       /* the mole's flat index */
    DW_OIL,
    DW_TICK,
    DW_CHAIN,
    DW_LAST_GEM,
    DW_GEMS,
    DW_SCORE,
    DW_STATUS,    /* DW_PLAYING, DW_WON, DW_CRUSHED, DW_OUT_OF_OIL, DW_BOXED_IN */
    DW_EXIT_OPEN,
    DW_STATE
};
enum { DW_PLAYING, DW_WON, DW_CRUSHED, DW_OUT_OF_OIL, DW_BOXED_IN };

/* the level table's integers (int64, DL_FIELDS a row); its layouts are rows of cells */
enum {
    DL_NUMBER,  /* the level's number (a custom level's is 1) */
    DL_NEXT,    /* the row of the level after it, -1 when clearing it wins the run */
    DL_FINALE,  /* the points for winning the run on it */
    DL_WIDTH,
    DL_HEIGHT,
    DL_START,
    DL_OIL,
    DL_QUOTA,
    DL_EXIT,
    DL_FIELDS
};

/* the game's parameters (int64): the observation's board shape, the number of shipped
 * levels (the level stat's scale) and the record's byte offsets of mole and stats */
enum { DP_ROWS, DP_COLUMNS, DP_LEVELS, DP_MOLE_AT, DP_STATS_AT, DP_PARAMS };

#define DW_ACTIONS 5
#define DW_WAIT 4

#define G_BEDROCK '#'
#define G_SOIL '%'
#define G_EMPTY '.'
#define G_BOULDER 'O'
#define G_GEM '*'
#define G_GEODE 'G'
#define G_EXIT_CLOSED 'X'
#define G_EXIT_OPEN 'E'
#define G_MOLE 'M'
#define G_BOULDER_FALLING 'o'
#define G_GEM_FALLING 'v'
#define G_GEODE_FALLING 'g'

#define DW_GEM_POINTS 25
#define DW_CHAIN_WINDOW 4
#define DW_CRACK_POINTS 10
#define DW_CLEAR_POINTS 100
#define DW_OIL_POINTS 5
#define DW_MAX_CHAIN 3
#define DW_SCORE_SCALE 5000.0

static const int64_t DW_CHAIN_BONUS[4] = {0, 10, 20, 30};

/* byte classes, filled once by dw_init */
static uint8_t DW_MOVABLE[256], DW_FALLING[256], DW_ENTERABLE[256], DW_PUSHABLE[256];
static uint8_t DW_TO_FALLING[256], DW_TO_REST[256], DW_CATEGORY[256];

static void dw_init(void) {
    static const char categories[] = "#%.Oo*vGgXEM";
    for (int b = 0; b < 256; b++) {
        DW_TO_FALLING[b] = (uint8_t)b;
        DW_TO_REST[b] = (uint8_t)b;
    }
    const uint8_t movables[] = {G_BOULDER, G_GEM, G_GEODE, G_BOULDER_FALLING, G_GEM_FALLING,
                                G_GEODE_FALLING};
    for (size_t k = 0; k < sizeof movables; k++) DW_MOVABLE[movables[k]] = 1;
    DW_FALLING[G_BOULDER_FALLING] = DW_FALLING[G_GEM_FALLING] = DW_FALLING[G_GEODE_FALLING] = 1;
    DW_ENTERABLE[G_SOIL] = DW_ENTERABLE[G_EMPTY] = DW_ENTERABLE[G_GEM] = 1;
    DW_ENTERABLE[G_GEM_FALLING] = DW_ENTERABLE[G_EXIT_OPEN] = 1;
    DW_PUSHABLE[G_BOULDER] = DW_PUSHABLE[G_GEODE] = 1;
    DW_TO_FALLING[G_BOULDER] = G_BOULDER_FALLING;
    DW_TO_FALLING[G_GEM] = G_GEM_FALLING;
    DW_TO_FALLING[G_GEODE] = G_GEODE_FALLING;
    DW_TO_REST[G_BOULDER_FALLING] = G_BOULDER;
    DW_TO_REST[G_GEM_FALLING] = G_GEM;
    DW_TO_REST[G_GEODE_FALLING] = G_GEODE;
    for (int k = 0; categories[k]; k++) DW_CATEGORY[(uint8_t)categories[k]] = (uint8_t)(k + 1);
}

/* the legal moves as bits (1 << up, down, left, right) */
static inline int dw_legal_dirs(const uint8_t *board, int64_t pos, int64_t width) {
    int dirs = 0;
    uint8_t b;
    if (DW_ENTERABLE[board[pos + width]]) dirs |= 1;
    if (DW_ENTERABLE[board[pos - width]]) dirs |= 2;
    b = board[pos - 1];
    if (DW_ENTERABLE[b] || (DW_PUSHABLE[b] && board[pos - 2] == G_EMPTY)) dirs |= 4;
    b = board[pos + 1];
    if (DW_ENTERABLE[b] || (DW_PUSHABLE[b] && board[pos + 2] == G_EMPTY)) dirs |= 8;
    return dirs;
}

static inline void dw_collect(int64_t *s) {
    int64_t tick = s[DW_TICK];
    if (s[DW_CHAIN] && tick - s[DW_LAST_GEM] <= DW_CHAIN_WINDOW)
        s[DW_CHAIN] += 1;
    else
        s[DW_CHAIN] = 1;
    s[DW_LAST_GEM] = tick;
    s[DW_GEMS] += 1;
    s[DW_SCORE] += DW_GEM_POINTS + DW_CHAIN_BONUS[(s[DW_CHAIN] < 4 ? s[DW_CHAIN] : 4) - 1];
}

/* start level row ``level`` in this env (board, mole, oil, gems, chain) */
static void dw_load(int64_t *s, uint8_t *board, const int64_t *table, const uint8_t *layouts,
                    int64_t cells, int64_t level) {
    const int64_t *l = table + level * DL_FIELDS;
    s[DW_LEVEL] = level;
    memcpy(board, layouts + level * cells, (size_t)(l[DL_WIDTH] * l[DL_HEIGHT]));
    s[DW_POS] = l[DL_START];
    s[DW_OIL] = l[DL_OIL];
    s[DW_CHAIN] = 0;
    s[DW_LAST_GEM] = 0;
    s[DW_GEMS] = 0;
    s[DW_EXIT_OPEN] = 0;
}

/* a fresh run on level row ``level`` */
static void dw_reset(int64_t *s, uint8_t *board, const int64_t *table, const uint8_t *layouts,
                     int64_t cells, int64_t level) {
    s[DW_TICK] = 0;
    s[DW_SCORE] = 0;
    s[DW_STATUS] = DW_PLAYING;
    dw_load(s, board, table, layouts, cells, level);
}

/* would the movable at ``i`` fall, roll or land in a pass on this board */
static inline int dw_would_act(const uint8_t *board, int64_t i, int64_t width) {
    uint8_t b = board[i];
    if (DW_FALLING[b]) return 1;
    int64_t below = i - width;
    uint8_t under = board[below];
    if (under == G_EMPTY) return 1;
    if (!DW_MOVABLE[under]) return 0;
    return (board[i - 1] == G_EMPTY && board[below - 1] == G_EMPTY) ||
           (board[i + 1] == G_EMPTY && board[below + 1] == G_EMPTY);
}

static int dw_settled(const uint8_t *board, int64_t width, int64_t size) {
    for (int64_t i = width; i < size - width; i++)
        if (DW_MOVABLE[board[i]] && dw_would_act(board, i, width)) return 0;
    return 1;
}

/* tick order 3: one gravity pass; movables never touch the bedrock frame */
static void dw_gravity(int64_t *s, uint8_t *board, int64_t width, int64_t size) {
    int64_t skip = -1;
    for (int64_t i = width; i < size - width; i++) {
        uint8_t b = board[i];
        if (!DW_MOVABLE[b] || i == skip) continue;
        int64_t below = i - width, to;
        uint8_t under = board[below];
        if (under == G_EMPTY) {
            to = below;
        } else if (under == G_MOLE) {
            if (!DW_FALLING[b]) continue;
            board[i] = G_EMPTY;
            if (b == G_GEM_FALLING) {
                dw_collect(s);
            } else {
                board[below] = b;
                s[DW_STATUS] = DW_CRUSHED;
            }
            continue;
        } else if (DW_MOVABLE[under]) {
            if (board[i - 1] == G_EMPTY && board[below - 1] == G_EMPTY)
                to = i - 1;
            else if (board[i + 1] == G_EMPTY && board[below + 1] == G_EMPTY)
                to = i + 1;
            else
                to = -1;
        } else {
            to = -1;
        }
        if (to < 0) {
            if (b == G_GEODE_FALLING) {
                board[i] = G_GEM;
                s[DW_SCORE] += DW_CRACK_POINTS;
            } else {
                board[i] = DW_TO_REST[b];
            }
            continue;
        }
        board[to] = DW_TO_FALLING[b];
        board[i] = G_EMPTY;
        if (to == i + 1) skip = to;
    }
}

/* one action (0..3 a move up, down, left, right; 4 wait) on a run being played, in the
 * seed's tick order 1-7 as the rules number it: the reward, or -1 when the action is
 * refused (the env is left as it was) */
static int64_t dw_step(int64_t *s, uint8_t *board, const int64_t *table, const uint8_t *layouts,
                       int64_t cells, int64_t action) {
    if (s[DW_STATUS] != DW_PLAYING || action < 0 || action > DW_WAIT) return -1;
    const int64_t *l = table + s[DW_LEVEL] * DL_FIELDS;
    int64_t width = l[DL_WIDTH], size = width * l[DL_HEIGHT], pos = s[DW_POS];
    if (action < DW_WAIT && !(dw_legal_dirs(board, pos, width) & (1 << action))) return -1;
    int64_t before = s[DW_SCORE];
    s[DW_TICK] += 1;
    if (action < DW_WAIT) {  /* 1) move, dig, collect or push */
        const int64_t steps[4] = {width, -width, -1, 1};
        int64_t delta = steps[action], target = pos + delta;
        uint8_t b = board[target];
        if (b == G_GEM || b == G_GEM_FALLING) {
            dw_collect(s);
        } else if (DW_PUSHABLE[b]) {
            board[target + delta] = b;
        }
        board[pos] = G_EMPTY;
        board[target] = G_MOLE;
        s[DW_POS] = target;
        if (b == G_EXIT_OPEN) {  /* 2) the level is cleared: the next one, or the win */
            s[DW_SCORE] += DW_CLEAR_POINTS + DW_OIL_POINTS * s[DW_OIL];
            if (l[DL_NEXT] < 0) {
                s[DW_STATUS] = DW_WON;
                s[DW_SCORE] += l[DL_FINALE];
            } else {
                dw_load(s, board, table, layouts, cells, l[DL_NEXT]);
            }
            return s[DW_SCORE] - before;
        }
    }
    dw_gravity(s, board, width, size);                          /* 3) */
    if (!s[DW_EXIT_OPEN] && s[DW_GEMS] >= l[DL_QUOTA]) {        /* 4) the exit opens */
        s[DW_EXIT_OPEN] = 1;
        board[l[DL_EXIT]] = G_EXIT_OPEN;
    }
    if (s[DW_CHAIN] && s[DW_TICK] - s[DW_LAST_GEM] >= DW_CHAIN_WINDOW)  /* 5) chain */
        s[DW_CHAIN] = 0;
    s[DW_OIL] -= 1;                                             /* 6) oil */
    if (s[DW_STATUS] == DW_PLAYING && s[DW_OIL] <= 0) s[DW_STATUS] = DW_OUT_OF_OIL;
    if (s[DW_STATUS] == DW_PLAYING && !dw_legal_dirs(board, s[DW_POS], width) &&
        dw_settled(board, width, size))                         /* 7) boxed in */
        s[DW_STATUS] = DW_BOXED_IN;
    return s[DW_SCORE] - before;
}

/* the observation record (board categories top row first at the top left, the mole's row
 * and column, the six stats) and the mask row */
static void dw_observe(const int64_t *s, const uint8_t *board, const int64_t *table,
                       const int64_t *params, uint8_t *record, int8_t *mask) {
    const int64_t *l = table + s[DW_LEVEL] * DL_FIELDS;
    int64_t width = l[DL_WIDTH], height = l[DL_HEIGHT], columns = params[DP_COLUMNS];
    int64_t rows = params[DP_ROWS];
    memset(record, 0, (size_t)(rows * columns));
    for (int64_t r = 0; r < height; r++) {
        const uint8_t *from = board + (height - 1 - r) * width;
        uint8_t *to = record + r * columns;
        for (int64_t c = 0; c < width; c++) to[c] = DW_CATEGORY[from[c]];
    }
    int64_t pos = s[DW_POS];
    int16_t mole[2] = {-1, -1};
    if (pos >= 0 && board[pos] == G_MOLE) {
        mole[0] = (int16_t)(height - 1 - pos / width);
        mole[1] = (int16_t)(pos % width);
    }
    memcpy(record + params[DP_MOLE_AT], mole, sizeof mole);
    double quota = (double)l[DL_QUOTA], oil = (double)l[DL_OIL];
    double gems = quota ? (double)s[DW_GEMS] / quota : 1.0;
    double score = (double)s[DW_SCORE] / DW_SCORE_SCALE;
    int64_t chain = s[DW_CHAIN] < DW_MAX_CHAIN ? s[DW_CHAIN] : DW_MAX_CHAIN;
    float stats[6] = {
        (float)((double)l[DL_NUMBER] / (double)params[DP_LEVELS]),
        (float)(quota ? (gems < 1.0 ? gems : 1.0) : 1.0),
        (float)(s[DW_EXIT_OPEN] ? 1.0 : 0.0),
        (float)(oil ? (double)s[DW_OIL] / oil : 0.0),
        (float)((double)chain / DW_MAX_CHAIN),
        (float)(score < 1.0 ? score : 1.0),
    };
    memcpy(record + params[DP_STATS_AT], stats, sizeof stats);
    if (s[DW_STATUS] != DW_PLAYING) {
        memset(mask, 0, DW_ACTIONS);
        return;
    }
    int dirs = dw_legal_dirs(board, pos, width);
    for (int d = 0; d < 4; d++) mask[d] = (int8_t)((dirs >> d) & 1);
    mask[DW_WAIT] = 1;
}

static int dw_over(const int64_t *s) { return s[DW_STATUS] != DW_PLAYING; }

/* the run's progress as view.progress gives it: 1 once won, else the levels cleared since
 * the start level ``origin`` plus the current level's share of its quota, over the levels
 * from the start to the last (a custom level, the table's row after the shipped levels, is
 * a run of one level) */
static double dw_progress(const int64_t *s, const uint8_t *cells, const int64_t *table,
                          const int64_t *params, int64_t origin) {
    if (s[DW_STATUS] == DW_WON) return 1.0;
    const int64_t *l = table + s[DW_LEVEL] * DL_FIELDS;
    int custom = s[DW_LEVEL] == params[DP_LEVELS];
    int64_t levels = custom ? 1 : params[DP_LEVELS] - origin + 1;
    int64_t cleared = custom ? 0 : l[DL_NUMBER] - origin;
    int64_t quota = l[DL_QUOTA], gems = s[DW_GEMS] < quota ? s[DW_GEMS] : quota;
    double share = quota ? (double)gems / (double)quota : 0.0;
    return ((double)cleared + share) / (double)levels;
}

/* -- the binding's checks: what is wrong, or NULL -------------------------------------- */
static const char *dw_table_error(const int64_t *t, Py_ssize_t levels, Py_ssize_t cells) {
    for (Py_ssize_t i = 0; i < levels; i++) {
        const int64_t *l = t + i * DL_FIELDS;
        int64_t size = l[DL_WIDTH] * l[DL_HEIGHT];
        if (l[DL_WIDTH] < 3 || l[DL_HEIGHT] < 3 || size > cells || l[DL_START] < 0 ||
            l[DL_START] >= size || l[DL_EXIT] < 0 || l[DL_EXIT] >= size || l[DL_NEXT] < -1 ||
            l[DL_NEXT] >= levels)
            return "a level of the table does not fit its cells";
    }
    return NULL;
}

static const char *dw_env_error(const int64_t *row, const int64_t *t, Py_ssize_t levels,
                                Py_ssize_t cells) {
    if (row[DW_LEVEL] < 0 || row[DW_LEVEL] >= levels) return "an env's level is not in the table";
    const int64_t *l = t + row[DW_LEVEL] * DL_FIELDS;
    if (row[DW_POS] < 0 || row[DW_POS] >= l[DL_WIDTH] * l[DL_HEIGHT])
        return "an env's position is off its board";
    return NULL;
}

static const char *dw_start_error(int64_t start, Py_ssize_t levels) {
    return start < 0 || start >= levels ? "a start level is not in the table" : NULL;
}

static const char *dw_record_error(const int64_t *p, Py_ssize_t record) {
    if (p[DP_ROWS] < 1 || p[DP_COLUMNS] < 1 || p[DP_LEVELS] < 1 ||
        p[DP_ROWS] * p[DP_COLUMNS] > record || p[DP_MOLE_AT] < 0 || p[DP_MOLE_AT] + 4 > record ||
        p[DP_STATS_AT] < 0 || p[DP_STATS_AT] + 24 > record)
        return "the observation record does not fit its parameters";
    return NULL;
}

#endif
