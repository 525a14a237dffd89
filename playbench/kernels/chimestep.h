/* Chimestep's step in C: the rules of playbench/games/chimestep (rules.py, hush.py,
 * tables.py, board.py) and its SplitMix64 generator (playbench/core/rng.py), one env at a
 * time. The Python rules are the reference; tests/kernels/test_chimestep.py plays both side
 * by side and compares the full state, the observation, the mask, the reward and the end
 * at every step. The pyramid is the rules' 28 tiles (the env's cells); a Hush is five
 * integers (kind, tile, dormant ticks, clock, ticks awake), at most four at once.
 */
#ifndef PLAYBENCH_CHIMESTEP_H
#define PLAYBENCH_CHIMESTEP_H

#include <stdint.h>
#include <string.h>

/* the per-env integers (int64, CS_STATE a row) */
enum {
    CS_STATUS_AT, /* CS_WAITING .. CS_DONE */
    CS_STAGE,
    CS_TARGET,
    CS_POSITION,
    CS_COOLDOWN,
    CS_BUFFERED,
    CS_TEETER,
    CS_TEETER_DIR,
    CS_LIVES,
    CS_CHAIN,
    CS_RINGS,
    CS_CHARGES,
    CS_TOLL_COOLDOWN,
    CS_SHIMMER,
    CS_PHASE_TICKS,
    CS_SPAWN_CLOCK,
    CS_SPAWN_INDEX,
    CS_STAGE_HOPS,
    CS_STAGE_DAMPED,
    CS_SCORE,
    CS_TICK,
    CS_FREE_LEAP,
    CS_RNG,        /* the generator's 64-bit state, as int64 */
    CS_HUSH_COUNT, /* Hush on the board, 0..CS_HUSH_MAX */
    CS_HUSH,       /* CS_HUSH_MAX x 5: kind, tile, dormant, clock, awake */
    CS_STATE = CS_HUSH + 4 * 5
};
enum { CS_WAITING, CS_STAGE_INTRO, CS_PLAYING, CS_RECOVERING, CS_STAGE_CLEAR, CS_DONE };
enum { H_KIND, H_TILE, H_DORMANT, H_CLOCK, H_AWAKE, H_FIELDS };
enum { K_TUMBLE, K_STALKER, K_MUFFLE, K_KINDS };
/* the observation record's byte offsets */
enum { CP_TILES_AT, CP_HUSH_AT, CP_CHICK_AT, CP_STATS_AT, CP_PARAMS };

#define CS_HUSH_MAX 4
#define CS_TIERS 7
#define CS_TILES 28
#define CS_OFF (-1)
#define CS_NO_DIRECTION (-1)
/* actions: start; hop upLeft, upRight, downLeft, downRight; toll; tick 1, 2, 4, 8, 16, 30 */
#define CS_ACTIONS 12
#define CA_START 0
#define CA_HOP 1
#define CA_TOLL 5
#define CA_TICK 6
static const int CS_TICK_COUNTS[6] = {1, 2, 4, 8, 16, 30};

#define HOP_COOLDOWN 4
#define TEETER_TICKS 12
#define START_LIVES 3
#define START_CHARGES 1
#define MAX_CHARGES 2
#define RINGS_PER_CHARGE 6
#define TOLL_COOLDOWN 24
#define TOLL_RANGE 1
#define SHIMMER_TICKS 36
#define APEX_START_LEVEL 1
#define INTRO_TICKS 24
#define RECOVER_TICKS 24
#define CLEAR_TICKS 36
#define RING_POINTS 10
#define TARGET_POINTS 25
#define CHAIN_POINTS 2
#define CHAIN_CAP 10
#define SCATTER_POINTS 150
#define CLEAR_POINTS_PER_STAGE 250
#define EFFICIENCY_POINTS_PER_HOP 20
#define EFFICIENCY_CAP 300
#define WINDOW_FIRST 15
#define WINDOW_STEP 5
#define WINDOW_CAP 40
#define PAR_BONUS 500
#define LIFE_POINTS 250
#define PAR_HOPS_PER_LEVEL 32
#define PAR_OFFSET 2
#define TARGET_TWO_FROM_STAGE 3
#define DORMANT_TICKS 12
#define MUFFLE_LIFETIME 168
#define SPAWN_INTERVAL_FIRST 72
#define SPAWN_INTERVAL_STEP 6
#define SPAWN_INTERVAL_FLOOR 30
#define MUFFLE_MIN_STEPS 2
#define MUFFLE_MIN_ROW 3
#define STAGE_SCALE 30
#define LIVES_SCALE 5

