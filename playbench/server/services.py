"""What the routes share: settings, the sealer, the storage, and the game views."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

import orjson
from fastapi import Request
from fastapi.responses import Response
from sqlalchemy import Engine

from playbench.core.game import JSON, Game
from playbench.server.agent_check import PuzzleSigner
from playbench.server.encoding import json_bytes
from playbench.server.guards import Rate
from playbench.server.quota import LIMITS_SUFFIX, SharedBuckets, limits_engine
from playbench.server.recent import Recent
from playbench.server.sealing import Sealer, load_or_create_key
from playbench.server.settings import DATABASE_FILE, KEY_FILE, Settings
from playbench.server.store import PruneReport, Storage

PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600


@dataclass(slots=True)
class Services:
    settings: Settings
    sealer: Sealer
    storage: Storage
    signer: PuzzleSigner
    #: where the rate limits are kept (see :func:`playbench.server.quota.limits_engine`)
    limits_store: Engine | None = None
    #: the rate limits, shared by every process on the database (None: that one is off):
    #: requests per client address and per session token, session ``new`` and player
    #: registrations per address
    addresses: SharedBuckets | None = None
    session_tokens: SharedBuckets | None = None
    new_sessions: SharedBuckets | None = None
    registrations: SharedBuckets | None = None
    #: bench results published per address and per player
    publishes_per_address: SharedBuckets | None = None
    publishes_per_player: SharedBuckets | None = None
    #: the sessions this process acted on lately (a hint for the next act: see
    #: :mod:`playbench.server.recent`)
    recent: Recent = field(default_factory=Recent)
    _specs: dict[str, JSON] = field(default_factory=dict)
    _spec_texts: dict[str, orjson.Fragment] = field(default_factory=dict)

    def spec_json(self, game: Game) -> JSON:
        """The game's spec as JSON, built once per game (a spec never changes)."""
        spec = self._specs.get(game.slug)
        if spec is None:
            spec = self._specs[game.slug] = game.spec().to_json()
        return spec

    def spec_text(self, game: Game) -> orjson.Fragment:
        """The game's spec as JSON text, serialized once, for answers to embed as it is."""
        text = self._spec_texts.get(game.slug)
        if text is None:
            text = self._spec_texts[game.slug] = orjson.Fragment(json_bytes(self.spec_json(game)))
        return text

    def puzzle(self, session_id: str | None) -> JSON:
        """A fresh agent-check puzzle for the session (None: bound to no session)."""
        return self.signer.issue(session_id, self.settings.puzzle_ttl_seconds)

    def prune(self, now: float | None = None) -> PruneReport:
        """Close as abandoned the ranked sessions idle past the deadline (they count, at
        their score then), then delete the other sessions unfinished for longer than the
        settings allow and expired spent puzzles; finished and abandoned sessions stay."""
        now = time.time() if now is None else now
        abandoned = self.storage.abandon_idle(now - self.settings.abandon_after_hours * 3600)
        cutoff = now - self.settings.prune_after_hours * 3600
        for buckets in self.limits():
            buckets.prune(now)
        report = self.storage.prune(unfinished_before=cutoff, now=now)
        return replace(report, abandoned=abandoned)

    def limits(self) -> list[SharedBuckets]:
        """The rate limits that are on."""
        every = (self.addresses, self.session_tokens, self.new_sessions, self.registrations)
        return [buckets for buckets in every if buckets is not None]

    def close(self) -> None:
        self.storage.close()
        if self.limits_store is not None:
            self.limits_store.dispose()


def build_services(settings: Settings) -> Services:
    """Open (and create on first run) the data folder, the sealing key and the database.

    The data folder is the owner's alone (0700), and so are the SQLite database, the rate
    limits' file beside it and their journal files (0600: SQLite gives a WAL its database
    file's mode)."""
    if not settings.secrets or not settings.database_url:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        settings.data_dir.chmod(PRIVATE_FOLDER)
    if not settings.database_url:
        for name in (DATABASE_FILE, DATABASE_FILE + LIMITS_SUFFIX):
            (settings.data_dir / name).touch(PRIVATE_FILE)
        for path in settings.data_dir.glob(f"{DATABASE_FILE}*"):
            path.chmod(PRIVATE_FILE)
    keys = settings.secrets or (load_or_create_key(settings.data_dir / KEY_FILE),)
    sealer = Sealer(keys, settings.max_sealed_state_chars, settings.max_state_json_bytes)
    newest = keys[0] if isinstance(keys[0], bytes) else keys[0].encode()
    storage = Storage(settings.url)

    limits = limits_engine(settings.url)

    def shared(kind: str, rate: Rate) -> SharedBuckets | None:
        return SharedBuckets(limits, kind, rate) if rate.on else None

    return Services(
        settings=settings,
        sealer=sealer,
        storage=storage,
        signer=PuzzleSigner(newest),
        limits_store=limits,
        addresses=shared("address", settings.rate_per_address),
        session_tokens=shared("session", settings.rate_per_session),
        new_sessions=shared("new", settings.rate_new_per_address),
        registrations=shared("register", settings.rate_register),
        publishes_per_address=shared("publish-address", settings.rate_publish_per_address),
        publishes_per_player=shared("publish-player", settings.rate_publish_per_player),
    )


def services_of(request: Request) -> Services:
    return request.app.state.services


def json_response(body: Any, status_code: int = 200) -> Response:
    """A JSON answer serialized once (the routes build plain dicts)."""
    return Response(json_bytes(body), status_code=status_code, media_type="application/json")


def base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")
