"""The push feed's watcher: one poller per worker process tells every open spectator
stream when its session moved.

The server may run several worker processes, and an ``act`` served by one of them is
never published to the others. So nothing is published at all: while any stream is
open, the worker's poller reads the stored version of every watched session in one
indexed query every :data:`POLL_SECONDS` and wakes the streams of each session whose
version changed. A stream then reads the session once and sends it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from playbench.server.store import Storage

#: how often the poller reads the watched sessions' versions (a push lands within this
#: plus one read of the session after the ``act`` is stored)
POLL_SECONDS = 0.05
#: open streams one client address may hold at once (per worker process)
MAX_STREAMS_PER_CLIENT = 8
#: open streams of one worker process in all
MAX_STREAMS = 512


class TooManyStreams(Exception):
    """The client (or the worker) already holds as many streams as it may."""


@dataclass(eq=False, slots=True)
class Subscription:
    """One open stream: the session it watches and the flag the poller raises."""

    session_id: str
    client: str
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class Watcher:
    """The streams of one worker process and the poller that wakes them."""

    def __init__(
        self,
        storage: Storage,
        *,
        per_client: int = MAX_STREAMS_PER_CLIENT,
        total: int = MAX_STREAMS,
        period: float = POLL_SECONDS,
    ) -> None:
        self.storage = storage
        self.per_client = per_client
        self.total = total
        self.period = period
        self._subscriptions: set[Subscription] = set()
        self._seen: dict[str, int] = {}
        self._clients: Counter[str] = Counter()
        self._task: asyncio.Task[None] | None = None

    def open_streams(self, client: str) -> int:
        return self._clients[client]

    def subscribe(self, session_id: str, client: str, version: int) -> Subscription:
        """Watch ``session_id`` as last seen at ``version``; raises :class:`TooManyStreams`."""
        if self._clients[client] >= self.per_client:
            raise TooManyStreams(
                f"this address already has {self.per_client} open streams; "
                "close one before opening another"
            )
        if len(self._subscriptions) >= self.total:
            raise TooManyStreams("the server has as many open streams as it serves; retry later")
        subscription = Subscription(session_id, client)
        self._subscriptions.add(subscription)
        self._clients[client] += 1
        self._seen.setdefault(session_id, version)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._poll())
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        if subscription not in self._subscriptions:
            return
        self._subscriptions.discard(subscription)
        self._clients[subscription.client] -= 1
        if self._clients[subscription.client] <= 0:
            del self._clients[subscription.client]
        if not any(s.session_id == subscription.session_id for s in self._subscriptions):
            self._seen.pop(subscription.session_id, None)

    async def _poll(self) -> None:
        while self._subscriptions:
            await asyncio.sleep(self.period)
            watched = list(self._seen)
            if not watched:
                continue
            try:
                versions = await run_in_threadpool(self.storage.versions, watched)
            except SQLAlchemyError:
                # a busy or briefly unreachable database: the next round looks again
                continue
            for session_id, version in versions.items():
                if session_id in self._seen and self._seen[session_id] != version:
                    self._seen[session_id] = version
                    for subscription in self._subscriptions:
                        if subscription.session_id == session_id:
                            subscription.changed.set()