static const int CS_PERIODS[K_KINDS][2] = {{7, 4}, {14, 10}, {10, 6}};
static const int CS_QUEUES[3][4] = {{K_TUMBLE, K_TUMBLE, K_STALKER, -1},
                                    {K_TUMBLE, K_STALKER, K_TUMBLE, K_MUFFLE},
                                    {K_STALKER, K_TUMBLE, K_MUFFLE, K_TUMBLE}};
static const int CS_QUEUE_LENGTHS[3] = {3, 4, 4};
/* (row change, col change) of upLeft, upRight, downLeft, downRight */
static const int CS_DELTAS[4][2] = {{-1, -1}, {-1, 0}, {1, 0}, {1, 1}};
static const int CS_STALKER_ORDER[4] = {3, 2, 1, 0};

/* the pyramid, filled once by cs_init */
static int CS_ROW[CS_TILES], CS_COL[CS_TILES], CS_NEIGHBOR[CS_TILES][4];
static int CS_ADJACENT[CS_TILES][4], CS_ADJACENT_COUNT[CS_TILES];
static int CS_DISTANCE[CS_TILES][CS_TILES];

static int cs_index(int row, int col) { return row * (row + 1) / 2 + col; }

static void cs_init(void) {
    for (int row = 0, t = 0; row < CS_TIERS; row++)
        for (int col = 0; col <= row; col++, t++) {
            CS_ROW[t] = row;
            CS_COL[t] = col;
        }
    for (int t = 0; t < CS_TILES; t++) {
        CS_ADJACENT_COUNT[t] = 0;
        for (int d = 0; d < 4; d++) {
            int row = CS_ROW[t] + CS_DELTAS[d][0], col = CS_COL[t] + CS_DELTAS[d][1];
            int on = 0 <= col && col <= row && row < CS_TIERS;
            CS_NEIGHBOR[t][d] = on ? cs_index(row, col) : CS_OFF;
            if (on) CS_ADJACENT[t][CS_ADJACENT_COUNT[t]++] = CS_NEIGHBOR[t][d];
        }
        for (int u = 0; u < CS_TILES; u++) {
            int da = CS_COL[t] - CS_COL[u];
            int db = (CS_ROW[t] - CS_COL[t]) - (CS_ROW[u] - CS_COL[u]);
            CS_DISTANCE[t][u] = (da < 0 ? -da : da) + (db < 0 ? -db : db);
        }
    }
}

/* -- SplitMix64, as playbench.core.rng.Rng --------------------------------------------- */
#define GOLDEN_GAMMA 0x9E3779B97F4A7C15ULL

static inline uint64_t cs_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int64_t cs_below(int64_t *s, uint64_t n) {
    uint64_t state = (uint64_t)s[CS_RNG], rest = (0 - n) % n, value;
    for (;;) {
        state += GOLDEN_GAMMA;
        value = cs_mix(state);
        if (rest == 0 || value < 0 - rest) break;
    }
    s[CS_RNG] = (int64_t)state;
    return (int64_t)(value % n);
}

