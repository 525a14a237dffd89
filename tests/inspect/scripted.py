"""Scripted model outputs for Inspect's ``mockllm/model``: each call answered by the next
entry of a script (a move list, or a function of the turn's legal moves)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage

LEGAL = "Legal moves now: "


def legal_moves(messages: list[ChatMessage]) -> list[Any]:
    """The legal moves the turn's message lists (the last that lists them)."""
    for message in reversed(messages):
        if message.role != "user":
            continue
        for line in message.text.splitlines():
            if line.startswith(LEGAL):
                return json.loads(line.removeprefix(LEGAL))
    raise AssertionError("the call lists no legal moves")


class Script:
    """``custom_outputs`` for mockllm: entry ``i`` answers call ``i``; an entry is a
    list of moves, or a function of the legal moves giving one; past the end, the first
    legal move. Usage is set, so mockllm counts no tokens itself."""

    def __init__(self, key: str, *entries: list[Any] | Callable[[list[Any]], list[Any]]) -> None:
        self.key = key
        self.entries = list(entries)
        self.calls = 0
        #: each call's messages and generate config, as the model got them
        self.asked: list[tuple[list[ChatMessage], Any]] = []

    def __call__(self, messages: list[ChatMessage], tools: Any, choice: Any, config: Any) -> Any:
        index, self.calls = self.calls, self.calls + 1
        self.asked.append((messages, config))
        entry = self.entries[index] if index < len(self.entries) else first
        moves = entry(legal_moves(messages)) if callable(entry) else entry
        output = ModelOutput.from_content("mockllm/model", json.dumps({self.key: moves}))
        output.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
        return output


def first(legal: list[Any]) -> list[Any]:
    return [legal[0]]
