"""An OpenAI-compatible chat-completions server on 127.0.0.1 that answers from a script.

It speaks the wire format the official ``openai`` client reads: ``POST
/v1/chat/completions`` answers ``{"id", "object": "chat.completion", "choices":
[{"message": {"role": "assistant", "content"}}], "usage": {...}}``, ``GET /v1/models``
lists one model, and an error is an HTTP status with ``{"error": {"message", "type"}}``.
Each request takes the next answer of the script: a :class:`Reply` (optionally after a
delay, to make the client time out), a :class:`Status` (with an error code and headers
such as ``Retry-After``), or a function of the request body that returns one. A one-token
request (the runner's start-up check) is answered by ``ping`` instead and kept apart. It
records every request body, when it arrived and its ``Authorization`` header.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from playbench.agents.llm.endpoint import forget_checks

MODEL = "script-model"


@dataclass(frozen=True)
class Reply:
    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    delay: float = 0.0
    #: "length" when the reply stopped at the request's token limit
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Status:
    code: int
    message: str = "scripted failure"
    #: the error's ``code`` (OpenAI's ``model_not_found``) and type
    error_code: str | None = None
    error_type: str = "server_error"
    #: extra headers, e.g. ``{"Retry-After": "1"}``
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Raw:
    """A 200 whose body is whatever it holds (an HTML page, text, bytes that are no
    UTF-8): an endpoint that answers nonsense."""

    body: bytes
    content_type: str = "text/html"


Answer = Reply | Status | Raw | Callable[[dict[str, Any]], "Reply | Status | Raw"]


class ChatServer:
    """The server; use :func:`serving` to run it for a test."""

    def __init__(self, script: list[Answer] | None = None, port: int = 0) -> None:
        self.script: list[Answer] = list(script or [])
        self.requests: list[dict[str, Any]] = []
        #: the answer to a start-up check (a one-token request), which takes no script entry
        self.ping: Answer = Reply("OK", 1, 1)
        self.pings: list[dict[str, Any]] = []
        #: when each chat request arrived (time.monotonic)
        self.arrivals: list[float] = []
        self.authorizations: list[str | None] = []
        #: the model ids ``GET /v1/models`` lists (none: it lists an empty list), or a
        #: :class:`Raw` body it answers instead; how many times it was read
        self.models: list[str] | Raw = [MODEL]
        self.listings = 0
        #: chat requests being answered now, and the most at once
        self.in_flight = 0
        self.peak = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.http = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.http.daemon_threads = True

    @classmethod
    def on_port(cls, port: int) -> ChatServer:
        """A server on ``port`` (one started again where a killed one listened)."""
        return cls(port=port)

    @property
    def base_url(self) -> str:
        host, port = self.http.server_address[:2]
        return f"http://{host}:{port}/v1"

    def add(self, *answers: Answer) -> None:
        with self.lock:
            self.script.extend(answers)

    def _next(self, body: dict[str, Any], authorization: str | None) -> Reply | Status | Raw:
        with self.lock:
            if body.get("max_tokens") == 1:
                self.pings.append(body)
                answer = self.ping
                return answer(body) if callable(answer) else answer
            self.arrivals.append(time.monotonic())
            self.requests.append(body)
            self.authorizations.append(authorization)
            if not self.script:
                return Status(500, "the script is exhausted")
            answer = self.script.pop(0)
        return answer(body) if callable(answer) else answer

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    with server.lock:
                        server.listings += 1
                    if isinstance(server.models, Raw):
                        self._send_raw(server.models)
                        return
                    data = {
                        "object": "list",
                        "data": [
                            {"id": name, "object": "model", "created": 0, "owned_by": "t"}
                            for name in server.models
                        ],
                    }
                    self._send(200, data)
                else:
                    self._send(404, {"error": {"message": "no such route", "type": "not_found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "no such route", "type": "not_found"}})
                    return
                with server.lock:
                    server.in_flight += 1
                    server.peak = max(server.peak, server.in_flight)
                try:
                    self._answer(body)
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def _answer(self, body: dict[str, Any]) -> None:
                answer = server._next(body, self.headers.get("Authorization"))
                if isinstance(answer, Raw):
                    self._send_raw(answer)
                    return
                if isinstance(answer, Status):
                    error = {"message": answer.message, "type": answer.error_type}
                    if answer.error_code is not None:
                        error["code"] = answer.error_code
                    self._send(answer.code, {"error": error}, answer.headers)
                    return
                if answer.delay and server.stopping.wait(answer.delay):
                    return
                self._send(200, completion(answer, body.get("model", MODEL)))

            def _send_raw(self, raw: Raw) -> None:
                self._send(200, raw.body, (), raw.content_type)

            def _send(
                self,
                code: int,
                data: dict[str, Any] | bytes,
                headers: tuple[tuple[str, str], ...] = (),
                content_type: str = "application/json",
            ) -> None:
                payload = data if isinstance(data, bytes) else json.dumps(data).encode()
                try:
                    self.send_response(code)
                    for name, value in headers:
                        self.send_header(name, value)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    # the client gave up waiting (a scripted timeout)
                    self.close_connection = True

        return Handler


def completion(reply: Reply, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-script",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


@contextmanager
def serving(
    script: list[Answer] | None = None, server: ChatServer | None = None
) -> Iterator[ChatServer]:
    server = server or ChatServer(script)
    thread = threading.Thread(target=server.http.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        # the next server may take this one's port: its checks are not this one's
        forget_checks()
        server.stopping.set()
        server.http.shutdown()
        server.http.server_close()
        thread.join(timeout=5)


def user_message(body: dict[str, Any]) -> str:
    """The last user message of a request (its text)."""
    return next(text_of(m) for m in reversed(body["messages"]) if m["role"] == "user")


def text_of(message: dict[str, Any]) -> str:
    """A message's text (the text part of a message with an image)."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return next(part["text"] for part in content if part["type"] == "text")


def legal_commands(body: dict[str, Any]) -> list[Any]:
    """The legal moves the turn prompt of a request lists."""
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        for line in text_of(message).splitlines():
            if line.startswith("Legal moves now: "):
                return json.loads(line.removeprefix("Legal moves now: "))
    raise AssertionError("the request lists no legal moves")