/* -- the tables' functions ------------------------------------------------------------- */
static int cs_target_for(int64_t stage) { return stage >= TARGET_TWO_FROM_STAGE ? 2 : 1; }
static int64_t cs_par_for(int64_t target) { return PAR_HOPS_PER_LEVEL * target - PAR_OFFSET; }
static int64_t cs_window_for(int64_t stage) {
    int64_t w = WINDOW_FIRST + WINDOW_STEP * (stage - 1);
    return w < WINDOW_CAP ? w : WINDOW_CAP;
}
static int64_t cs_period(int kind, int64_t stage) {
    int64_t p = CS_PERIODS[kind][0] - (stage - 1);
    return p > CS_PERIODS[kind][1] ? p : CS_PERIODS[kind][1];
}
static int64_t cs_spawn_interval(int64_t stage) {
    int64_t i = SPAWN_INTERVAL_FIRST - SPAWN_INTERVAL_STEP * (stage - 1);
    return i > SPAWN_INTERVAL_FLOOR ? i : SPAWN_INTERVAL_FLOOR;
}
static int64_t cs_hush_cap(int64_t stage) {
    int64_t c = 1 + stage / 2;
    return c < CS_HUSH_MAX ? c : CS_HUSH_MAX;
}
static int cs_queue(int64_t stage) { return (stage < 3 ? (int)stage : 3) - 1; }

static int64_t cs_remaining(const int64_t *s, const uint8_t *tiles) {
    int64_t left = 0;
    for (int t = 0; t < CS_TILES; t++) left += tiles[t] < s[CS_TARGET];
    return left;
}

/* -- the systems ----------------------------------------------------------------------- */
static void cs_drop_pending_moves(int64_t *s) {
    s[CS_COOLDOWN] = 0;
    s[CS_BUFFERED] = CS_NO_DIRECTION;
    s[CS_TEETER] = 0;
    s[CS_TEETER_DIR] = CS_NO_DIRECTION;
}

static void cs_to_apex(int64_t *s) {
    s[CS_POSITION] = 0;
    cs_drop_pending_moves(s);
}

static void cs_set_up_stage(int64_t *s, uint8_t *tiles, int64_t stage) {
    s[CS_STAGE] = stage;
    s[CS_TARGET] = cs_target_for(stage);
    memset(tiles, 0, CS_TILES);
    tiles[0] = APEX_START_LEVEL;
    s[CS_STAGE_HOPS] = 0;
    s[CS_STAGE_DAMPED] = 0;
    s[CS_HUSH_COUNT] = 0;
    s[CS_SPAWN_CLOCK] = cs_spawn_interval(stage);
    s[CS_SPAWN_INDEX] = 0;
    cs_to_apex(s);
    s[CS_COOLDOWN] = HOP_COOLDOWN;
}

/* a fresh run on game seed ``seed`` */
static void cs_reset(int64_t *s, uint8_t *tiles, const int64_t *table, const uint8_t *layouts,
                     int64_t cells, int64_t seed) {
    memset(s, 0, sizeof(int64_t) * CS_STATE);
    s[CS_STATUS_AT] = CS_WAITING;
    s[CS_LIVES] = START_LIVES;
    s[CS_CHARGES] = START_CHARGES;
    s[CS_FREE_LEAP] = 1;
    s[CS_RNG] = (int64_t)cs_mix((uint64_t)seed + GOLDEN_GAMMA);
    cs_set_up_stage(s, tiles, 1);
}

static void cs_back_to_apex(int64_t *s, int costs_life) {
    s[CS_CHAIN] = 0;
    s[CS_STAGE_DAMPED] += 1;
    s[CS_HUSH_COUNT] = 0;
    s[CS_SHIMMER] = 0;
    cs_to_apex(s);
    if (costs_life) s[CS_LIVES] -= 1;
    if (!s[CS_LIVES]) {
        s[CS_STATUS_AT] = CS_DONE;
        s[CS_PHASE_TICKS] = 0;
        return;
    }
    s[CS_STATUS_AT] = CS_RECOVERING;
    s[CS_PHASE_TICKS] = RECOVER_TICKS;
}

