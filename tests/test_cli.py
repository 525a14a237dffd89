import pytest

from playbench.cli import build_parser, main


def test_unknown_game_is_a_clear_error(capsys):
    assert main(["play", "no-such-game", "--seed", "1"]) == 2
    assert "unknown game 'no-such-game'" in capsys.readouterr().err


def test_bad_options_json_is_a_clear_error(capsys):
    assert main(["play", "no-such-game", "--options", "{nope"]) == 2
    assert "--options is not valid JSON" in capsys.readouterr().err


def test_options_must_be_an_object(capsys):
    assert main(["play", "no-such-game", "--options", "[1]"]) == 2
    assert "must be a JSON object" in capsys.readouterr().err


def test_games_lists_every_registered_game(capsys):
    from playbench.core import all_games

    assert main(["games"]) == 0
    out = capsys.readouterr().out
    for game in all_games():
        assert game.slug in out


def test_a_subcommand_is_required():
    with pytest.raises(SystemExit):
        build_parser().parse_args([])
