"""Cogcrawl's C kernel against its Python rules: random play through both, side by side.

Every step of every run (``playbench.kernels.check``) compares the full state (its
fingerprint: the generator's state, every level entered, the messages and the last plan
included), the observation, the mask, the reward, the end, the refusal and the score. The
actions are mostly uniform among the legal ones and sometimes any of the 133; a run that
ends starts again on a drawn game seed. Random play seldom leaves the first levels, so
runs are also started on the down stairs of a drawn deeper level (lava from DL4, the Oracle
on DL2-5, the Cogheart on DL10) and played on from there. Seeds are drawn by Hypothesis.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core import get_game
from playbench.core.learning import learning_of
from playbench.games.cogcrawl import kernel as layout
from playbench.games.cogcrawl.constants import PACK_LETTERS
from playbench.games.cogcrawl.dungeon import LEVELS, generate, neighbours, xy_of
from playbench.games.cogcrawl.glyphs import DIRECTIONS
from playbench.games.cogcrawl.items import ARMOURS, FOODS, POTIONS, WEAPONS
from playbench.games.cogcrawl.monsters import ORACLE, Monster
from playbench.games.cogcrawl.sight import see
from playbench.games.cogcrawl.state import CogState
from playbench.kernels import KERNELS_ENV, batched, native, wanted
from playbench.kernels.check import Mismatch, compare, play_both, replay_a_lone_run, set_and_compare

pytestmark = pytest.mark.skipif(not wanted(), reason=f"{KERNELS_ENV} turns the kernels off")

GAME = get_game("cogcrawl")
LEARNING = learning_of(GAME)
ACTIONS = LEARNING.actions.actions
DOWN = ACTIONS.index({"actions": [{"do": "down"}]})
UP = ACTIONS.index({"actions": [{"do": "up"}]})
ENVS = 8
#: batch steps per drawn seed: 3 seeds x 8 runs x 900 = 21,600 compared steps
ROUNDS = 900
#: steps played on from a drawn deeper level: 12 draws x up to 300
DEEP_STEPS = 300


@settings(max_examples=3, deadline=None, derandomize=False)
@given(st.integers(0, 2**63 - 1))
def test_random_play_matches_the_rules_on_drawn_seeds(seed: int) -> None:
    assert play_both(GAME, seed, lambda rng: None, ENVS, ROUNDS) == ENVS * ROUNDS


def test_a_log_the_kernel_played_replays_on_the_rules() -> None:
    """A run the kernel played alone (its own mask, its own end) on a drawn seed is a log
    the rules replay to the very state the kernel reached, and the score it reported."""
    rng = np.random.default_rng()
    replay_a_lone_run(GAME, int(rng.integers(2**63 - 1)), rng, limit=3_000)


def test_a_state_set_into_the_kernel_plays_on_as_the_rules() -> None:
    rng = np.random.default_rng()
    set_and_compare(GAME, GAME.new(int(rng.integers(2**63 - 1))), int(rng.integers(1, 200)), rng)


def on_stairs(seed: int, depth: int, down: bool) -> CogState:
    """A new run of ``seed`` moved onto the stairs of level ``depth`` (generated as the
    rules generate it) that lead down (or up)."""
    state = GAME.new(seed)
    level = state.levels[1] if depth == 1 else generate(seed, depth)
    state.levels[depth] = level
    state.dl = depth
    state.deepest = depth
    state.x, state.y = xy_of(level.down if down else level.up)
    see(state)
    return state


def _full_pack(state: CogState, rng: np.random.Generator) -> None:
    kinds = [("food", len(FOODS)), ("potion", len(POTIONS)), ("weapon", len(WEAPONS))]
    kinds.append(("armour", len(ARMOURS)))
    for letter in PACK_LETTERS:
        if letter not in state.pack:
            category, count = kinds[int(rng.integers(len(kinds)))]
            state.pack[letter] = (category, int(rng.integers(count)))


def _lava_beside(state: CogState, rng: np.random.Generator) -> None:
    state.confused = int(rng.integers(1, 15))
    for cell in _beside(state, True):
        state.level.terrain[cell] = ord("}")


def _hungry(state: CogState, rng: np.random.Generator) -> None:
    state.nutrition = int(rng.choice([-199, -1, 0, 1, 2, 50, 51, 150, 151]))


def _late(state: CogState, rng: np.random.Generator) -> None:
    state.dungeon_turn = 50_000 - int(rng.integers(1, 6))


def _oracle_beside(state: CogState, rng: np.random.Generator) -> None:
    state.gold = int(rng.choice([0, 49, 50, 51, int(rng.integers(0, 200))]))
    cells = _beside(state, True)
    if cells:
        x, y = xy_of(cells[int(rng.integers(len(cells)))])
        ident = max((m.ident for m in state.level.monsters), default=-1) + 1
        state.level.monsters.append(Monster(ident, ORACLE, x, y, 1))


def _seasoned(state: CogState, rng: np.random.Generator) -> None:
    state.xl = int(rng.integers(1, 14))
    state.xp = (10 << (state.xl - 1)) - int(rng.integers(1, 4))


def _frail(state: CogState, rng: np.random.Generator) -> None:
    state.hp = int(rng.integers(1, 4))


#: the edges a drawn set-up is given
TWISTS = {
    "full pack": _full_pack,
    "lava beside": _lava_beside,
    "hungry": _hungry,
    "late": _late,
    "oracle beside": _oracle_beside,
    "seasoned": _seasoned,
    "frail": _frail,
}


def mostly_legal(state: CogState, rng: np.random.Generator) -> int:
    """A random legal action, one time in ten any action."""
    if rng.random() < 0.1:
        return int(rng.integers(len(ACTIONS)))
    legal = LEARNING.legal(state)
    return legal[int(rng.integers(len(legal)))]


def walked(seed: int, steps: int, rng: np.random.Generator) -> CogState | None:
    """Seed ``seed``'s game after ``steps`` of :func:`mostly_legal` on the rules, a copy
    to set up on; None when the game ended on the way."""
    state = GAME.new(seed)
    for _ in range(steps):
        state = GAME.step(state, ACTIONS[mostly_legal(state, rng)]).state
        if GAME.is_over(state):
            return None
    return state.copy()


def play_on(
    state: CogState, steps: int, rng: np.random.Generator, first: int, policy=mostly_legal
) -> None:
    """``first``, then up to ``steps`` actions of ``policy`` from ``state``, through the
    rules and a kernel run set to it, compared at every step."""
    kernel = batched(GAME, 1)
    kernel.set(0, state)
    kernel.observe()
    compare(GAME, kernel, 0, state, "after set")
    pick = first
    for step in range(steps):
        outcome = GAME.step(state, ACTIONS[pick])
        kernel.step([pick])
        state = outcome.state
        where = f"seed {state.seed} step {step} action {pick}"
        if kernel.rewards[0] != (outcome.reward if outcome.ok else 0):
            raise Mismatch(f"the reward differs at {where}")
        if bool(kernel.illegal[0]) == outcome.ok:
            raise Mismatch(f"the refusal differs at {where}")
        compare(GAME, kernel, 0, state, where)
        if GAME.is_over(state):
            return
        pick = policy(state, rng)


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    depth=st.integers(1, LEVELS - 1),
    down=st.booleans(),
    crowded=st.booleans(),
)
def test_every_level_is_made_and_played_as_the_rules_make_it(seed, depth, down, crowded):
    """Down the stairs of a drawn level (the next one made on entry) or up them (the one
    above made, when not yet entered), then random play there. ``crowded``: the level
    arrived on was entered before and a monster stands on the arrival stairs, which the
    rules move to the nearest free cell."""
    rng = np.random.default_rng(seed)
    state = on_stairs(seed, depth, True) if down else on_stairs(seed, depth + 1, False)
    if crowded:
        arrival_depth = depth + 1 if down else depth
        arrival = state.levels.get(arrival_depth) or generate(seed, arrival_depth)
        state.levels[arrival_depth] = arrival
        x, y = xy_of(arrival.up if down else arrival.down)
        ident = max((m.ident for m in arrival.monsters), default=-1) + 1
        arrival.monsters.append(Monster(ident, int(rng.integers(0, 14)), x, y, 3))
    play_on(state, DEEP_STEPS, rng, DOWN if down else UP)


def _beside(state: CogState, walkable: bool) -> list[int]:
    """The cells next to the cog that are floor with nothing on them (``walkable``), or
    any cell next to it."""
    level = state.level
    return [
        cell
        for _, cell in neighbours(state.cell)
        if not walkable
        or (
            level.terrain[cell] == ord(".")
            and cell not in level.items
            and level.monster_at(cell) is None
        )
    ]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    steps=st.integers(0, 120),
    twists=st.sets(st.sampled_from(sorted(TWISTS)), min_size=1),
)
def test_drawn_edges_play_as_the_rules(seed, steps, twists) -> None:
    """A run played a drawn number of random steps by the rules, then given drawn edges
    random play seldom reaches (a full pack, confusion beside lava, hunger at its
    thresholds, the turn limit, the Oracle beside the cog with some gold, experience at a
    level's threshold, few hit points), then played on through both."""
    rng = np.random.default_rng(seed)
    state = GAME.new(seed)
    for _ in range(steps):
        legal = LEARNING.legal(state)
        state = GAME.step(state, ACTIONS[legal[int(rng.integers(len(legal)))]]).state
        if GAME.is_over(state):
            return
    state = state.copy()
    for twist in sorted(twists):
        TWISTS[twist](state, rng)
    see(state)
    play_on(state, 60, rng, mostly_legal(state, rng))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), steps=st.integers(0, 80))
