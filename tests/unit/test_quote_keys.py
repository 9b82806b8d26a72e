"""The quotes table's key (storage/keys.quote_key): under the quoted twit,
newest quote first, and the quoting twit's key read back from it."""

from __future__ import annotations

import pytest

from storage import keys


def twit(author: str, millis: int, suffix: bytes = b"\x00\x00\x00\x01") -> bytes:
    return keys.twit_key(author, millis, suffix)


def test_a_twits_quotes_sort_newest_first_under_its_key_and_name_the_quote() -> None:
    quoted = twit("alice", 1_000)
    older, newer = twit("bob", 2_000), twit("carol", 3_000)
    rows = sorted([keys.quote_key(quoted, older), keys.quote_key(quoted, newer)])
    assert [keys.twit_key_from_quote_key(k) for k in rows] == [newer, older]
    assert all(k.startswith(quoted) and len(k) == keys.QUOTE_KEY_LEN for k in rows)
    # Another twit's quotes sort outside the prefix scan, even at 0xFF edges.
    edge = keys.user_hash("alice") + b"\xff" * keys.RTS_LEN + b"\xff" * keys.SUFFIX_LEN
    other = keys.quote_key(edge, older)
    assert not other.startswith(quoted)
    assert other < keys.prefix_stop(edge) and other >= edge


def test_a_malformed_quote_key_is_refused() -> None:
    with pytest.raises(keys.BadKey):
        keys.twit_key_from_quote_key(b"short")
    with pytest.raises(keys.BadKey):
        keys.quote_key(b"short", twit("bob", 1))
