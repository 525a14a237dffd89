/* Cogcrawl's step in C: the rules of playbench/games/cogcrawl (dungeon.py, actions.py,
 * clock.py, combat.py, sight.py, start.py, the seat turn of seat.py for one-primitive
 * replies) and its SplitMix64 generator (playbench/core/rng.py), one env at a time. The
 * Python rules are the reference; tests/kernels/test_cogcrawl.py plays both side by side
 * and compares the full state, the observation, the mask, the reward and the end at every
 * step.
 *
 * An env's int64 row: the run's integers (CC_ enum), the pack, the turn's messages as
 * codes, the last plan, then per dungeon level (LV_WIDTH each, ten of them) whether it has
 * been entered, its rooms, stairs and monsters. Its cells: per level CC_LAYERS planes of
 * the 48 x 18 map (terrain, memory, room owner, item category, item index, hidden glyph,
 * search count and lock, and the memory's map codes: what the observation shows of it,
 * kept beside each glyph remembered), a level after the other.
 * playbench/games/cogcrawl/kernel.py reads both back into the rules' state, messages
 * written out in words.
 */
#ifndef PLAYBENCH_COGCRAWL_H
#define PLAYBENCH_COGCRAWL_H

#include <stdint.h>
#include <string.h>

#define CC_W 48
#define CC_H 18
#define CC_SIZE (CC_W * CC_H)
#define CC_LEVELS 10
#define CC_MAX_ROOMS 9
#define CC_MAX_MONSTERS 9
#define CC_PACK 26
#define CC_POTIONS 6
#define CC_MESSAGES 8

/* the planes of a level's cells */
enum { P_TERRAIN, P_MEMORY, P_OWNER, P_ICAT, P_IIDX, P_HIDDEN, P_META, P_CODES, CC_LAYERS };
#define CC_LEVEL_BYTES (CC_LAYERS * CC_SIZE)
#define CC_CELLS (CC_LEVELS * CC_LEVEL_BYTES)
#define META_SEARCHES 3
#define META_LOCKED 4

/* a level's integers */
enum {
    LV_PRESENT,
    LV_ROOMS,
    LV_ROOM,
    LV_UP = LV_ROOM + 4 * CC_MAX_ROOMS,
    LV_DOWN, /* -1 on the last level */
    LV_MCOUNT,
    LV_MON,
    LV_WIDTH = LV_MON + 5 * CC_MAX_MONSTERS
};
enum { M_IDENT, M_KIND, M_X, M_Y, M_HP, M_FIELDS };

/* the per-env integers (int64, CC_STATE a row) */
enum {
    CC_RUN, /* R_PLAYING .. R_OUT_OF_TURNS */
    CC_SEED,
    CC_RNG,
    CC_TURN,
    CC_DTURN,
    CC_DL,
    CC_X,
    CC_Y,
    CC_HP,
    CC_MAXHP,
    CC_XL,
    CC_XP,
    CC_GOLD,
    CC_NUTRITION,
    CC_SCORE,
    CC_DEEPEST,
    CC_WIELDED, /* pack letter 0..25, or -1 */
    CC_WORN,
    CC_CONFUSED,
    CC_ORACLE,    /* the level holding the Oracle */
    CC_EXECUTED,  /* the action index of the primitive the last turn ran, or -1 */
    CC_DROPPED,   /* the action index of the entry the last turn dropped, or -1 */
    CC_INTR,      /* why the last turn stopped early: I_NONE .. I_FAILED */
    CC_INTR_A,    /* came into view: the kind; failed: the action */
    CC_INTR_CODE, /* failed: the reason's message code and its two arguments */
    CC_INTR_X,
    CC_INTR_Y,
    CC_MSG_TOTAL, /* messages the last turn made; the last CC_MESSAGES are kept */
    CC_MSG,       /* CC_MESSAGES x 3: code, two arguments (a ring, by message number) */
    CC_APPEAR = CC_MSG + 3 * CC_MESSAGES,
    CC_IDENT = CC_APPEAR + CC_POTIONS,
    CC_PACKS = CC_IDENT + CC_POTIONS, /* CC_PACK x 2: category (0 none), index */
    CC_LEVEL = CC_PACKS + 2 * CC_PACK,
    CC_STATE = CC_LEVEL + CC_LEVELS * LV_WIDTH
};
enum { R_PLAYING, R_WON, R_DEAD, R_LEFT, R_OUT_OF_TURNS };
enum { I_NONE, I_HIT, I_VIEW, I_FAILED };
/* item categories, as the observation's pack codes */
enum { C_NONE, C_GOLD, C_FOOD, C_POTION, C_WEAPON, C_ARMOUR, C_COGHEART };
enum { H_NOT_HUNGRY, H_HUNGRY, H_WEAK, H_FAINTING };

/* the message codes (kernel.py's MESSAGES writes them out; a reason is said as a message
 * with a capital and a full stop) */
enum {
    MS_WELCOME,
    MS_DOOR_OPENS,
    MS_LAVA,
    MS_DIE,
    MS_SEE_HERE,     /* category, index */
    MS_FIND_DOOR,
    MS_FIND_PASSAGE,
    MS_GOLD,         /* amount */
    MS_COGHEART,
    MS_PACK_FULL,    /* category, index */
    MS_PACKED,       /* letter, category*256+index */
    MS_EAT,          /* food */
    MS_DRINK,        /* potion, identified before */
    MS_BETTER,
    MS_ASLEEP,
    MS_CONFUSED,
    MS_OBJECTS,
    MS_MAP,
    MS_WIELD,        /* letter, weapon */
    MS_WEAR,         /* armour */
    MS_WHAMM_OPEN,
    MS_WHAMM,
    MS_ORACLE,       /* answer: -2 none, -1 on them, else direction */
    MS_CLIMB_OUT,
    MS_REACH,        /* depth */
    MS_MISS,         /* kind */
    MS_HIT,
    MS_KILL,
    MS_WELCOME_XL,   /* xl */
    MS_MONSTER_MISSES,
    MS_MONSTER_HITS,
    MS_TURN_LIMIT,
    MS_STARVE,
    MS_HUNGER,       /* hunger code */
    MS_FAINT,
    /* the reasons a primitive fails */
    MS_EDGE,
    MS_DIAGONAL,
    MS_IN_WAY,       /* kind */
    MS_LOCKED,
    MS_STAGGER,
    MS_ROCK,
    MS_WALL,
    MS_NOTHING,
    MS_CANNOT,       /* verb, category*256+index */
    MS_ALREADY,      /* verb, category*256+index */
    MS_WEAK,
    MS_KICK_DIAGONAL,
    MS_NO_DOOR,
    MS_NOBODY,
    MS_FEE,          /* gold */
    MS_NO_DOWN,
    MS_NO_UP,
    MS_CODES
};

/* actions: move, kick, chat in n s e w ne nw se sw; search, wait, pickup, down, up; eat,
 * quaff, wield, wear of a..z */
#define CC_ACTIONS 133
#define A_MOVE 0
#define A_KICK 8
#define A_CHAT 16
#define A_SEARCH 24
#define A_WAIT 25
#define A_PICKUP 26
#define A_DOWN 27
#define A_UP 28
#define A_EAT 29
#define A_QUAFF (A_EAT + CC_PACK)
#define A_WIELD (A_QUAFF + CC_PACK)
#define A_WEAR (A_WIELD + CC_PACK)

static const int CC_DX[8] = {0, 0, 1, -1, 1, -1, 1, -1};
static const int CC_DY[8] = {-1, 1, 0, 0, -1, -1, 1, 1};

/* the glyphs */
#define G_ROCK ' '
#define G_FLOOR '.'
#define G_CORRIDOR '#'
#define G_WALL_V '|'
#define G_WALL_H '-'
#define G_CLOSED '+'
#define G_OPEN '\''
#define G_UP '<'
#define G_DOWN '>'
#define G_LAVA '}'
/* an item category's glyph (any other byte a caller wrote into the cells shows none) */
static const uint8_t CC_ITEM_GLYPH[256] = {0, '$', '%', '!', ')', '[', '"'};

/* the numbers of the rules (constants.py, dungeon.py, monsters.py, items.py) */
#define TURN_LIMIT 50000
#define START_HP 16
#define BASE_AC 10
#define START_NUTRITION 900
#define NUTRITION_CAP 2000
#define STARVED_BELOW (-200)
#define FAINT_ODDS 10
#define TO_HIT_BASE 5
#define MONSTER_TO_HIT_BASE 6
#define XL_FIRST_STEP 10
#define MAX_XL 14
#define HP_PER_XL_DIE 8
#define REGEN_NUMERATOR 42
#define LEVEL_BONUS 50
#define COGHEART_BONUS 1000
#define ORACLE_FEE 50
#define KICK_ODDS 3
#define STAGGER_ODDS 5
#define WANDER_ODDS 3
#define SEARCH_FINDS_ON 3
#define LAVA_DEPTH 4
#define PLACE_TRIES 200
#define DOOR_TRIES 4
#define ORACLE_KIND 14
#define APPEARANCE_STREAM 11
#define APPEARANCES 10

static const int CC_COLUMN_BOUNDS[6] = {0, 10, 19, 29, 38, 48};
static const int CC_ROW_BOUNDS[3] = {0, 9, 18};
static const int CC_FOOD_TABLE[9] = {0, 0, 0, 0, 1, 1, 2, 3, 5};
static const int CC_FOOD_NUTRITION[6] = {800, 600, 800, 50, 50, 40};
static const int CC_FOOD_TURNS[6] = {5, 3, 2, 1, 1, 1};
/* weapons: dice, sides, bonus, to-hit, depth */
static const int CC_WEAPONS[7][5] = {{1, 4, 0, 2, 1}, {1, 6, 0, 0, 1}, {1, 6, 1, 0, 2},
                                     {1, 6, 0, 0, 2}, {1, 8, 0, 0, 3}, {1, 8, 0, 1, 4},
                                     {2, 5, 0, 0, 6}};
