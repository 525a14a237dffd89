/* Gem Swap's board in C, for gemswap.h: lines and legal swaps found on a 64-bit mask a
 * colour (bit k for cell k), a dealt board, a reshuffle, gems falling and dropping in,
 * and the SplitMix64 draws they take (playbench/core/rng.py; the mix is chimestep.h's).
 * The reference is playbench/games/gemswap/board.py.
 */
#ifndef PLAYBENCH_GEMSWAP_BOARD_H
#define PLAYBENCH_GEMSWAP_BOARD_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "chimestep.h"

enum { GK_PLAIN, GK_ROW, GK_COLUMN, GK_AREA, GK_BOMB, GK_KINDS };

#define GS_SIDE 8
#define GS_CELLS 64
#define GS_BOARD (2 * GS_CELLS)
#define GS_COLORS 7
#define GS_NO_COLOR 7
#define GS_MIN_LINE 3
#define GS_RESHUFFLE_TRIES 200
/* the swaps of neighbours in board order (right before down) */
#define GS_SWAPS 112
/* at most two lines a row or a column */
#define GS_RUNS_MAX (4 * GS_SIDE)

/* the swaps' cells, whether each is the swap down, and each cell's area bomb square,
 * filled once by gs_init */
static int GS_A[GS_SWAPS], GS_B[GS_SWAPS], GS_DOWN[GS_SWAPS];
static uint64_t GS_AREA[GS_CELLS];
/* cells by column: from the third on, up to the fifth, the sixth, the seventh, from the
 * second to the seventh; and the cells above the last row */
static uint64_t GS_FROM_C3, GS_UP_TO_C5, GS_UP_TO_C6, GS_UP_TO_C7, GS_INNER_C, GS_UPPER;

static void gs_init(void) {
    int k = 0;
    for (int cell = 0; cell < GS_CELLS; cell++) {
        int row = cell / GS_SIDE, col = cell % GS_SIDE;
        if (col < GS_SIDE - 1) {
            GS_A[k] = cell;
            GS_DOWN[k] = 0;
            GS_B[k++] = cell + 1;
        }
        if (row < GS_SIDE - 1) {
            GS_A[k] = cell;
            GS_DOWN[k] = 1;
            GS_B[k++] = cell + GS_SIDE;
        }
        GS_AREA[cell] = 0;
        for (int r = row - 1; r <= row + 1; r++)
            for (int c = col - 1; c <= col + 1; c++)
                if (0 <= r && r < GS_SIDE && 0 <= c && c < GS_SIDE)
                    GS_AREA[cell] |= 1ULL << (r * GS_SIDE + c);
    }
    GS_FROM_C3 = GS_UP_TO_C5 = GS_UP_TO_C6 = GS_UP_TO_C7 = GS_INNER_C = 0;
    for (int col = 0; col < GS_SIDE; col++) {
        uint64_t column = 0x0101010101010101ULL << col;
        if (col >= 2) GS_FROM_C3 |= column;
        if (col <= GS_SIDE - 4) GS_UP_TO_C5 |= column;
        if (col <= GS_SIDE - 3) GS_UP_TO_C6 |= column;
        if (col <= GS_SIDE - 2) GS_UP_TO_C7 |= column;
        if (1 <= col && col <= GS_SIDE - 2) GS_INNER_C |= column;
    }
    GS_UPPER = ~0ULL >> GS_SIDE;
}

/* -- the generator: Rng.next_u64 and Rng.below ------------------------------------------ */
static inline int gs_below(uint64_t *rng, uint64_t n) {
    uint64_t rest = (0 - n) % n, value;
    for (;;) {
        *rng += GOLDEN_GAMMA;
        value = cs_mix(*rng);
        if (rest == 0 || value < 0 - rest) return (int)(value % n);
    }
}

/* -- lines ------------------------------------------------------------------------------ */
/* a line of 3+ of one colour: its cells are first, first + step, ... (step 1 or 8) */
typedef struct {
    int first, length, step;
} Run;

/* one mask a colour (and the colour bombs' as colour 7): bit k for cell k; with SSE2 (every
 * x86-64) sixteen cells a compare, else a cell at a time */
static inline void gs_boards(const uint8_t *colors, uint64_t *boards) {
#if defined(__SSE2__)
    __m128i quarters[GS_CELLS / 16];
    for (int k = 0; k < GS_CELLS / 16; k++)
        quarters[k] = _mm_loadu_si128((const __m128i *)(colors + 16 * k));
    for (int color = 0; color <= GS_NO_COLOR; color++) {
        __m128i wanted = _mm_set1_epi8((char)color);
        uint64_t board = 0;
        for (int k = 0; k < GS_CELLS / 16; k++)
            board |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(quarters[k], wanted))
                     << (16 * k);
        boards[color] = board;
    }
#else
    memset(boards, 0, sizeof(uint64_t) * (GS_COLORS + 1));
    for (int cell = 0; cell < GS_CELLS; cell++)
        if (colors[cell] <= GS_NO_COLOR) boards[colors[cell]] |= 1ULL << cell;
