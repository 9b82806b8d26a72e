"""Bulk loading of a synthetic social graph (``manage.py loaddemo``).

It plans, then writes. :func:`plan_demo` draws the whole demo from its
seed, with no server (tests/unit/test_demo_plan.py); :func:`load_demo`
writes what the plan says, each row as its table's owner builds it
(``accounts.user_rows``, ``follows.edge_rows``, ``twits.twit_rows``,
``streams.stream_rows``: the rows the services write), in batches, without
the per-operation safeguards (checkAndPut, retry-proof counters) that make
no sense for a one-shot load into empty tables: counts are computed in
memory and written once.

The follow graph is power-law: how many users one follows is drawn from a
heavy-tailed distribution, and whom is drawn by popularity rank with
P(rank r) proportional to 1/r, so a few users have very many followers.

On it, the social data a living site has: some twits reply to a recent twit
of someone the author follows, some mention a followee, about a third carry
hashtags (a few popular, a long tail), and followers like twits (so the
well-followed collect the most likes). Replies and likes are the rows the
services leave once a post or a like has finished counting (``replies``,
``likers``, ``likes``, the counted marks), and each twit's ``t:replies`` and
``t:likes`` count exactly its rows.

Followers repost too (fewer than like: the well-followed collect the most),
each repost as services/reactions.py leaves it once it has finished counting:
the ``reposters`` claim row in its counted state, the reposter's ``reposts``
row, ``t:reposts`` equal to those rows, and the repost's row, at the repost's
time, in the reposter's own stream and each follower's. A reposter above
TWITBASE_CELEBRITY_THRESHOLD followers writes only their own row and is
listed in ``celebrities``, so readers merge their reposts when they read, as
the services do once an account is too large to fan out.
"""

from __future__ import annotations

import bisect
import itertools
import multiprocessing
import os
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import happybase
from django.conf import settings
from django.contrib.auth.hashers import make_password

from feeds.services import accounts, follows, lists, messages, reactions, streams
from feeds.services import twits as twits_service
from feeds.services.demotext import demo_name, reply_text, twit_text
from feeds.types import UserRef
from storage import keys, rows
from storage.connection import connection, reset_pool, table_name
from storage.ops import put_rows

from ._load import LoadRow

Progress = Callable[[str, int, int], None]
BATCH = 5_000
DEMO_PASSWORD = "twitbase-demo"

# The social mix: the share of twits that reply (to a followee's recent twit)
# and that mention a followee; a twit is liked by a share of its author's
# followers drawn from Beta(1, LIKE_BETA), mean 1 / (1 + LIKE_BETA).
REPLY_SHARE = 0.2
MENTION_SHARE = 0.1
LIKE_BETA = 8.0
RECENT = 5  # a reply answers one of its parent author's last RECENT twits
# A twit is reposted by a share of its author's followers drawn from
# Beta(1, REPOST_BETA): mean 1/41, about a fifth of the likes. A repost comes
# within REPOST_WITHIN_MS of the twit (and before now).
REPOST_BETA = 40.0
REPOST_WITHIN_MS = 2 * 86_400_000


@dataclass
class DemoStats:
    users: int = 0
    edges: int = 0
    twits: int = 0
    stream_rows: int = 0
    replies: int = 0
    likes: int = 0
    reposts: int = 0
    max_followers: int = 0
    most_followed: str = ""  # the userid with max_followers: where to watch a fan-out
    seconds: float = 0.0
    rows_written: dict[str, int] = field(default_factory=dict)
    edited: int = 0  # twits edited (see _write_edits)


def demo_userid(i: int) -> str:
    return f"user{i:06d}"


def demo_loaded() -> str | None:
    """The demo's first user, if these tables hold a demo already (every demo
    has that user), else None. A second :func:`load_demo` into them would
    write every twit again under a new id (twit keys carry the load's time)
    and overwrite the counts, so ``loaddemo`` refuses."""
    first = demo_userid(0)
    return first if accounts.find_user(first) is not None else None