/* armours: ac, depth */
static const int CC_ARMOURS[6][2] = {{2, 1}, {1, 1}, {3, 2}, {4, 4}, {5, 6}, {6, 8}};
/* monster kinds: depth, level, ac, dice, sides, moves, peaceful */
static const int CC_KINDS[15][7] = {
    {1, 0, 7, 1, 3, 1, 0},  {1, 0, 7, 1, 2, 1, 0},  {1, 0, 9, 1, 1, 0, 0},
    {2, 0, 10, 1, 4, 1, 0}, {2, 1, 10, 1, 6, 1, 0}, {3, 1, 3, 1, 2, 1, 0},
    {4, 1, 10, 1, 6, 1, 0}, {5, 2, 3, 1, 4, 1, 0},  {5, 2, 10, 1, 8, 1, 0},
    {6, 3, 10, 1, 8, 1, 0}, {6, 4, 8, 1, 8, 1, 0},  {7, 5, 4, 2, 4, 1, 0},
    {8, 5, 5, 2, 6, 1, 0},  {9, 7, 4, 2, 6, 1, 0},  {0, 12, 0, 0, 0, 0, 1}};
enum { K_DEPTH, K_LEVEL, K_AC, K_DICE, K_SIDES, K_MOVES, K_PEACEFUL };
/* each kind's map category id, and the map's category of every byte (cc_init) */
static const uint8_t CC_MONSTER_CODES[15] = {17, 18, 19, 20, 21, 22, 23, 24,
                                             25, 26, 27, 28, 29, 30, 16};
#define COG_CODE 16
#define OTHER_CODE 31
static uint8_t CC_CATEGORY[256];

static void cc_init(void) {
    static const char glyphs[] = " .#|-+'<>}$%!)[\"@rjFkgsoahGZdYT";
    memset(CC_CATEGORY, OTHER_CODE, sizeof CC_CATEGORY);
    for (int k = 0; glyphs[k]; k++) CC_CATEGORY[(uint8_t)glyphs[k]] = (uint8_t)k;
}

/* -- SplitMix64, as playbench.core.rng.Rng --------------------------------------------- */
#define CC_GAMMA 0x9E3779B97F4A7C15ULL

static inline uint64_t cc_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int64_t cc_below(uint64_t *state, uint64_t n) {
    uint64_t rest = (0 - n) % n, value;
    for (;;) {
        *state += CC_GAMMA;
        value = cc_mix(*state);
        if (rest == 0 || value < 0 - rest) break;
    }
    return (int64_t)(value % n);
}

static inline int64_t cc_randint(uint64_t *state, int64_t low, int64_t high) {
    return low + cc_below(state, (uint64_t)(high - low + 1));
}

static uint64_t cc_from_seed(int64_t seed, int streams, int64_t stream) {
    uint64_t state = cc_mix((uint64_t)seed + CC_GAMMA);
    if (streams) state = cc_mix((state ^ (uint64_t)stream) + CC_GAMMA);
    return state;
}

/* the env's own generator: draws on the row's CC_RNG */
static inline int64_t cc_rng_below(int64_t *s, uint64_t n) {
    uint64_t state = (uint64_t)s[CC_RNG];
    int64_t value = cc_below(&state, n);
    s[CC_RNG] = (int64_t)state;
    return value;
}

static inline int64_t cc_rng_randint(int64_t *s, int64_t low, int64_t high) {
    return low + cc_rng_below(s, (uint64_t)(high - low + 1));
}

static int64_t cc_roll(int64_t *s, int dice, int sides) {
    int64_t total = 0;
    for (int k = 0; k < dice; k++) total += cc_rng_randint(s, 1, sides);
    return total;
}

/* -- a level: its integers and its planes ---------------------------------------------- */
typedef struct {
    int64_t *v;     /* the level's integers (LV_) */
    uint8_t *terrain, *memory, *owner, *icat, *iidx, *hidden, *meta, *codes;
} Lvl;

static Lvl cc_level(int64_t *s, uint8_t *cells, int64_t depth) {
    Lvl l;
    uint8_t *base = cells + (depth - 1) * CC_LEVEL_BYTES;
    l.v = s + CC_LEVEL + (depth - 1) * LV_WIDTH;
    l.terrain = base + P_TERRAIN * CC_SIZE;
    l.memory = base + P_MEMORY * CC_SIZE;
    l.owner = base + P_OWNER * CC_SIZE;
    l.icat = base + P_ICAT * CC_SIZE;
    l.iidx = base + P_IIDX * CC_SIZE;
    l.hidden = base + P_HIDDEN * CC_SIZE;
    l.meta = base + P_META * CC_SIZE;
    l.codes = base + P_CODES * CC_SIZE;
    return l;
}

/* the cog remembers ``glyph`` at ``cell``: its memory, and the map code the observation
 * shows of it */
static inline void cc_remember(const Lvl *l, int cell, uint8_t glyph) {
    l->memory[cell] = glyph;
    l->codes[cell] = CC_CATEGORY[glyph];
}

static int64_t *cc_monster_at(const Lvl *l, int cell) {
    int x = cell % CC_W, y = cell / CC_W;
    int64_t *m = l->v + LV_MON;
    for (int64_t k = 0; k < l->v[LV_MCOUNT]; k++, m += M_FIELDS)
        if (m[M_X] == x && m[M_Y] == y) return m;
    return NULL;
}

static inline int cc_walkable(uint8_t g) {
    return g == G_FLOOR || g == G_CORRIDOR || g == G_OPEN || g == G_UP || g == G_DOWN;
}
static inline int cc_door(uint8_t g) { return g == G_CLOSED || g == G_OPEN; }
static inline int cc_item_glyph(uint8_t g) {
    return g == '$' || g == '%' || g == '!' || g == ')' || g == '[' || g == '"';
}

/* each direction's step as a change of cell */
static const int CC_STEP[8] = {-CC_W, CC_W, 1, -1, 1 - CC_W, -1 - CC_W, 1 + CC_W, CC_W - 1};

/* the on-map neighbours of a cell in the fixed direction order: their count */
static inline int cc_neighbours(int cell, int *cells, int *dirs) {
    int x = cell % CC_W, y = cell / CC_W, count = 0;
    if (x > 0 && x < CC_W - 1 && y > 0 && y < CC_H - 1) { /* not on the edge: all eight */
        for (int d = 0; d < 8; d++) {
            cells[d] = cell + CC_STEP[d];
            if (dirs) dirs[d] = d;
        }
        return 8;
    }
    for (int d = 0; d < 8; d++) {
        int nx = x + CC_DX[d], ny = y + CC_DY[d];
        if (nx >= 0 && nx < CC_W && ny >= 0 && ny < CC_H) {
            cells[count] = ny * CC_W + nx;
            if (dirs) dirs[count] = d;
            count++;
        }
    }
    return count;
}

/* no diagonal step into or out of a doorway (open, closed or still hidden) */
static inline int cc_step_allowed(const uint8_t *terrain, int here, int there) {
    int gap = here - there;
    if (gap < 0) gap = -gap;
    if (gap == 1 || gap == CC_W) return 1;
    return !cc_door(terrain[here]) && !cc_door(terrain[there]);
}

/* breadth-first from ``start`` over cells with ``passable`` set, never diagonally into or
 * out of a doorway (hidden doors count as doorways): the cells in the order reached (their
 * count returned) and each one's parent */
static int cc_reach(const Lvl *l, int start, const uint8_t *passable, int16_t *parent,
                    int16_t *order) {
    uint8_t doorway[CC_SIZE];
    for (int c = 0; c < CC_SIZE; c++)
        doorway[c] = cc_door(l->terrain[c]) || l->hidden[c] == G_CLOSED;
    for (int c = 0; c < CC_SIZE; c++) parent[c] = -1;
    parent[start] = (int16_t)start;
    order[0] = (int16_t)start;
    int count = 1;
    for (int head = 0; head < count; head++) {
        int here = order[head], near[8], dirs[8];
        int n = cc_neighbours(here, near, dirs);
        for (int k = 0; k < n; k++) {
            int there = near[k];
            if (!passable[there] || parent[there] >= 0) continue;
            if (dirs[k] >= 4 && (doorway[here] || doorway[there])) continue;
            parent[there] = (int16_t)here;
            order[count++] = (int16_t)there;
        }
    }
    return count;
}

/* the masks of passable cells: with hidden things found and locked doors broken (0), or
 * with closed doors but no locked one (1); ``blocked`` (or -1) never passable */
static void cc_passable(const Lvl *l, int plain, int blocked, uint8_t *mask) {
    for (int c = 0; c < CC_SIZE; c++) {
        uint8_t g = l->terrain[c];
        mask[c] = cc_walkable(g) || g == G_CLOSED;
        if (plain) {
            if (l->meta[c] & META_LOCKED) mask[c] = 0;
        } else if (l->hidden[c]) {
            mask[c] = 1;
        }
    }
    if (blocked >= 0) mask[blocked] = 0;
}

static int cc_goal(const Lvl *l) {
    if (l->v[LV_DOWN] >= 0) return (int)l->v[LV_DOWN];
    for (int c = 0; c < CC_SIZE; c++)
        if (l->icat[c] == C_COGHEART) return c;
    return (int)l->v[LV_UP];
}

