"""The built-in games, one folder each; ``pyproject.toml`` declares them as entry points
of the group ``playbench.games`` (see ``docs/adding-a-game.md``)."""
