from __future__ import annotations

import io
import random

from django.core.management import call_command

from feeds import services
from feeds.services import bulk
from feeds.types import Twit
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


def test_loaddemo_writes_consistent_users_follows_and_streams(twitbase: ServerAddr) -> None:
    out = io.StringIO()
    call_command("loaddemo", users=40, twits=200, stdout=out, stderr=io.StringIO())
    assert "loaded 40 users" in out.getvalue()
    assert " replies), " in out.getvalue() and " likes, " in out.getvalue()
    users = all_pages(lambda c: services.list_users(c, limit=100))
    assert len(users) == 40
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
    _assert_social_rows_agree_with_counts(every)


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

    # The services change demo rows as they change their own.
    liked = next(t for t in every if t.likes)
    fan = services.likers(liked.id)[0]
    assert services.unlike(fan, liked.id).likes == liked.likes - 1
    assert services.like(fan, liked.id).likes == liked.likes
    reply = replies[0]
    author = services.get_user(reply.userid)
    services.delete_twit(reply.userid, reply.id)
    assert (
        services.get_twit(reply.reply_to or "").replies == by_id[reply.reply_to or ""].replies - 1
    )
    assert services.get_user(reply.userid).twits == author.twits - 1
