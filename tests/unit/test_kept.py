"""services._kept.Kept: answers kept for so many seconds, at most so many,
the oldest dropped first; an answer added to keeps the time it had."""

from __future__ import annotations

import pytest

from feeds.services import _kept
from feeds.services._kept import Kept


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(_kept.time, "monotonic", lambda: now[0])
    return now


def test_an_answer_is_kept_for_its_seconds(clock: list[float]) -> None:
    kept: Kept[str] = Kept(10, lambda: 60)
    kept.keep("k", "a")
    clock[0] += 59.9
    assert kept.get("k") == "a"
    clock[0] += 0.1
    assert kept.get("k") is None


def test_what_is_added_to_a_kept_answer_runs_out_with_it(clock: list[float]) -> None:
    """An answer added to in place keeps its time: what it carried is no
    fresher for it, so a crash's stale answer cannot outlive the seconds
    however often a page adds to it."""
    kept: Kept[dict[str, bool]] = Kept(10, lambda: 60)
    kept.keep("k", {"a": True})
    clock[0] += 50
    answer = kept.get("k")
    assert answer is not None
    answer["b"] = False
    assert kept.get("k") == {"a": True, "b": False}
    clock[0] += 10
    assert kept.get("k") is None


def test_the_oldest_answers_go_first_once_full(clock: list[float]) -> None:
    kept: Kept[int] = Kept(2, lambda: 60)
    for n, key in enumerate(("ann", "bea", "cyd", "bea")):
        kept.keep(key, n)
    assert (kept.get("ann"), kept.get("bea"), kept.get("cyd")) == (None, 3, 2)


def test_merged_adds_in_place_until_full_then_keeps_only_what_the_page_wants() -> None:
    """The step both page caches share (reactions.FlagsCache, accounts.SuspendedCache)."""
    kept = {"a": 1, "b": 2}
    same, new = _kept.merged(kept, {"c": 3}, ["a", "c"], most=3)
    assert same is kept and not new and kept == {"a": 1, "b": 2, "c": 3}
    # Full: a new dict of the page's kept answers and the new ones, to keep
    # from now; what the page did not ask about is dropped.
    fresh, new = _kept.merged(kept, {"d": 4}, ["a", "d", "z"], most=3)
    assert new and fresh == {"a": 1, "d": 4} and kept == {"a": 1, "b": 2, "c": 3}
    # Nothing kept yet: the answers got, new.
    got = {"e": 5}
    assert _kept.merged(None, got, ["e"], most=3) == ({"e": 5}, True)