def test_a_full_pack_and_a_stagger_by_lava_play_as_the_rules(seed, steps) -> None:
    """With a full pack the cog leaves what it picks up; confused with lava on every free
    floor cell around, it moves in drawn directions (one move in five staggers, stopping at
    the lava's edge or walking into it when it meant to)."""
    rng = np.random.default_rng(seed)
    state = walked(seed, steps, rng)
    if state is None:
        return
    _full_pack(state, rng)
    state.level.items[state.cell] = (("food", int(rng.integers(len(FOODS)))),)
    _lava_beside(state, rng)
    state.confused = 40
    see(state)
    moves = [ACTIONS.index({"actions": [{"do": "move", "dir": d}]}) for d in DIRECTIONS]
    pickup = ACTIONS.index({"actions": [{"do": "pickup"}]})
    play_on(state, 40, rng, pickup, lambda _, draws: moves[int(draws.integers(len(moves)))])


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_the_cogheart_is_taken_as_the_rules_take_it(seed) -> None:
    """A run on the last level's Cogheart: picking it up wins, with its bonus."""
    state = on_stairs(seed, LEVELS, False)
    level = state.level
    (cell,) = [c for c, stack in level.items.items() if stack[0][0] == "cogheart"]
    state.x, state.y = xy_of(cell)
    for monster in list(level.monsters):
        if abs(monster.x - state.x) <= 1 and abs(monster.y - state.y) <= 1:
            level.monsters.remove(monster)
    see(state)
    pickup = ACTIONS.index({"actions": [{"do": "pickup"}]})
    play_on(state, 1, np.random.default_rng(seed), pickup)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), nutrition=st.integers(-150, 0))
