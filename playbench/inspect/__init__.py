"""The Inspect AI door: every game an Inspect task, played through the seat of
``playbench run --agent llm`` and scored by replay (docs/inspect.md).

``pip install 'playbench[inspect]'`` registers the tasks with Inspect's package entry
point, so ``inspect eval playbench/delvewick --model ...`` needs no file of the user's:

- :mod:`.tasks`: ``playbench/delvewick``, ``playbench/chimestep``, ``playbench/gem_swap``,
  ``playbench/cogcrawl`` and ``playbench/suite`` (every game of a published suite);
- :mod:`.dataset`: one sample per episode (game, seed, options);
- :mod:`.solver`: the seat, its model calls made through Inspect's model API;
- :mod:`.scorer`: the episode rebuilt from its seed and action log, scored by progress.

An Inspect log is read back by :mod:`playbench.runner.inspect_log` (``playbench
import``, ``verify`` and ``report``).
"""