def zipf_sampler(n: int, rng: random.Random) -> Callable[[], int]:
    """Draw users by a random popularity rank r with P(r) proportional to 1/r."""
    rank_to_user = list(range(n))
    rng.shuffle(rank_to_user)
    cum = list(itertools.accumulate(1.0 / (r + 1) for r in range(n)))
    total = cum[-1]
    return lambda: rank_to_user[bisect.bisect_left(cum, rng.random() * total)]


def follow_graph(n: int, mean_follows: int, rng: random.Random) -> list[list[int]]:
    """Whom each user follows: heavy-tailed out-degree, popularity ~ 1/rank."""
    if n < 2:
        return [[] for _ in range(n)]
    popular = zipf_sampler(n, rng)
    graph: list[list[int]] = []
    for user in range(n):
        # Pareto(alpha=2) has mean 2*xm; scale so the mean is mean_follows.
        want = min(n - 1, int(rng.paretovariate(2.0) * mean_follows / 2))
        chosen: set[int] = set()
        tries = 0
        while len(chosen) < want and tries < want * 4:
            tries += 1
            target = popular()
            if target != user:
                chosen.add(target)
        graph.append(sorted(chosen))
    return graph


@dataclass
class _PlannedTwit:
    """One demo twit before it is written: who, when, what, and what it gets."""

    author: int
    millis: int
    key: bytes
    text: str
    parent: int | None  # the index of the twit it replies to
    replies: int = 0
    likers: list[tuple[int, int]] = field(default_factory=list)  # (user, like ms)
    reposters: list[tuple[int, int]] = field(default_factory=list)  # (user, repost ms)
    quoted: int | None = None  # the index of the twit it quotes
    quotes: int = 0


@dataclass
class DemoPlan:
    """Everything a demo load writes, drawn from its seed before a row is
    written (:func:`plan_demo`): pure, no server. Users are numbered 0 to
    ``users - 1`` (userid :func:`demo_userid`)."""

    users: int
    now: int  # ms: the load's time
    names: list[str]
    hashes: list[bytes]  # each user's md5, once, not once per stream row
    graph: list[list[int]]  # whom each user follows
    followers: list[list[int]]  # who follows each user
    ops: list[list[bytes]]  # each follow's operation id, as graph lists them
    twit_count: list[int]  # each user's twits
    twits: list[_PlannedTwit]  # in time order
    stored: list[rows.TwitRow]  # each twit as its rows carry it

    @property
    def generation(self) -> int:
        """The timestamp of every demo edge: each was "created" at load time."""
        return self.now - 1

    def stats(self) -> DemoStats:
        """The figures of what the plan writes, as far as the plan knows them
        (the repost stream rows and the time are the load's)."""
        return DemoStats(
            users=self.users,
            edges=sum(len(t) for t in self.graph),
            twits=len(self.twits),
            stream_rows=sum(1 + len(self.followers[t.author]) for t in self.twits),
            replies=sum(1 for t in self.twits if t.parent is not None),
            likes=sum(len(t.likers) for t in self.twits),
            reposts=sum(len(t.reposters) for t in self.twits),
            max_followers=max((len(f) for f in self.followers), default=0),
            most_followed=demo_userid(
                max(range(self.users), key=lambda u: len(self.followers[u]), default=0)
            ),
        )


