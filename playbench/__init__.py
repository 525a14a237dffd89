"""playbench: deterministic, seeded games for AI agents, people and baseline bots."""

__version__ = "0.1.0"
