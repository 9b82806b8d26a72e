"""Which streams a fan-out chunk trims: about one write in STREAM_MAX, the
same on a replay, and not the same readers for every twit."""

from __future__ import annotations

import hashlib
from collections import Counter

from pytest_django.fixtures import Settings

from feeds.services import fanout
from storage import keys

READERS = b"".join(hashlib.md5(f"reader{i}".encode()).digest() for i in range(2_000))
TWITS = [keys.twit_key("alice", 1_700_000_000_000 + i, bytes([i, 7, 7, 7])) for i in range(50)]


def test_about_one_write_in_stream_max_trims(settings: Settings) -> None:
    settings.TWITBASE_STREAM_MAX = 50
    due = sum(len(fanout._trims_due(twit, READERS)) for twit in TWITS)
    # 100,000 writes at 1 in 50: 2,000 expected, sigma about 44.
    assert 1_750 < due < 2_250


def test_a_replay_trims_the_same_streams(settings: Settings) -> None:
    settings.TWITBASE_STREAM_MAX = 50
    assert fanout._trims_due(TWITS[0], READERS) == fanout._trims_due(TWITS[0], READERS)


def test_every_stream_is_trimmed_as_often_as_the_others(settings: Settings) -> None:
    """A choice by the reader alone would trim a tenth of the streams on
    every write and never the rest; by the pair, each of 500 streams written
    200 times is trimmed about 20 times."""
    settings.TWITBASE_STREAM_MAX = 10
    twits = [
        keys.twit_key("bob", 1_700_000_000_000 + i, b"\x01\x02" + i.to_bytes(2, "big"))
        for i in range(200)
    ]
    trims = Counter(r for twit in twits for r in fanout._trims_due(twit, READERS[: 500 * 16]))
    assert len(trims) == 500
    assert min(trims.values()) >= 5
    assert max(trims.values()) <= 40
