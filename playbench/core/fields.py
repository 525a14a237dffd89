"""Checks for JSON fields, shared by every game's options and state codecs.

Each check takes the error class to raise (:class:`OptionsError` for options a client
chose, :class:`StateError` for a state) and a ``what`` naming the object in the message,
so every game words the same mistake the same way:
``Delvewick state: tick must be an integer from 0 to 9007199254740992, got -1``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from playbench.core.errors import PlaybenchError

#: the largest counter a state may carry and still be exact in every JSON reader
MAX_COUNT = 2**53


def need(condition: bool, error: type[PlaybenchError], what: str, message: str) -> None:
    """Raise ``error`` with ``"{what}: {message}"`` unless ``condition`` holds."""
    if not condition:
        raise error(f"{what}: {message}")


def need_object(data: Any, error: type[PlaybenchError], what: str) -> Mapping[str, Any]:
    """``data`` itself, which must be a JSON object."""
    if not isinstance(data, Mapping):
        raise error(f"{what} must be a JSON object, got {json_type(data)}")
    return data


def need_keys(
    data: Mapping[str, Any],
    error: type[PlaybenchError],
    what: str,
    required: Iterable[str],
    optional: Iterable[str] = (),
) -> None:
    """``data`` has every required key, and no key outside required and optional."""
    required = list(required)
    allowed = set(required) | set(optional)
    missing = [key for key in required if key not in data]
    extra = sorted(str(key) for key in data if key not in allowed)
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {missing}")
        if extra:
            parts.append(f"unexpected {extra}")
        raise error(f"{what} takes keys {sorted(allowed)}: {', '.join(parts)}")


def int_field(
    data: Mapping[str, Any],
    key: str,
    error: type[PlaybenchError],
    what: str,
    low: int = 0,
    high: int = MAX_COUNT,
) -> int:
    """``data[key]``, an integer (not a boolean) from ``low`` to ``high``."""
    value = data.get(key)
    if type(value) is not int or not low <= value <= high:
        raise error(f"{what}: {key} must be an integer from {low} to {high}, got {value!r}")
    return value


def str_field(data: Mapping[str, Any], key: str, error: type[PlaybenchError], what: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise error(f"{what}: {key} must be a string, got {json_type(value)}")
    return value


def bool_field(data: Mapping[str, Any], key: str, error: type[PlaybenchError], what: str) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise error(f"{what}: {key} must be true or false, got {json_type(value)}")
    return value


def list_field(
    data: Mapping[str, Any], key: str, error: type[PlaybenchError], what: str
) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise error(f"{what}: {key} must be a list, got {json_type(value)}")
    return value


def options_object(
    options: Any, error: type[PlaybenchError], game: str, allowed: Iterable[str]
) -> Mapping[str, Any]:
    """The options a client gave (``None`` is no options), with no key the game lacks."""
    if options is None:
        return {}
    options = need_object(options, error, f"{game} options")
    allowed = list(allowed)
    unknown = sorted(str(key) for key in options if key not in allowed)
    if unknown:
        raise error(f"unknown options {unknown}; {game} takes {allowed or 'no options'}")
    return options


def takes_no_options(options: Any, game: str) -> bool:
    """Whether ``options`` are none, as a game that takes no options reads them (``None``
    or an empty object)."""
    try:
        options_object(options, PlaybenchError, game, ())
    except PlaybenchError:
        return False
    return True


def json_type(value: Any) -> str:
    """The JSON name of a value's type, for messages (``null``, ``a boolean`` ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
