"""Sessions, their action logs, ratings and reviews, the leaderboards and the players'
figures read from them, pruning, and what spectators read.

Every action is one transaction that first moves the session's ``version`` forward with
an optimistic check (``UPDATE ... WHERE version = :seen``), then appends the log entry:
of two concurrent writers on one session, exactly one applies and the other learns it
lost (:class:`VersionConflict`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection
from typing import Any

from sqlalchemy import (
    Connection,
    Float,
    and_,
    bindparam,
    case,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from playbench.server.encoding import json_text
from playbench.server.store.base import StoreBase
from playbench.server.store.prepared import Prepared
from playbench.server.store.puzzles import spend_once
from playbench.server.store.records import (
    LogEntry,
    PlayerGames,
    PlayerRow,
    PruneReport,
    PuzzleSpent,
    SessionRow,
    SpentPuzzle,
    StepRecord,
    VersionConflict,
)
from playbench.server.store.schema import (
    PRUNE_BATCH,
    actions,
    players,
    sessions,
    spent_puzzles,
)

#: one step of a session, built once (an act binds its values): the version moved on
#: only from the one the step was computed from
STEP = Prepared(
    update(sessions)
    .where(sessions.c.id == bindparam("session"), sessions.c.version == bindparam("seen"))
    .values(
        version=bindparam("next"),
        state=bindparam("new_state"),
        score=bindparam("new_score"),
        over=bindparam("new_over"),
        moves=sessions.c.moves + bindparam("moved"),
        accepted=sessions.c.accepted + bindparam("admitted"),
        updated_at=bindparam("now"),
    )
)
LOG_COLUMNS = (
    "session_id", "seq", "command", "action", "ok", "reward", "reason", "events", "created_at",
)  # fmt: skip
LOG = Prepared(insert(actions), LOG_COLUMNS)
BY_TOKEN = select(sessions).where(sessions.c.token_hash == bindparam("token"))
BY_TOKEN_OF_GAME = BY_TOKEN.where(sessions.c.slug == bindparam("slug"))
CREATE_COLUMNS = (
    "id", "token_hash", "slug", "seed", "options", "state", "version", "score", "moves",
    "accepted", "player", "owner", "ranked", "over", "finished", "created_at", "updated_at",
)  # fmt: skip
CREATE = Prepared(insert(sessions), CREATE_COLUMNS)
#: the player whose ranked sessions a new one closes, locked for the transaction
LOCK_PLAYER = (
    select(players.c.name_key).where(players.c.name_key == bindparam("owner")).with_for_update()
)


class SessionStore(StoreBase):
    """Sessions and their logs."""

    # -- sessions ----------------------------------------------------------------------
    async def create_session(
        self,
        *,
        session_id: str,
        token_hash: str,
        slug: str,
        seed: int,
        options: dict[str, Any],
        state: str,
        score: int,
        over: bool,
        player: str | None,
        ranked: bool,
        owner: str | None = None,
    ) -> tuple[SessionRow, list[str]]:
        """Store a new session. A ranked session of a registered player (``owner``)
        closes as abandoned, in the same transaction, that player's open ranked session
        of the game: a player has at most one. The row, and the ids of those closed."""
        now = time.time()
        values = {
            "id": session_id,
            "token_hash": token_hash,
            "slug": slug,
            "seed": seed,
            "options": json.dumps(options, sort_keys=True),
            "state": state,
            "version": 0,
            "score": score,
            "moves": 0,
            "accepted": 0,
            "player": player,
            "owner": owner,
            "ranked": ranked,
            "over": over,
            "finished": False,
            "created_at": now,
            "updated_at": now,
        }
        open_ones = _open_ranked_of(slug, owner) if ranked and owner is not None else None

        def start(conn: Connection) -> list[str]:
            closed: list[str] = []
            if open_ones is not None:
                conn.execute(LOCK_PLAYER, {"owner": owner})
                closed = [found.id for found in conn.execute(open_ones).all()]
                if closed:
                    conn.execute(_abandon(sessions.c.id.in_(closed)))
            CREATE.run(conn, values)
            return closed

        closed = await self.write_async(start)
        row = SessionRow(
            id=session_id,
            slug=slug,
            seed=seed,
            options=json.loads(values["options"]),
            state=state,
            version=0,
            score=score,
            moves=0,
            accepted=0,
            player=player,
            owner=owner,
            ranked=ranked,
            over=over,
            finished=False,
            abandoned=False,
            rating=None,
            review=None,
            finished_at=None,
        )
        return row, closed

    def session_counts(self) -> dict[str, int]:
        """Stored sessions by state, ``open`` (unfinished) and ``finished``."""
        query = select(sessions.c.finished, func.count()).group_by(sessions.c.finished)
        with self.engine.connect() as conn:
            found = {bool(finished): int(number) for finished, number in conn.execute(query)}
        return {"open": found.get(False, 0), "finished": found.get(True, 0)}

    def session_by_token(self, slug: str | None, token_hash: str) -> SessionRow | None:
        """The session of a token (of game ``slug``; None: of any game)."""
        query = BY_TOKEN if slug is None else BY_TOKEN_OF_GAME
        with self.engine.connect() as conn:
            row = conn.execute(query, {"token": token_hash, "slug": slug}).first()
        return _row(row) if row is not None else None

    def session_by_id(self, session_id: str) -> SessionRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(sessions).where(sessions.c.id == session_id)).first()
        return _row(row) if row is not None else None

    def reload(self, session_id: str) -> SessionRow:
        """A session known to exist (just written), as stored now."""
        row = self.session_by_id(session_id)
        if row is None:
            raise LookupError(f"session {session_id} is missing from the database")
        return row

    async def record_step(
        self,
        session: SessionRow,
        version: int,
        record: StepRecord,
        spend: SpentPuzzle | None = None,
    ) -> int:
        """Append one action to the log and store the state after it, with the puzzle that
        admitted it marked used (``spend``) in the same transaction; the new version once
        that is durable.

        Raises :class:`VersionConflict` when the session is no longer at ``version`` and
        :class:`PuzzleSpent` when ``spend`` was used before (nothing is stored then).
        """
        now = time.time()
        change = {
            "session": session.id,
            "seen": version,
            "next": version + 1,
            "new_state": record.state,
            "new_score": record.score,
            "new_over": record.over,
            "moved": int(record.advanced),
            "admitted": int(record.ok),
            "now": now,
        }
        entry = {
            "session_id": session.id,
            "seq": version + 1,
            "command": record.command,
            "action": json_text(record.action) if record.parsed else None,
            "ok": record.ok,
            "reward": record.reward,
            "reason": record.reason,
            "events": json_text(record.events) if record.events else None,
            "created_at": now,
        }

        def step(conn: Connection) -> None:
            if spend is not None and not spend_once(conn, spend):
                raise PuzzleSpent(session.id)
            if STEP.run(conn, change).rowcount != 1:
                raise VersionConflict(session.id)
            LOG.run(conn, entry)

        try:
            await self.write_async(step)
        except IntegrityError:
            raise VersionConflict(session.id) from None
        return version + 1

    def finish(
        self,
        session: SessionRow,
        rating: int,
        review: str,
        player: PlayerRow | None = None,
    ) -> SessionRow:
        """Mark the session finished with its rating and review (and the registered
        player it belongs to, when one is named now)."""
        change = (
            update(sessions)
            .where(
                sessions.c.id == session.id,
                sessions.c.version == session.version,
                sessions.c.finished.is_(False),
            )
            .values(
                finished=True,
                rating=rating,
                review=review,
                player=session.player if player is None else player.name,
                owner=session.owner if player is None else player.name_key,
                finished_at=time.time(),
                version=session.version + 1,
            )
        )

        def finishing(conn: Connection) -> None:
            if conn.execute(change).rowcount != 1:
                raise VersionConflict(session.id)

        self.write(finishing)
        return self.reload(session.id)

    def log(self, session_id: str) -> list[LogEntry]:
        query = select(actions).where(actions.c.session_id == session_id).order_by(actions.c.seq)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [_log_entry(row) for row in rows]

    def player_games(self, slug: str) -> list[PlayerGames]:
        """Per registered player, the figures of every ranked game of ``slug`` that is
        closed (finished or abandoned): best-of-N cannot leave one out."""
        score = sessions.c.score.cast(Float)
        last = func.max(func.coalesce(sessions.c.finished_at, sessions.c.updated_at))
        query = (
            select(
                players.c.name,
                func.count().label("games"),
                func.avg(score).label("mean"),
                func.avg(score * score).label("square"),
                func.max(sessions.c.score).label("best"),
                last.label("last"),
                func.sum(case((sessions.c.finished.is_(True), 1), else_=0)).label("finished"),
            )
            .select_from(sessions.join(players, players.c.name_key == sessions.c.owner))
            .where(
                sessions.c.slug == slug,
                sessions.c.ranked.is_(True),
                sessions.c.finished.is_(True) | sessions.c.abandoned.is_(True),
            )
            .group_by(players.c.name_key, players.c.name)
        )
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        figures = []
        for row in rows:
            games, mean = int(row.games), float(row.mean)
            spread = max(0.0, float(row.square) - mean * mean) * games
            variance = spread / (games - 1) if games > 1 else 0.0
            figures.append(
                PlayerGames(
                    row.name,
                    games,
                    mean,
                    variance,
                    int(row.best),
                    float(row.last),
                    int(row.finished or 0),
                )
            )
        return figures

    def abandon_idle(self, idle_before: float) -> int:
        """Close as abandoned every open ranked session unchanged since ``idle_before``;
        how many."""

        def closing(conn: Connection) -> int:
            idle = _abandon(and_(*_open_ranked(None), sessions.c.updated_at < idle_before))
            return conn.execute(idle).rowcount

        return self.write(closing)

    def leaderboard(self, slug: str, limit: int) -> list[SessionRow]:
        query = (
            select(sessions)
            .where(
                sessions.c.slug == slug,
                sessions.c.finished.is_(True),
                sessions.c.ranked.is_(True),
            )
            .order_by(sessions.c.score.desc(), sessions.c.finished_at.asc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [_row(row) for row in conn.execute(query).all()]

    def rank(self, session: SessionRow) -> int | None:
        """1 + the number of ranked sessions of the game above ``session``; None if unranked
        (a practice session: its seed or options were the client's)."""
        if not session.ranked:
            return None
        ahead = (
            select(sessions.c.id)
            .where(
                sessions.c.slug == session.slug,
                sessions.c.finished.is_(True),
                sessions.c.ranked.is_(True),
                (sessions.c.score > session.score)
                | (
                    (sessions.c.score == session.score)
                    & (sessions.c.finished_at < session.finished_at)
                ),
            )
            .subquery()
        )
        with self.engine.connect() as conn:
            return 1 + conn.execute(select(func.count()).select_from(ahead)).scalar_one()

    # -- pruning -------------------------------------------------------------------------
    def prune(self, unfinished_before: float, now: float) -> PruneReport:
        """Delete sessions left unfinished since before ``unfinished_before`` (with their
        logs) and spent puzzles that have expired by ``now``. Finished sessions stay."""
        stale = select(sessions.c.id).where(
            sessions.c.finished.is_(False),
            sessions.c.abandoned.is_(False),
            sessions.c.updated_at < unfinished_before,
        )

        def pruning(conn: Connection) -> PruneReport:
            ids = [row.id for row in conn.execute(stale).all()]
            logged = 0
            for start in range(0, len(ids), PRUNE_BATCH):
                batch = ids[start : start + PRUNE_BATCH]
                logged += conn.execute(
                    actions.delete().where(actions.c.session_id.in_(batch))
                ).rowcount
                conn.execute(sessions.delete().where(sessions.c.id.in_(batch)))
            spent = conn.execute(
                spent_puzzles.delete().where(spent_puzzles.c.expires_at < now)
            ).rowcount
            return PruneReport(sessions=len(ids), actions=logged, puzzles=spent)

        return self.write(pruning)

    # -- spectators (read only) ----------------------------------------------------------
    def versions(self, session_ids: Collection[str]) -> dict[str, int]:
        """The stored version of each known session among ``session_ids`` (one indexed
        read: how a spectator stream learns, without a publish, that a session moved)."""
        if not session_ids:
            return {}
        query = select(sessions.c.id, sessions.c.version).where(
            sessions.c.id.in_(list(session_ids))
        )
        with self.engine.connect() as conn:
            return {row.id: row.version for row in conn.execute(query).all()}

    def live_sessions(self, slug: str, since: float, limit: int) -> list[SessionRow]:
        """Unfinished sessions of ``slug`` still being played (changed at ``since`` or
        later, not over), the most recently moved first."""
        query = (
            select(sessions)
            .where(
                sessions.c.slug == slug,
                sessions.c.finished.is_(False),
                sessions.c.over.is_(False),
                sessions.c.updated_at >= since,
            )
            .order_by(sessions.c.updated_at.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [_row(row) for row in conn.execute(query).all()]

    def last_entry(self, session_id: str) -> LogEntry | None:
        """The newest log entry of a session (its last command), if any."""
        query = (
            select(actions)
            .where(actions.c.session_id == session_id)
            .order_by(actions.c.seq.desc())
            .limit(1)
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        return _log_entry(row) if row is not None else None


def _row(row: Any) -> SessionRow:
    return SessionRow(
        id=row.id,
        slug=row.slug,
        seed=row.seed,
        options=json.loads(row.options),
        state=row.state,
        version=row.version,
        score=row.score,
        moves=row.moves,
        accepted=row.accepted,
        player=row.player,
        owner=row.owner,
        ranked=bool(row.ranked),
        over=bool(row.over),
        finished=bool(row.finished),
        abandoned=bool(row.abandoned),
        rating=row.rating,
        review=row.review,
        finished_at=row.finished_at,
    )


def _open_ranked(slug: str | None) -> list[Any]:
    """The conditions of a ranked session still open (neither finished nor abandoned)."""
    found = [
        sessions.c.ranked.is_(True),
        sessions.c.finished.is_(False),
        sessions.c.abandoned.is_(False),
    ]
    return found if slug is None else [sessions.c.slug == slug, *found]


def _open_ranked_of(slug: str, owner: str) -> Any:
    """The ids of ``owner``'s open ranked sessions of ``slug``, locked."""
    return (
        select(sessions.c.id)
        .where(*_open_ranked(slug), sessions.c.owner == owner)
        .with_for_update()
    )


def _abandon(where: Any) -> Any:
    """Close the sessions ``where`` selects as abandoned, each one version on (a request
    that read them before sees the change and stores nothing); their last move's time
    stays as it was."""
    return update(sessions).where(where).values(abandoned=True, version=sessions.c.version + 1)


def _log_entry(row: Any) -> LogEntry:
    return LogEntry(
        seq=row.seq,
        command=row.command,
        events=json.loads(row.events) if row.events else [],
        action=json.loads(row.action) if row.action is not None else None,
        ok=bool(row.ok),
        reward=row.reward,
        reason=row.reason,
    )