def plan_demo(users: int, twits: int, *, seed: int, mean_follows: int, now: int) -> DemoPlan:
    """The demo of ``users`` users and ``twits`` twits for ``seed``, loaded
    at ``now`` (ms): the same plan for the same arguments."""
    rng = random.Random(seed)
    graph = follow_graph(users, mean_follows, rng)
    followers: list[list[int]] = [[] for _ in range(users)]
    for a, targets in enumerate(graph):
        for b in targets:
            followers[b].append(a)
    # Twits: half from anyone, half from a few prolific users (~1/rank again).
    prolific = zipf_sampler(users, rng)
    authors = [rng.randrange(users) if rng.random() < 0.5 else prolific() for _ in range(twits)]
    twit_count = [0] * users
    for a in authors:
        twit_count[a] += 1
    span = 30 * 24 * 3600 * 1000
    times = sorted(now - span + rng.randrange(span) for _ in range(twits))
    # In the order a single writer drew them once, so a seed's demo stays as it was.
    ops = [[rng.getrandbits(128).to_bytes(16, "big") for _ in targets] for targets in graph]
    planned = _plan_twits(authors, times, graph, followers, rng, now)
    # A generator of its own, so the reposts leave the rest of a seed's
    # demo (graph, twits, likes) as it was before reposts.
    _plan_reposts(planned, followers, random.Random(seed * 7919 + 1), now)
    # The quotes too: a seed's twits, replies and reposts stay as they were.
    _plan_quotes(planned, graph, random.Random(seed * 7919 + 2))
    names = [demo_name(i) for i in range(users)]
    return DemoPlan(
        users=users,
        now=now,
        names=names,
        hashes=[keys.user_hash(demo_userid(i)) for i in range(users)],
        graph=graph,
        followers=followers,
        ops=ops,
        twit_count=twit_count,
        twits=planned,
        stored=[_twit_row(t, planned, names) for t in planned],
    )


def _plan_twits(
    authors: list[int],
    times: list[int],
    graph: list[list[int]],
    followers: list[list[int]],
    rng: random.Random,
    now: int,
) -> list[_PlannedTwit]:
    """Every twit in time order, with its replies counted and likers drawn.

    A reply answers one of the last few twits of someone its author follows
    (earlier, as times are sorted); a mention names a followee. Likers are a
    random share of the author's followers, each liking some time after the
    twit (within a day, and before now).
    """
    plan: list[_PlannedTwit] = []
    recent: dict[int, list[int]] = {}
    for author, millis in zip(authors, times, strict=True):
        uid = demo_userid(author)
        key = keys.twit_key(uid, millis, rng.getrandbits(32).to_bytes(4, "big"))
        followees = graph[author]
        parent = None
        if followees and rng.random() < REPLY_SHARE:
            theirs = recent.get(rng.choice(followees))
            if theirs:
                parent = rng.choice(theirs)
        if parent is not None:
            plan[parent].replies += 1
            to = demo_userid(plan[parent].author) if rng.random() < 0.3 else None
            text = reply_text(rng, to)
        else:
            mention = (
                demo_userid(rng.choice(followees))
                if followees and rng.random() < MENTION_SHARE
                else None
            )
            text = twit_text(rng, mention)
        fans = followers[author]
        likers: list[tuple[int, int]] = []
        if fans:
            k = int(len(fans) * rng.betavariate(1.0, LIKE_BETA) + rng.random())
            latest = max(millis + 1, now - 1)
            for liker in rng.sample(fans, min(k, len(fans))):
                likers.append((liker, min(latest, millis + 1 + rng.randrange(86_400_000))))
        plan.append(_PlannedTwit(author, millis, key, text, parent, likers=likers))
        mine = recent.setdefault(author, [])
        mine.append(len(plan) - 1)
        if len(mine) > RECENT:
            del mine[0]
    return plan


def _plan_reposts(
    plan: list[_PlannedTwit], followers: list[list[int]], rng: random.Random, now: int
) -> None:
    """Draw each twit's reposters: a share of its author's followers (so the
    well-followed are reposted most, and two followees of one reader often
    repost the same twit), each some time after the twit and before now."""
    for t in plan:
        fans = followers[t.author]
        if not fans:
            continue
        k = int(len(fans) * rng.betavariate(1.0, REPOST_BETA) + rng.random())
        latest = max(t.millis + 1, now - 1)
        for user in rng.sample(fans, min(k, len(fans))):
            t.reposters.append((user, min(latest, t.millis + 1 + rng.randrange(REPOST_WITHIN_MS))))


# -- quotes (feeds/services/twits.py: twit_rows writes a quote's rows) -------------------

