"""What Inspect's entry point loads (``[project.entry-points.inspect_ai]``): importing
the tasks, the solver and the scorer registers them under the package's name,
``playbench/<task>``; a game registered by another package (through ``playbench.games``)
gets its task here, named by its slug."""

from playbench.core.registry import all_games
from playbench.inspect import scorer, solver, tasks

#: the tasks of games that have none written out in :mod:`playbench.inspect.tasks`
ADDED = {
    tasks.task_name(game.slug): tasks.task_for(game.slug)
    for game in all_games()
    if not hasattr(tasks, tasks.task_name(game.slug))
}
globals().update(ADDED)

__all__ = ["ADDED", "scorer", "solver", "tasks"]