def test_fainting_and_starving_play_as_the_rules(seed, nutrition) -> None:
    """Fainting with no food: a faint now and then (none starts during one), until the cog
    starves."""
    rng = np.random.default_rng(seed)
    state = GAME.new(seed).copy()
    state.pack = {letter: item for letter, item in state.pack.items() if item[0] != "food"}
    state.nutrition = nutrition
    rest = [ACTIONS.index({"actions": [{"do": verb}]}) for verb in ("wait", "search")]
    play_on(state, 120, rng, rest[0], lambda _, draws: rest[int(draws.integers(2))])


#: offsets of ``>`` from the cog on and beside the compass's sector bounds: (2k, k),
#: (2k + 1, k), (k, 2k), (k, 2k + 1), (k, k), (k, 0), signs drawn
OFFSETS = st.builds(
    lambda k, form, sx, sy: (
        sx * (form[0] * k + form[2]),
        sy * (form[1] * k + form[3]),
    ),
    st.integers(1, 4),
    st.sampled_from(
        [(2, 1, 0, 0), (2, 1, 1, 0), (1, 2, 0, 0), (1, 2, 0, 1), (1, 1, 0, 0), (1, 0, 0, 0)]
    ),
    st.sampled_from([-1, 1]),
    st.sampled_from([-1, 1]),
)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    steps=st.integers(0, 20),
    gold=st.sampled_from([49, 50, 51, 120]),
    down=OFFSETS,
)
def test_the_oracle_is_paid_as_the_rules_have_it(seed, steps, gold, down) -> None:
    """The Oracle beside the cog, which has about its fee in gold: chat with it whenever
    the cog can, else play on. Its answer says where the stairs down lie: the level's
    ``down`` is put at a drawn offset from the cog (ties of the compass's sectors
    included)."""
    rng = np.random.default_rng(seed)
    state = walked(seed, steps, rng)
    if state is None:
        return
    _oracle_beside(state, rng)
    state.gold = gold
    x, y = min(max(state.x + down[0], 0), 47), min(max(state.y + down[1], 0), 17)
    state.level.down = y * 48 + x
    see(state)
    chats = [ACTIONS.index({"actions": [{"do": "chat", "dir": d}]}) for d in DIRECTIONS]

    def chatty(now: CogState, draws: np.random.Generator) -> int:
        legal = [index for index in LEARNING.legal(now) if index in chats]
        return legal[0] if legal else mostly_legal(now, draws)

    play_on(state, 30, rng, chatty(state, rng), chatty)


