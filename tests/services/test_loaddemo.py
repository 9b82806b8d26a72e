from __future__ import annotations

import io
import random

from django.core.management import call_command

from feeds import services
from feeds.services import bulk
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
    call_command("loaddemo", users=40, twits=120, stdout=out, stderr=io.StringIO())
    assert "loaded 40 users" in out.getvalue()
    users = all_pages(lambda c: services.list_users(c, limit=100))
    assert len(users) == 40
    total_twits = 0
    for user in users:
        followers = all_pages(lambda c, u=user.userid: services.followers(u, c, limit=100))
        following = all_pages(lambda c, u=user.userid: services.following(u, c, limit=100))
        timeline = all_pages(lambda c, u=user.userid: services.timeline(u, c, limit=100))
        assert (user.followers, user.following, user.twits) == (
            len(followers),
            len(following),
            len(timeline),
        )
        total_twits += len(timeline)
        home = {t.id for t in all_pages(lambda c, u=user.userid: services.home_stream(u, c, 100))}
        for followee in following:
            theirs = all_pages(lambda c, u=followee.userid: services.timeline(u, c, limit=100))
            assert {t.id for t in theirs} <= home
    assert total_twits == 120
    assert services.authenticate("user000000", bulk.DEMO_PASSWORD) is not None