static void cs_check_collision(int64_t *s) {
    if (s[CS_SHIMMER]) return;
    int64_t *h = s + CS_HUSH;
    for (int64_t k = 0; k < s[CS_HUSH_COUNT]; k++, h += H_FIELDS)
        if (h[H_TILE] == s[CS_POSITION] && !h[H_DORMANT]) {
            cs_back_to_apex(s, 1);
            return;
        }
}

static void cs_clear_stage(int64_t *s) {
    int64_t stage = s[CS_STAGE], par = cs_par_for(s[CS_TARGET]), hops = s[CS_STAGE_HOPS];
    int64_t over = par + cs_window_for(stage) - hops;
    int64_t efficiency = EFFICIENCY_POINTS_PER_HOP * (over > 0 ? over : 0);
    if (efficiency > EFFICIENCY_CAP) efficiency = EFFICIENCY_CAP;
    int64_t par_bonus = hops <= par + s[CS_STAGE_DAMPED] ? PAR_BONUS : 0;
    s[CS_SCORE] += CLEAR_POINTS_PER_STAGE * stage + efficiency + par_bonus +
                   LIFE_POINTS * s[CS_LIVES];
    s[CS_HUSH_COUNT] = 0;
    s[CS_SHIMMER] = 0;
    cs_drop_pending_moves(s);
    s[CS_STATUS_AT] = CS_STAGE_CLEAR;
    s[CS_PHASE_TICKS] = CLEAR_TICKS;
}

static void cs_land(int64_t *s, uint8_t *tiles, int tile) {
    int64_t level = tiles[tile], target = s[CS_TARGET];
    if (level < target) {
        level += 1;
        tiles[tile] = (uint8_t)level;
        s[CS_CHAIN] += 1;
        int64_t points =
            RING_POINTS + CHAIN_POINTS * (s[CS_CHAIN] < CHAIN_CAP ? s[CS_CHAIN] : CHAIN_CAP);
        if (level == target) points += TARGET_POINTS;
        s[CS_SCORE] += points;
        s[CS_RINGS] += 1;
        if (!(s[CS_RINGS] % RINGS_PER_CHARGE) && s[CS_CHARGES] < MAX_CHARGES)
            s[CS_CHARGES] += 1;
        if (level == target && !cs_remaining(s, tiles)) {
            cs_clear_stage(s);
            return;
        }
    } else {
        s[CS_CHAIN] = 0;
    }
    cs_check_collision(s);
}

static void cs_resolve_hop(int64_t *s, uint8_t *tiles, int direction) {
    int target = CS_NEIGHBOR[s[CS_POSITION]][direction];
    if (target == CS_OFF) {
        s[CS_TEETER] = TEETER_TICKS;
        s[CS_TEETER_DIR] = direction;
        return;
    }
    s[CS_POSITION] = target;
    s[CS_COOLDOWN] = HOP_COOLDOWN;
    s[CS_STAGE_HOPS] += 1;
    cs_land(s, tiles, target);
}

static void cs_hop(int64_t *s, uint8_t *tiles, int direction) {
    if (s[CS_TEETER]) {
        if (direction == s[CS_TEETER_DIR]) { /* the leap */
            int free_leap = (int)s[CS_FREE_LEAP];
            s[CS_FREE_LEAP] = 0;
            s[CS_CHAIN] = 0;
            cs_back_to_apex(s, !free_leap);
            return;
        }
        s[CS_TEETER] = 0;
        s[CS_TEETER_DIR] = CS_NO_DIRECTION;
    }
    if (s[CS_COOLDOWN]) {
        s[CS_BUFFERED] = direction;
        return;
    }
    cs_resolve_hop(s, tiles, direction);
}

