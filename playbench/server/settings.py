"""Server settings: where data lives, which database, which sealing keys, which limits.

Every value has a default and an environment variable; ``playbench serve`` flags set the
environment variables so that every worker process reads the same settings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

ENV_DATA = "PLAYBENCH_DATA"
ENV_DATABASE = "PLAYBENCH_DATABASE_URL"
ENV_SECRET = "PLAYBENCH_SECRET"

DEFAULT_DATA_DIR = "data"
KEY_FILE = "secret.key"
DATABASE_FILE = "playbench.db"

KIB = 1024
MAX_BODY_BYTES = 256 * KIB
MAX_SEALED_STATE_CHARS = 128 * KIB
MAX_STATE_JSON_BYTES = 1024 * KIB
PUZZLE_TTL_SECONDS = 300.0
MAX_COMMANDS_PER_ACT = 100
MAX_REVIEW_CHARS = 2000
LEADERBOARD_DEFAULT = 10
LEADERBOARD_MAX = 100


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the app needs to start; build one with :meth:`from_env` or by hand."""

    data_dir: Path = field(default_factory=lambda: Path(DEFAULT_DATA_DIR))
    database_url: str | None = None
    #: sealing keys, newest first (each 32 url-safe base64-encoded bytes)
    secrets: tuple[str, ...] = ()
    max_body_bytes: int = MAX_BODY_BYTES
    max_sealed_state_chars: int = MAX_SEALED_STATE_CHARS
    max_state_json_bytes: int = MAX_STATE_JSON_BYTES
    puzzle_ttl_seconds: float = PUZZLE_TTL_SECONDS

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        secrets = tuple(s.strip() for s in env.get(ENV_SECRET, "").split(",") if s.strip())
        return cls(
            data_dir=Path(env.get(ENV_DATA) or DEFAULT_DATA_DIR),
            database_url=env.get(ENV_DATABASE) or None,
            secrets=secrets,
        )

    @property
    def url(self) -> str:
        """The SQLAlchemy URL: the one given, else SQLite in the data folder."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / DATABASE_FILE).resolve()}"