#endif
}

/* the legal swaps of a still board (board._swap_flags, a bit a cell where Python has a
 * byte): bit x of ``*across`` for the swap of x with x + 1, of ``*down`` with x + 8 */
static void gs_swap_flags(const uint8_t *colors, uint64_t *across, uint64_t *down) {
    uint64_t boards[GS_COLORS + 1], right = 0, below = 0;
    gs_boards(colors, boards);
    for (int color = 0; color < GS_COLORS; color++) {
        uint64_t h = boards[color];
        if (!h) continue;
        uint64_t on1 = h >> 1, on2 = h >> 2, on8 = h >> 8, on9 = h >> 9, on16 = h >> 16;
        uint64_t back1 = h << 1, back2 = h << 2, back8 = h << 8, back16 = h << 16;
        right |= (on1 & ((back1 & back2 & GS_FROM_C3) | (back8 & (back16 | on8)) | (on8 & on16))) |
                 (h & ((on2 & (h >> 3) & GS_UP_TO_C5) | ((h << 7) & ((h << 15) | on9)) |
                       (on9 & (h >> 17))));
        below |= (on8 & ((back8 & back16) |
                         (back1 & ((back2 & GS_FROM_C3) | (on1 & GS_INNER_C))) |
                         (on1 & on2 & GS_UP_TO_C6))) |
                 (h & ((on16 & (h >> 24)) |
                       ((h >> 7) & (((h >> 6) & GS_FROM_C3) | (on9 & GS_INNER_C))) |
                       (on9 & (h >> 10) & GS_UP_TO_C6)));
    }
    uint64_t bombs = boards[GS_NO_COLOR];
    *across = (right | bombs | bombs >> 1) & GS_UP_TO_C7;
    *down = below | ((bombs | bombs >> 8) & GS_UPPER);
}

/* a line of 3+ of one colour runs through ``cell`` */
static int gs_line_at(const uint8_t *colors, int cell) {
    int color = colors[cell], row = cell / GS_SIDE, col = cell % GS_SIDE, run = 1;
    if (color >= GS_COLORS) return 0;
    for (int c = col - 1; c >= 0 && colors[row * GS_SIDE + c] == color; c--) run++;
    for (int c = col + 1; c < GS_SIDE && colors[row * GS_SIDE + c] == color; c++) run++;
    if (run >= GS_MIN_LINE) return 1;
    run = 1;
    for (int r = row - 1; r >= 0 && colors[r * GS_SIDE + col] == color; r--) run++;
    for (int r = row + 1; r < GS_SIDE && colors[r * GS_SIDE + col] == color; r++) run++;
    return run >= GS_MIN_LINE;
}

/* the swap of ``a`` and ``b`` (swap ``k``) is legal on a still board: a colour bomb is in
 * it, or it lines up 3+, which on a still board runs through ``a`` or ``b`` (the swap's own
 * bit of gs_swap_flags, read off its two cells alone) */
static int gs_legal_swap(const uint8_t *colors, int k) {
    int a = GS_A[k], b = GS_B[k];
    if (colors[a] == GS_NO_COLOR || colors[b] == GS_NO_COLOR) return 1;
    uint8_t swapped[GS_CELLS];
    memcpy(swapped, colors, GS_CELLS);
    swapped[a] = colors[b];
    swapped[b] = colors[a];
    return gs_line_at(swapped, a) || gs_line_at(swapped, b);
}

static int gs_has_legal_swap(const uint8_t *colors) {
    uint64_t across, down;
    gs_swap_flags(colors, &across, &down);
    return (across | down) != 0;
}

/* every line of 3+ on the board (board.find_runs, in another order, which changes nothing:
 * the matches they make are placed on cells of their own) */
static int gs_find_runs(const uint8_t *colors, Run *runs) {
    uint64_t boards[GS_COLORS + 1];
    int count = 0;
    gs_boards(colors, boards);
    for (int color = 0; color < GS_COLORS; color++) {
        uint64_t h = boards[color];
        /* the cells that start three of a colour to the right / downward */
        uint64_t lanes[2] = {h & h >> 1 & h >> 2 & GS_UP_TO_C6, h & h >> 8 & h >> 16};
        for (int line = 0; line < 2; line++) {
            uint64_t starts = lanes[line];
            int step = line ? GS_SIDE : 1;
            starts &= ~(starts << step);
            while (starts) {
                int first = __builtin_ctzll(starts), last = first;
                starts &= starts - 1;
                while (lanes[line] >> (last + step) & 1) last += step;
                runs[count].first = first;
                runs[count].length = (last - first) / step + GS_MIN_LINE;
                runs[count].step = step;
                count++;
            }
        }
    }
    return count;
}

static uint64_t gs_run_cells(const Run *run) {
    uint64_t cells = 0;
    for (int k = 0; k < run->length; k++) cells |= 1ULL << (run->first + k * run->step);
    return cells;
}