static void cs_toll(int64_t *s) {
    if (s[CS_TEETER]) {
        s[CS_TEETER] = 0;
        s[CS_TEETER_DIR] = CS_NO_DIRECTION;
    }
    s[CS_CHARGES] -= 1;
    s[CS_TOLL_COOLDOWN] = TOLL_COOLDOWN;
    const int *near = CS_DISTANCE[s[CS_POSITION]];
    int64_t *h = s + CS_HUSH, kept = 0, scattered = 0;
    for (int64_t k = 0; k < s[CS_HUSH_COUNT]; k++) {
        int64_t *entry = h + k * H_FIELDS;
        if (!entry[H_DORMANT] && near[entry[H_TILE]] <= TOLL_RANGE) {
            scattered++;
        } else {
            if (kept != k) memmove(h + kept * H_FIELDS, entry, sizeof(int64_t) * H_FIELDS);
            kept++;
        }
    }
    s[CS_HUSH_COUNT] = kept;
    s[CS_SCORE] += SCATTER_POINTS * scattered;
}

static int cs_spawn_tile(int64_t *s, int kind) {
    int chick = (int)s[CS_POSITION], choices[CS_TILES], count = 0;
    if (kind == K_STALKER) {
        int left = cs_index(CS_TIERS - 1, 0), right = cs_index(CS_TIERS - 1, CS_TIERS - 1);
        return CS_DISTANCE[chick][right] > CS_DISTANCE[chick][left] ? right : left;
    }
    if (kind == K_TUMBLE) {
        for (int t = 0; t < 3; t++)
            if (t != chick) choices[count++] = t;
    } else {
        for (int t = 0; t < CS_TILES; t++)
            if (CS_ROW[t] >= MUFFLE_MIN_ROW && CS_DISTANCE[chick][t] >= MUFFLE_MIN_STEPS)
                choices[count++] = t;
    }
    return choices[cs_below(s, (uint64_t)count)];
}

static void cs_run_spawn_clock(int64_t *s) {
    if (s[CS_SPAWN_CLOCK]) s[CS_SPAWN_CLOCK] -= 1;
    if (!s[CS_SPAWN_CLOCK] && s[CS_HUSH_COUNT] < cs_hush_cap(s[CS_STAGE])) {
        int queue = cs_queue(s[CS_STAGE]);
        int kind = CS_QUEUES[queue][s[CS_SPAWN_INDEX]];
        s[CS_SPAWN_INDEX] = (s[CS_SPAWN_INDEX] + 1) % CS_QUEUE_LENGTHS[queue];
        int tile = cs_spawn_tile(s, kind);
        int64_t *entry = s + CS_HUSH + s[CS_HUSH_COUNT] * H_FIELDS;
        entry[H_KIND] = kind;
        entry[H_TILE] = tile;
        entry[H_DORMANT] = DORMANT_TICKS;
        entry[H_CLOCK] = 0;
        entry[H_AWAKE] = 0;
        s[CS_HUSH_COUNT] += 1;
        s[CS_SPAWN_CLOCK] = cs_spawn_interval(s[CS_STAGE]);
    }
}

static int cs_stalker_step(int tile, int chick) {
    int here = CS_DISTANCE[tile][chick];
    for (int k = 0; k < 4; k++) {
        int target = CS_NEIGHBOR[tile][CS_STALKER_ORDER[k]];
        if (target != CS_OFF && CS_DISTANCE[target][chick] < here) return target;
    }
    return tile;
}