QUOTE_SHARE = 0.05  # of the twits that reply to none: they quote a followee's recent twit


def _plan_quotes(plan: list[_PlannedTwit], graph: list[list[int]], rng: random.Random) -> None:
    """Make a share of the twits that reply to none quote one of the last
    few twits (earlier: times are sorted) of someone their author follows,
    each counted on the quoted twit."""
    recent: dict[int, list[int]] = {}
    for n, t in enumerate(plan):
        followees = graph[t.author]
        if t.parent is None and followees and rng.random() < QUOTE_SHARE:
            theirs = recent.get(rng.choice(followees))
            if theirs:
                t.quoted = rng.choice(theirs)
                plan[t.quoted].quotes += 1
        mine = recent.setdefault(t.author, [])
        mine.append(n)
        if len(mine) > RECENT:
            del mine[0]


def _twit_row(t: _PlannedTwit, plan: list[_PlannedTwit], names: list[str]) -> rows.TwitRow:
    parent = None if t.parent is None else plan[t.parent]
    quoted = None if t.quoted is None else plan[t.quoted]
    return rows.TwitRow(
        demo_userid(t.author),
        names[t.author],
        t.text,
        t.millis,
        reply_to=None if parent is None else keys.twit_id(parent.key),
        reply_userid="" if parent is None else demo_userid(parent.author),
        quote_of=None if quoted is None else keys.twit_id(quoted.key),
        quote_userid="" if quoted is None else demo_userid(quoted.author),
    )


class _Writer:
    """Batched puts: a request per (table, timestamp) every BATCH cells, as
    happybase's ``Table.batch(batch_size=BATCH)`` sends them, but written by
    :func:`storage.ops.put_rows` (compiled, where it is built: happybase's
    Thrift objects made half of the loaders' CPU)."""

    def __init__(self, conn: happybase.Connection) -> None:
        self.conn = conn
        self.batches: dict[tuple[str, int | None], list[tuple[bytes, dict[bytes, bytes]]]] = {}
        self.cells: Counter[tuple[str, int | None]] = Counter()
        self.rows: Counter[str] = Counter()

    def put(self, table: str, row: bytes, data: dict[bytes, bytes], ts: int | None = None) -> None:
        key = (table, ts)
        self.batches.setdefault(key, []).append((row, data))
        self.rows[table] += 1
        self.cells[key] += len(data)
        if self.cells[key] >= BATCH:
            self.send(table, ts)

    def send(self, table: str, ts: int | None = None) -> None:
        """Send one (table, timestamp) batch now, as a load through many
        timestamps would otherwise hold a batch open for each."""
        batch = self.batches.pop((table, ts), None)
        self.cells.pop((table, ts), None)
        if batch:
            put_rows(self.conn, table_name(table), batch, ts)

    def put_all(self, found: Iterable[LoadRow]) -> None:
        """Put rows as their tables' owners give them (services/_load.py)."""
        for table, row, data, ts in found:
            self.put(table, row, data, ts)

    def flush(self) -> None:
        for table, ts in list(self.batches):
            self.send(table, ts)


