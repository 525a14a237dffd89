"""playbench: deterministic, seeded games for AI agents, people and baseline bots."""

# first: the compiled rules modules run only while they match their sources
from playbench import _compiled

_compiled.install()

from playbench import gym  # noqa: E402

__version__ = "0.1.0"

gym.install()
