"""The template filters: relative times and avatar colours."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from feeds.templatetags.ui import ago, duration, hue, millis, since

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


def test_ago_changes_unit_at_each_bound() -> None:
    shown = [ago(NOW - timedelta(seconds=s), NOW) for s in (4, 5, 59, 60, 3599, 3600, 86399)]
    assert shown == ["now", "5s", "59s", "1m", "59m", "1h", "23h"]


def test_since_says_just_now_under_a_minute_never_0_minutes() -> None:
    shown = [since(NOW - timedelta(seconds=s), NOW) for s in (0, 59, 60, 3 * 3600 + 120)]
    assert shown == ["just now", "just now", "1\xa0minute ago", "3\xa0hours, 2\xa0minutes ago"]


def test_duration_and_millis_read_short() -> None:
    seconds = [0.04, 9.99, 10, 119.9, 120, 3599, 3600, 3660, 86399, 86400, 2 * 86400]
    assert [duration(s) for s in seconds] == [
        "0.0 s",
        "10.0 s",
        "10 s",
        "119 s",
        "2 min",
        "59 min",
        "1 h",
        "1 h 1 min",
        "23 h 59 min",
        "1 day",
        "2 days",
    ]
    assert [millis(ms) for ms in (85, 999.4, 1200, 120_000)] == [
        "85 ms",
        "999 ms",
        "1.2 s",
        "2 min",
    ]


def test_hue_is_a_stable_colour_whatever_the_case() -> None:
    assert hue("alice") == hue("ALICE")
    assert 0 <= hue("alice") < 360
    assert len({hue(f"user{i}") for i in range(50)}) > 30
