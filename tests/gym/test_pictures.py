"""Frames: one size per env, the board drawn by the game's painter, its glyphs, or, for a
game with neither, its text board in glyphs."""

from __future__ import annotations

import dataclasses

import numpy as np

from playbench.core.learning import learning_of
from playbench.core.match import Match
from playbench.core.registry import get_game
from playbench.gym.pictures import (
    BAND,
    GLYPH_HEIGHT,
    GLYPH_WIDTH,
    TEXT_GRID,
    Colours,
    Painter,
    glyph_picture,
)


def test_a_game_without_a_painter_is_drawn_from_its_text_board() -> None:
    game = get_game("chimestep")
    painter = Painter(game, dataclasses.replace(learning_of(game), paint=None), None)
    match = Match.start(game, int(np.random.default_rng().integers(2**31)))
    frame = painter.frame(match.state)
    rows, columns = TEXT_GRID
    assert frame.shape == (BAND + rows * GLYPH_HEIGHT, columns * GLYPH_WIDTH, 3)
    lines = game.render(match.state).splitlines()
    board = glyph_picture(lines, TEXT_GRID, Colours(game))
    assert np.array_equal(frame[BAND:], board)
    first = frame[BAND : BAND + GLYPH_HEIGHT, : len(lines[0]) * GLYPH_WIDTH]
    assert first.any()
    below = frame[BAND + len(lines) * GLYPH_HEIGHT :].reshape(-1, 3)
    assert np.unique(below, axis=0).tolist() == [[0x10, 0x13, 0x1C]]  # the background


def test_glyph_tokens_take_their_own_colour_and_show_their_first_character() -> None:
    colours = Colours(get_game("gem-swap"))
    colours.tokens = {"R-": (10, 200, 30)}
    picture = glyph_picture([["R", "R-"]], (1, 2), colours)
    plain, named = picture[:, :GLYPH_WIDTH], picture[:, GLYPH_WIDTH:]
    assert np.array_equal(plain > 0, named > 0)
    brightest = named.reshape(-1, 3)[named.reshape(-1, 3).sum(axis=1).argmax()]
    assert brightest.tolist() == [10, 200, 30]


def test_a_game_whose_palette_names_its_board_is_drawn_from_that_field() -> None:
    game = get_game("cogcrawl")
    learning = learning_of(game)
    assert Colours(game).palette["board"] == "map"
    generic = Painter(game, dataclasses.replace(learning, glyphs=None), None)
    own = Painter(game, learning, None)
    match = Match.start(game, int(np.random.default_rng().integers(2**31)))
    for action in ("move n", "move e", "search", "move s"):
        match.command(action)
        assert generic.shape == own.shape == (BAND + 18 * GLYPH_HEIGHT, 48 * GLYPH_WIDTH, 3)
        assert np.array_equal(generic.frame(match.state), own.frame(match.state))
