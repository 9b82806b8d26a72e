"""The demo's planner (services/bulk.py's plan_demo) without a server: the
same plan for the same seed, and a plan that holds together (every count
equals what it counts, every reply, like and repost where the social graph
puts it); and the rows the tables' owners give the loader for it."""

from __future__ import annotations

import dataclasses

from feeds.services import accounts, bulk, follows, streams, twits
from storage import keys, rows

NOW = 1_780_000_000_000


def _plan(seed: int = 7) -> bulk.DemoPlan:
    return bulk.plan_demo(300, 1500, seed=seed, mean_follows=10, now=NOW)


def test_a_seed_plans_the_same_demo_each_time() -> None:
    assert _plan() == _plan()
    assert _plan(8).twits != _plan().twits


def test_the_followers_are_the_follow_graph_turned_round() -> None:
    demo = _plan()
    edges = {(a, b) for a, targets in enumerate(demo.graph) for b in targets}
    assert all(a != b for a, b in edges)
    assert edges == {(a, b) for b, fans in enumerate(demo.followers) for a in fans}
    assert [len(o) for o in demo.ops] == [len(t) for t in demo.graph]
    assert len({op for ops in demo.ops for op in ops}) == len(edges)


def test_each_count_equals_what_it_counts() -> None:
    demo = _plan()
    assert sum(demo.twit_count) == len(demo.twits) == 1500
    for user, n in enumerate(demo.twit_count):
        assert n == sum(1 for t in demo.twits if t.author == user)
    for i, t in enumerate(demo.twits):
        assert t.replies == sum(1 for r in demo.twits if r.parent == i)
    stats = demo.stats()
    assert stats.edges == sum(len(t) for t in demo.graph)
    assert stats.likes == sum(len(t.likers) for t in demo.twits) > 0
    assert stats.reposts == sum(len(t.reposters) for t in demo.twits) > 0
    assert stats.replies == sum(t.replies for t in demo.twits) > 0


def test_replies_likes_and_reposts_follow_the_graph_and_the_clock() -> None:
    demo = _plan()
    times = [t.millis for t in demo.twits]
    assert times == sorted(times) and times[-1] < NOW
    for i, t in enumerate(demo.twits):
        if t.parent is not None:
            parent = demo.twits[t.parent]
            assert t.parent < i and parent.author in demo.graph[t.author]
            assert demo.stored[i].reply_to == keys.twit_id(parent.key)
        fans = set(demo.followers[t.author])
        for user, ms in t.likers + t.reposters:
            assert user in fans and t.millis < ms <= NOW


def test_the_owners_rows_for_a_reply_with_hashtags() -> None:
    demo = _plan()
    i, t = next((i, t) for i, t in enumerate(demo.twits) if t.parent is not None)
    parent = demo.twits[t.parent]  # type: ignore[index]
    stored = dataclasses.replace(demo.stored[i], text="an answer about #hbase and #thrift")
    found = twits.twit_rows(t.key, stored, parent=parent.key, likes=3)
    tables = [table for table, *_ in found]
    # Then each hashtag's row, and a row under each word (an, answer, about,
    # hbase, and, thrift: the words index).
    assert tables[:2] == ["replies", "twits"] and tables[2:] == ["hashtags"] * 2 + ["twitWords"] * 6
    _, key, cells, ts = found[1]
    assert key == t.key and ts is None
    assert cells[rows.TWIT_COUNTED] == cells[rows.REPLY_COUNTED] == b"1"
    assert rows.decode_count(cells[rows.COUNT_LIKES]) == 3
    assert rows.COUNT_REPLIES not in cells
    assert found[0][1] == keys.reply_key(parent.key, t.key)
    assert all(ts == t.millis for *_, ts in found[2:])


def test_the_owners_rows_for_a_user_a_follow_and_a_stream() -> None:
    demo = _plan()
    account = rows.encode_account("user000001", "One", "one@example.com", "hash", NOW)
    found = accounts.user_rows(account, "user000001", "One", twits=2, followers=5)
    # The userSearch rows: by userid, by name and by email address.
    assert [t for t, *_ in found] == ["users", "userSearch", "userSearch", "userSearch"]
    user = rows.decode_user(found[0][2])
    assert user is not None and (user.twits, user.followers, user.following) == (2, 5, 0)
    edge = follows.edge_rows("a_user", "A", "b_user", "B", demo.generation, b"op")
    assert [(t, k, ts) for t, k, _, ts in edge] == [
        ("follows", keys.follows_key("a_user", "b_user"), demo.generation),
        ("followedBy", keys.followed_by_key("b_user", "a_user"), demo.generation),
    ]
    t = demo.twits[0]
    readers = [demo.hashes[r] for r in [t.author, *demo.followers[t.author]]]
    stream = streams.stream_rows(readers, t.key, demo.stored[0], demo.generation)
    assert [k for _, k, _, _ in stream] == [keys.stream_key_for_hash(h, t.key) for h in readers]