def load_demo(
    users: int,
    twits: int,
    *,
    seed: int = 42,
    mean_follows: int = 20,
    progress: Progress | None = None,
    processes: int = 2,
) -> DemoStats:
    """Write ``users`` users, a power-law follow graph, ``twits`` twits and the
    streams they fan out to. Deterministic for a given seed (timestamps aside).

    The plan (:func:`plan_demo`) is drawn first; then the users, follows
    and twits (with their streams) are written by ``processes`` forked
    processes, each a part at a time (see :func:`_in_processes`); the likes
    and reposts by this one. Every row is as its table's owner makes it."""
    report = progress or (lambda stage, done, total: None)
    started = time.monotonic()
    demo = plan_demo(
        users, twits, seed=seed, mean_follows=mean_follows, now=int(time.time() * 1000)
    )
    stats = demo.stats()
    rows_written: Counter[str] = Counter()
    # One hash for every demo user: key stretching 100k times takes hours.
    _SHARED.update(demo=demo, password=make_password(DEMO_PASSWORD))
    try:
        user_parts = _parts(users, _USERS_PER_PART)
        for stage, task, parts, total in (
            # Named for what they count, not for the tables they fill: their rows
            # go to the tables the owners name.
            ("accounts", _write_users, user_parts, users),
            ("edges", _write_follows, user_parts, stats.edges),
            ("posts", _write_twits, _parts(twits, _TWITS_PER_PART), twits),
        ):
            # Each stage reports 0 done when it starts, so its rate is timed from there.
            report(stage, 0, total)
            _in_processes(processes, task, parts, stage, total, report, rows_written)
    finally:
        _SHARED.clear()

    with connection() as conn:
        out = _Writer(conn)
        out.rows = rows_written
        _write_likes(out, demo, report, stats.likes)
        stats.stream_rows += _write_reposts(out, demo, report, stats.reposts)
        _raise_reacted(conn, demo)
        _write_messages(out, demo, seed, report)
        stats.edited = _write_edits(conn, demo)
        # Hashtag index rows and mention notifications belong here too, if
        # those features keep tables of their own: the texts already carry
        # the hashtags and mentions (t.text), the same as a posted twit's.
        _write_lists(out, demo, report)
        stats.rows_written = dict(out.rows)
    stats.seconds = time.monotonic() - started
    return stats


# What the forked loader processes read: set before they fork, cleared after.
_SHARED: dict[str, Any] = {}
_USERS_PER_PART = 1_000
_TWITS_PER_PART = 500
Part = tuple[Counter[str], int]  # rows written per table, and units of the stage done


def _parts(n: int, size: int) -> list[range]:
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def _in_processes(
    processes: int,
    task: Callable[[range], Part],
    parts: list[range],
    stage: str,
    total: int,
    report: Progress,
    rows_written: Counter[str],
) -> None:
    """Run ``task`` on every part, in ``processes`` forked processes.

    Written by hand over multiprocessing's Pool rather than with threads:
    building the rows is Python, one core at a time under the GIL, and the
    server waits on it; two processes keep the server and the builders busy
    on both cores, where threads would only take turns at the GIL. Forked, the
    processes share the plan in memory (_SHARED) without pickling it, and
    each opens its own connections (reset_pool). The stage's progress is
    reported as parts finish.
    """
    done = 0
    if processes <= 1:
        results: Iterable[Part] = map(task, parts)
        pool = None
    else:
        pool = multiprocessing.get_context("fork").Pool(processes, initializer=reset_pool)
        results = pool.imap_unordered(task, parts)
    try:
        for written, units in results:
            rows_written.update(written)
            done += units
            report(stage, done, total)
    finally:
        if pool is not None:
            pool.close()
            pool.join()


def _write_users(part: range) -> Part:
    demo: DemoPlan = _SHARED["demo"]
    password: str = _SHARED["password"]
    with connection() as conn:
        out = _Writer(conn)
        for i in part:
            uid = demo_userid(i)
            account = rows.encode_account(
                uid, demo.names[i], f"{uid}@example.com", password, demo.now
            )
            out.put_all(
                accounts.user_rows(
                    account,
                    uid,
                    demo.names[i],
                    twits=demo.twit_count[i],
                    followers=len(demo.followers[i]),
                    following=len(demo.graph[i]),
                )
            )
        out.flush()
    return out.rows, len(part)


def _write_follows(part: range) -> Part:
    demo: DemoPlan = _SHARED["demo"]
    names, generation = demo.names, demo.generation
    done = 0
    with connection() as conn:
        out = _Writer(conn)
        for a in part:
            ua = demo_userid(a)
            for b, op in zip(demo.graph[a], demo.ops[a], strict=True):
                out.put_all(
                    follows.edge_rows(ua, names[a], demo_userid(b), names[b], generation, op)
                )
            done += len(demo.graph[a])
        out.flush()
    return out.rows, done


