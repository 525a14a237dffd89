"""Where episodes run: in this process, in worker processes, or as Ray tasks.

Each backend yields every episode's result as it finishes; the runner writes them. The
same spec and seeds give the same episodes on every backend (an episode depends only on
its seed and the agent's).
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playbench.agents import AgentError
from playbench.runner.episode import Episode, EpisodeSpec, Failure, Task, play, release_agents

LOCAL = "local"
RAY = "ray"
BACKENDS = (LOCAL, RAY)
#: the most memory Ray's object store may take on a local cluster the runner starts
RAY_OBJECT_STORE_BYTES = 100 * 1024 * 1024

Result = Episode | Failure


def run_inline(spec: EpisodeSpec, tasks: list[Task]) -> Iterator[Result]:
    """Every episode in this process, one after another."""
    try:
        for task in tasks:
            yield play(spec, task)
    finally:
        release_agents()


def _ignore_interrupts() -> None:
    # Ctrl-C belongs to the runner, which stops the workers itself
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play_task(arguments: tuple[EpisodeSpec, Task]) -> Result:
    return play(*arguments)


def run_processes(spec: EpisodeSpec, tasks: list[Task], workers: int) -> Iterator[Result]:
    """Episodes spread over ``workers`` processes (started fresh, not forked)."""
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(workers, initializer=_ignore_interrupts)
    try:
        yield from pool.imap_unordered(_play_task, [(spec, task) for task in tasks])
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def ray_module() -> Any:
    """The ``ray`` package, or :class:`AgentError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise AgentError("--backend ray needs Ray: pip install 'playbench[ray]'") from None
    return ray


@contextmanager
def ray_cluster(workers: int, address: str | None) -> Iterator[Any]:
    """Ray, connected for the block: to the cluster at ``address``, or to a local cluster
    of ``workers`` CPUs started here; one already connected is used as it is and left on."""
    ray = ray_module()
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, logging_level="ERROR", log_to_driver=False)
        else:
            ray.init(
                num_cpus=workers,
                include_dashboard=False,
                object_store_memory=RAY_OBJECT_STORE_BYTES,
                logging_level="ERROR",
                log_to_driver=False,
            )
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def run_ray(
    spec: EpisodeSpec, tasks: list[Task], workers: int, address: str | None
) -> Iterator[Result]:
    """Each episode as a Ray task: on a local cluster of ``workers`` CPUs started here,
    or on the cluster at ``address`` (or on the one already connected)."""
    with ray_cluster(workers, address) as ray:
        remote = ray.remote(play)
        pending = [remote.remote(spec, task) for task in tasks]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])
        finally:
            for reference in pending:
                ray.cancel(reference, force=True)