def test_a_batch_told_to_hide_quits_leaves_up_out_on_the_first_level_only() -> None:
    """``Batch.hide``: ``up`` on the first level's stairs (it ends the run) leaves the
    kernel's mask, as the Gym env leaves it out unless ``allow_quit``; deeper, it stays;
    once masked the kernel refuses it unplayed. Cogcrawl has no dominated action."""
    seed = int(np.random.default_rng().integers(2**63 - 1))
    kernel = batched(GAME, 2)
    kernel.set(0, on_stairs(seed, 1, False))
    kernel.set(1, on_stairs(seed, 2, False))
    kernel.observe()
    assert kernel.mask[:, UP].tolist() == [1, 1]
    kernel.hide(quits=True, dominated=False)
    kernel.masked()
    assert kernel.mask[:, UP].tolist() == [0, 1]
    before = kernel.state[0].copy()
    kernel.step([UP, UP])
    assert kernel.illegal.tolist() == [True, False] and kernel.state[1, layout.AT["dl"]] == 1
    np.testing.assert_array_equal(kernel.state[0], before)
    with pytest.raises(ValueError, match="cannot leave out dominated"):
        kernel.hide(quits=False, dominated=True)


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("run", 9, "run state is unknown"),
        ("dl", 11, "level is off the dungeon"),
        ("dl", 2, "current level is not there"),
        ("x", 48, "cog is off the map"),
        ("wielded", 2, "wields what is not a weapon"),
        ("worn", 26, "wielded or worn letter is off the pack"),
        ("oracle", 7, "Oracle level is wrong"),
    ],
)
def test_a_row_the_kernel_cannot_step_is_refused_before_any_env_moves(field, value, said):
    """A caller's write into the state that the kernel cannot step: a clear error, and no
    env of the batch touched."""
    rng = np.random.default_rng()
    kernel = batched(GAME, 3)
    kernel.reset(rng.integers(0, 2**63 - 1, size=3))
    kernel.state[1, layout.AT[field]] = value
    before = (kernel.state.copy(), kernel.cells.copy())
    with pytest.raises(ValueError, match=said):
        kernel.step([25, 25, 25])
    np.testing.assert_array_equal(kernel.state, before[0])
    np.testing.assert_array_equal(kernel.cells, before[1])


def test_observe_refuses_cells_too_few_for_the_dungeon() -> None:
    kernel = batched(GAME, 2)
    with pytest.raises(ValueError, match="cells are too few"):
        native().observe(
            kernel.kernel,
            kernel.state,
            kernel.cells[:, :-1].copy(),
            kernel.table,
            kernel.params,
            kernel.records,
            kernel.mask,
            kernel.ends,
            kernel.scores,
            kernel.origins,
            kernel.progresses,
        )


def test_a_monster_off_the_map_is_refused() -> None:
    kernel = batched(GAME, 2)
    kernel.reset(np.random.default_rng().integers(0, 2**63 - 1, size=2))
    first = layout.LEVELS_AT + layout.MONSTER_AT
    kernel.state[0, first + 2] = -1
    with pytest.raises(ValueError, match="monster is off the map"):
        kernel.step([25, 25])
