"""The tasks: one per game and ``playbench/suite``, every game of a published suite.

Task arguments (``-T name=value``): ``seeds`` (``0-9``, ``1,5,9`` or a mix; a game's
task only), ``options`` (the game's options, a JSON object), ``max_turns`` (model turns
an episode, default 300), ``max_steps`` (actions an episode), ``reply_format``
(``json_schema``, ``json_object`` or ``text``), ``fallback`` (``bot``, ``random`` or
``wait``), ``memory`` (the last N turns in the prompt), ``reflect`` (every K turns the
model rewrites its notes), ``vision`` (the board's picture too) and ``suite``
(``models-v2``, ``quick`` or a suite file; ``playbench/suite`` only). The model's own
settings are Inspect's: ``--max-tokens``, ``--temperature``, ``--max-connections``.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task

from playbench.core.registry import get_game
from playbench.inspect.dataset import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_TURNS,
    budgets_of,
    game_suite,
    samples,
    suite_budgets,
)
from playbench.inspect.endpoint import check_model
from playbench.inspect.scorer import replay, scale_of
from playbench.inspect.solver import checked_settings, seat
from playbench.runner.inspect_log import SUITE_KEY
from playbench.runner.suite import Suite, load_suite, shipped_baselines

#: the suite ``playbench/suite`` plays unless ``-T suite=`` names another
MODELS_SUITE = "models-v2"


def _task(
    suite: Suite,
    budgets: dict[str, Any],
    description: str,
    reply_format: str,
    fallback: str,
    memory: int,
    reflect: int,
    vision: bool,
) -> Task:
    # every argument checked before the first sample, for every game the task plays
    checked_settings(
        reply_format,
        fallback,
        memory,
        reflect,
        vision,
        games=[get_game(e.game) for e in suite.games],
    )
    # the model's endpoint too, asked as the first sample's first turn asks
    first = suite.games[0]
    seed = first.seeds[0]
    schema_in = check_model(reply_format, get_game(first.game), seed, first.options_of(seed))
    return Task(
        dataset=samples(suite, budgets),
        solver=seat(
            reply_format=reply_format,
            fallback=fallback,
            memory=memory,
            reflect=reflect,
            vision=vision,
            schema_in=schema_in,
        ),
        scorer=replay(scale_of(suite.baselines or shipped_baselines(suite.hash))),
        metadata={SUITE_KEY: suite.describe()},
        description=description,
    )


def _game_task(slug: str, **args: Any) -> Task:
    game = get_game(slug)
    budgets = budgets_of(args.pop("max_turns"), None)
    suite = game_suite(slug, args.pop("seeds"), args.pop("options"), args.pop("max_steps"), budgets)
    return _task(suite, {slug: budgets}, f"{game.name}: {game.describe()['goal']}", **args)


@task(description="Delvewick: guide a mole through 8 levels of gems and exits; scored by replay")
def delvewick(
    seeds: Any = "0-9",
    options: Any = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_steps: int = DEFAULT_MAX_STEPS,
    reply_format: str = "json_schema",
    fallback: str = "bot",
    memory: int = 1,
    reflect: int = 0,
    vision: bool = False,
) -> Task:
    """Delvewick through playbench's seat, one sample per seed, scored by replay."""
    return _game_task("delvewick", **locals())


@task(description="Chimestep: ring a pyramid of chime tiles, dodging the Hush; scored by replay")
def chimestep(
    seeds: Any = "0-9",
    options: Any = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_steps: int = DEFAULT_MAX_STEPS,
    reply_format: str = "json_schema",
    fallback: str = "bot",
    memory: int = 1,
    reflect: int = 0,
    vision: bool = False,
) -> Task:
    """Chimestep through playbench's seat, one sample per seed, scored by replay."""
    return _game_task("chimestep", **locals())


@task(description="Gem Swap: swap gems to line up three or more in 30 moves; scored by replay")
def gem_swap(
    seeds: Any = "0-9",
    options: Any = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_steps: int = DEFAULT_MAX_STEPS,
    reply_format: str = "json_schema",
    fallback: str = "bot",
    memory: int = 1,
    reflect: int = 0,
    vision: bool = False,
) -> Task:
    """Gem Swap through playbench's seat, one sample per seed, scored by replay."""
    return _game_task("gem-swap", **locals())


@task(description="Cogcrawl: a roguelike of 10 levels to the Cogheart; scored by replay")
def cogcrawl(
    seeds: Any = "0-9",
    options: Any = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_steps: int = DEFAULT_MAX_STEPS,
    reply_format: str = "json_schema",
    fallback: str = "bot",
    memory: int = 1,
    reflect: int = 0,
    vision: bool = False,
) -> Task:
    """Cogcrawl through playbench's seat, one sample per seed, scored by replay."""
    return _game_task("cogcrawl", **locals())


@task(description="Every game of a published playbench suite (-T suite=models-v2|quick)")
def suite(
    suite: str = MODELS_SUITE,
    reply_format: str = "json_schema",
    fallback: str = "bot",
    memory: int = 1,
    reflect: int = 0,
    vision: bool = False,
) -> Task:
    """Every game of a playbench suite, its seeds, options, limits and budgets as the
    suite file fixes them; comparable with ``playbench bench --suite`` of the same one."""
    played = load_suite(suite)
    return _task(
        played,
        suite_budgets(played),
        f"playbench suite {played.name}: {played.data.get('description', '')}",
        reply_format=reply_format,
        fallback=fallback,
        memory=memory,
        reflect=reflect,
        vision=vision,
    )


def task_name(slug: str) -> str:
    """A game's task name: its slug as a Python name (``gem-swap`` -> ``gem_swap``)."""
    return slug.replace("-", "_")


def task_for(slug: str) -> Any:
    """The task of a game registered after these were written (a fifth game's package):
    the same arguments as the four above, named by its slug, so it needs no edit here.
    The four are written out so that ``inspect list`` finds them in this file."""
    game = get_game(slug)

    def play(
        seeds: Any = "0-9",
        options: Any = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        max_steps: int = DEFAULT_MAX_STEPS,
        reply_format: str = "json_schema",
        fallback: str = "bot",
        memory: int = 1,
        reflect: int = 0,
        vision: bool = False,
    ) -> Task:
        return _game_task(
            slug,
            seeds=seeds,
            options=options,
            max_turns=max_turns,
            max_steps=max_steps,
            reply_format=reply_format,
            fallback=fallback,
            memory=memory,
            reflect=reflect,
            vision=vision,
        )

    play.__name__ = play.__qualname__ = task_name(slug)
    play.__doc__ = f"{game.name} through playbench's seat, one sample per seed, scored by replay."
    return task(name=task_name(slug), description=f"{game.name}; scored by replay")(play)
