"""Bounds on a request's head (its request line and header lines), checked on the bytes as
they arrive, before any parser sees them.

httptools, the default stack's parser, grows a header value it has not seen the end of by
joining each new piece to the old (a 50 MiB line cost seconds of one worker's CPU), and
puts no bound on a line, the head or the number of headers. The guarded protocols of
:mod:`playbench.server.connections` feed each piece of a head to a :class:`HeadScan`
first; past a bound the request is answered 414 or 431 and the connection closed at
once, at a cost linear in the bytes received (one search for a line end per piece).

The bounds are those of the common servers: a request line of at most 8 KiB (nginx's
default buffer), a header line of at most 16 KiB, a head of at most 64 KiB in all and
at most 100 header lines (Apache's ``LimitRequestFields``).
"""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
REQUEST_LINE_BYTES = 8 * KIB
HEADER_LINE_BYTES = 16 * KIB
HEAD_BYTES = 64 * KIB
MAX_HEADERS = 100
#: a head this short cannot hold a line over the shortest line bound: checked in one go
_SHORT = REQUEST_LINE_BYTES
_END = b"\r\n\r\n"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a head was refused: the status line and the error to answer."""

    status: str
    error: str


URI_TOO_LONG = Refusal(
    "414 URI Too Long", f"the request line is over the limit of {REQUEST_LINE_BYTES} bytes"
)
LINE_TOO_LONG = Refusal(
    "431 Request Header Fields Too Large",
    f"a header line is over the limit of {HEADER_LINE_BYTES} bytes",
)
HEAD_TOO_LARGE = Refusal(
    "431 Request Header Fields Too Large",
    f"the request's headers are over the limit of {HEAD_BYTES} bytes in all",
)
TOO_MANY_HEADERS = Refusal(
    "431 Request Header Fields Too Large",
    f"the request has over {MAX_HEADERS} header lines, the most it may",
)


class HeadScan:
    """The head of the request under way on one connection, as far as it has arrived.

    :meth:`feed` takes each piece received while a head is under way (``heading``); it
    stops at the blank line that ends the head (the bytes after it are the body's, or the
    next request's) and returns a :class:`Refusal` once a bound is passed. :meth:`restart`
    starts on the next request's head."""

    __slots__ = ("_cr", "_line", "_lines", "_size", "heading")

    def __init__(self) -> None:
        self.heading = True
        self._size = 0
        self._line = 0
        self._lines = 0
        #: the last byte seen was a carriage return (a line end split across pieces)
        self._cr = False

    def restart(self) -> None:
        self.heading = True
        self._size = self._line = self._lines = 0
        self._cr = False

    def feed(self, data: bytes) -> Refusal | None:
        if not self._size:
            end = data.find(_END, 0, _SHORT + 4)
            if end >= 0:
                # the whole head in one short piece: no line can pass a bound
                if data.count(b"\n", 0, end) > MAX_HEADERS:
                    return TOO_MANY_HEADERS
                self.heading = False
                return None
        return self._lines_of(data)

    def _lines_of(self, data: bytes) -> Refusal | None:
        pos, size = 0, len(data)
        while pos < size:
            newline = data.find(b"\n", pos)
            if newline < 0:
                self._line += size - pos
                self._size += size - pos
                self._cr = data.endswith(b"\r")
                return self._over(self._line) or self._too_large()
            length = self._line + newline - pos
            self._size += newline + 1 - pos
            cr = data[newline - 1] == 13 if newline > pos else self._cr
            content = length - 1 if cr else length
            self._line, self._cr, pos = 0, False, newline + 1
            if content <= 0:
                if self._lines:  # the blank line that ends the head
                    self.heading = False
                    return None
                continue  # a blank line before the request line is ignored
            refusal = self._over(content) or self._too_large()
            if refusal is not None:
                return refusal
            self._lines += 1
            if self._lines > MAX_HEADERS + 1:
                return TOO_MANY_HEADERS
        return None

    def _over(self, length: int) -> Refusal | None:
        if self._lines == 0:
            return URI_TOO_LONG if length > REQUEST_LINE_BYTES else None
        return LINE_TOO_LONG if length > HEADER_LINE_BYTES else None

    def _too_large(self) -> Refusal | None:
        return HEAD_TOO_LARGE if self._size > HEAD_BYTES else None
