"""playbench: deterministic, seeded games for AI agents, people and baseline bots."""

from playbench import gym

__version__ = "0.1.0"

gym.install()
