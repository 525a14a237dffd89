"""The travel search gives exactly the tree of a plain breadth-first search by the step
rules, written cell by cell below, on random remembered maps."""

from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.games.cogcrawl.glyphs import DOORS, HEIGHT, WALKABLE, WIDTH
from playbench.games.cogcrawl.protocol import SEARCH_ORDER, search

GLYPHS = " .#+'|-<>%}"


def plain_search(memory, start, monsters, goals=None, cut_corners=False):
    """Breadth-first search with every rule checked on the glyphs themselves."""

    def walkable(x, y):
        return memory[y][x] in WALKABLE

    previous = {}
    seen = {start}
    frontier = deque([start])
    while frontier:
        hx, hy = frontier.popleft()
        for name, (dx, dy) in SEARCH_ORDER:
            nx, ny = hx + dx, hy + dy
            if not (0 <= nx < WIDTH and 0 <= ny < HEIGHT) or (nx, ny) in seen:
                continue
            if not walkable(nx, ny) or (nx, ny) in monsters:
                continue
            if dx and dy:
                if memory[hy][hx] in DOORS or memory[ny][nx] in DOORS:
                    continue
                if not cut_corners and not (walkable(hx, ny) and walkable(nx, hy)):
                    continue
            seen.add((nx, ny))
            previous[(nx, ny)] = ((hx, hy), name)
            if goals is not None and (nx, ny) in goals:
                return previous, (nx, ny)
            frontier.append((nx, ny))
    return previous, None


cells = st.tuples(st.integers(0, WIDTH - 1), st.integers(0, HEIGHT - 1))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(GLYPHS), min_size=WIDTH * HEIGHT, max_size=WIDTH * HEIGHT),
    cells,
    st.sets(cells, max_size=6),
    st.one_of(st.none(), st.sets(cells, min_size=1, max_size=4)),
    st.booleans(),
)
def test_search_equals_a_plain_breadth_first_search(glyphs, start, monsters, goals, cut):
    memory = ["".join(glyphs[y * WIDTH : (y + 1) * WIDTH]) for y in range(HEIGHT)]
    expected = plain_search(memory, start, monsters, goals, cut)
    tree, reached = search(memory, start, monsters, goals, cut)
    assert (list(tree.items()), reached) == (list(expected[0].items()), expected[1])
