"""What the routes share: settings, the sealer, the storage, and the game views."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import Request
from fastapi.responses import Response

from playbench.core.game import JSON, Game
from playbench.server.sealing import Sealer, load_or_create_key
from playbench.server.settings import KEY_FILE, Settings
from playbench.server.storage import Storage


@dataclass(slots=True)
class Services:
    settings: Settings
    sealer: Sealer
    storage: Storage
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

    def close(self) -> None:
        self.storage.close()


def build_services(settings: Settings) -> Services:
    """Open (and create on first run) the data folder, the sealing key and the database."""
    if not settings.secrets or not settings.database_url:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    keys = settings.secrets or (load_or_create_key(settings.data_dir / KEY_FILE),)
    sealer = Sealer(keys, settings.max_sealed_state_chars, settings.max_state_json_bytes)
    return Services(settings=settings, sealer=sealer, storage=Storage(settings.url))


def services_of(request: Request) -> Services:
    return request.app.state.services


def json_bytes(body: Any) -> bytes:
    """Compact UTF-8 JSON by orjson.

    What orjson does not write (text that is not valid Unicode, such as a lone surrogate
    a client sent and a reason echoes; an integer beyond 64 bits; a key that is not
    text) the standard module writes, with JSON escapes. Embedded fragments (the cached
    specs) hold no such text, and only orjson writes them.
    """
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        return json.dumps(body, separators=(",", ":")).encode()


def json_response(body: Any, status_code: int = 200) -> Response:
    """A JSON answer serialized once (the routes build plain dicts)."""
    return Response(json_bytes(body), status_code=status_code, media_type="application/json")


def base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")
