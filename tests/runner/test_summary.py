import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playbench.runner.summary import bootstrap_interval, summarize


def record(seed, score, outcome="over", progress=0.5, steps=10, **extra):
    return {
        "game": "gem-swap",
        "agent": "bot",
        "seed": seed,
        "score": score,
        "outcome": outcome,
        "progress": progress,
        "steps": steps,
        "seconds": 0.25,
        **extra,
    }


def test_the_figures_of_a_run():
    rows = [
        record(0, 10, "won", 1.0, 4),
        record(1, 20, "lost", 0.5, 6),
        record(2, 60, "won", 0.0, 8),
    ]
    summary = summarize(rows)
    assert summary["episodes"] == 3
    assert summary["meanScore"] == 30.0
    assert summary["medianScore"] == 20
    assert summary["meanProgress"] == 0.5
    assert summary["wins"] == 2
    assert summary["outcomes"] == {"won": 2, "lost": 1, "over": 0, "truncated": 0}
    assert summary["meanSteps"] == 6.0 and summary["steps"] == 18
    assert summary["seconds"] == 0.75
    assert summary["minScore"] == 10 and summary["maxScore"] == 60
    assert "llm" not in summary


def test_llm_figures_are_summed_with_the_model_s_share_of_turns():
    llm = {"calls": 3, "promptTokens": 30, "completionTokens": 7, "parseFailures": 1}
    rows = [
        record(0, 1, llm={**llm, "turns": 4, "modelTurns": 3, "retries": 1, "fallbacks": 1}),
        record(1, 2, llm={**llm, "turns": 4, "modelTurns": 0, "errors": 4, "fallbacks": 4}),
    ]
    assert summarize(rows)["llm"] == {
        "turns": 8,
        "modelTurns": 3,
        "calls": 6,
        "promptTokens": 60,
        "completionTokens": 14,
        "parseFailures": 2,
        "repaired": 0,
        "refused": 0,
        "retries": 1,
        "fallbacks": 5,
        "errors": 4,
        "unrecordedCalls": 0,
        "transientRetries": 0,
        "reflections": 0,
        "modelShare": 0.375,
    }


def test_the_interval_does_not_depend_on_the_order_episodes_finished_in():
    rows = [record(seed, seed * seed) for seed in range(30)]
    assert summarize(rows) == summarize(list(reversed(rows)))


def test_one_episode_has_a_point_interval():
    assert bootstrap_interval([7]) == (7, 7)


def test_no_values_have_no_interval():
    with pytest.raises(ValueError):
        bootstrap_interval([])


@given(st.lists(st.integers(-1000, 1000), min_size=2, max_size=40))
def test_the_interval_holds_the_mean_within_the_values(values):
    low, high = bootstrap_interval(values)
    assert min(values) <= low <= high <= max(values)
    assert bootstrap_interval(values) == (low, high)


def test_the_interval_narrows_with_more_episodes():
    few = [0, 100] * 5
    many = [0, 100] * 200
    width = lambda values: bootstrap_interval(values)[1] - bootstrap_interval(values)[0]  # noqa: E731
    assert width(many) < width(few)
    assert statistics.fmean(many) == 50
