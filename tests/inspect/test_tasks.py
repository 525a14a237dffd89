"""The tasks' samples and arguments: one sample per episode of a suite, with what bounds
it, and every argument a run cannot use refused before the first sample, named."""

from __future__ import annotations

import json

import pytest
from inspect_ai._util.registry import registry_name

from playbench.inspect.dataset import TaskArgumentError
from playbench.inspect.tasks import cogcrawl, delvewick, gem_swap, suite
from playbench.runner.inspect_log import SUITE_KEY
from playbench.runner.suite import load_suite


def test_the_quick_suite_is_one_sample_per_episode_with_its_limits():
    task = suite(suite="quick")
    # in-process, Inspect names it by where playbench is installed from (the CLI test
    # runs `inspect eval playbench/suite` against the installed entry point)
    assert task.name == registry_name(suite, "suite")
    quick = load_suite("quick")
    assert task.metadata[SUITE_KEY] == quick.describe()
    ids = [sample.id for sample in task.dataset]
    assert ids == [f"{entry.game}-{seed}" for entry in quick.games for seed in entry.seeds]
    first = task.dataset[0].metadata
    assert first == {
        "game": "delvewick",
        "seed": 1,
        "options": {"startLevel": 1},
        "maxSteps": 2000,
        "maxTurns": None,
        "maxTokens": None,
        "harness": {},
    }


def test_a_suite_file_gives_each_sample_its_seeds_options_and_budgets(tmp_path):
    data = {
        "name": "levels",
        "description": "one Delvewick level a seed",
        "games": {
            "delvewick": {
                "seeds": "0-1",
                "options": {},
                "optionsBySeed": {"1": {"startLevel": 3}},
                "maxSteps": 50,
                "maxTurns": 20,
                "maxTokens": 9000,
                "harness": {"memory": 2},
            }
        },
    }
    path = tmp_path / "levels.json"
    path.write_text(json.dumps(data))
    task = suite(suite=str(path))
    second = task.dataset[1].metadata
    assert (second["seed"], second["options"]) == (1, {"startLevel": 3})
    assert (second["maxTurns"], second["maxTokens"], second["harness"]) == (20, 9000, {"memory": 2})
    assert task.dataset[0].metadata["options"] == {}


def test_a_games_task_plays_a_suite_made_of_its_arguments():
    task = cogcrawl(seeds="2,5", max_turns=40, max_steps=100)
    made = task.metadata[SUITE_KEY]
    assert made["name"] == "inspect-cogcrawl"
    assert made["games"] == {
        "cogcrawl": {"seeds": "2,5", "options": {}, "maxSteps": 100, "harness": {}, "maxTurns": 40}
    }
    assert [sample.id for sample in task.dataset] == ["cogcrawl-2", "cogcrawl-5"]
    # Inspect reads -T seeds=7 as a number, and options as a mapping or JSON text
    assert [s.id for s in gem_swap(seeds=7).dataset] == ["gem-swap-7"]
    level = delvewick(seeds="0", options='{"startLevel": 2}').dataset[0]
    assert level.metadata["options"] == {"startLevel": 2}


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"reply_format": "xml"}, "reply_format must be one of text, json_object, json_schema"),
        ({"fallback": "wait"}, "Gem Swap has no move that waits: use fallback bot or random"),
        ({"memory": 99}, "memory must be 0 to 50 turns, got 99"),
        ({"reflect": -1}, "reflect must be 0 (off) or more turns, got -1"),
        ({"seeds": "3-1"}, "seeds '3-1': the range '3-1' runs backwards"),
        ({"max_turns": 0}, "max_turns must be a whole number, at least 1, got 0"),
        ({"options": "[1]"}, "options must be a JSON object, got [1]"),
        ({"options": "{"}, "options is not valid JSON"),
    ],
)
def test_an_argument_no_run_can_use_is_refused_by_name(arguments, said):
    with pytest.raises(TaskArgumentError) as refused:
        gem_swap(**arguments)
    assert str(refused.value).startswith(said)


def test_a_game_with_no_task_written_out_gets_one_named_by_its_slug(monkeypatch):
    from playbench.core import registry
    from playbench.inspect.tasks import task_for
    from tests.agents.conftest import TALLY

    monkeypatch.setattr(TALLY, "bot", "tests.agents.tally_bot")
    registry.register(TALLY)
    try:
        made = task_for("tally")(seeds="0-2", max_turns=4)
    finally:
        registry._GAMES.pop(TALLY.slug, None)
    assert made.name.endswith("tally")
    assert [sample.id for sample in made.dataset] == ["tally-0", "tally-1", "tally-2"]
    assert made.dataset[0].metadata["maxTurns"] == 4


def test_the_suite_task_plays_models_v2_unless_told_otherwise():
    task = suite()
    models = load_suite("models-v2")
    assert task.metadata[SUITE_KEY] == models.describe()
    assert len(task.dataset) == sum(len(entry.seeds) for entry in models.games) == 32
    budgets = {sample.metadata["maxTurns"] for sample in task.dataset}
    assert budgets == {300}