/* one tick of every Hush: dormancy, steps, muffling, leaving the board */
static void cs_advance(int64_t *s, uint8_t *tiles) {
    int64_t *h = s + CS_HUSH, count = s[CS_HUSH_COUNT], kept = 0;
    for (int64_t k = 0; k < count; k++) {
        int64_t *e = h + k * H_FIELDS;
        int gone = 0, kind = (int)e[H_KIND];
        if (e[H_DORMANT]) {
            e[H_DORMANT] -= 1;
            if (!e[H_DORMANT]) e[H_CLOCK] = cs_period(kind, s[CS_STAGE]);
        } else {
            e[H_AWAKE] += 1;
            if (kind == K_MUFFLE && e[H_AWAKE] >= MUFFLE_LIFETIME) {
                gone = 1;
            } else {
                e[H_CLOCK] -= 1;
                if (!e[H_CLOCK]) {
                    e[H_CLOCK] = cs_period(kind, s[CS_STAGE]);
                    int tile = (int)e[H_TILE];
                    if (kind == K_TUMBLE) {
                        if (CS_ROW[tile] == CS_TIERS - 1)
                            gone = 1;
                        else
                            e[H_TILE] = CS_NEIGHBOR[tile][cs_below(s, 2) ? 3 : 2];
                    } else if (kind == K_STALKER) {
                        e[H_TILE] = cs_stalker_step(tile, (int)s[CS_POSITION]);
                    } else {
                        int target =
                            CS_ADJACENT[tile][cs_below(s, (uint64_t)CS_ADJACENT_COUNT[tile])];
                        e[H_TILE] = target;
                        if (tiles[target]) tiles[target] -= 1;
                    }
                }
            }
        }
        if (!gone) {
            if (kept != k) memmove(h + kept * H_FIELDS, e, sizeof(int64_t) * H_FIELDS);
            kept++;
        }
    }
    s[CS_HUSH_COUNT] = kept;
}

static void cs_tick(int64_t *s, uint8_t *tiles) {
    s[CS_TICK] += 1;
    int64_t status = s[CS_STATUS_AT];
    if (status != CS_PLAYING) {
        s[CS_PHASE_TICKS] -= 1;
        if (s[CS_PHASE_TICKS]) return;
        if (status == CS_STAGE_CLEAR) { /* the next stage */
            cs_set_up_stage(s, tiles, s[CS_STAGE] + 1);
            s[CS_STATUS_AT] = CS_STAGE_INTRO;
            s[CS_PHASE_TICKS] = INTRO_TICKS;
            if (s[CS_CHARGES] < MAX_CHARGES) s[CS_CHARGES] += 1;
            return;
        }
        s[CS_STATUS_AT] = CS_PLAYING;
        if (status == CS_RECOVERING) s[CS_SHIMMER] = SHIMMER_TICKS;
        return;
    }
    if (s[CS_TOLL_COOLDOWN]) s[CS_TOLL_COOLDOWN] -= 1;
    if (s[CS_TEETER]) {
        s[CS_TEETER] -= 1;
        if (!s[CS_TEETER]) s[CS_TEETER_DIR] = CS_NO_DIRECTION;
    } else if (s[CS_COOLDOWN]) {
        s[CS_COOLDOWN] -= 1;
        if (!s[CS_COOLDOWN] && s[CS_BUFFERED] != CS_NO_DIRECTION) {
            int direction = (int)s[CS_BUFFERED];
            s[CS_BUFFERED] = CS_NO_DIRECTION;
            cs_resolve_hop(s, tiles, direction);
            if (s[CS_STATUS_AT] != CS_PLAYING) return;
        }
    }
    if (s[CS_HUSH_COUNT]) {
        cs_advance(s, tiles);
        cs_check_collision(s);
        if (s[CS_STATUS_AT] != CS_PLAYING) return;
    }
    cs_run_spawn_clock(s);
    if (s[CS_SHIMMER]) {
        s[CS_SHIMMER] -= 1;
        if (!s[CS_SHIMMER]) cs_check_collision(s);
    }
}

/* one action of the twelve: the reward, or -1 when the rules refuse it (the env is left as
 * it was) */