def _write_twits(part: range) -> Part:
    demo: DemoPlan = _SHARED["demo"]
    plan, hashes = demo.twits, demo.hashes
    with connection() as conn:
        out = _Writer(conn)
        for n in part:
            t, twit = plan[n], demo.stored[n]
            # The marks and counts a finished post (and its replies' and likes'
            # counting) leaves, so a delete of a demo twit counts right.
            out.put_all(
                twits_service.twit_rows(
                    t.key,
                    twit,
                    parent=None if t.parent is None else plan[t.parent].key,
                    replies=t.replies,
                    likes=len(t.likers),
                    reposts=len(t.reposters),
                    quoted=None if t.quoted is None else plan[t.quoted].key,
                    quotes=t.quotes,
                )
            )
            # All demo stream rows carry the demo edges' generation (see fanout).
            readers = [hashes[r] for r in [t.author, *demo.followers[t.author]]]
            out.put_all(streams.stream_rows(readers, t.key, twit, demo.generation))
        out.flush()
    return out.rows, len(part)


# -- likes and reposts: their rows as services/reactions.py builds them.


def _write_likes(out: _Writer, demo: DemoPlan, report: Progress, total: int) -> None:
    """Each planned like's rows, as reactions.like leaves them once counted."""
    done = 0
    report("likes", 0, total)
    for t in demo.twits:
        for liker, ms in t.likers:
            name = demo.names[liker]
            out.put_all(reactions.load_rows(reactions.LIKE, t.key, demo_userid(liker), name, ms))
            done += 1
            if done % 5000 == 0:
                report("likes", done, total)
    out.flush()
    report("likes", total, total)


def _raise_reacted(conn: happybase.Connection, demo: DemoPlan) -> None:
    """The reaction counters of the accounts that like or repost, after
    their rows (accounts.reacted_rows): cells of users rows written already,
    not rows of their own, so not in the rows written."""
    reacted = {who for t in demo.twits for who, _ in (*t.likers, *t.reposters)}
    out = _Writer(conn)
    out.put_all(accounts.reacted_rows(demo_userid(i) for i in sorted(reacted)))
    out.flush()


def _write_reposts(out: _Writer, demo: DemoPlan, report: Progress, total: int) -> int:
    """Each planned repost's rows, as reactions.repost and the fan-out
    leave them; returns the stream rows written. A reposter too large to fan
    out (as fanout.is_celebrity counts) gets only their own stream row and is
    listed in ``celebrities``, long enough ago that the services no longer fan
    out for them (fanout.still_fanned_out), so readers merge their reposts.

    The stream rows are keyed at the repost's time, so each shows where the
    fan-out puts it, and their cells carry the demo edges' generation, as the
    demo's twit rows do: every demo follow is "made" at load time, after the
    reposts, and a follow's backfill writes a followee's repost rows at its
    generation (fanout.backfill_stream). Nothing tells the two timestamps
    apart (an un-repost's markers are at the time of deleting), and one
    timestamp keeps the load to one batch, where the fan-out's own, one per
    repost time, would need a batch for each (Thrift1 gives a batch one
    timestamp)."""
    plan, followers, names = demo.twits, demo.followers, demo.names
    threshold: int = settings.TWITBASE_CELEBRITY_THRESHOLD
    listed = min((ms for t in plan for _, ms in t.reposters), default=0) - 1
    large: set[int] = set()
    stream_rows = 0
    done = 0
    report("reposts", 0, total)
    for t, twit in zip(plan, demo.stored, strict=True):
        twit_id = keys.twit_id(t.key)
        for user, ms in t.reposters:
            uid = demo_userid(user)
            cells = rows.encode_repost_stream(twit, twit_id, uid, names[user])
            out.put_all(reactions.load_rows(reactions.REPOST, t.key, uid, names[user], ms, twit))
            readers = [user]
            if len(followers[user]) > threshold:
                large.add(user)
            else:
                readers += followers[user]
            out.put_all(
                streams.repost_stream_rows(
                    [demo.hashes[r] for r in readers], ms, uid, t.key, cells, demo.generation
                )
            )
            stream_rows += len(readers)
            done += 1
            if done % 1000 == 0:
                report("reposts", done, total)
    for user in sorted(large):
        uid = demo_userid(user)
        out.put_all(streams.celebrity_rows(uid, listed))
    out.flush()
    report("reposts", total, total)
    return stream_rows


