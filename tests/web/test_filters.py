"""The template filters: relative times and avatar colours."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from feeds.templatetags.ui import ago, hue

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def test_ago_reads_as_a_stream_shows_time() -> None:
    cases = [
        (timedelta(seconds=-30), "now"),
        (timedelta(seconds=2), "now"),
        (timedelta(seconds=42), "42s"),
        (timedelta(minutes=5, seconds=59), "5m"),
        (timedelta(hours=3, minutes=1), "3h"),
        (timedelta(days=2), "Nov 19"),
        (timedelta(days=400), "Oct 17, 2025"),
    ]
    assert [ago(NOW - delta, NOW) for delta, _ in cases] == [shown for _, shown in cases]


def test_hue_is_a_stable_colour_whatever_the_case() -> None:
    assert hue("alice") == hue("ALICE")
    assert 0 <= hue("alice") < 360
    assert len({hue(f"user{i}") for i in range(50)}) > 30
