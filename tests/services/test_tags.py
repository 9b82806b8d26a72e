"""Hashtag pages and trending hashtags, on both servers: a tag page lists its
twits newest first with cursor paging, whatever the case the tag was written
in; a delete takes a twit off its tags' pages; suspended authors are hidden;
trending ranks tags by uses in the last hour, the clock injected."""

from __future__ import annotations

import time

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import InvalidInput
from feeds.services import tagindex, twits
from feeds.services.textparse import normalise_tag
from feeds.types import User
from storage import keys, rows
from storage.connection import connection, table_name
from tests.services.test_model import all_pages


def test_a_tag_page_lists_its_twits_newest_first_in_pages(alice: User, bob: User) -> None:
    posted = [
        services.post_twit("alice" if i % 2 else "bob", f"tea number {i} #Tea") for i in range(5)
    ]
    services.post_twit("alice", "coffee is #coffee, not tea")
    listed = all_pages(lambda c: services.tag_twits("tea", c, limit=2))
    assert [t.id for t in listed] == [t.id for t in reversed(posted)]
    first = services.tag_twits("tea", limit=2)
    assert len(first.items) == 2 and first.next_cursor is not None
    assert [t.text for t in services.tag_twits("coffee").items] == ["coffee is #coffee, not tea"]


def test_tags_are_case_insensitive_and_normalised(alice: User) -> None:
    full_width = "\uff46\uff55\uff4c\uff4c"  # "full" in full-width letters
    twit = services.post_twit("alice", f"#HBase and #Straße and #{full_width}")
    for spelling in ("hbase", "HBASE", "#HBase", "strasse", "STRASSE", "full", "FULL"):
        assert [t.id for t in services.tag_twits(spelling).items] == [twit.id], spelling
    assert normalise_tag("Straße") == "strasse"
    assert normalise_tag(full_width) == "full"


def test_a_twit_with_a_tag_twice_is_listed_once(alice: User) -> None:
    twit = services.post_twit("alice", "#tea #TEA #tea")
    assert [t.id for t in services.tag_twits("tea").items] == [twit.id]


def test_deleting_a_twit_removes_it_from_every_tag_page(alice: User, bob: User) -> None:
    keep = services.post_twit("bob", "still here #tea")
    gone = services.post_twit("alice", "soon gone #tea #biscuits")
    services.delete_twit("alice", gone.id)
    assert [t.id for t in services.tag_twits("tea").items] == [keep.id]
    assert services.tag_twits("biscuits").items == ()
    # The rows themselves are gone, not only hidden.
    with connection() as conn:
        table = conn.table(table_name("hashtags"))
        left = [k for k, _ in table.scan(row_prefix=keys.tag_hash("biscuits"))]
    assert left == []


def test_a_row_whose_twit_row_is_missing_is_not_shown(alice: User) -> None:
    """A post that died after its hashtags rows, before its twit row."""
    twit = services.post_twit("alice", "real #tea")
    ghost_key = keys.twit_key("alice", int(time.time() * 1000), b"\x00\x00\x00\x01")
    stored = rows.TwitRow("alice", "Alice", "ghost #tea", keys.split_twit_key(ghost_key).millis)
    with connection() as conn:
        tagindex.write_tag_rows(conn, ghost_key, stored)
    assert [t.id for t in services.tag_twits("tea").items] == [twit.id]


def test_suspended_authors_twits_are_hidden_while_suspended(alice: User, bob: User) -> None:
    mine = services.post_twit("alice", "mine #tea")
    services.post_twit("bob", "theirs #tea")
    services.set_disabled("bob")
    assert [t.id for t in services.tag_twits("tea").items] == [mine.id]
    services.set_disabled("bob", False)
    assert len(services.tag_twits("tea").items) == 2


def test_a_tag_page_carries_counts(alice: User, bob: User) -> None:
    twit = services.post_twit("alice", "count me #tea")
    services.like("bob", twit.id)
    services.post_twit("bob", "a reply", reply_to=twit.id)
    (shown,) = services.tag_twits("tea").items
    assert (shown.likes, shown.replies) == (1, 1)


@pytest.mark.parametrize("bad", ["", "#", "not a tag", "a-b", "123", "___", "x" * 301, "tea;"])
def test_a_bad_tag_is_refused_naming_the_tag(bad: str, alice: User) -> None:
    with pytest.raises(InvalidInput) as caught:
        services.tag_twits(bad)
    assert caught.value.field == "tag"