static void cc_reveal(Lvl *l, int cell) {
    l->terrain[cell] = l->hidden[cell];
    l->hidden[cell] = 0;
    l->meta[cell] &= (uint8_t)~META_SEARCHES;
}

/* -- generation ------------------------------------------------------------------------ */
static void cc_draw_room(uint8_t *terrain, const int64_t *r) {
    for (int64_t x = r[0]; x <= r[2]; x++) {
        terrain[r[1] * CC_W + x] = G_WALL_H;
        terrain[r[3] * CC_W + x] = G_WALL_H;
    }
    for (int64_t y = r[1] + 1; y < r[3]; y++) {
        terrain[y * CC_W + r[0]] = G_WALL_V;
        terrain[y * CC_W + r[2]] = G_WALL_V;
        for (int64_t x = r[0] + 1; x < r[2]; x++) terrain[y * CC_W + x] = G_FLOOR;
    }
}

static int cc_next_to_door(const Lvl *l, int cell) {
    int others[4] = {cell - CC_W, cell + CC_W, cell + 1, cell - 1};
    for (int k = 0; k < 4; k++)
        if (cc_door(l->terrain[others[k]]) || l->hidden[others[k]]) return 1;
    return 0;
}

static int cc_is_free(const Lvl *l, int cell, int blocked) {
    return l->terrain[cell] == G_FLOOR && !l->icat[cell] && cell != blocked &&
           cc_monster_at(l, cell) == NULL;
}

/* a free floor cell in one of ``rooms`` (random, seeded), or -1 */
static int cc_free_cell(uint64_t *rng, const Lvl *l, const int *rooms, int count, int blocked,
                        int away) {
    for (int t = 0; t < PLACE_TRIES; t++) {
        const int64_t *r = l->v + LV_ROOM + 4 * rooms[cc_below(rng, (uint64_t)count)];
        int64_t w = r[2] - r[0] - 1, h = r[3] - r[1] - 1;
        int64_t k = cc_below(rng, (uint64_t)(w * h));
        int cell = (int)((r[1] + 1 + k / w) * CC_W + r[0] + 1 + k % w);
        if (cc_is_free(l, cell, blocked) && !(away && cc_next_to_door(l, cell))) return cell;
    }
    for (int i = 0; i < count; i++) {
        const int64_t *r = l->v + LV_ROOM + 4 * rooms[i];
        for (int64_t y = r[1] + 1; y < r[3]; y++)
            for (int64_t x = r[0] + 1; x < r[2]; x++)
                if (cc_is_free(l, (int)(y * CC_W + x), blocked)) return (int)(y * CC_W + x);
    }
    return -1;
}