def add_star(
    userid: str, followers: int, prefix: str = "fan", progress: Progress | None = None
) -> list[str]:
    """Create ``userid`` and ``followers`` new users who all follow it (bulk).

    For benchmarks: an account with a known, large audience. Returns the
    followers' userids. ``progress`` hears ("followers", done, total) every
    10,000 followers.
    """
    report = progress or (lambda stage, done, total: None)
    now = int(time.time() * 1000)
    generation = now - 1
    password = make_password(DEMO_PASSWORD)
    fans = [f"{prefix}{i:06d}" for i in range(followers)]
    star = f"Star {userid}"
    with connection() as conn:
        out = _Writer(conn)
        star_account = rows.encode_account(userid, star, f"{userid}@example.com", password, now)
        out.put_all(accounts.user_rows(star_account, userid, star, followers=followers))
        for i, fan in enumerate(fans):
            if i % 10_000 == 0:
                report("followers", i, followers)
            name = f"Fan {fan}"
            account = rows.encode_account(fan, name, f"{fan}@example.com", password, now)
            out.put_all(accounts.user_rows(account, fan, name, following=1))
            out.put_all(follows.edge_rows(fan, name, userid, star, generation, os.urandom(16)))
        out.flush()
    report("followers", followers, followers)
    return fans


# -- image twits (feeds/services/media.py) ------------------------------------------------

IMAGE_TWIT_TEXTS = (
    "Evening light over the harbour",
    "Tried the new trail this morning",
    "Today's sky, no filter",
    "Whiteboard from the schema review: tall and narrow wins",
)


