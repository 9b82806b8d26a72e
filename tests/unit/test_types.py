"""The plain values services return (feeds/types.py)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from feeds.types import Twit, from_millis, new_twit

FIELDS = dict(
    id="ab" * 28,
    userid="alice",
    name="Alice",
    text="hello",
    created=datetime(2026, 11, 26, 12, 0, 0, 123000, tzinfo=UTC),
    reply_to="cd" * 28,
    reply_userid="bob",
    replies=3,
    likes=2,
    reposts=1,
    reposted_by="carol",
    reposted_by_name="Carol",
)


def test_a_twit_made_fast_is_the_twit_its_fields_make() -> None:
    fast = new_twit(*FIELDS.values())
    assert fast == Twit(**FIELDS)  # type: ignore[arg-type]
    assert hash(fast) == hash(Twit(**FIELDS))  # type: ignore[arg-type]
    assert repr(fast) == repr(Twit(**FIELDS))  # type: ignore[arg-type]
    # Every field is set, those new_twit does not take at their defaults: a
    # field added to Twit and not to new_twit fails here.
    assert set(vars(fast)) == {f.name for f in dataclasses.fields(Twit)}
    assert fast.liked is None and fast.reposted is None
    # Frozen still, and replace() makes a Twit as ever.
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.text = "changed"  # type: ignore[misc]
    assert dataclasses.replace(fast, liked=True) == Twit(**FIELDS, liked=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("millis", [0, 1, 999, 1_764_158_400_123, 4_102_444_800_000])
def test_from_millis_is_the_utc_time_to_the_millisecond(millis: int) -> None:
    got = from_millis(millis)
    assert got.tzinfo is UTC
    assert round(got.timestamp() * 1000) == millis
    assert got.microsecond % 1000 == 0
