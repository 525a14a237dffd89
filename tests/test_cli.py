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


def test_run_names_the_missing_key_variable_from_api_key_env(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    out = tmp_path / "run"
    argv = ["run", "gem-swap", "--agent", "llm", "--model", "m", "--seeds", "0"]
    argv += ["--base-url", "http://127.0.0.1:9", "--api-key-env", "NO_SUCH_KEY_VAR"]
    assert main([*argv, "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        "playbench: no API key: set NO_SUCH_KEY_VAR "
        "(or name the variable that holds it with --api-key-env)\n"
    )
    assert not out.exists()


def test_help_is_plain_words_and_lists_every_command(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert "``" not in out and "`" not in out
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert "prune" in commands
    for name in commands:
        assert f"\n    {name} " in out