def demo_picture(rng: random.Random, width: int = 960, height: int = 640) -> bytes:
    """A generated landscape (sky, hills, a sun) as PNG: no downloads."""
    import io

    from PIL import Image, ImageDraw

    def colour() -> tuple[int, int, int]:
        return (rng.randrange(256), rng.randrange(256), rng.randrange(256))

    image = Image.new("RGB", (width, height), colour())
    draw = ImageDraw.Draw(image)
    sun = rng.randrange(width // 8, width * 7 // 8)
    draw.ellipse((sun - 60, 80, sun + 60, 200), fill=colour())
    for layer in range(3):
        top = height // 2 + layer * height // 8
        points = [(0, height)] + [
            (x, top + rng.randrange(-40, 40)) for x in range(0, width + 1, width // 6)
        ]
        draw.polygon([*points, (width, height)], fill=colour())
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def post_image_twits(users: int, count: int, *, seed: int = 42) -> int:
    """Post ``count`` twits with one to four generated images each, by the
    first demo users in turn, through the same verbs as a person's post
    (media.upload, posting.post_twit): each image re-encoded, stored in the
    MOB family and fanned out as any twit. How many were posted."""
    from feeds.services import media, posting

    rng = random.Random(seed)
    for n in range(count):
        author = demo_userid(n % users)
        ids = [
            media.upload(author, demo_picture(rng), f"A generated landscape, picture {i + 1}").id
            for i in range(rng.randint(1, media.MAX_IMAGES))
        ]
        posting.post_twit(author, IMAGE_TWIT_TEXTS[n % len(IMAGE_TWIT_TEXTS)], images=ids)
    return count


# -- direct messages: their rows as services/messages.py builds them.

DEMO_CONVERSATIONS = 200  # at most; among the first users and whom they follow
DEMO_LINES = (
    "Did you see the region split last night?",
    "Ha, yes. Sixteen regions and not one hotspot.",
    "Coffee later?",
    "Sure, 3 pm works.",
    "Thanks for the follow!",
    "Loved your twit about row keys.",
    "Which key would you use for this?",
    "md5 first, then the reversed time.",
    "Are you coming to the meetup on Thursday?",
    "Wouldn't miss it.",
    "Can you send me the slides?",
    "Sent. Tell me what you think.",
)


def _write_messages(out: _Writer, demo: DemoPlan, seed: int, report: Progress) -> None:
    """Some conversations, so the demo's inboxes are not empty: each of the
    first users writes with a few of those they follow, a handful of lines
    over the last two days. A generator of its own, so the rest of a seed's
    demo stays as it was before messages."""
    rng = random.Random(seed * 7919 + 2)
    planned: list[tuple[str, str, list[tuple[bool, str, int, bytes]]]] = []
    seen: set[tuple[int, int]] = set()
    for a in range(demo.users):
        for b in demo.graph[a][:3]:
            pair = (min(a, b), max(a, b))
            if a == b or pair in seen or len(planned) >= DEMO_CONVERSATIONS:
                continue
            seen.add(pair)
            # Each line a minute to an hour after the one before, the last
            # before the load: strictly increasing, so the latest is last.
            ms = demo.now - 7 * 3_600_000 - rng.randrange(2 * 24 * 3_600_000)
            said = []
            for step in range(rng.randint(2, 6)):
                ms += rng.randrange(60_000, 3_600_000)
                said.append((step % 2 == 0 or rng.random() < 0.3, rng.choice(DEMO_LINES), ms))
            with_suffix = [(by_a, text, ms, rng.randbytes(4)) for by_a, text, ms in said]
            planned.append((demo_userid(a), demo_userid(b), with_suffix))
    report("messages", 0, len(planned))
    out.put_all(messages.load_rows(planned))
    out.flush()
    report("messages", len(planned), len(planned))


# -- lists of accounts (services/lists.py) ----------------------------------------------

DEMO_LISTS = 10  # owners of a demo list each: the first users


def _write_lists(out: _Writer, demo: DemoPlan, report: Progress) -> None:
    """A few lists, as adding their members one by one leaves them: each of
    the first DEMO_LISTS users lists up to 12 of those they follow, and the
    first user also the 20 most followed, so a list page looks alive."""
    owners = range(min(DEMO_LISTS, demo.users))
    report("lists", 0, len(owners))
    popular = sorted(range(demo.users), key=lambda u: -len(demo.followers[u]))[:20]
    for owner in owners:
        chosen = [("Favourites", demo.graph[owner][:12])]
        if owner == 0:
            chosen.append(("Most followed", popular))
        for name, members in chosen:
            refs = [UserRef(demo_userid(m), demo.names[m]) for m in members if m != owner]
            out.put_all(lists.list_rows(demo_userid(owner), name, demo.now, refs))
    out.flush()
    report("lists", len(owners), len(owners))


# -- edits: a few demo twits show "edited", with a history (services/twits.py) ----------

EDITED_EVERY = 40  # one twit in EDITED_EVERY, the first of them edited twice
_EDIT_NOTES = ("(edit: fixed a typo)", "(edit: added a link later)")


def _write_edits(conn: happybase.Connection, demo: DemoPlan) -> int:
    """Edit every EDITED_EVERY-th demo twit once, a minute after it was
    posted (every other one of them twice), as the twits service does:
    their pages show "edited" and a history. Returns the twits edited."""
    edited = 0
    for n in range(0, len(demo.twits), EDITED_EVERY):
        t = demo.twits[n]
        times = 2 if (n // EDITED_EVERY) % 2 == 0 else 1
        texts = [
            (f"{t.text[: twits_service.TEXT_MAX - 30]} {note}", t.millis + 60_000 * (i + 1))
            for i, note in enumerate(_EDIT_NOTES[:times])
        ]
        edited += bool(twits_service.load_edits(conn, t.key, texts))
    return edited