static int64_t cs_step(int64_t *s, uint8_t *tiles, const int64_t *table, const uint8_t *layouts,
                       int64_t cells, int64_t action) {
    int64_t status = s[CS_STATUS_AT], before = s[CS_SCORE];
    if (action < 0 || action >= CS_ACTIONS) return -1;
    if (action >= CA_TICK) {
        if (status == CS_WAITING || status == CS_DONE) return -1;
        for (int k = 0; k < CS_TICK_COUNTS[action - CA_TICK]; k++) {
            if (s[CS_STATUS_AT] == CS_DONE) break;
            cs_tick(s, tiles);
        }
    } else if (action == CA_START) {
        if (status != CS_WAITING) return -1;
        s[CS_STATUS_AT] = CS_STAGE_INTRO;
        s[CS_PHASE_TICKS] = INTRO_TICKS;
    } else if (status != CS_PLAYING) {
        return -1;
    } else if (action < CA_TOLL) {
        cs_hop(s, tiles, (int)(action - CA_HOP));
    } else {
        if (!s[CS_CHARGES] || s[CS_TOLL_COOLDOWN]) return -1;
        cs_toll(s);
    }
    return s[CS_SCORE] - before;
}

/* the observation record (the tiles and Hush planes, the chick's row and column, the 14
 * stats) and the mask row */
static void cs_observe(const int64_t *s, const uint8_t *tiles, const int64_t *table,
                       const int64_t *params, uint8_t *record, int8_t *mask) {
    uint8_t *plane = record + params[CP_TILES_AT], *hush = record + params[CP_HUSH_AT];
    memset(plane, 0, CS_TIERS * CS_TIERS);
    memset(hush, 0, CS_TIERS * CS_TIERS);
    for (int t = 0; t < CS_TILES; t++) plane[CS_ROW[t] * CS_TIERS + CS_COL[t]] = tiles[t] + 1;
    const int64_t *h = s + CS_HUSH;
    for (int64_t k = 0; k < s[CS_HUSH_COUNT]; k++, h += H_FIELDS) {
        int t = (int)h[H_TILE];
        hush[CS_ROW[t] * CS_TIERS + CS_COL[t]] =
            (uint8_t)(h[H_KIND] + 1 + (h[H_DORMANT] ? K_KINDS : 0));
    }
    int position = (int)s[CS_POSITION];
    uint8_t chick[2] = {(uint8_t)CS_ROW[position], (uint8_t)CS_COL[position]};
    memcpy(record + params[CP_CHICK_AT], chick, 2);
    int64_t stage = s[CS_STAGE] < STAGE_SCALE ? s[CS_STAGE] : STAGE_SCALE;
    int64_t lives = s[CS_LIVES] < LIVES_SCALE ? s[CS_LIVES] : LIVES_SCALE;
    int64_t chain = s[CS_CHAIN] < CHAIN_CAP ? s[CS_CHAIN] : CHAIN_CAP;
    double hops = (double)s[CS_STAGE_HOPS] / (double)cs_par_for(s[CS_TARGET]);
    float stats[14] = {
        (float)((double)s[CS_STATUS_AT] / 5.0),
        (float)((double)stage / STAGE_SCALE),
        (float)(s[CS_TARGET] - 1),
        (float)((double)cs_remaining(s, tiles) / CS_TILES),
        (float)((double)s[CS_COOLDOWN] / HOP_COOLDOWN),
        (float)((double)(s[CS_BUFFERED] + 1) / 4.0),
        (float)(s[CS_TEETER] ? (double)(s[CS_TEETER_DIR] + 1) / 4.0 : 0.0),
        (float)((double)s[CS_TEETER] / TEETER_TICKS),
        (float)((double)lives / LIVES_SCALE),
        (float)((double)chain / CHAIN_CAP),
        (float)((double)s[CS_CHARGES] / MAX_CHARGES),
        (float)((double)s[CS_TOLL_COOLDOWN] / TOLL_COOLDOWN),
        (float)((double)s[CS_SHIMMER] / SHIMMER_TICKS),
        (float)(hops < 1.0 ? hops : 1.0),
    };
    memcpy(record + params[CP_STATS_AT], stats, sizeof stats);
    memset(mask, 0, CS_ACTIONS);
    int64_t status = s[CS_STATUS_AT];
    if (status == CS_WAITING) {
        mask[CA_START] = 1;
        return;
    }
    if (status == CS_DONE) return;
    for (int k = CA_TICK; k < CS_ACTIONS; k++) mask[k] = 1;
    if (status != CS_PLAYING) return;
    for (int k = CA_HOP; k < CA_TOLL; k++) mask[k] = 1;
    mask[CA_TOLL] = s[CS_CHARGES] && !s[CS_TOLL_COOLDOWN];
}

