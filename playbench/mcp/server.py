"""The playbench MCP server: the games as tools and resources, on the official SDK.

Tools: ``list_games``, ``get_rules(game)``, ``new_game(game, seed?, options?)``,
``act(match_id, command)``, ``get_view(match_id)``, ``legal_commands(match_id)``.
Resources: ``playbench://games/{slug}/spec`` (each game's rules as JSON) and
``playbench://matches/{match_id}/board`` (a match's text board).

Every tool is a loop step over :class:`~playbench.core.match.Match`; a refusal, an unknown
game, bad options, a bad argument or a match that is not there come back as a tool error
whose text is the reason in one sentence. A tool's result is its structured content and,
as text, the same compact JSON without the board, then the board as a text of its own
(a client that shows text shows the board as it is drawn). ``playbench mcp`` serves it on
stdio; ``playbench serve`` mounts it at ``/mcp`` (:mod:`playbench.mcp.http`).
"""

import inspect
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.types import CallToolResult, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field, ValidationError

from playbench import __version__
from playbench.core.errors import PlaybenchError
from playbench.core.game import Game
from playbench.core.match import Match
from playbench.core.registry import all_games, get_game
from playbench.core.rng import MAX_SEED
from playbench.mcp.matches import BusyMatchError, MatchTable, NoMatchError, declared_client
from playbench.mcp.models import (
    ActResult,
    GameInfo,
    MatchView,
    Rules,
    act_result,
    game_info,
    match_view,
    rules_of,
)
from playbench.server.store import Storage

T = TypeVar("T")

NAME = "playbench"
STDIO_DATABASE = "matches.db"
SESSION_HEADER = "mcp-session-id"
INSTRUCTIONS = (
    "playbench hosts deterministic, seeded games. Call list_games, read a game's rules "
    "with get_rules, start a match with new_game, then play it with act, one text "
    "command at a time (legal_commands lists the commands accepted now; the view's "
    "board shows the game as text). A refused command changes nothing and its error says "
    "why. Play until gameOver is true."
)

GameSlug = Annotated[str, Field(description="a game's slug from list_games, e.g. 'gem-swap'")]
MatchId = Annotated[str, Field(description="the matchId that new_game returned")]


#: the SDK logs each refused call at INFO, through a handler that wraps it over several
#: lines of stderr: only warnings and worse are worth a line there
LOG_LEVEL = "WARNING"


def owner_of(ctx: Context) -> str | None:
    """The client a match is counted against beside its address (None on stdio): the MCP
    session a request belongs to; without one (the 2026-07-28 protocol's requests name no
    session) the client the request declares, its ``clientInfo``, at its address."""
    headers = ctx.headers
    if headers is None:
        return None
    session = headers.get(SESSION_HEADER)
    if session is not None and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return session  # the SDK answered 404 to a session it does not hold
    params = getattr(ctx.request_context.session, "client_params", None)
    info = getattr(params, "client_info", None)
    declared = f"{info.name}/{info.version}" if info is not None else ""
    return declared_client(declared, client_of(ctx))


def client_of(ctx: Context) -> str | None:
    """The client address of an HTTP request (None on stdio)."""
    request = getattr(ctx.request_context, "request", None)
    client = getattr(request, "client", None)
    return getattr(client, "host", None)


def compact(model: BaseModel) -> CallToolResult:
    """A tool result: the structured content, the same as compact JSON text without the
    board, and the board as a text of its own."""
    data = model.model_dump(mode="json")
    board = data.pop("board", None)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    content = [TextContent(type="text", text=text)]
    if board is not None:
        content.append(TextContent(type="text", text=board))
    return CallToolResult(content=content, structured_content=model.model_dump(mode="json"))


def argument_error(tool: str, error: ValidationError) -> str:
    """What was wrong with a tool's arguments, in one sentence (no library text)."""
    parts = []
    for problem in error.errors(include_url=False):
        where = ".".join(str(part) for part in problem["loc"]) or "the arguments"
        if problem["type"] == "missing":
            parts.append(f"{where} is required")
            continue
        message = problem["msg"]
        message = message[:1].lower() + message[1:]
        parts.append(f"{where}: {message}, got {json.dumps(problem.get('input'), default=str)}")
    return f"bad arguments for {tool}: {'; '.join(parts)}"


