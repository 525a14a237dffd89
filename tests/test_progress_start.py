"""Progress is 0 at the start of every game under every start option, and 1 is the end.

The options below cover every option a game's spec names: a game that adds an option
fails :func:`test_every_option_of_a_spec_has_a_start_here` until its starts are listed.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.core import all_games, get_game
from playbench.games.delvewick.levels import LEVELS

GAMES = all_games()
SLUGS = [game.slug for game in GAMES]
GEM_BOARD = ["RGBYPOWR", "GBYPOWRG", "BYPOWRGB", "YPOWRGBY", "POWRGBYP", "OWRGBYPO"]
GEM_BOARD += ["WRGBYPOW", "RGBYPOWR"]
#: options each game starts from, beside none at all, by option name
STARTS = {
    "delvewick": {
        "startLevel": [{"startLevel": number} for number in range(1, len(LEVELS) + 1)],
        "level": [
            {"level": {"name": "pit", "quota": 2, "oil": 9, "rows": ["######", "#M**X#", "######"]}}
        ],
    },
    "gem-swap": {"board": [{"board": GEM_BOARD}]},
}
CASES = [(slug, None) for slug in SLUGS] + [
    (slug, options)
    for slug, named in STARTS.items()
    if slug in SLUGS
    for starts in named.values()
    for options in starts
]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_option_of_a_spec_has_a_start_here(slug):
    assert set(get_game(slug).spec().options) == set(STARTS.get(slug, {}))


@pytest.mark.parametrize(("slug", "options"), CASES)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_progress_is_0_at_every_start(slug, options, seed):
    game = get_game(slug)
    assert game.progress(game.new(seed, options)) == 0.0