def test_a_bad_cursor_is_refused(alice: User) -> None:
    other = keys.encode_cursor(keys.tag_key("coffee", keys.twit_key("alice", 1, b"abcd")))
    with pytest.raises(InvalidInput) as caught:
        services.tag_twits("tea", other)
    assert caught.value.field == "cursor"


def test_trending_ranks_the_tag_used_more_higher(alice: User, bob: User) -> None:
    for _ in range(3):
        services.post_twit("alice", "#popular again")
    services.post_twit("bob", "#rare once, #popular too")
    services.post_twit("bob", "#middle #middle twice in one twit counts once")
    services.post_twit("alice", "#middle again")
    top = services.trending()
    assert [(t.tag, t.uses) for t in top] == [("popular", 4), ("middle", 2), ("rare", 1)]
    assert [t.tag for t in services.trending(limit=2)] == ["popular", "middle"]


def test_trending_sums_the_last_hour_and_old_buckets_drop_out(alice: User) -> None:
    now = int(time.time() * 1000)
    hour = tagindex.WINDOW_MS
    with connection() as conn:
        # Two hours ago: used a lot, but no longer trending.
        tagindex.count_uses(conn, ["old"], now - 2 * hour, 50)
        # Fifty minutes ago and now: both in the last hour.
        tagindex.count_uses(conn, ["fresh"], now - 50 * 60 * 1000, 2)
        tagindex.count_uses(conn, ["fresh"], now, 1)
    assert [(t.tag, t.uses) for t in services.trending(now_ms=now)] == [("fresh", 3)]
    # An hour and a bit later the fresh uses have dropped out too, one bucket at a time.
    later = now + hour - 40 * 60 * 1000
    assert [(t.tag, t.uses) for t in services.trending(now_ms=later)] == [("fresh", 1)]
    assert services.trending(now_ms=now + hour + tagindex.BUCKET_MS) == ()
    # Seen from two hours ago, only the old tag was trending.
    assert [t.tag for t in services.trending(now_ms=now - 2 * hour)] == ["old"]


def test_deleting_a_twit_takes_its_uses_back_once(alice: User) -> None:
    keep = services.post_twit("alice", "#tea")
    gone = services.post_twit("alice", "#tea #cake")
    # A delete that died after taking the uses back, before deleting the
    # twit row; then the user deletes it again.
    with connection() as conn:
        key = keys.twit_key_from_id(gone.id)
        tagindex.drop_tag_rows(
            conn,
            key,
            [gone.text],
            int(time.time() * 1000),
            lambda: twits._claim_tags_uncounted(conn, key),
        )
    assert [(t.tag, t.uses) for t in services.trending()] == [("tea", 1)]
    services.delete_twit("alice", gone.id)
    assert [(t.tag, t.uses) for t in services.trending()] == [("tea", 1)]
    assert [t.id for t in services.tag_twits("tea").items] == [keep.id]


def test_the_trending_box_is_read_once_per_max_age_then_again(
    bob: User, settings: Settings
) -> None:
    settings.TWITBASE_TRENDING_CACHE_S = 30
    clock = [1000.0]
    services.post_twit("bob", "#early")
    assert [t.tag for t in services.trending_box(lambda: clock[0])] == ["early"]
    services.post_twit("bob", "#late")
    clock[0] += 29
    assert [t.tag for t in services.trending_box(lambda: clock[0])] == ["early"]
    clock[0] += 2
    assert [t.tag for t in services.trending_box(lambda: clock[0])] == ["early", "late"]
    settings.TWITBASE_TRENDING_CACHE_S = 0
    services.post_twit("bob", "#late")
    top = services.trending_box(lambda: clock[0])[0]
    assert (top.tag, top.uses) == ("late", 2)


def test_deleting_an_edited_twit_takes_back_the_uses_it_was_posted_with(alice: User) -> None:
    """Trending counts a twit's tags as posted (an edit moves its tag rows,
    not its uses), so its delete takes back those, not the edited text's."""
    services.post_twit("alice", "#tea")
    twit = services.post_twit("alice", "#tea #cake")
    twits.edit_twit("alice", twit.id, "#tea #scones")
    assert {(t.tag, t.uses) for t in services.trending()} == {("tea", 2), ("cake", 1)}
    services.delete_twit("alice", twit.id)
    assert [(t.tag, t.uses) for t in services.trending()] == [("tea", 1)]
