"""Scripted model outputs for Inspect's ``mockllm/model``: each call answered by the next
entry of a script (a move list, or a function of the turn's legal moves)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage

LEGAL = "Legal moves now: "


def legal_moves(messages: list[ChatMessage]) -> list[Any] | None:
    """The legal moves the turn's message lists (the last that lists them), or None for
    a call that is no turn's (a reflection)."""
    for message in reversed(messages):
        if message.role != "user":
            continue
        for line in message.text.splitlines():
            if line.startswith(LEGAL):
                return json.loads(line.removeprefix(LEGAL))
    return None


class Script:
    """``custom_outputs`` for mockllm: entry ``i`` answers turn call ``i``; an entry is a
    list of moves, or a function of the legal moves giving one; past the end, the first
    legal move. A reflection is answered with new notes. Usage is set, so mockllm counts
    no tokens itself."""

    def __init__(self, key: str, *entries: list[Any] | Callable[[list[Any]], list[Any]]) -> None:
        self.key = key
        self.entries = list(entries)
        self.calls = 0
        #: each call's messages and generate config, as the model got them
        self.asked: list[tuple[list[ChatMessage], Any]] = []

    def __call__(self, messages: list[ChatMessage], tools: Any, choice: Any, config: Any) -> Any:
        self.asked.append((messages, config))
        legal = legal_moves(messages)
        if legal is None:
            reply: dict[str, Any] = {"notes": f"notes after {self.calls} turn calls"}
        else:
            index, self.calls = self.calls, self.calls + 1
            entry = self.entries[index] if index < len(self.entries) else first
            reply = {self.key: entry(legal) if callable(entry) else entry}
        output = ModelOutput.from_content("mockllm/model", json.dumps(reply))
        output.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
        return output


def first(legal: list[Any]) -> list[Any]:
    return [legal[0]]
