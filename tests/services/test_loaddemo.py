from __future__ import annotations

import io
import random
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import bulk, media, twits
from feeds.services.search import search_twits
from feeds.services.streams import CELEBRITIES
from feeds.types import Twit, User
from storage import keys, rows
from storage.connection import connection, table_name
from tests.helpers import ServerAddr
from tests.services.test_model import all_pages


def test_the_follow_graph_is_repeatable_and_heavy_tailed() -> None:
    g1 = bulk.follow_graph(2000, 20, random.Random(7))
    g2 = bulk.follow_graph(2000, 20, random.Random(7))
    assert g1 == g2
    indegree = [0] * 2000
    for targets in g1:
        for t in targets:
            indegree[t] += 1
    indegree.sort(reverse=True)
    mean = sum(indegree) / len(indegree)
    assert indegree[0] > 20 * mean, "the most-followed user should be a celebrity"
    assert indegree[len(indegree) // 2] < mean, "the median user has fewer than the mean"


@pytest.mark.fresh_tables  # the demo's twits are from the days before it
def test_loaddemo_writes_consistent_users_follows_and_streams(
    twitbase: ServerAddr, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small parts: the two loader processes each write several.
    monkeypatch.setattr(bulk, "_USERS_PER_PART", 7)
    monkeypatch.setattr(bulk, "_TWITS_PER_PART", 13)
    out = io.StringIO()
    call_command("loaddemo", users=40, twits=200, image_twits=0, stdout=out, stderr=io.StringIO())
    assert "loaded 40 users" in out.getvalue()
    assert " replies), " in out.getvalue() and " likes, " in out.getvalue()
    assert " reposts, " in out.getvalue()
    # Every 40th twit edited (200 twits: 5), every other one twice.
    assert "5 twits edited" in out.getvalue()
    users = all_pages(lambda c: services.list_users(c, limit=100))
    assert len(users) == 40
    named = re.search(r"post as (user\d+)", out.getvalue())
    assert named is not None
    most = services.get_user(named.group(1)).followers
    assert most == max(u.followers for u in users)
    assert f"most followed: {named.group(1)}, {most} followers" in out.getvalue()
    every: list[Twit] = []
    for user in users:
        followers = all_pages(lambda c, u=user.userid: services.followers(u, c, limit=100))
        following = all_pages(lambda c, u=user.userid: services.following(u, c, limit=100))
        timeline = all_pages(lambda c, u=user.userid: services.timeline(u, c, limit=100))
        assert (user.followers, user.following, user.twits) == (
            len(followers),
            len(following),
            len(timeline),
        )
        every += timeline
        home = {t.id for t in all_pages(lambda c, u=user.userid: services.home_stream(u, c, 100))}
        for followee in following:
            theirs = all_pages(lambda c, u=followee.userid: services.timeline(u, c, limit=100))
            assert {t.id for t in theirs} <= home
    assert len(every) == 200
    assert services.authenticate("user000000", bulk.DEMO_PASSWORD) is not None
    # The edited ones read as the twits service edits them: the text, the
    # mark, the history (oldest last), and their words in search.
    edited = [t for t in every if t.edited]
    assert len(edited) == 5
    for twit in edited:
        history = twits.history(twit.id)
        assert history[0].text == twit.text and "(edit: " in twit.text
        assert len(history) in (2, 3) and "(edit:" not in history[-1].text
    found = all_pages(lambda c: search_twits("edit", c))
    assert {t.id for t in edited} <= {t.id for t in found}
    _assert_social_rows_agree_with_counts(every)
    _assert_reposts_agree_and_unrepost(users)
    _assert_conversations_agree_and_go_on(users)
    _assert_lists_agree_and_change(users)


def _assert_conversations_agree_and_go_on(users: list[User]) -> None:
    """Demo conversations exist; each inbox row is at its conversation's
    latest message, the unread total is the sum of the rows' counts, and the
    services carry a demo conversation on as one of their own."""
    from feeds.services import messages

    found = 0
    for user in users:
        inbox = all_pages(lambda c, u=user.userid: messages.inbox(u, c, limit=100))
        found += len(inbox)
        assert messages.unread_total(user.userid) == sum(c.unread for c in inbox)
        for c in inbox:
            latest = messages.conversation(user.userid, c.userid, limit=1)
            assert [(m.text, m.created) for m in latest[1].items] == [(c.text, c.updated)]
    assert found > 0, "the demo has conversations"
    first = next(u for u in users if messages.inbox(u.userid).items)
    other = messages.inbox(first.userid).items[0].userid
    messages.send(other, first.userid, "and one more")
    again = messages.inbox(first.userid).items[0]
    assert (again.userid, again.text, again.unread) == (other, "and one more", 1)
    assert messages.unread_total(first.userid) == 1


def _assert_social_rows_agree_with_counts(every: list[Twit]) -> None:
    """Replies, likes, mentions and hashtags exist, each twit's counts equal
    its rows, and the services read and change them as their own."""
    by_id = {t.id: t for t in every}
    replies = [t for t in every if t.reply_to is not None]
    assert replies, "some demo twits reply"
    likes = 0
    for twit in every:
        listed = all_pages(lambda c, t=twit.id: services.replies(t, c, limit=100))
        assert twit.replies == len(listed), twit
        assert all(r.reply_to == twit.id and r.reply_userid == twit.userid for r in listed)
        likers = services.likers(twit.id)
        assert twit.likes == len(likers), twit
        fans = {u.userid for u in all_pages(lambda c, u=twit.userid: services.followers(u, c))}
        assert set(likers) <= fans, "demo likes come from the author's followers"
        likes += twit.likes
    assert likes > 0, "some demo twits are liked"
    for reply in replies:
        parent = by_id[reply.reply_to or ""]
        assert parent.created <= reply.created
        assert services.is_following(reply.userid, parent.userid)
    mentioned = {m for t in every for m in t.mentions}
    assert mentioned, "some demo twits mention someone"
    assert all(services.find_user(m) is not None for m in mentioned)
    assert sum(1 for t in every if t.hashtags) > len(every) // 5

    # Each user's likes list holds exactly the likes the twits count.
    liked_by: dict[str, set[str]] = {}
    for twit in every:
        for liker in services.likers(twit.id):
            liked_by.setdefault(liker, set()).add(twit.id)
    for liker, ids in liked_by.items():
        listed = all_pages(lambda c, u=liker: services.user_likes(u, c, limit=100))
        assert {t.id for t in listed} == ids
        assert services.liked(liker, sorted(ids)) == ids
        # Raised once the likes were written, as a first like raises it: a
        # process keeps their flags (reactions.FlagsCache).
        assert services.get_user(liker).reactions_changed == 1, liker

    # The services change demo rows as they change their own.
    liked = next(t for t in every if t.likes)
    fan = services.likers(liked.id)[0]
    assert services.unlike(fan, liked.id).likes == liked.likes - 1
    assert services.like(fan, liked.id).likes == liked.likes
    assert services.get_user(fan).reactions_changed == 3
    reply = replies[0]
    author = services.get_user(reply.userid)
    services.delete_twit(reply.userid, reply.id)
    assert (
        services.get_twit(reply.reply_to or "").replies == by_id[reply.reply_to or ""].replies - 1
    )
    assert services.get_user(reply.userid).twits == author.twits - 1


def _reposts_rows(userid: str) -> list[bytes]:
    """The keys of ``userid``'s ``reposts`` rows (their reposts, newest first)."""
    with connection() as conn:
        table = conn.table(table_name("reposts"))
        return [k for k, _ in table.scan(row_prefix=keys.user_hash(userid))]


def _assert_reposts_agree_and_unrepost(users: list[User]) -> None:
    """Demo reposts exist, each twit's t:reposts equals its reposters rows and
    their reposts rows, a follower's home stream shows one "reposted by" its
    reposter, and the services un-repost it as one of their own."""
    every = [t for u in users for t in all_pages(lambda c, u=u.userid: services.timeline(u, c))]
    reposts: dict[str, set[str]] = {}
    for twit in every:
        by = services.reposters(twit.id)
        assert twit.reposts == len(by), twit
        fans = {u.userid for u in all_pages(lambda c, u=twit.userid: services.followers(u, c))}
        assert set(by) <= fans, "demo reposts come from the author's followers"
        for reposter in by:
            reposts.setdefault(reposter, set()).add(twit.id)
    assert sum(len(ids) for ids in reposts.values()) > 0, "some demo twits are reposted"
    for reposter, ids in reposts.items():
        listed = _reposts_rows(reposter)
        assert {keys.twit_id(keys.twit_key_from_repost_key(k)) for k in listed} == ids
        assert services.reposted(reposter, sorted(ids)) == ids

    # A follower's home stream shows a demo repost, "reposted by" its reposter.
    shown = None
    for user in users:
        for item in all_pages(lambda c, u=user.userid: services.home_stream(u, c, 100)):
            if item.reposted_by and item.reposted_by != user.userid:
                shown = (user.userid, item)
                break
        if shown:
            break
    assert shown is not None, "a demo repost shows in a follower's home stream"
    reader, item = shown
    by = item.reposted_by or ""
    assert services.is_following(reader, by)
    assert item.id in reposts[by]
    assert item.reposts == len(services.reposters(item.id))
    # The reposter's own stream holds it too, flagged as reposted by them.
    mine = all_pages(lambda c: services.home_stream(by, c, 100))
    assert [t.reposted for t in mine if t.id == item.id] == [True]

    # The services un-repost it: the count, the rows and the stream item go.
    assert services.unrepost(by, item.id).reposts == item.reposts - 1
    assert by not in services.reposters(item.id)
    assert item.id not in services.reposted(by, [item.id])
    assert len(_reposts_rows(by)) == len(reposts[by]) - 1
    home = all_pages(lambda c: services.home_stream(reader, c, 100))
    assert not any(t.id == item.id and t.reposted_by == by for t in home)
    # And repost it again, as anyone may.
    assert services.repost(by, item.id).reposts == item.reposts


@pytest.mark.fresh_tables  # the demo's twits are from the days before it
def test_a_large_demo_reposter_is_merged_at_read_time(
    twitbase: ServerAddr, settings: Settings
) -> None:
    """A reposter above the threshold has no repost rows in followers' streams
    (only their own), is listed as a large account, and followers still see
    their reposts: merged when they read, as the services leave such a repost."""
    settings.TWITBASE_CELEBRITY_THRESHOLD = 5
    settings.TWITBASE_CELEBRITY_CACHE_S = 0
    CELEBRITIES.clear()
    call_command(
        "loaddemo",
        users=40,
        twits=200,
        image_twits=0,
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    users = all_pages(lambda c: services.list_users(c, limit=100))
    large = [u for u in users if u.followers > 5 and _reposts_rows(u.userid)]
    assert large, "the demo has a large account that reposts"
    merged = 0
    with connection() as conn:
        listed = {rows.decode_celebrity(d) for _, d in conn.table(table_name("celebrities")).scan()}
        streams = conn.table(table_name("streams"))
        for star in large:
            assert star.userid in listed
            fan = all_pages(lambda c, u=star.userid: services.followers(u, c))[0].userid
            in_stream = [
                k
                for k, d in streams.scan(row_prefix=keys.user_hash(fan))
                if (rows.decode_repost(d) or ("", "", ""))[1] == star.userid
            ]
            assert in_stream == [], "a large account's reposts are not fanned out"
            own = [
                k
                for k, d in streams.scan(row_prefix=keys.user_hash(star.userid))
                if (rows.decode_repost(d) or ("", "", ""))[1] == star.userid
            ]
            assert len(own) == len(_reposts_rows(star.userid)), "but kept in their own stream"
            home = all_pages(lambda c, u=fan: services.home_stream(u, c, 100))
            theirs = {
                keys.twit_id(keys.twit_key_from_repost_key(k)) for k in _reposts_rows(star.userid)
            }
            # Each twit shows once, at its newest appearance: the star's
            # repost, or a newer one by another followee.
            assert theirs <= {t.id for t in home}
            merged += sum(1 for t in home if t.reposted_by == star.userid)
    assert merged, "a large account's reposts show, reposted by them, merged at read time"


@pytest.mark.fresh_tables
def test_loaddemo_refuses_tables_that_hold_a_demo_and_writes_nothing(
    twitbase: ServerAddr,
) -> None:
    """Its twit ids carry the load's time: a second load would duplicate
    every twit and overwrite the counts (the issue's "Repeatable" rerun)."""
    call_command(
        "loaddemo", users=6, twits=20, image_twits=0, stdout=io.StringIO(), stderr=io.StringIO()
    )
    before = {u.userid: (u.twits, u.followers) for u in services.list_users(None, 100).items}
    twits = {t.id for u in before for t in all_pages(lambda c, u=u: services.timeline(u, c))}
    assert len(twits) == 20
    out = io.StringIO()
    with pytest.raises(CommandError, match=r"hold a demo already \(user000000 exists\)"):
        call_command("loaddemo", users=6, twits=20, stdout=out, stderr=io.StringIO())
    assert out.getvalue() == "", "refused before printing anything"
    after = {u.userid: (u.twits, u.followers) for u in services.list_users(None, 100).items}
    assert after == before
    again = {t.id for u in after for t in all_pages(lambda c, u=u: services.timeline(u, c))}
    assert again == twits


def _assert_lists_agree_and_change(users: list[User]) -> None:
    """The demo lists: each count equals its member rows, its timeline holds
    its members' twits, and a member added and removed counts as a posted
    list's would (the loader's rows are those the service leaves)."""
    from feeds.services import lists

    owned = all_pages(lambda c: lists.lists_of("user000000", c))
    assert {x.name for x in owned} == {"Favourites", "Most followed"}
    for found in owned:
        members = all_pages(lambda c, i=found.id: lists.members(i, c, limit=100))
        assert found.members == len(members) > 0
        ids = {m.userid for m in members}
        assert {t.userid for t in lists.list_timeline(found.id).items} <= ids
    favourites = next(x for x in owned if x.name == "Favourites")
    members = {m.userid for m in lists.members(favourites.id, limit=100).items}
    gone = sorted(members)[0]
    assert lists.remove_member("user000000", favourites.id, gone)
    outsider = next(u.userid for u in users if u.userid not in members | {"user000000"})
    assert lists.add_member("user000000", favourites.id, outsider)
    assert lists.get_list(favourites.id).members == len(members)


@pytest.mark.fresh_tables  # a demo's twits are backdated, as the load's others
def test_loaddemo_posts_twits_with_generated_images(twitbase: ServerAddr) -> None:
    out = io.StringIO()
    call_command("loaddemo", users=4, twits=8, image_twits=3, stdout=out, stderr=io.StringIO())
    assert "posted 3 twits with generated images" in out.getvalue()
    users = [u.userid for u in services.list_users(None, 100).items]
    shown = [t for u in users for t in all_pages(lambda c, u=u: services.timeline(u, c))]
    with_images = [t for t in shown if t.images]
    assert len(with_images) == 3 and len(shown) == 11
    for twit in with_images:
        assert 1 <= len(twit.images) <= 4
        for image in twit.images:
            assert image.alt and (image.width, image.height) == (960, 640)
            assert media.get_image(image.id).image.startswith(b"RIFF")