/* -- whole boards ----------------------------------------------------------------------- */
/* the gem at ``cell`` ends a line of 3 with the two cells left of it or above it */
static int gs_makes_line(const uint8_t *colors, int cell) {
    int color = colors[cell], row = cell / GS_SIDE, col = cell % GS_SIDE;
    if (color >= GS_COLORS) return 0;
    if (col >= 2 && colors[cell - 1] == color && colors[cell - 2] == color) return 1;
    return row >= 2 && colors[cell - GS_SIDE] == color && colors[cell - 2 * GS_SIDE] == color;
}

/* a fresh board of plain gems with no line and a legal swap (board.deal) */
static void gs_deal(uint8_t *colors, uint8_t *kinds, uint64_t *rng) {
    do {
        for (int cell = 0; cell < GS_CELLS; cell++) {
            int row = cell / GS_SIDE, col = cell % GS_SIDE, color;
            int left = col >= 2 && colors[cell - 2] == colors[cell - 1] ? colors[cell - 1]
                                                                       : GS_NO_COLOR;
            int above = row >= 2 && colors[cell - 2 * GS_SIDE] == colors[cell - GS_SIDE]
                            ? colors[cell - GS_SIDE]
                            : GS_NO_COLOR;
            do color = gs_below(rng, GS_COLORS);
            while (color == left || color == above);
            colors[cell] = (uint8_t)color;
        }
    } while (!gs_has_legal_swap(colors));
    memset(kinds, GK_PLAIN, GS_CELLS);
}

/* the gems laid from the top left, each cell taking the first remaining gem that makes no
 * line there, swapped into its place (board._lay_out); 0 when some cell cannot be filled */
static int gs_lay_out(uint8_t *gem_colors, uint8_t *gem_kinds, uint8_t *colors,
                      uint8_t *kinds) {
    for (int cell = 0; cell < GS_CELLS; cell++) {
        int pick = cell;
        for (; pick < GS_CELLS; pick++) {
            colors[cell] = gem_colors[pick];
            if (!gs_makes_line(colors, cell)) break;
        }
        if (pick == GS_CELLS) return 0;
        uint8_t color = gem_colors[cell], kind = gem_kinds[cell];
        gem_colors[cell] = gem_colors[pick];
        gem_kinds[cell] = gem_kinds[pick];
        gem_colors[pick] = color;
        gem_kinds[pick] = kind;
        kinds[cell] = gem_kinds[cell];
    }
    return 1;
}

/* the same gems laid out anew with no line and a legal swap, or a dealt board after
 * GS_RESHUFFLE_TRIES shuffles (board.reshuffle) */
static void gs_reshuffle(uint8_t *colors, uint8_t *kinds, uint64_t *rng) {
    uint8_t gem_colors[GS_CELLS], gem_kinds[GS_CELLS], laid[GS_BOARD];
    memcpy(gem_colors, colors, GS_CELLS);
    memcpy(gem_kinds, kinds, GS_CELLS);
    for (int attempt = 0; attempt < GS_RESHUFFLE_TRIES; attempt++) {
        for (int i = GS_CELLS - 1; i > 0; i--) { /* Rng.shuffle */
            int j = gs_below(rng, (uint64_t)i + 1);
            uint8_t color = gem_colors[i], kind = gem_kinds[i];
            gem_colors[i] = gem_colors[j];
            gem_kinds[i] = gem_kinds[j];
            gem_colors[j] = color;
            gem_kinds[j] = kind;
        }
        if (gs_lay_out(gem_colors, gem_kinds, laid, laid + GS_CELLS) &&
            gs_has_legal_swap(laid)) {
            memcpy(colors, laid, GS_CELLS);
            memcpy(kinds, laid + GS_CELLS, GS_CELLS);
            return;
        }
    }
    gs_deal(colors, kinds, rng);
}

/* -- falling ---------------------------------------------------------------------------- */
/* the gems fall into the holes, columns left to right, and new ones drop in on top, each
 * column from its lowest hole up (board.collapse) */
static void gs_collapse(uint8_t *colors, uint8_t *kinds, uint64_t holes, uint64_t *rng) {
    for (int col = 0; col < GS_SIDE; col++) {
        int write = -1;
        for (int row = GS_SIDE - 1; row >= 0; row--)
            if (holes >> (row * GS_SIDE + col) & 1) {
                write = row * GS_SIDE + col;
                break;
            }
        if (write < 0) continue;
        for (int read = write; read >= 0; read -= GS_SIDE)
            if (!(holes >> read & 1)) {
                colors[write] = colors[read];
                kinds[write] = kinds[read];
                write -= GS_SIDE;
            }
        for (; write >= 0; write -= GS_SIDE) {
            colors[write] = (uint8_t)gs_below(rng, GS_COLORS);
            kinds[write] = GK_PLAIN;
        }
    }
}

#endif