static void cc_shuffle(uint64_t *rng, int *items, int count) {
    for (int i = count - 1; i > 0; i--) {
        int j = (int)cc_below(rng, (uint64_t)(i + 1)), t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}

static int cc_place_rooms(uint64_t *rng, int64_t *rooms) {
    int slots[10];
    for (int k = 0; k < 10; k++) slots[k] = k;
    cc_shuffle(rng, slots, 10);
    int count = (int)cc_randint(rng, 6, 9), chosen[10];
    memcpy(chosen, slots, sizeof chosen);
    for (int i = 1; i < count; i++) /* sorted */
        for (int j = i; j > 0 && chosen[j - 1] > chosen[j]; j--) {
            int t = chosen[j];
            chosen[j] = chosen[j - 1];
            chosen[j - 1] = t;
        }
    for (int k = 0; k < count; k++) {
        int column = chosen[k] / 2, row = chosen[k] % 2;
        int64_t left = CC_COLUMN_BOUNDS[column] + 1, right = CC_COLUMN_BOUNDS[column + 1] - 2;
        int64_t top = CC_ROW_BOUNDS[row] + 1, bottom = CC_ROW_BOUNDS[row + 1] - 2;
        int64_t inner_w = cc_randint(rng, 3, right - left - 1);
        int64_t inner_h = cc_randint(rng, 2, bottom - top - 1);
        int64_t x1 = cc_randint(rng, left, right - inner_w - 1);
        int64_t y1 = cc_randint(rng, top, bottom - inner_h - 1);
        int64_t *r = rooms + 4 * k;
        r[0] = x1;
        r[1] = y1;
        r[2] = x1 + inner_w + 1;
        r[3] = y1 + inner_h + 1;
    }
    return count;
}

/* a door cell on one side (0 e, 1 w, 2 s, 3 n) of room ``r`` and the cell outside it */
static void cc_door_on(uint64_t *rng, const int64_t *r, int side, const uint8_t *doors,
                       int *door, int *out) {
    int cell = 0;
    for (int t = 0; t < DOOR_TRIES; t++) {
        int along;
        if (side < 2) {
            int64_t x = side == 0 ? r[2] : r[0], y = cc_randint(rng, r[1] + 1, r[3] - 1);
            cell = (int)(y * CC_W + x);
            along = CC_W;
        } else {
            int64_t x = cc_randint(rng, r[0] + 1, r[2] - 1), y = side == 2 ? r[3] : r[1];
            cell = (int)(y * CC_W + x);
            along = 1;
        }
        if (doors[cell] || (!doors[cell - along] && !doors[cell + along])) break;
    }
    static const int step[4] = {1, -1, CC_W, -CC_W};
    *door = cell;
    *out = cell + step[side];
}

/* the shortest 4-connected path through cells outside every room: its length */
static int cc_corridor_path(const Lvl *l, int start, int goal, int16_t *path) {
    int16_t parent[CC_SIZE], queue[CC_SIZE];
    for (int c = 0; c < CC_SIZE; c++) parent[c] = -1;
    parent[start] = (int16_t)start;
    queue[0] = (int16_t)start;
    int count = 1;
    for (int head = 0; head < count; head++) {
        int here = queue[head];
        if (here == goal) break;
        int x = here % CC_W, y = here / CC_W;
        int nx[4] = {x, x, x + 1, x - 1}, ny[4] = {y - 1, y + 1, y, y};
        for (int k = 0; k < 4; k++) {
            if (nx[k] < 0 || nx[k] >= CC_W || ny[k] < 0 || ny[k] >= CC_H) continue;
            int there = ny[k] * CC_W + nx[k];
            if (parent[there] < 0 && !l->owner[there]) {
                parent[there] = (int16_t)here;
                queue[count++] = (int16_t)there;
            }
        }
    }
    int length = 0;
    for (int cell = goal;; cell = parent[cell]) {
        path[length++] = (int16_t)cell;
        if (cell == start) break;
    }
    for (int i = 0, j = length - 1; i < j; i++, j--) {
        int16_t t = path[i];
        path[i] = path[j];
        path[j] = t;
    }
    return length;
}

#define CC_MAX_CORRIDORS (CC_MAX_ROOMS - 1 + 3)

/* (a cell of -1: no free cell was found, where the rules raise; never seen, and nothing
 * is placed) */
static void cc_add_monster(Lvl *l, int64_t ident, int kind, int cell, int64_t hp) {
    if (cell < 0) return;
    int64_t *m = l->v + LV_MON + l->v[LV_MCOUNT] * M_FIELDS;
    m[M_IDENT] = ident;
    m[M_KIND] = kind;
    m[M_X] = cell % CC_W;
    m[M_Y] = cell / CC_W;
    m[M_HP] = hp;
    l->v[LV_MCOUNT] += 1;
}

static void cc_pour_lava(uint64_t *rng, Lvl *l, int blocked, int depth) {
    uint8_t mask[CC_SIZE];
    int16_t parent[CC_SIZE], order[CC_SIZE];
    int goal = cc_goal(l), up = (int)l->v[LV_UP], rooms[CC_MAX_ROOMS];
    int nrooms = (int)l->v[LV_ROOMS];
    for (int i = 0; i < nrooms; i++) rooms[i] = i;
    cc_passable(l, 0, blocked, mask);
    int count = cc_reach(l, up, mask, parent, order);
    int64_t tries = cc_randint(rng, 2, depth);
    for (int64_t t = 0; t < tries; t++) {
        int cell = cc_free_cell(rng, l, rooms, nrooms, blocked, 1);
        if (cell < 0) return;
        l->terrain[cell] = G_LAVA;
        cc_passable(l, 1, blocked, mask);
        cc_reach(l, up, mask, parent, order);
        int keep = parent[goal] >= 0;
        if (keep) {
            cc_passable(l, 0, blocked, mask);
            keep = cc_reach(l, up, mask, parent, order) == count - 1;
        }
        if (keep)
            count -= 1;
        else
            l->terrain[cell] = G_FLOOR;
    }
}

static void cc_put_item(Lvl *l, int cell, int category, int64_t index) {
    if (cell < 0) return;
    l->icat[cell] = (uint8_t)category;
    l->iidx[cell] = (uint8_t)index;
}

static void cc_scatter_items(uint64_t *rng, Lvl *l, int depth) {
    int rooms[CC_MAX_ROOMS], nrooms = (int)l->v[LV_ROOMS];
    for (int i = 0; i < nrooms; i++) rooms[i] = i;
    int64_t piles = cc_randint(rng, 1, 3);
    for (int64_t k = 0; k < piles; k++) {
        int64_t amount = cc_randint(rng, 5, 5 + 6 * depth);
        cc_put_item(l, cc_free_cell(rng, l, rooms, nrooms, -1, 0), C_GOLD, amount);
    }
    int weapons[7], nweapons = 0, armours[6], narmours = 0;
    for (int i = 0; i < 7; i++)
        if (CC_WEAPONS[i][4] <= depth) weapons[nweapons++] = i;
    for (int i = 0; i < 6; i++)
        if (CC_ARMOURS[i][1] <= depth) armours[narmours++] = i;
    int64_t items = cc_randint(rng, 2, 5);
    for (int64_t k = 0; k < items; k++) {
        int64_t roll = cc_below(rng, 100), index;
        int category;
        if (roll < 45) {
            category = C_FOOD;
            index = CC_FOOD_TABLE[cc_below(rng, 9)];
        } else if (roll < 65) {
            category = C_POTION;
            index = cc_below(rng, CC_POTIONS);
        } else if (roll < 80) {
            category = C_WEAPON;
            index = weapons[cc_below(rng, (uint64_t)nweapons)];
        } else {
            category = C_ARMOUR;
            index = armours[cc_below(rng, (uint64_t)narmours)];
        }
        cc_put_item(l, cc_free_cell(rng, l, rooms, nrooms, -1, 0), category, index);
    }
}

static void cc_place_monsters(uint64_t *rng, Lvl *l, const int *rooms, int nrooms, int depth) {
    int kinds[14], nkinds = 0;
    for (int i = 0; i < 14; i++)
        if (CC_KINDS[i][K_DEPTH] <= depth && CC_KINDS[i][K_DEPTH] > depth - 4) kinds[nkinds++] = i;
    int64_t ident = l->v[LV_MCOUNT];
    int64_t count = cc_randint(rng, 2, 2 + 1 + depth / 2);
    for (int64_t k = 0; k < count; k++, ident++) {
        int kind = kinds[cc_below(rng, (uint64_t)nkinds)];
        int cell = cc_free_cell(rng, l, rooms, nrooms, -1, 0);
        int level = CC_KINDS[kind][K_LEVEL];
        int64_t hp = 0;
        if (level == 0)
            hp = cc_randint(rng, 1, 4);
        else
            for (int d = 0; d < level; d++) hp += cc_randint(rng, 1, 8);
        cc_add_monster(l, ident, kind, cell, hp);
    }
}

/* the level ``depth`` of the dungeon of ``seed`` (memory blank) */
static void cc_generate(int64_t *s, uint8_t *cells, int64_t depth) {
    Lvl level = cc_level(s, cells, depth), *l = &level;
    uint64_t rng = cc_from_seed(s[CC_SEED], 1, depth);
    memset(l->v, 0, sizeof(int64_t) * LV_WIDTH);
    memset(cells + (depth - 1) * CC_LEVEL_BYTES, 0, CC_LEVEL_BYTES);
    memset(l->terrain, G_ROCK, CC_SIZE);
    memset(l->memory, G_ROCK, CC_SIZE); /* its codes stay 0, rock's */
    l->v[LV_PRESENT] = 1;
    int nrooms = cc_place_rooms(&rng, l->v + LV_ROOM);
    l->v[LV_ROOMS] = nrooms;
    for (int i = 0; i < nrooms; i++) {
        const int64_t *r = l->v + LV_ROOM + 4 * i;
        cc_draw_room(l->terrain, r);
        for (int64_t y = r[1]; y <= r[3]; y++)
            for (int64_t x = r[0]; x <= r[2]; x++) l->owner[y * CC_W + x] = (uint8_t)(i + 1);
    }
    /* corridors: room i to room i + 1, and a few more pairs */
    int pairs[CC_MAX_CORRIDORS][2], npairs = 0, candidates[64][2], ncandidates = 0;
    for (int i = 0; i + 1 < nrooms; i++, npairs++) {
        pairs[npairs][0] = i;
        pairs[npairs][1] = i + 1;
    }
    int64_t extra = cc_randint(&rng, 1, 3);
    for (int i = 0; i < nrooms; i++)
        for (int j = i + 2; j < nrooms; j++) {
            int64_t gap = l->v[LV_ROOM + 4 * i] - l->v[LV_ROOM + 4 * j];
            if ((gap < 0 ? -gap : gap) <= CC_COLUMN_BOUNDS[2]) {
                candidates[ncandidates][0] = i;
                candidates[ncandidates][1] = j;
                ncandidates++;
            }
        }
    for (int i = ncandidates - 1; i > 0; i--) {
        int j = (int)cc_below(&rng, (uint64_t)(i + 1));
        int a = candidates[i][0], b = candidates[i][1];
        candidates[i][0] = candidates[j][0];
        candidates[i][1] = candidates[j][1];
        candidates[j][0] = a;
        candidates[j][1] = b;
    }
    for (int k = 0; k < extra && k < ncandidates; k++, npairs++) {
        pairs[npairs][0] = candidates[k][0];
        pairs[npairs][1] = candidates[k][1];
    }
    uint8_t doors[CC_SIZE];
    memset(doors, 0, sizeof doors);
    int16_t paths[CC_MAX_CORRIDORS][CC_SIZE];
    int lengths[CC_MAX_CORRIDORS];
    for (int p = 0; p < npairs; p++) {
        const int64_t *a = l->v + LV_ROOM + 4 * pairs[p][0], *b = l->v + LV_ROOM + 4 * pairs[p][1];
        int side_a, side_b;
        if (a[2] < b[0]) {
            side_a = 0;
            side_b = 1;
        } else if (b[2] < a[0]) {
            side_a = 1;
            side_b = 0;
        } else if (a[3] < b[1]) {
            side_a = 2;
            side_b = 3;
        } else {
            side_a = 3;
            side_b = 2;
        }
        int door_a, out_a, door_b, out_b;
        cc_door_on(&rng, a, side_a, doors, &door_a, &out_a);
        cc_door_on(&rng, b, side_b, doors, &door_b, &out_b);
        lengths[p] = cc_corridor_path(l, out_a, out_b, paths[p]);
        for (int k = 0; k < lengths[p]; k++) l->terrain[paths[p][k]] = G_CORRIDOR;
        l->terrain[door_a] = G_OPEN;
        l->terrain[door_b] = G_OPEN;
        doors[door_a] = doors[door_b] = 1;
    }
    /* doors open, closed, locked or hidden; some corridor cells hidden */
    for (int c = 0; c < CC_SIZE; c++) {
        if (l->terrain[c] != G_OPEN) continue;
        int64_t roll = cc_below(&rng, 100);
        if (roll < 35) continue;
        l->terrain[c] = G_CLOSED;
        if (roll >= 70 && roll < 85) {
            l->meta[c] |= META_LOCKED;
        } else if (roll >= 85) {
            l->hidden[c] = G_CLOSED;
            const int64_t *r = l->v + LV_ROOM + 4 * (l->owner[c] - 1);
            int x = c % CC_W;
            l->terrain[c] = (x == r[0] || x == r[2]) ? G_WALL_V : G_WALL_H;
        }
    }
    for (int p = 0; p < npairs; p++) {
        if (lengths[p] >= 3 && cc_below(&rng, 5) == 0) {
            int cell = paths[p][cc_randint(&rng, 1, lengths[p] - 2)];
            if (l->terrain[cell] == G_CORRIDOR) {
                l->hidden[cell] = G_CORRIDOR;
                l->terrain[cell] = G_ROCK;
            }
        }
    }
    int up_room = (int)cc_below(&rng, (uint64_t)nrooms);
    int goal_room = (int)((up_room + 1 + cc_below(&rng, (uint64_t)(nrooms - 1))) % nrooms);
    int up = cc_free_cell(&rng, l, &up_room, 1, -1, 0); /* (rooms have 6 floor cells) */
    l->v[LV_UP] = up;
    l->terrain[up] = G_UP;
    int goal = cc_free_cell(&rng, l, &goal_room, 1, -1, 0);
    if (depth < CC_LEVELS) {
        l->v[LV_DOWN] = goal;
        l->terrain[goal] = G_DOWN;
    } else {
        l->v[LV_DOWN] = -1;
        cc_put_item(l, goal, C_COGHEART, 0);
    }
    { /* unhide and unlock one shortest path from < to the goal */
        uint8_t mask[CC_SIZE];
        int16_t parent[CC_SIZE], order[CC_SIZE];
        int target = cc_goal(l);
        cc_passable(l, 0, -1, mask);
        cc_reach(l, up, mask, parent, order);
        for (int cell = target; cell != up; cell = parent[cell]) {
            if (l->hidden[cell]) cc_reveal(l, cell);
            l->meta[cell] &= (uint8_t)~META_LOCKED;
        }
    }
    int blocked = -1, others[CC_MAX_ROOMS], nothers = 0;
    for (int i = 0; i < nrooms; i++)
        if (i != up_room) others[nothers++] = i;
    if (depth == s[CC_ORACLE]) {
        int cell = cc_free_cell(&rng, l, others, nothers, blocked, 1);
        blocked = cell;
        cc_add_monster(l, 0, ORACLE_KIND, cell, 1);
    }
    if (depth >= LAVA_DEPTH) cc_pour_lava(&rng, l, blocked, (int)depth);
    cc_scatter_items(&rng, l, (int)depth);
    cc_place_monsters(&rng, l, others, nothers, (int)depth);
}

/* -- sight ----------------------------------------------------------------------------- */
static inline int cc_can_see(const Lvl *l, int cog, int x, int y) {
    int cx = cog % CC_W, cy = cog / CC_W;
    if (cx - x <= 1 && x - cx <= 1 && cy - y <= 1 && y - cy <= 1) return 1;
    int room = l->owner[cog];
    return room != 0 && l->owner[y * CC_W + x] == room;
}

static inline int cc_cog(const int64_t *s) { return (int)(s[CC_Y] * CC_W + s[CC_X]); }

static void cc_see(int64_t *s, uint8_t *cells) {
    Lvl l = cc_level(s, cells, s[CC_DL]);
    int cog = cc_cog(s), room = l.owner[cog];
    if (room && room <= l.v[LV_ROOMS]) {
        const int64_t *r = l.v + LV_ROOM + 4 * (room - 1);
        for (int64_t y = r[1]; y <= r[3]; y++)
            for (int64_t x = r[0]; x <= r[2]; x++) {
                int c = (int)(y * CC_W + x);
                cc_remember(&l, c, l.icat[c] ? CC_ITEM_GLYPH[l.icat[c]] : l.terrain[c]);
            }
    }
    int near[8], n = cc_neighbours(cog, near, NULL);
    cc_remember(&l, cog, l.icat[cog] ? CC_ITEM_GLYPH[l.icat[cog]] : l.terrain[cog]);
    for (int k = 0; k < n; k++) {
        int c = near[k];
        cc_remember(&l, c, l.icat[c] ? CC_ITEM_GLYPH[l.icat[c]] : l.terrain[c]);
    }
}

/* -- the turn: messages, the end ------------------------------------------------------- */
typedef struct {
    int64_t *s;
    uint8_t *cells;
    int hit;
} Turn;

static void cc_say(int64_t *s, int64_t code, int64_t a, int64_t b) {
    int64_t *m = s + CC_MSG + 3 * (s[CC_MSG_TOTAL] % CC_MESSAGES);
    m[0] = code;
    m[1] = a;
    m[2] = b;
    s[CC_MSG_TOTAL] += 1;
}

static void cc_die(int64_t *s) {
    if (s[CC_HP] > 0) s[CC_HP] = 0;
    s[CC_RUN] = R_DEAD;
    cc_say(s, MS_DIE, 0, 0);
}

static int cc_hunger_of(int64_t nutrition) {
    if (nutrition > 150) return H_NOT_HUNGRY;
    if (nutrition > 50) return H_HUNGRY;
    if (nutrition > 0) return H_WEAK;
    return H_FAINTING;
}

static int64_t cc_armour_class(const int64_t *s) {
    if (s[CC_WORN] < 0) return BASE_AC;
    return BASE_AC - CC_ARMOURS[s[CC_PACKS + 2 * s[CC_WORN] + 1]][0];
}

/* -- combat ---------------------------------------------------------------------------- */
static void cc_gain_experience(int64_t *s, int64_t points) {
    s[CC_XP] += points;
    s[CC_SCORE] += points;
    while (s[CC_XL] < MAX_XL && s[CC_XP] >= ((int64_t)XL_FIRST_STEP << (s[CC_XL] - 1))) {
        s[CC_XL] += 1;
        int64_t gain = cc_rng_randint(s, 1, HP_PER_XL_DIE);
        s[CC_MAXHP] += gain;
        s[CC_HP] += gain;
        cc_say(s, MS_WELCOME_XL, s[CC_XL], 0);
    }
}

static void cc_cog_attacks(Turn *t, Lvl *l, int64_t *m) {
    int64_t *s = t->s;
    int kind = (int)m[M_KIND];
    const int *weapon = s[CC_WIELDED] >= 0 ? CC_WEAPONS[s[CC_PACKS + 2 * s[CC_WIELDED] + 1]] : NULL;
    int64_t to_hit = TO_HIT_BASE + s[CC_XL] + CC_KINDS[kind][K_AC] + (weapon ? weapon[3] : 0);
    if (to_hit <= cc_rng_randint(s, 1, 20)) {
        cc_say(s, MS_MISS, kind, 0);
        return;
    }
    int64_t damage = weapon ? cc_roll(s, weapon[0], weapon[1]) + weapon[2] : cc_roll(s, 1, 2);
    if (cc_hunger_of(s[CC_NUTRITION]) >= H_WEAK) {
        damage /= 2;
        if (damage < 1) damage = 1;
    }
    m[M_HP] -= damage;
    if (m[M_HP] > 0) {
        cc_say(s, MS_HIT, kind, 0);
        return;
    }
    int64_t *end = l->v + LV_MON + l->v[LV_MCOUNT] * M_FIELDS;
    memmove(m, m + M_FIELDS, sizeof(int64_t) * (size_t)(end - m - M_FIELDS));
    l->v[LV_MCOUNT] -= 1;
    cc_say(s, MS_KILL, kind, 0);
    int level = CC_KINDS[kind][K_LEVEL];
    cc_gain_experience(s, 1 + level * level + 2 * (level + 1));
}

static void cc_monster_attacks(Turn *t, const int64_t *m) {
    int64_t *s = t->s;
    int kind = (int)m[M_KIND];
    if (MONSTER_TO_HIT_BASE + CC_KINDS[kind][K_LEVEL] + cc_armour_class(s) <=
        cc_rng_randint(s, 1, 20)) {
        cc_say(s, MS_MONSTER_MISSES, kind, 0);
        return;
    }
    s[CC_HP] -= cc_roll(s, CC_KINDS[kind][K_DICE], CC_KINDS[kind][K_SIDES]);
    t->hit = 1;
    cc_say(s, MS_MONSTER_HITS, kind, 0);
    if (s[CC_HP] <= 0) cc_die(s);
}

/* -- time ------------------------------------------------------------------------------ */
static int cc_free_for_monster(const Lvl *l, int here, int there, int cog) {
    return cc_walkable(l->terrain[there]) && there != cog &&
           cc_step_allowed(l->terrain, here, there) && cc_monster_at(l, there) == NULL;
}

static void cc_monsters_act(Turn *t) {
    int64_t *s = t->s;
    Lvl l = cc_level(s, t->cells, s[CC_DL]);
    int cog = cc_cog(s);
    int64_t sx = s[CC_X], sy = s[CC_Y];
    /* the monsters as the turn began to act (none is removed while they act) */
    int64_t count = l.v[LV_MCOUNT];
    for (int64_t k = 0; k < count; k++) {
        int64_t *m = l.v + LV_MON + k * M_FIELDS;
        const int *kind = CC_KINDS[m[M_KIND]];
        if (kind[K_PEACEFUL]) continue;
        int cell = (int)(m[M_Y] * CC_W + m[M_X]);
        int64_t dx = m[M_X] - sx, dy = m[M_Y] - sy;
        if (dx <= 1 && -dx <= 1 && dy <= 1 && -dy <= 1) {
            if (cc_step_allowed(l.terrain, cell, cog)) {
                cc_monster_attacks(t, m);
                if (s[CC_RUN] != R_PLAYING) return;
            }
            continue;
        }
        if (!kind[K_MOVES]) continue;
        int near[8], n;
        if (cc_can_see(&l, cog, (int)m[M_X], (int)m[M_Y])) {
            n = cc_neighbours(cell, near, NULL);
            int64_t best_c = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
            int64_t best_m = best_c + ady;
            if (ady > best_c) best_c = ady;
            int target = -1;
            for (int j = 0; j < n; j++) {
                int there = near[j];
                if (!cc_free_for_monster(&l, cell, there, cog)) continue;
                int64_t ex = there % CC_W - sx, ey = there / CC_W - sy;
                if (ex < 0) ex = -ex;
                if (ey < 0) ey = -ey;
                int64_t c = ex > ey ? ex : ey, man = ex + ey;
                if (c < best_c || (c == best_c && man < best_m)) {
                    best_c = c;
                    best_m = man;
                    target = there;
                }
            }
            if (target >= 0) {
                m[M_X] = target % CC_W;
                m[M_Y] = target / CC_W;
            }
        } else if (cc_rng_below(s, WANDER_ODDS) == 0) {
            int options[8], count_options = 0;
            n = cc_neighbours(cell, near, NULL);
            for (int j = 0; j < n; j++)
                if (cc_free_for_monster(&l, cell, near[j], cog)) options[count_options++] = near[j];
            if (count_options) {
                int target = options[cc_rng_below(s, (uint64_t)count_options)];
                m[M_X] = target % CC_W;
                m[M_Y] = target / CC_W;
            }
        }
    }
}

static int64_t cc_hunger(int64_t *s, int can_faint) {
    int before = cc_hunger_of(s[CC_NUTRITION]);
    s[CC_NUTRITION] -= 1;
    int after = cc_hunger_of(s[CC_NUTRITION]);
    if (s[CC_NUTRITION] < STARVED_BELOW) {
        cc_say(s, MS_STARVE, 0, 0);
        cc_die(s);
        return 0;
    }
    if (after != before) cc_say(s, MS_HUNGER, after, 0);
    if (can_faint && after == H_FAINTING && cc_rng_below(s, FAINT_ODDS) == 0) {
        cc_say(s, MS_FAINT, 0, 0);
        return cc_rng_randint(s, 2, 5);
    }
    return 0;
}

static void cc_pass_time(Turn *t, int64_t turns) {
    int64_t *s = t->s, remaining = turns, fainted = 0;
    while (remaining > 0 && s[CC_RUN] == R_PLAYING) {
        remaining -= 1;
        cc_monsters_act(t);
        if (s[CC_RUN] != R_PLAYING) return;
        s[CC_DTURN] += 1;
        if (s[CC_CONFUSED]) s[CC_CONFUSED] -= 1;
        int64_t lost = cc_hunger(s, fainted == 0);
        if (fainted) fainted -= 1;
        fainted += lost;
        remaining += lost;
        if (s[CC_RUN] != R_PLAYING) return;
        if (s[CC_HP] < s[CC_MAXHP] && s[CC_DTURN] % (REGEN_NUMERATOR / (s[CC_XL] + 2) + 1) == 0)
            s[CC_HP] += 1;
        if (s[CC_DTURN] >= TURN_LIMIT) {
            s[CC_RUN] = R_OUT_OF_TURNS;
            cc_say(s, MS_TURN_LIMIT, 0, 0);
        }
    }
}

/* -- the primitives: each returns a failure's reason code (its arguments in *a, *b), or
 * -1 when it was carried out ------------------------------------------------------------ */
#define DONE (-1)

static void cc_enter(Turn *t, int64_t depth, int going_down) {
    int64_t *s = t->s;
    Lvl l = cc_level(s, t->cells, depth);
    if (!l.v[LV_PRESENT]) cc_generate(s, t->cells, depth);
    s[CC_DL] = depth;
    int arrival = (int)(going_down ? l.v[LV_UP] : l.v[LV_DOWN]);
    s[CC_X] = arrival % CC_W;
    s[CC_Y] = arrival / CC_W;
    int64_t *m = cc_monster_at(&l, arrival);
    if (m != NULL) { /* make room: the nearest free walkable cell */
        uint8_t mask[CC_SIZE];
        int16_t parent[CC_SIZE], order[CC_SIZE];
        for (int c = 0; c < CC_SIZE; c++) mask[c] = cc_walkable(l.terrain[c]);
        int count = cc_reach(&l, arrival, mask, parent, order);
        for (int k = 0; k < count; k++)
            if (order[k] != arrival && cc_monster_at(&l, order[k]) == NULL) {
                m[M_X] = order[k] % CC_W;
                m[M_Y] = order[k] / CC_W;
                break;
            }
    }
    if (depth > s[CC_DEEPEST]) {
        s[CC_DEEPEST] = depth;
        s[CC_SCORE] += LEVEL_BONUS;
        cc_say(s, MS_REACH, depth, 0);
    }
    cc_see(s, t->cells);
    cc_pass_time(t, 1);
}

static int cc_move(Turn *t, Lvl *l, int direction, int64_t *a) {
    int64_t *s = t->s;
    int staggered = s[CC_CONFUSED] > 0 && cc_rng_below(s, STAGGER_ODDS) == 0;
    if (staggered) direction = (int)cc_rng_below(s, 8);
    int dx = CC_DX[direction], dy = CC_DY[direction];
    int64_t x = s[CC_X] + dx, y = s[CC_Y] + dy;
    if (x < 0 || x >= CC_W || y < 0 || y >= CC_H) return MS_EDGE;
    int here = cc_cog(s), there = (int)(y * CC_W + x);
    if (dx && dy && !cc_step_allowed(l->terrain, here, there)) return MS_DIAGONAL;
    int64_t *m = cc_monster_at(l, there);
    if (m != NULL) {
        if (CC_KINDS[m[M_KIND]][K_PEACEFUL]) {
            *a = m[M_KIND];
            return MS_IN_WAY;
        }
        cc_cog_attacks(t, l, m);
        cc_pass_time(t, 1);
        return DONE;
    }
    uint8_t glyph = l->terrain[there];
    if (glyph == G_CLOSED) {
        if (l->meta[there] & META_LOCKED) return MS_LOCKED;
        l->terrain[there] = G_OPEN;
        cc_say(s, MS_DOOR_OPENS, 0, 0);
        cc_pass_time(t, 1);
        return DONE;
    }
    if (glyph == G_LAVA) {
        if (staggered) return MS_STAGGER;
        s[CC_X] = x;
        s[CC_Y] = y;
        cc_say(s, MS_LAVA, 0, 0);
        cc_die(s);
        return DONE;
    }
    if (!cc_walkable(glyph)) return glyph == G_ROCK ? MS_ROCK : MS_WALL;
    s[CC_X] = x;
    s[CC_Y] = y;
    if (l->icat[there]) cc_say(s, MS_SEE_HERE, l->icat[there], l->iidx[there]);
    cc_pass_time(t, 1);
    return DONE;
}

static int cc_search(Turn *t, Lvl *l) {
    int64_t *s = t->s;
    int near[8], n = cc_neighbours(cc_cog(s), near, NULL);
    for (int k = 0; k < n; k++) {
        int cell = near[k];
        if (!l->hidden[cell]) continue;
        int count = (l->meta[cell] & META_SEARCHES) + 1;
        if (count < SEARCH_FINDS_ON) {
            l->meta[cell] = (uint8_t)((l->meta[cell] & ~META_SEARCHES) | count);
            continue;
        }
        uint8_t found = l->hidden[cell];
        cc_reveal(l, cell);
        cc_say(s, found == G_CLOSED ? MS_FIND_DOOR : MS_FIND_PASSAGE, 0, 0);
    }
    cc_pass_time(t, 1);
    return DONE;
}

static int cc_free_letter(const int64_t *s) {
    for (int k = 0; k < CC_PACK; k++)
        if (!s[CC_PACKS + 2 * k]) return k;
    return -1;
}

static int cc_pickup(Turn *t, Lvl *l) {
    int64_t *s = t->s;
    int cog = cc_cog(s), category = l->icat[cog], index = l->iidx[cog], left = 0;
    if (!category) return MS_NOTHING;
    if (category == C_GOLD) {
        s[CC_GOLD] += index;
        s[CC_SCORE] += index;
        cc_say(s, MS_GOLD, index, 0);
    } else {
        int letter = cc_free_letter(s);
        if (category == C_COGHEART) {
            if (letter >= 0) {
                s[CC_PACKS + 2 * letter] = category;
                s[CC_PACKS + 2 * letter + 1] = index;
            }
            s[CC_SCORE] += COGHEART_BONUS;
            s[CC_RUN] = R_WON;
            cc_say(s, MS_COGHEART, 0, 0);
        } else if (letter < 0) {
            left = 1;
            cc_say(s, MS_PACK_FULL, category, index);
        } else {
            s[CC_PACKS + 2 * letter] = category;
            s[CC_PACKS + 2 * letter + 1] = index;
            cc_say(s, MS_PACKED, letter, category * 256 + index);
        }
    }
    if (!left) cc_put_item(l, cog, C_NONE, 0);
    if (s[CC_RUN] == R_PLAYING) cc_pass_time(t, 1);
    return DONE;
}

/* eat, quaff, wield, wear (``use`` 0..3) of pack letter ``letter`` (in the pack) */
static int cc_use(Turn *t, Lvl *l, int use, int letter, int64_t *a, int64_t *b) {
    static const int wanted[4] = {C_FOOD, C_POTION, C_WEAPON, C_ARMOUR};
    int64_t *s = t->s, *slot = s + CC_PACKS + 2 * letter;
    int category = (int)slot[0], index = (int)slot[1];
    if (category != wanted[use]) {
        *a = use;
        *b = category * 256 + index;
        return MS_CANNOT;
    }
    if (use == 0) {
        slot[0] = slot[1] = 0;
        s[CC_NUTRITION] += CC_FOOD_NUTRITION[index];
        if (s[CC_NUTRITION] > NUTRITION_CAP) s[CC_NUTRITION] = NUTRITION_CAP;
        cc_say(s, MS_EAT, index, 0);
        cc_pass_time(t, CC_FOOD_TURNS[index]);
        return DONE;
    }
    if (use == 1) {
        int64_t extra = 0;
        slot[0] = slot[1] = 0;
        cc_say(s, MS_DRINK, index, s[CC_IDENT + index]);
        s[CC_IDENT + index] = 1;
        if (index <= 1) {
            s[CC_HP] += index == 0 ? cc_roll(s, 6, 4) : cc_roll(s, 6, 8);
            if (s[CC_HP] > s[CC_MAXHP]) {
                s[CC_MAXHP] += index == 0 ? 1 : 2;
                s[CC_HP] = s[CC_MAXHP];
            }
            cc_say(s, MS_BETTER, 0, 0);
        } else if (index == 2) {
            extra = cc_rng_randint(s, 5, 14);
            cc_say(s, MS_ASLEEP, 0, 0);
        } else if (index == 3) {
            s[CC_CONFUSED] += cc_rng_randint(s, 5, 14);
            cc_say(s, MS_CONFUSED, 0, 0);
        } else if (index == 4) {
            for (int c = 0; c < CC_SIZE; c++)
                if (l->icat[c]) cc_remember(l, c, CC_ITEM_GLYPH[l->icat[c]]);
            cc_say(s, MS_OBJECTS, 0, 0);
        } else {
            for (int c = 0; c < CC_SIZE; c++)
                if (l->memory[c] == G_ROCK) cc_remember(l, c, l->terrain[c]);
            cc_say(s, MS_MAP, 0, 0);
        }
        cc_pass_time(t, 1 + extra);
        return DONE;
    }
    int64_t *held = s + (use == 2 ? CC_WIELDED : CC_WORN);
    if (*held == letter) {
        *a = use;
        *b = category * 256 + index;
        return MS_ALREADY;
    }
    *held = letter;
    if (use == 2)
        cc_say(s, MS_WIELD, letter, index);
    else
        cc_say(s, MS_WEAR, index, 0);
    cc_pass_time(t, 1);
    return DONE;
}

static int cc_kick(Turn *t, Lvl *l, int direction) {
    int64_t *s = t->s;
    if (cc_hunger_of(s[CC_NUTRITION]) >= H_WEAK) return MS_WEAK;
    int dx = CC_DX[direction], dy = CC_DY[direction];
    if (dx && dy) return MS_KICK_DIAGONAL;
    int64_t x = s[CC_X] + dx, y = s[CC_Y] + dy;
    int cell = (int)(y * CC_W + x);
    if (x < 0 || x >= CC_W || y < 0 || y >= CC_H || l->terrain[cell] != G_CLOSED)
        return MS_NO_DOOR;
    if (cc_rng_below(s, KICK_ODDS) == 0) {
        l->terrain[cell] = G_OPEN;
        l->meta[cell] &= (uint8_t)~META_LOCKED;
        cc_say(s, MS_WHAMM_OPEN, 0, 0);
    } else {
        cc_say(s, MS_WHAMM, 0, 0);
    }
    cc_pass_time(t, 1);
    return DONE;
}

/* the 8-way direction of a vector: straight when one axis is over twice the other */
static int cc_compass(int64_t dx, int64_t dy) {
    int64_t ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
    if (ax > 2 * ay) return dx < 0 ? 3 : 2;
    if (ay > 2 * ax) return dy < 0 ? 0 : 1;
    if (dy < 0) return dx < 0 ? 5 : 4;
    return dx < 0 ? 7 : 6;
}

static int cc_chat(Turn *t, Lvl *l, int direction, int64_t *a) {
    int64_t *s = t->s;
    /* the cell as the rules index it: off the map's side it runs on to the next row */
    int64_t cell = (s[CC_Y] + CC_DY[direction]) * CC_W + s[CC_X] + CC_DX[direction];
    int64_t x = ((cell % CC_W) + CC_W) % CC_W, y = (cell - x) / CC_W;
    int64_t *m = NULL, *each = l->v + LV_MON;
    for (int64_t k = 0; k < l->v[LV_MCOUNT]; k++, each += M_FIELDS)
        if (each[M_X] == x && each[M_Y] == y) {
            m = each;
            break;
        }
    if (m == NULL || m[M_KIND] != ORACLE_KIND) return MS_NOBODY;
    if (s[CC_GOLD] < ORACLE_FEE) {
        *a = s[CC_GOLD];
        return MS_FEE;
    }
    s[CC_GOLD] -= ORACLE_FEE;
    int64_t answer = -2, down = l->v[LV_DOWN];
    if (down >= 0) {
        int64_t dx = down % CC_W - s[CC_X], dy = down / CC_W - s[CC_Y];
        answer = dx == 0 && dy == 0 ? -1 : cc_compass(dx, dy);
    }
    cc_say(s, MS_ORACLE, answer, 0);
    cc_pass_time(t, 1);
    return DONE;
}

static int cc_run(Turn *t, int64_t action, int64_t *a, int64_t *b) {
    int64_t *s = t->s;
    Lvl l = cc_level(s, t->cells, s[CC_DL]);
    if (action < A_KICK) return cc_move(t, &l, (int)action, a);
    if (action < A_CHAT) return cc_kick(t, &l, (int)(action - A_KICK));
    if (action < A_SEARCH) return cc_chat(t, &l, (int)(action - A_CHAT), a);
    if (action == A_SEARCH) return cc_search(t, &l);
    if (action == A_WAIT) {
        cc_pass_time(t, 1);
        return DONE;
    }
    if (action == A_PICKUP) return cc_pickup(t, &l);
    if (action == A_DOWN) {
        if (l.terrain[cc_cog(s)] != G_DOWN) return MS_NO_DOWN;
        cc_enter(t, s[CC_DL] + 1, 1);
        return DONE;
    }
    if (action == A_UP) {
        if (l.terrain[cc_cog(s)] != G_UP) return MS_NO_UP;
        if (s[CC_DL] == 1) {
            s[CC_RUN] = R_LEFT;
            cc_say(s, MS_CLIMB_OUT, 0, 0);
            return DONE;
        }
        cc_enter(t, s[CC_DL] - 1, 0);
        return DONE;
    }
    int64_t use = (action - A_EAT) / CC_PACK, letter = (action - A_EAT) % CC_PACK;
    return cc_use(t, &l, (int)use, (int)letter, a, b);
}

/* the idents of the monsters in view (a bit each: idents stay below 64) */
static uint64_t cc_in_view(const int64_t *s, uint8_t *cells) {
    Lvl l = cc_level((int64_t *)s, cells, s[CC_DL]);
    int cog = cc_cog(s);
    uint64_t seen = 0;
    const int64_t *m = l.v + LV_MON;
    for (int64_t k = 0; k < l.v[LV_MCOUNT]; k++, m += M_FIELDS)
        if (cc_can_see(&l, cog, (int)m[M_X], (int)m[M_Y])) seen |= 1ULL << m[M_IDENT];
    return seen;
}

/* a fresh run on game seed ``seed`` */
static void cc_reset(int64_t *s, uint8_t *cells, const int64_t *table, const uint8_t *layouts,
                     int64_t ncells, int64_t seed) {
    memset(s, 0, sizeof(int64_t) * CC_STATE);
    memset(cells, 0, CC_CELLS);
    s[CC_SEED] = seed;
    s[CC_RNG] = (int64_t)cc_from_seed(seed, 0, 0);
    s[CC_DL] = 1;
    s[CC_HP] = s[CC_MAXHP] = START_HP;
    s[CC_XL] = 1;
    s[CC_NUTRITION] = START_NUTRITION;
    s[CC_DEEPEST] = 1;
    s[CC_EXECUTED] = s[CC_DROPPED] = -1;
    { /* the run's potion looks, and the Oracle's level */
        uint64_t rng = cc_from_seed(seed, 1, APPEARANCE_STREAM);
        int looks[APPEARANCES];
        for (int k = 0; k < APPEARANCES; k++) looks[k] = k;
        cc_shuffle(&rng, looks, APPEARANCES);
        for (int k = 0; k < CC_POTIONS; k++) s[CC_APPEAR + k] = looks[k];
        rng = cc_from_seed(seed, 1, 0);
        s[CC_ORACLE] = 2 + cc_below(&rng, 4);
    }
    cc_generate(s, cells, 1);
    Lvl l = cc_level(s, cells, 1);
    s[CC_X] = l.v[LV_UP] % CC_W;
    s[CC_Y] = l.v[LV_UP] / CC_W;
    static const int kit[4][2] = {{C_WEAPON, 0}, {C_ARMOUR, 0}, {C_FOOD, 0}, {C_FOOD, 0}};
    for (int k = 0; k < 4; k++) {
        s[CC_PACKS + 2 * k] = kit[k][0];
        s[CC_PACKS + 2 * k + 1] = kit[k][1];
    }
    s[CC_WIELDED] = 0;
    s[CC_WORN] = 1;
    cc_say(s, MS_WELCOME, 0, 0);
    cc_see(s, cells);
}

/* one seat turn of one primitive: the reward, or -1 when the run is over (refused) */
static int64_t cc_step(int64_t *s, uint8_t *cells, const int64_t *table, const uint8_t *layouts,
                       int64_t ncells, int64_t action) {
    if (s[CC_RUN] != R_PLAYING) return -1;
    int64_t before = s[CC_SCORE], start = s[CC_DL];
    if (action < 0 || action >= CC_ACTIONS) return -1;
    s[CC_MSG_TOTAL] = 0;
    s[CC_DROPPED] = -1;
    s[CC_INTR] = I_NONE;
    if (action >= A_EAT && !s[CC_PACKS + 2 * ((action - A_EAT) % CC_PACK)]) {
        s[CC_DROPPED] = action; /* no such item in the pack: the turn passes as a wait */
        action = A_WAIT;
    }
    uint64_t seen = cc_in_view(s, cells);
    Turn t = {s, cells, 0};
    int64_t a = 0, b = 0;
    int reason = cc_run(&t, action, &a, &b);
    if (reason != DONE) {
        cc_say(s, reason, a, b); /* the reason, said as a message */
        s[CC_EXECUTED] = -1;
        s[CC_INTR] = I_FAILED;
        s[CC_INTR_A] = action;
        s[CC_INTR_CODE] = reason;
        s[CC_INTR_X] = a;
        s[CC_INTR_Y] = b;
    } else {
        cc_see(s, cells);
        s[CC_EXECUTED] = action;
        if (s[CC_RUN] == R_PLAYING) {
            if (t.hit) {
                s[CC_INTR] = I_HIT;
            } else {
                Lvl l = cc_level(s, cells, s[CC_DL]);
                int cog = cc_cog(s);
                const int64_t *m = l.v + LV_MON;
                for (int64_t k = 0; k < l.v[LV_MCOUNT]; k++, m += M_FIELDS)
                    if (cc_can_see(&l, cog, (int)m[M_X], (int)m[M_Y]) &&
                        (s[CC_DL] != start || !(seen >> m[M_IDENT] & 1))) {
                        s[CC_INTR] = I_VIEW;
                        s[CC_INTR_A] = m[M_KIND];
                        break;
                    }
            }
        }
    }
    s[CC_TURN] += 1;
    return s[CC_SCORE] - before;
}

/* the observation record (the drawn map's category ids, the cog's x and y, the 11 stats,
 * the pack) and the mask row */
/* the record's offsets, and 1 to leave ``up`` out of the mask on the first level, where it
 * ends the run (0 to keep it) */
enum { CCP_MAP_AT, CCP_POSITION_AT, CCP_STATS_AT, CCP_PACK_AT, CCP_HIDE_UP, CCP_PARAMS };

static inline float cc_unit(double value) {
    return (float)(value < 0.0 ? 0.0 : value > 1.0 ? 1.0 : value);
}

static void cc_observe(const int64_t *s, const uint8_t *cells, const int64_t *table,
                       const int64_t *params, uint8_t *record, int8_t *mask) {
    Lvl l = cc_level((int64_t *)s, (uint8_t *)cells, s[CC_DL]);
    int cog = cc_cog(s);
    uint8_t *map = record + params[CCP_MAP_AT];
    memcpy(map, l.codes, CC_SIZE);
    const int64_t *m = l.v + LV_MON;
    for (int64_t k = 0; k < l.v[LV_MCOUNT]; k++, m += M_FIELDS)
        if (cc_can_see(&l, cog, (int)m[M_X], (int)m[M_Y]))
            map[m[M_Y] * CC_W + m[M_X]] = CC_MONSTER_CODES[m[M_KIND]];
    map[cog] = COG_CODE;
    int16_t position[2] = {(int16_t)s[CC_X], (int16_t)s[CC_Y]};
    memcpy(record + params[CCP_POSITION_AT], position, sizeof position);
    float stats[11] = {
        (float)((double)s[CC_DL] / CC_LEVELS),
        cc_unit((double)s[CC_HP] / (double)s[CC_MAXHP]),
        cc_unit((double)s[CC_MAXHP] / 100.0),
        (float)((double)s[CC_XL] / MAX_XL),
        cc_unit((double)(cc_armour_class(s) + 10) / 30.0),
        cc_unit((double)s[CC_GOLD] / 1000.0),
        (float)((double)cc_hunger_of(s[CC_NUTRITION]) / 3.0),
        s[CC_CONFUSED] > 0 ? 1.0f : 0.0f,
        cc_unit((double)s[CC_DTURN] / TURN_LIMIT),
        cc_unit((double)s[CC_SCORE] / 10000.0),
        (float)((double)s[CC_DEEPEST] / CC_LEVELS),
    };
    memcpy(record + params[CCP_STATS_AT], stats, sizeof stats);
    uint8_t *pack = record + params[CCP_PACK_AT];
    for (int k = 0; k < CC_PACK; k++) pack[k] = (uint8_t)s[CC_PACKS + 2 * k];
    memset(mask, 0, CC_ACTIONS);
    if (s[CC_RUN] != R_PLAYING) return;
    int near[8], dirs[8], n = cc_neighbours(cog, near, dirs);
    int weak = cc_hunger_of(s[CC_NUTRITION]) >= H_WEAK;
    for (int k = 0; k < n; k++) {
        int cell = near[k], d = dirs[k], diagonal = d >= 4;
        const int64_t *there = cc_monster_at(&l, cell);
        if (there != NULL && CC_KINDS[there[M_KIND]][K_PEACEFUL]) {
            mask[A_CHAT + d] = 1;
            continue;
        }
        if (diagonal && !cc_step_allowed(l.terrain, cog, cell)) continue;
        uint8_t glyph = l.memory[cell];
        if (there != NULL || cc_walkable(glyph) || cc_item_glyph(glyph)) {
            mask[A_MOVE + d] = 1;
        } else if (glyph == G_CLOSED) {
            mask[A_MOVE + d] = 1;
            if (!diagonal && !weak) mask[A_KICK + d] = 1;
        }
    }
    mask[A_SEARCH] = mask[A_WAIT] = 1;
    mask[A_PICKUP] = l.icat[cog] != 0;
    mask[A_DOWN] = l.terrain[cog] == G_DOWN;
    mask[A_UP] = l.terrain[cog] == G_UP && !(params[CCP_HIDE_UP] && s[CC_DL] == 1);
    /* eat, quaff, wield, wear: each letter holding what that use takes (not the weapon
     * wielded, not the armour worn); a letter of none of them (most are empty) is passed
     * over at one look */
    static const int8_t USE_OF[C_COGHEART + 1] = {-1, -1, 0, 1, 2, 3, -1};
    for (int k = 0; k < CC_PACK; k++) {
        int use = USE_OF[s[CC_PACKS + 2 * k]];
        if (use < 0) continue;
        if ((use == 2 && s[CC_WIELDED] == k) || (use == 3 && s[CC_WORN] == k)) continue;
        mask[A_EAT + use * CC_PACK + k] = 1;
    }
}

static int cc_over(const int64_t *s) { return s[CC_RUN] != R_PLAYING; }

/* the run's progress as view.progress gives it: 1 once won, else the deepest level
 * reached less one, over ten */
static double cc_progress(const int64_t *s, const uint8_t *cells, const int64_t *table,
                          const int64_t *params, int64_t origin) {
    return s[CC_RUN] == R_WON ? 1.0 : (double)(s[CC_DEEPEST] - 1) / CC_LEVELS;
}

/* -- the binding's checks: what is wrong, or NULL -------------------------------------- */
static const char *cc_table_error(const int64_t *t, Py_ssize_t levels, Py_ssize_t cells) {
    return cells < CC_CELLS ? "the cells are too few for the dungeon's levels" : NULL;
}

static const char *cc_env_error(const int64_t *s, const int64_t *t, Py_ssize_t levels,
                                Py_ssize_t cells) {
    if (s[CC_RUN] < R_PLAYING || s[CC_RUN] > R_OUT_OF_TURNS) return "an env's run state is unknown";
    if (s[CC_DL] < 1 || s[CC_DL] > CC_LEVELS || s[CC_DEEPEST] < 1 || s[CC_DEEPEST] > CC_LEVELS)
        return "an env's level is off the dungeon";
    if (s[CC_X] < 0 || s[CC_X] >= CC_W || s[CC_Y] < 0 || s[CC_Y] >= CC_H)
        return "an env's cog is off the map";
    if (s[CC_XL] < 1 || s[CC_XL] > MAX_XL || s[CC_MAXHP] < 1) return "an env's figures are wrong";
    if (s[CC_ORACLE] < 2 || s[CC_ORACLE] > 5) return "an env's Oracle level is wrong";
    if (s[CC_WIELDED] < -1 || s[CC_WIELDED] >= CC_PACK || s[CC_WORN] < -1 || s[CC_WORN] >= CC_PACK)
        return "an env's wielded or worn letter is off the pack";
    if (s[CC_WIELDED] >= 0 && s[CC_PACKS + 2 * s[CC_WIELDED]] != C_WEAPON)
        return "an env wields what is not a weapon";
    if (s[CC_WORN] >= 0 && s[CC_PACKS + 2 * s[CC_WORN]] != C_ARMOUR)
        return "an env wears what is not armour";
    for (int k = 0; k < CC_PACK; k++) {
        int64_t category = s[CC_PACKS + 2 * k], index = s[CC_PACKS + 2 * k + 1];
        static const int limits[7] = {1, 1 << 30, 6, 6, 7, 6, 1};
        if (category < C_NONE || category > C_COGHEART || index < 0 || index >= limits[category])
            return "an env's pack holds an unknown item";
    }
    for (int k = 0; k < CC_POTIONS; k++)
        if (s[CC_APPEAR + k] < 0 || s[CC_APPEAR + k] >= APPEARANCES)
            return "an env's potion looks are unknown";
    /* the levels a call reads: the current one and the two its stairs lead to (a step
     * enters no other; the call that reaches one of them checks the next) */
    int64_t first = s[CC_DL] - 2 < 0 ? 0 : s[CC_DL] - 2;
    int64_t last = s[CC_DL] < CC_LEVELS ? s[CC_DL] : CC_LEVELS - 1;
    for (int64_t d = first; d <= last; d++) {
        const int64_t *v = s + CC_LEVEL + d * LV_WIDTH;
        if (!v[LV_PRESENT]) {
            if (d + 1 == s[CC_DL]) return "an env's current level is not there";
            continue;
        }
        if (v[LV_ROOMS] < 1 || v[LV_ROOMS] > CC_MAX_ROOMS || v[LV_MCOUNT] < 0 ||
            v[LV_MCOUNT] > CC_MAX_MONSTERS)
            return "an env's level holds too many rooms or monsters";
        for (int r = 0; r < v[LV_ROOMS]; r++) {
            const int64_t *room = v + LV_ROOM + 4 * r;
            if (room[0] < 0 || room[0] >= room[2] || room[2] >= CC_W || room[1] < 0 ||
                room[1] >= room[3] || room[3] >= CC_H)
                return "an env's room is off the map";
        }
        if (v[LV_UP] < 0 || v[LV_UP] >= CC_SIZE || v[LV_DOWN] < -1 || v[LV_DOWN] >= CC_SIZE ||
            (v[LV_DOWN] < 0) != (d + 1 == CC_LEVELS))
            return "an env's stairs are off the map";
        const int64_t *m = v + LV_MON;
        for (int k = 0; k < v[LV_MCOUNT]; k++, m += M_FIELDS)
            if (m[M_KIND] < 0 || m[M_KIND] > ORACLE_KIND || m[M_X] < 0 || m[M_X] >= CC_W ||
                m[M_Y] < 0 || m[M_Y] >= CC_H || m[M_IDENT] < 0 || m[M_IDENT] >= 64)
                return "an env's monster is off the map";
    }
    return NULL;
}

static const char *cc_start_error(int64_t seed, Py_ssize_t levels) {
    return seed < 0 ? "a seed is negative" : NULL;
}

static const char *cc_record_error(const int64_t *p, Py_ssize_t record) {
    for (int k = 0; k < CCP_PARAMS; k++)
        if (p[k] < 0) return "the observation record does not fit its parameters";
    if (p[CCP_MAP_AT] + CC_SIZE > record || p[CCP_POSITION_AT] + 4 > record ||
        p[CCP_STATS_AT] + 44 > record || p[CCP_PACK_AT] + CC_PACK > record)
        return "the observation record does not fit its parameters";
    if (p[CCP_HIDE_UP] > 1) return "whether to hide the first level's up is neither 0 nor 1";
    return NULL;
}

#endif
