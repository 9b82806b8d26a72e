"""Model-based test: random sequences of register, follow, unfollow, post,
reply and delete (and, for notifications, mentions, like and unlike), checked
after every step against a small in-memory reference."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import pytest

from feeds import services
from feeds.errors import Conflict, Forbidden
from feeds.types import Page
from tests.helpers import ServerAddr

T = TypeVar("T")
NAMES = ["alice", "bob", "charlie", "dave", "erin"]


@dataclass
class Reference:
    users: set[str] = field(default_factory=set)
    follows: set[tuple[str, str]] = field(default_factory=set)
    twits: dict[str, str] = field(default_factory=dict)  # twit id -> author
    parents: dict[str, str] = field(default_factory=dict)  # reply id -> parent id
    # Notifications: who each twit notified when posted, (kind, recipient);
    # each twit's likers; every follow that created an edge (follower, followed).
    notified: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    likers: dict[str, set[str]] = field(default_factory=dict)
    follow_events: list[tuple[str, str]] = field(default_factory=list)

    def notifications(self, user: str) -> list[tuple[str, str, int]]:
        """``user``'s notifications as (type, twit id or follower, count), sorted."""
        out = [("follow", a, 1) for a, b in self.follow_events if b == user]
        for tid, sent in self.notified.items():
            if tid in self.twits:
                out += [(kind, tid, 1) for kind, to in sent if to == user]
        for tid, who in self.likers.items():
            others = who - {self.twits.get(tid)}
            if tid in self.twits and self.twits[tid] == user and others:
                out.append(("like", tid, len(others)))
        return sorted(out)

    def home(self, reader: str) -> set[str]:
        return {
            tid
            for tid, author in self.twits.items()
            if author == reader or (reader, author) in self.follows
        }


def all_pages(fetch: Callable[[str | None], Page[T]]) -> list[T]:
    items: list[T] = []
    cursor = None
    while True:
        page = fetch(cursor)
        items += page.items
        cursor = page.next_cursor
        if cursor is None:
            return items


def check(ref: Reference) -> None:
    for u in ref.users:
        timeline = all_pages(lambda c, u=u: services.timeline(u, c, limit=2))
        home = all_pages(lambda c, u=u: services.home_stream(u, c, limit=3))
        for listed in (timeline, home):
            ids = [t.id for t in listed]
            assert len(ids) == len(set(ids)), "a page repeated a twit"
            created = [t.created for t in listed]
            assert created == sorted(created, reverse=True), "not newest first"
        assert {t.id for t in timeline} == {t for t, a in ref.twits.items() if a == u}
        assert {t.id for t in home} == ref.home(u)
        followers = all_pages(lambda c, u=u: services.followers(u, c, limit=2))
        following = all_pages(lambda c, u=u: services.following(u, c, limit=2))
        assert {f.userid for f in followers} == {a for a, b in ref.follows if b == u}
        assert {f.userid for f in following} == {b for a, b in ref.follows if a == u}
        profile = services.get_user(u)
        assert profile.twits == sum(1 for a in ref.twits.values() if a == u)
    for tid in ref.twits:
        replies = all_pages(lambda c, t=tid: services.replies(t, c, limit=2))
        assert {r.id for r in replies} == {r for r, p in ref.parents.items() if p == tid}
        created = [r.created for r in replies]
        assert created == sorted(created), "replies not oldest first"
        assert services.get_twit(tid).replies == len(replies)
        parent = ref.parents.get(tid)
        chain = services.ancestors(services.get_twit(tid))
        if parent is None:
            assert chain == ()
        elif parent in ref.twits:
            assert chain[-1] is not None and chain[-1].id == parent
        else:
            assert chain == (None,), "a deleted parent is shown as deleted"
        assert profile.followers == len(followers)
        assert profile.following == len(following)
    check_notifications(ref)


def check_notifications(ref: Reference) -> None:
    for u in ref.users:
        listed = all_pages(lambda c, u=u: services.notifications(u, c, limit=3))
        created = [n.created for n in listed]
        assert created == sorted(created, reverse=True), "notifications not newest first"
        got = sorted(
            (n.type, n.actors[0].userid if n.type == "follow" else (n.twit_id or ""), n.count)
            for n in listed
        )
        assert got == ref.notifications(u)


ACTIONS = ["register", "follow", "follow", "unfollow", "post", "post", "reply", "reply", "delete"]
ACTIONS += ["like", "like", "unlike"]  # for notifications' like groups


def run_sequence(rng: random.Random, steps: int) -> None:
    ref = Reference()
    for _ in range(steps):
        action = rng.choice(ACTIONS)
        if action == "register" or not ref.users:
            name = rng.choice(NAMES)
            if name in ref.users:
                with pytest.raises(Conflict):
                    services.register(name, name, f"{name}@example.com", "password-1")
            else:
                services.register(name, name, f"{name}@example.com", "password-1")
                ref.users.add(name)
            continue
        users = sorted(ref.users)
        a, b = rng.choice(users), rng.choice(users)
        if action == "follow" and a != b:
            assert services.follow(a, b) == ((a, b) not in ref.follows)
            if (a, b) not in ref.follows:
                ref.follow_events.append((a, b))
            ref.follows.add((a, b))
        elif action == "unfollow" and a != b:
            assert services.unfollow(a, b) == ((a, b) in ref.follows)
            ref.follows.discard((a, b))
        elif action == "post":
            mention = rng.choice(NAMES)
            twit = services.post_twit(a, f"twit by {a} for @{mention} #{rng.randrange(10**6)}")
            ref.twits[twit.id] = a
            ref.notified[twit.id] = (
                {("mention", mention)} if mention in ref.users and mention != a else set()
            )
        elif action == "reply" and ref.twits:
            parent = rng.choice(sorted(ref.twits))
            mention = rng.choice(NAMES)
            twit = services.post_twit(a, f"reply by {a} cc @{mention}", reply_to=parent)
            ref.twits[twit.id] = a
            ref.parents[twit.id] = parent
            to = ref.twits[parent]
            sent = {("reply", to)} if to != a else set()
            if mention in ref.users and mention not in (a, to):
                sent.add(("mention", mention))
            ref.notified[twit.id] = sent
        elif action in ("like", "unlike") and ref.twits:
            tid = rng.choice(sorted(ref.twits))
            if action == "like":
                services.like(a, tid)
                ref.likers.setdefault(tid, set()).add(a)
            else:
                services.unlike(a, tid)
                ref.likers.get(tid, set()).discard(a)
        elif action == "delete" and ref.twits:
            tid = rng.choice(sorted(ref.twits))
            if ref.twits[tid] == a:
                services.delete_twit(a, tid)
                del ref.twits[tid]
                ref.parents.pop(tid, None)
            else:
                with pytest.raises(Forbidden):
                    services.delete_twit(a, tid)
        check(ref)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_sequences_match_the_reference(twitbase: ServerAddr, seed: int) -> None:
    steps = 60 if twitbase.kind == "local" else 25
    run_sequence(random.Random(seed), steps)
