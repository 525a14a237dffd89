"""Where episodes run: in this process (one after another, or many at once in threads
for agents that wait on the network: the model, a server's sessions), in worker
processes (agents that need CPU), or as Ray tasks.

Each backend takes the episodes of every game of a run or bench at once, as (spec, task)
pairs, and yields every episode's result as it finishes; the runner writes them. The same
spec and seeds give the same episodes on every backend (an episode depends only on its
seed and the agent's).
"""

from __future__ import annotations

import multiprocessing
import signal
import socket
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from typing import Any

from playbench.agents import AgentError
from playbench.runner.episode import (
    Episode,
    EpisodeSpec,
    Failure,
    Task,
    play,
    play_alone,
    release_agents,
)
from playbench.runner.ledger import LEDGER

LOCAL = "local"
RAY = "ray"
BACKENDS = (LOCAL, RAY)
#: the most memory Ray's object store may take on a local cluster the runner starts
RAY_OBJECT_STORE_BYTES = 100 * 1024 * 1024

#: seconds a Ray address may take to answer before it is taken for no cluster
RAY_CONNECT_SECONDS = 3.0

Result = Episode | Failure
Work = list[tuple[EpisodeSpec, Task]]


def run_inline(work: Work) -> Iterator[Result]:
    """Every episode in this process, one after another."""
    try:
        for spec, task in work:
            yield play(spec, task)
    finally:
        release_agents()


def run_threads(work: Work, concurrency: int) -> Iterator[Result]:
    """Up to ``concurrency`` episodes at once in this process, each in a thread with an
    agent of its own (the model's calls wait on the network, not on the CPU). Closing the
    iterator asks the episodes in flight to stop after their turn (their journals keep
    what they played) and waits for them."""
    LEDGER.stop.clear()
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="episode")
    waiting = list(reversed(work))
    running: set[Future[Result]] = set()
    try:
        while waiting or running:
            while waiting and len(running) < concurrency and not LEDGER.stop.is_set():
                running.add(pool.submit(play_alone, *waiting.pop()))
            if not running:
                break
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:
        LEDGER.stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        LEDGER.stop.clear()


def _ignore_interrupts() -> None:
    # Ctrl-C belongs to the runner, which stops the workers itself
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play_task(arguments: tuple[EpisodeSpec, Task]) -> Result:
    return play(*arguments)


def run_processes(work: Work, workers: int) -> Iterator[Result]:
    """Episodes spread over ``workers`` processes (started fresh, not forked)."""
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(workers, initializer=_ignore_interrupts)
    try:
        yield from pool.imap_unordered(_play_task, work)
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


def check_ray_address(address: str) -> None:
    """:class:`AgentError` in one line when nothing answers at ``address`` (host:port of
    a cluster's head, or ``auto``/``ray://`` addresses, which Ray resolves itself)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if address == "auto" or not port.isdigit():
        return
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), RAY_CONNECT_SECONDS).close()
    except OSError as error:
        raise AgentError(
            f"no Ray cluster answers at --ray-address {address}: {error.strerror or error}"
        ) from None


def run_ray(work: Work, workers: int, address: str | None) -> Iterator[Result]:
    """Each episode as a Ray task: on a local cluster of ``workers`` CPUs started here,
    or on the cluster at ``address`` (or on the one already connected)."""
    with ray_cluster(workers, address) as ray:
        remote = ray.remote(play)
        pending = [remote.remote(spec, task) for spec, task in work]
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])
        finally:
            for reference in pending:
                ray.cancel(reference, force=True)
