"""Doors for training language models: every game an OpenEnv environment
(:mod:`.openenv`, its client in :mod:`.client`) and a TRL ``environment_factory``
(:mod:`.trl`), each on the seat that every model door plays
(:mod:`.episode`: its prompts, reply reading and turn budget), each reward read by
replaying the episode's log through :class:`~playbench.core.match.Match`.

The libraries are the ``train`` extra: ``pip install 'playbench[train]'``
(docs/training.md).
"""

TRAIN_EXTRA = "the training doors need the train extra: pip install 'playbench[train]'"
