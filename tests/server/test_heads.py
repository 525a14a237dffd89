"""The head bounds on the bytes as they arrive: the verdict on a head does not depend on
how its bytes are cut into reads (a differential over random cuts), and each bound holds
at its edge."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from playbench.server.heads import (
    HEAD_BYTES,
    HEADER_LINE_BYTES,
    MAX_HEADERS,
    REQUEST_LINE_BYTES,
    HeadScan,
    Refusal,
)


def verdict(pieces: list[bytes]) -> tuple[Refusal | None, bool]:
    """The refusal (if any) and whether the head was seen to end."""
    scan = HeadScan()
    for piece in pieces:
        refusal = scan.feed(piece)
        if refusal is not None:
            return refusal, False
        if not scan.heading:
            return None, True
    return None, False


def cut(data: bytes, points: list[int]) -> list[bytes]:
    edges = sorted({0, len(data), *(p % (len(data) + 1) for p in points)})
    return [data[a:b] for a, b in pairwise(edges)]


heads = st.builds(
    lambda target, lines, newline: (
        b"GET /" + target + b" HTTP/1.1" + newline
        + b"".join(b"X-H%d: " % n + value + newline for n, value in enumerate(lines))
        + newline
    ),
    st.binary(min_size=0, max_size=REQUEST_LINE_BYTES + 40).map(
        lambda b: bytes(c % 26 + 97 for c in b)
    ),
    st.lists(
        st.integers(0, HEADER_LINE_BYTES + 40).map(lambda n: b"v" * n), max_size=MAX_HEADERS + 3
    ),
    st.sampled_from([b"\r\n", b"\n"]),
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(heads, st.lists(st.integers(0, 10**7), max_size=12))
def test_the_verdict_does_not_depend_on_the_reads(head, points):
    assert verdict(cut(head, points)) == verdict([head])


def test_each_bound_at_its_edge():
    line = b"GET /" + b"a" * (REQUEST_LINE_BYTES - len(b"GET / HTTP/1.1")) + b" HTTP/1.1\r\n"
    assert verdict([line + b"\r\n"]) == (None, True)
    assert verdict([line.replace(b"GET /", b"GET /a") + b"\r\n"])[0].status.startswith("414")
    field = b"X: " + b"v" * (HEADER_LINE_BYTES - 3) + b"\r\n"
    assert verdict([b"GET / HTTP/1.1\r\n" + field + b"\r\n"]) == (None, True)
    longer = field.replace(b"X: ", b"X: v")
    assert verdict([b"GET / HTTP/1.1\r\n" + longer + b"\r\n"])[0].status.startswith("431")
    many = b"".join(b"X%d: 1\r\n" % n for n in range(MAX_HEADERS))
    assert verdict([b"GET / HTTP/1.1\r\n" + many + b"\r\n"]) == (None, True)
    assert verdict([b"GET / HTTP/1.1\r\n" + many + b"Y: 1\r\n\r\n"])[0].status.startswith("431")
    wide = field * (HEAD_BYTES // len(field) + 1)
    refused = verdict([b"GET / HTTP/1.1\r\n" + wide + b"\r\n"])[0]
    assert refused is not None and "in all" in refused.error