static int cs_over(const int64_t *s) { return s[CS_STATUS_AT] == CS_DONE; }

/* the run's progress as view.progress gives it: stages cleared plus the current stage's
 * share of struck levels, less the share the apex's arrival strikes, over the progress
 * stages less that share, between 0 and 1 */
#define CS_PROGRESS_STAGES 30
#define CS_APEX_START_LEVEL 1
static double cs_progress(const int64_t *s, const uint8_t *cells, const int64_t *table,
                          const int64_t *params, int64_t origin) {
    int64_t sum = 0;
    for (int t = 0; t < CS_TILES; t++) sum += cells[t];
    const double start = (double)CS_APEX_START_LEVEL / CS_TILES;
    double struck = (double)sum / (double)(CS_TILES * s[CS_TARGET]);
    double done = ((double)(s[CS_STAGE] - 1) + struck - start) / (CS_PROGRESS_STAGES - start);
    return done > 1.0 ? 1.0 : done < 0.0 ? 0.0 : done;
}

/* -- the binding's checks: what is wrong, or NULL -------------------------------------- */
static const char *cs_table_error(const int64_t *t, Py_ssize_t levels, Py_ssize_t cells) {
    return cells < CS_TILES ? "the cells are too few for the pyramid" : NULL;
}

static const char *cs_env_error(const int64_t *s, const int64_t *t, Py_ssize_t levels,
                                Py_ssize_t cells) {
    if (s[CS_STATUS_AT] < CS_WAITING || s[CS_STATUS_AT] > CS_DONE) return "an env's status is unknown";
    if (s[CS_POSITION] < 0 || s[CS_POSITION] >= CS_TILES) return "an env's chick is off the pyramid";
    if (s[CS_STAGE] < 1 || s[CS_TARGET] < 1 || s[CS_TARGET] > 2) return "an env's stage is wrong";
    if (s[CS_SPAWN_INDEX] < 0 || s[CS_SPAWN_INDEX] >= CS_QUEUE_LENGTHS[cs_queue(s[CS_STAGE])])
        return "an env's spawn index is off its queue";
    if (s[CS_HUSH_COUNT] < 0 || s[CS_HUSH_COUNT] > CS_HUSH_MAX) return "an env holds too many Hush";
    if (s[CS_TEETER_DIR] < -1 || s[CS_TEETER_DIR] > 3 || s[CS_BUFFERED] < -1 || s[CS_BUFFERED] > 3)
        return "an env's direction is unknown";
    const int64_t *h = s + CS_HUSH;
    for (int64_t k = 0; k < s[CS_HUSH_COUNT]; k++, h += H_FIELDS)
        if (h[H_KIND] < 0 || h[H_KIND] >= K_KINDS || h[H_TILE] < 0 || h[H_TILE] >= CS_TILES)
            return "an env's Hush is off the pyramid";
    return NULL;
}

static const char *cs_start_error(int64_t seed, Py_ssize_t levels) {
    return seed < 0 ? "a seed is negative" : NULL;
}

static const char *cs_record_error(const int64_t *p, Py_ssize_t record) {
    for (int k = 0; k < CP_PARAMS; k++)
        if (p[k] < 0) return "the observation record does not fit its parameters";
    if (p[CP_TILES_AT] + 49 > record || p[CP_HUSH_AT] + 49 > record ||
        p[CP_CHICK_AT] + 2 > record || p[CP_STATS_AT] + 56 > record)
        return "the observation record does not fit its parameters";
    return NULL;
}

#endif