class ArenaServer(MCPServer):
    """The SDK's server with one-sentence argument errors."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(argument_error(name, cause)) from cause
            raise


def build_server(matches: MatchTable) -> MCPServer:
    """A new server over the match table ``matches``."""
    server = ArenaServer(NAME, version=__version__, instructions=INSTRUCTIONS, log_level=LOG_LEVEL)

    def tool(fn: Callable[..., Any]) -> Callable[..., Any]:
        """Register ``fn`` as a tool described by its docstring, without the indents."""
        server.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""))
        return fn

    @tool
    def list_games() -> list[GameInfo]:
        """List the games: slug (the id other tools take), name, genre, description, goal."""
        return [game_info(game) for game in all_games()]

    @tool
    def get_rules(game: GameSlug) -> Rules:
        """The full rules of a game: goal, scoring, every rule, the text commands `act`
        takes (syntax and example), what each observation field means, and the options
        `new_game` accepts. Read it before playing a game for the first time."""
        return rules_of(_game(game))

    @tool
    def new_game(
        game: GameSlug,
        ctx: Context,
        seed: Annotated[
            int | None,
            Field(ge=0, le=MAX_SEED, description="the same seed gives the same game; omit: random"),
        ] = None,
        options: Annotated[
            dict[str, Any] | None,
            Field(description="game options, e.g. {'startLevel': 3} for delvewick (see rules)"),
        ] = None,
    ) -> MatchView:
        """Start a match of a game. Returns its matchId (it works from any session), the
        text board, the commands accepted now, the score and the JSON observation."""
        try:
            match_id, match = matches.start(owner_of(ctx), game, seed, options, client_of(ctx))
        except PlaybenchError as error:
            raise ToolError(str(error)) from None
        return compact(match_view(match_id, match))

    @tool
    def act(
        match_id: MatchId,
        command: Annotated[
            str,
            Field(
                description=(
                    "one command of the game's text grammar, e.g. 'swap C4 right', 'left', "
                    "'hop upLeft', 'tick 4', 'move n'; Cogcrawl also takes a raw seat reply "
                    'starting with {, e.g. {"actions": [{"do": "search"}]}'
                )
            ),
        ],
    ) -> ActResult:
        """Play one command in a match. Returns the points gained, the events and the
        new view. A command the rules refuse changes nothing and is a tool error that
        says why. A question (Gem Swap's `moves`) is answered in the events and is no
        move."""

        def play(match: Match) -> CallToolResult:
            result = match.command(command)
            if not (result.ok or result.advanced):
                raise ToolError(f"{command!r} was refused: {result.reason}")
            return compact(act_result(match_id, match, result))

        return _run(match_id, play)

    @tool
    def get_view(match_id: MatchId) -> MatchView:
        """The current view of a match: text board, commands accepted now, score, whether
        the game is over, progress and the JSON observation."""
        return _run(match_id, lambda match: compact(match_view(match_id, match)))

    @tool
    def legal_commands(match_id: MatchId) -> list[str]:
        """Every command `act` accepts in this match now (empty once the game is over)."""
        return _run(match_id, Match.legal_commands)

    for game in all_games():
        _add_spec_resource(server, game.slug, game.name)

    @server.resource(
        "playbench://matches/{match_id}/board",
        name="match-board",
        description="the text board of one of your matches",
        mime_type="text/plain",
    )
    def match_board(match_id: str) -> str:
        try:
            return matches.run(match_id, lambda match: match.game.render(match.state))
        except (NoMatchError, BusyMatchError) as error:
            raise ResourceNotFoundError(str(error)) from None

    def _run(match_id: str, call: Callable[[Match], T]) -> T:
        try:
            return matches.run(match_id, call)
        except (NoMatchError, BusyMatchError) as error:
            raise ToolError(str(error)) from None

    return server


def _game(slug: str) -> Game:
    try:
        return get_game(slug)
    except PlaybenchError as error:
        raise ToolError(str(error)) from None


def _add_spec_resource(server: MCPServer, slug: str, name: str) -> None:
    @server.resource(
        f"playbench://games/{slug}/spec",
        name=f"{slug}-spec",
        description=f"the rules of {name} as JSON (what get_rules returns)",
        mime_type="application/json",
    )
    def spec() -> str:
        return json.dumps(rules_of(get_game(slug)).model_dump(), indent=1)


def run_stdio() -> None:
    """Serve on stdin and stdout until the client closes them, the matches in a database
    of their own that goes when the server stops."""
    with tempfile.TemporaryDirectory(prefix="playbench-mcp-") as folder:
        storage = Storage(f"sqlite:///{Path(folder) / STDIO_DATABASE}")
        try:
            build_server(MatchTable(storage)).run("stdio")
        finally:
            storage.close()
