"""What Inspect's entry point loads (``[project.entry-points.inspect_ai]``): importing
the tasks registers them under the package's name, ``playbench/<task>``."""

from playbench.inspect.scorer import replay
from playbench.inspect.solver import seat
from playbench.inspect.tasks import chimestep, cogcrawl, delvewick, gem_swap, suite

__all__ = ["chimestep", "cogcrawl", "delvewick", "gem_swap", "replay", "seat", "suite"]
