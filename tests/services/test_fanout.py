"""Fan-out as a service (run in the caller): idempotence, bounded streams,
large accounts and paging across the merge."""

from __future__ import annotations

import io
import multiprocessing
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import happybase
import pytest
from celery.exceptions import Retry
from django.core.management import call_command
from pytest_django.fixtures import Settings

from feeds import jobs, services
from feeds.services import console, fanout, metrics, pending
from feeds.types import Twit, User
from storage import keys, ops, rows
from storage.connection import connection, reset_pool, table_name
from storage.ops import MarkedChange
from tests.helpers import ServerAddr
from tests.jobqueue import jobs_recorded
from tests.services.test_model import all_pages
from worker import jobs as worker_jobs
from worker import tasks


def streams_snapshot() -> dict[bytes, dict[bytes, tuple[bytes, int]]]:
    """Every cell of the streams table, with its timestamp."""
    with connection() as conn:
        return dict(conn.table(table_name("streams")).scan(include_timestamp=True))


@pytest.fixture
def fans(alice: User, settings: Settings) -> Iterator[list[str]]:
    settings.TWITBASE_FANOUT_CHUNK = 2
    names = [f"fan{i}" for i in range(5)]
    for name in names:
        services.register(name, name, f"{name}@example.com", "password-123")
        services.follow(name, "alice")
    yield names


def post_with_second_chunk_crashing(monkeypatch: pytest.MonkeyPatch, text: str) -> Twit:
    """alice posts ``text`` and the second chunk of its fan-out dies, as its
    worker would; returns the twit, stored with its fan-out unfinished."""
    real = fanout._write_stream_rows
    calls = {"n": 0}

    def crash_on_second_chunk(*args: object, **kwargs: object) -> int:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("worker died")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fanout, "_write_stream_rows", crash_on_second_chunk)
    # Eagerly, Celery's autoretry surfaces as Retry instead of retrying later.
    with pytest.raises((RuntimeError, Retry)):
        services.post_twit("alice", text)
    monkeypatch.setattr(fanout, "_write_stream_rows", real)
    crashed = services.timeline("alice").items[0]
    assert crashed.text == text
    return crashed


def test_running_a_fan_out_twice_leaves_the_same_rows(fans: list[str]) -> None:
    twit = services.post_twit("alice", "once")
    before = streams_snapshot()
    written = {k: v for k, v in before.items() if keys.twit_key_from_stream_key(k).hex() == twit.id}
    assert len(written) == 6
    # Every row carries the twit's cells at the twit's time (one mutateRows a chunk).
    millis = keys.split_twit_key(bytes.fromhex(twit.id)).millis
    for cells in written.values():
        assert {c: ts for c, (_, ts) in cells.items()} == {rows.STREAM_TWIT: millis}
        assert rows.decode_stream({c: v for c, (v, _) in cells.items()}) is not None
    tasks.fan_out_twit(twit.id)
    assert streams_snapshot() == before


def test_a_fan_out_retried_after_a_crash_half_way_leaves_the_same_rows(
    fans: list[str], monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    clean = services.post_twit("alice", "clean run")
    expected = {k.replace(bytes.fromhex(clean.id)[16:], b"") for k in streams_snapshot()}
    assert expected  # sanity: rows were written
    crashed = post_with_second_chunk_crashing(monkeypatch, "crashed run")
    assert not all(crashed.id in {t.id for t in services.home_stream(f).items} for f in fans)
    tasks.fan_out_twit(crashed.id)  # the retry
    for reader in ["alice", *fans]:
        ids = [t.id for t in services.home_stream(reader).items]
        assert ids == [crashed.id, clean.id]


def test_streams_keep_only_the_newest_rows(alice: User, bob: User, settings: Settings) -> None:
    settings.TWITBASE_STREAM_MAX = 5
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    for i in range(12):
        services.post_twit("bob", f"bob {i}")
    services.follow("alice", "bob")  # backfill brings 12, then trims to 5
    assert [t.text for t in services.home_stream("alice").items] == [
        f"bob {i}" for i in range(11, 6, -1)
    ]
    assert fanout.trim_stream("alice") == 0  # trimming again changes nothing


@pytest.mark.parametrize("count", [30, 47])  # a multiple of the fetch, and not
def test_a_trim_reads_a_stream_longer_than_one_fetch(
    count: int, twitbase: ServerAddr, settings: Settings
) -> None:
    """The trim asks for four times the limit at once: a stream longer than
    that is read on to its end, and no further (the next reader's rows).
    Trimmed together with a stream under the limit and one over it, each
    loses what it has over the limit."""
    settings.TWITBASE_STREAM_MAX = 5  # one fetch: 20 keys
    reader, neighbour = keys.user_hash("alice"), keys.user_hash("alice")[:-1] + b"\xff"
    other = keys.user_hash("carol")
    mine = [reader + i.to_bytes(8, "big") for i in range(count)]
    theirs = [neighbour + i.to_bytes(8, "big") for i in range(3)]
    others = [other + i.to_bytes(8, "big") for i in range(8)]
    with connection() as conn:
        ops.put_rows_alike(
            conn, table_name("streams"), mine + theirs + others, {rows.STREAM_TWIT: b"x"}, 1
        )
        assert ops.row_keys_with_prefix(conn, table_name("streams"), reader, 10) == mine
        assert fanout._trim_streams(conn, [reader, neighbour, other]) == count - 5 + 3
        assert fanout._trim_streams(conn, [reader, neighbour, other]) == 0
    left = streams_snapshot()
    assert sorted(left) == sorted(mine[:5] + theirs + others[:5])


@pytest.fixture
def celebrity(alice: User, bob: User, charlie: User, settings: Settings) -> Iterator[None]:
    """alice has 2 followers, above a threshold of 1; bob follows alice and charlie."""
    settings.TWITBASE_CELEBRITY_THRESHOLD = 1
    # No list kept between requests, so no grace either: a large account's
    # twits go unfanned from the first (test_celebrity_cache covers the TTL).
    settings.TWITBASE_CELEBRITY_CACHE_S = 0
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    services.register("dave", "Dave", "dave@example.com", "password-123")
    services.follow("bob", "alice")
    services.follow("dave", "alice")
    services.follow("bob", "charlie")
    yield


def test_a_large_account_is_not_fanned_out_but_is_read(
    celebrity: None, twitbase: ServerAddr
) -> None:
    twit = services.post_twit("alice", "too many followers to fan out")
    with connection() as conn:
        stored = conn.table(table_name("streams")).row(
            keys.stream_key("bob", bytes.fromhex(twit.id))
        )
    assert stored == {}, "no stream row for a celebrity's follower"
    assert [t.id for t in services.home_stream("bob").items] == [twit.id]
    assert [t.id for t in services.home_stream("alice").items] == [twit.id]
    services.unfollow("bob", "alice")
    assert services.home_stream("bob").items == ()


def test_paging_stays_exact_across_the_merge(celebrity: None, twitbase: ServerAddr) -> None:
    posted = []
    for i in range(9):
        author = "alice" if i % 3 else "charlie"
        posted.append(services.post_twit(author, f"{author} {i}").id)
        if i == 4:
            fanout.trim_stream("bob")
    newest_first = list(reversed(posted))
    paged = [t.id for t in all_pages(lambda c: services.home_stream("bob", c, limit=2))]
    assert paged == newest_first
    # New twits arriving while paging do not shift later pages.
    first = services.home_stream("bob", limit=4)
    services.post_twit("alice", "late arrival")
    rest = all_pages(lambda c: services.home_stream("bob", c, limit=4) if c else first)
    assert [t.id for t in rest] == newest_first


# -- leases, progress and the pending index (issue 9, finding 3) -------------------------


def _post_stuck(author: str, text: str) -> str:
    """A twit whose fan-out task was lost: posted, never run."""
    with jobs_recorded():
        return services.post_twit(author, text).id


def _stream_ids(reader: str) -> list[str]:
    return [t.id for t in services.home_stream(reader).items]


def test_a_fan_out_run_again_skips_the_chunks_already_done(
    fans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    crashed = post_with_second_chunk_crashing(monkeypatch, "crashed run")
    # The first chunk queues the other two before it writes, and eagerly they
    # run at once: the second (two followers) finished, the third died, the
    # first never wrote.
    assert len([f for f in fans if crashed.id in _stream_ids(f)]) == 2
    rows = metrics.fanout_stats().stream_rows
    tasks.fan_out_twit(crashed.id)
    # The author's row and three followers': the second chunk is on record, not redone.
    assert metrics.fanout_stats().stream_rows - rows == 4
    for reader in ["alice", *fans]:
        assert _stream_ids(reader) == [crashed.id]
    assert console.pending_fanouts().items == ()


def test_a_chunk_whose_lease_was_taken_over_writes_nothing(
    fans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    twit_id = _post_stuck("alice", "lost, then swept")
    with connection() as conn:
        old = pending.decode(pending.read_mark(conn, keys.twit_key_from_id(twit_id)) or b"")
    with jobs_recorded() as queued:
        assert fanout.sweep_pending(older_than_s=0) == [twit_id]
        (requeued,) = queued
        assert requeued["lease"] != old.owner
        # The lost task turns up after all, under the lease it was queued with.
        result = fanout.start_chunk(jobs.FanOutChunk(twit_id, lease=old.owner))
        assert result.taken_over and result.rows == 0  # type: ignore[union-attr]
        assert tasks.fan_out_twit(twit_id, lease=old.owner) == 0
        assert queued == [requeued], "it queued no further chunk"
        assert all(twit_id not in _stream_ids(f) for f in fans)
    tasks.fan_out_twit(twit_id, lease=str(requeued["lease"]))
    assert all(_stream_ids(f) == [twit_id] for f in fans)
    assert console.pending_fanouts().items == ()


def test_queuing_a_chunk_from_a_stale_mark_asks_the_row_before_it_answers(
    fans: list[str],
) -> None:
    """queue_chunk starts from the mark its caller read (saving a read); a
    stale one never decides an answer: the row is read again first."""
    twit_id = _post_stuck("alice", "queued from a hint")
    key = keys.twit_key_from_id(twit_id)
    with connection() as conn:
        first = pending.read_mark(conn, key)
        assert first is not None
        owner = pending.decode(first).owner
        assert pending.queue_chunk(conn, key, owner, 1, first) is True  # current: one swap
        # Stale now (queued 1): queuing 2 from it still succeeds, once.
        assert pending.queue_chunk(conn, key, owner, 2, first) is True
        assert pending.queue_chunk(conn, key, owner, 2, first) is False
        assert pending.decode(pending.read_mark(conn, key) or b"").queued == 2
        # Taken over since: the stale mark still names the old owner, the row does not.
        with jobs_recorded():  # the sweep's chunk is queued, not run
            assert fanout.sweep_pending(older_than_s=0) == [twit_id]
        assert pending.is_open(pending.read_mark(conn, key))
        assert pending.queue_chunk(conn, key, owner, 3, first) is None
        assert pending.queue_chunk(conn, key, owner, 1, first) is None


def _sweep_in_a_process(_: int) -> list[str]:
    reset_pool()  # a forked child must not share its parent's sockets
    return fanout.sweep_pending(older_than_s=3)


def test_racing_sweeps_queue_each_fan_out_once(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    services.follow("bob", "alice")
    stuck = {_post_stuck("alice", f"stuck {i}") for i in range(5)}
    # The leases' clock moved on past their 3 s instead of waiting them out:
    # every lease has expired, and a new one lasts 6 s, time for all sweeps.
    real_now = pending.now_ms
    monkeypatch.setattr(pending, "now_ms", lambda: real_now() + 3100)
    reset_pool()
    # The forked sweeps inherit the recorder: they queue nothing for real.
    with jobs_recorded(), multiprocessing.get_context("fork").Pool(8) as pool:
        queued = [twit for ids in pool.map(_sweep_in_a_process, range(8)) for twit in ids]
    assert sorted(queued) == sorted(stuck)


@contextmanager
def reads_counted() -> Iterator[Counter[str]]:
    """Rows each table hands out to this process: "scan TABLE" and "get TABLE"."""
    counts: Counter[str] = Counter()
    real_scan, real_rows, real_row = happybase.Table.scan, happybase.Table.rows, happybase.Table.row

    def name(table: happybase.Table) -> str:
        return table.name.decode().split("_", 1)[1]

    def scan(self: happybase.Table, *args: Any, **kwargs: Any) -> Iterator[Any]:
        for item in real_scan(self, *args, **kwargs):
            counts["scan " + name(self)] += 1
            yield item

    def rows(self: happybase.Table, *args: Any, **kwargs: Any) -> Any:
        found = real_rows(self, *args, **kwargs)
        counts["get " + name(self)] += len(found)
        return found

    def row(self: happybase.Table, *args: Any, **kwargs: Any) -> Any:
        counts["get " + name(self)] += 1
        return real_row(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(happybase.Table, "scan", scan)
        m.setattr(happybase.Table, "rows", rows)
        m.setattr(happybase.Table, "row", row)
        yield counts


def test_the_sweep_and_the_pending_list_read_only_the_backlog(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    settings.TWITBASE_POSTS_PER_MINUTE = 100
    services.follow("bob", "alice")
    for i in range(20):
        services.post_twit("alice", f"delivered {i}")  # each fan-out finishes here
    # And many more finished twits, written straight to the table.
    with connection() as conn, conn.table(table_name("twits")).batch() as b:
        for i in range(2000):
            b.put(
                keys.twit_key("bob", 1_600_000_000_000 + i, b"\0\0\0\0"),
                {b"t:text": b"old", b"t:userid": b"bob", b"t:name": b"Bob", b"t:created": b"0"},
            )
    stuck = _post_stuck("alice", "the one pending")
    with jobs_recorded(), reads_counted() as reads:
        assert fanout.sweep_pending(older_than_s=0) == [stuck]
    assert dict(reads) == {"scan pendingFanouts": 1, "get twits": 1}
    with reads_counted() as reads:
        assert [p.twit_id for p in console.pending_fanouts().items] == [stuck]
    assert dict(reads) == {"scan pendingFanouts": 1, "get twits": 1}


@pytest.mark.fresh_tables  # its twits are from 2023
def test_sweepfanout_reindex_finds_twits_marked_before_the_index(fans: list[str]) -> None:
    """A twit left pending by a version without leases or index: the mark
    b"pending", no index entry. The sweep alone cannot see it; --reindex can."""
    with connection() as conn:
        key = keys.twit_key("alice", 1_700_000_000_000, b"old!")
        conn.table(table_name("twits")).put(
            key,
            {
                b"t:text": b"from before the upgrade",
                b"t:userid": b"alice",
                b"t:name": b"Alice",
                b"t:created": b"1700000000000",
                b"t:fanout": b"pending",
            },
        )
    out = io.StringIO()
    call_command("sweepfanout", stdout=out)
    assert "queued 0" in out.getvalue()
    call_command("sweepfanout", "--reindex", stdout=out)
    assert "indexed 1 pending fan-out(s)" in out.getvalue()
    assert "queued 1 pending fan-out(s)" in out.getvalue()
    assert all(_stream_ids(f) == [keys.twit_id(key)] for f in fans)
    with connection() as conn:
        assert pending.index_keys(conn) == []
        assert pending.read_mark(conn, key) is None


def test_a_chunk_run_twice_queues_its_successor_once(
    fans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk retried after an error (or redelivered after a worker died)
    must not queue the rest of the chain a second time."""
    with jobs_recorded() as posted:
        twit = services.post_twit("alice", "chained")
    with jobs_recorded() as queued:
        (first,) = posted
        tasks.fan_out_twit(**first)
        tasks.fan_out_twit(**first)  # again, as a retry would
        # The first chunk queues both others at once, and only once.
        assert [(q["chunk"], q["lease"]) for q in queued] == [
            (1, first["lease"]),
            (2, first["lease"]),
        ]
        while queued:
            tasks.fan_out_twit(**queued.pop(0))
    assert all(_stream_ids(f) == [twit.id] for f in fans)
    assert console.pending_fanouts().items == ()


def test_createtables_adds_the_pending_index_to_existing_tables(twitbase: ServerAddr) -> None:
    with connection() as conn:
        conn.delete_table(table_name("pendingFanouts"), disable=True)
    out = io.StringIO()
    call_command("createtables", "--apply", stdout=out)
    # Created pre-split (its key starts with md5(author)), through Thrift2.
    assert (
        f"created table {table_name('pendingFanouts')} (16 regions)\n"
        "1 change(s) made; the tables match the schema"
    ) in out.getvalue()
    call_command("createtables", "--apply", stdout=out)
    assert "\nthe tables match the schema: " in out.getvalue()
    with connection() as conn:
        assert table_name("pendingFanouts").encode() in conn.tables()


@contextmanager
def jobs_held() -> Iterator[list[jobs.Job]]:
    """While inside, jobs are kept, in the order queued, for the test to run."""
    held: list[jobs.Job] = []
    previous = jobs.register(held.append)
    try:
        yield held
    finally:
        jobs.register(previous)


def _run(held: list[jobs.Job], *, last_first: bool = False) -> list[jobs.Job]:
    """Run held jobs, and the jobs they queue, until none is left; returns
    them in the order run."""
    ran = []
    while held:
        job = held.pop() if last_first else held.pop(0)
        ran.append(job)
        worker_jobs.task_for(job).run(**jobs.kwargs(job))
    return ran


def _followedby_reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """From now on, the fan-out's reads of followedBy, as they are made."""
    reads: list[tuple[Any, ...]] = []
    real = fanout._follower_edges

    def reading(*args: Any) -> list[bytes]:
        reads.append(args)
        return real(*args)

    monkeypatch.setattr(fanout, "_follower_edges", reading)
    return reads


def _planned(held: list[jobs.Job]) -> tuple[Twit, list[jobs.FanOutChunk]]:
    """alice posts, and the first chunk of its fan-out runs: the twit, and
    the chunks it queued (held, not run)."""
    twit = services.post_twit("alice", "planned")
    (first,) = held
    held.clear()
    tasks.fan_out_twit(**jobs.kwargs(first))  # type: ignore[arg-type]
    planned = [job for job in held if isinstance(job, jobs.FanOutChunk)]
    assert len(planned) == len(held)
    return twit, planned


def test_the_first_chunk_queues_every_chunk_with_its_followers_place(
    fans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of 2 for 5 followers: the first queues the second, with its
    end and its two followers' place in alice's packed follower list, and
    the third, the last (the list reached the end), before it writes; they
    finish the fan-out in any order, reading their followers from the list."""
    with jobs_held() as held:
        twit, (second, third) = _planned(held)
        assert (second.chunk, third.chunk) == (1, 2)
        # followedBy keys sort by the follower's md5 after the author's.
        ahead = sorted(keys.user_hash(f) for f in fans)
        edge = [(keys.user_hash("alice") + h).hex() for h in ahead]
        assert (second.start, second.stop, second.offset, second.count) == (edge[2], edge[4], 2, 2)
        assert (third.start, third.stop, third.offset, third.count) == (edge[4], "", 4, 1)
        assert second.readers == third.readers == ""
        with connection() as conn:
            listed = conn.table(table_name("followerLists")).row(keys.user_key("alice"))
        assert second.listed == third.listed != ""
        assert rows.decode_follower_list(listed[rows.FOLLOWER_LIST], second.listed.encode()) == (
            b"".join(ahead)
        )
        scans = _followedby_reads(monkeypatch)
        _run(held, last_first=True)
        assert scans == []  # not one read of followedBy: the list served both
    assert all(_stream_ids(f) == [twit.id] for f in ["alice", *fans])
    assert console.pending_fanouts().items == ()


@pytest.mark.parametrize("change", ["made again", "expired"])
def test_a_chunk_whose_list_changed_reads_its_followers_from_followedby(
    fans: list[str], change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list made again under another version (a follow or unfollow,
    then another post), or gone (its time to live): the planned chunks read
    their followers between their bounds instead, and miss nobody."""
    with jobs_held() as held:
        twit, planned = _planned(held)
        with connection() as conn:
            lists = conn.table(table_name("followerLists"))
            if change == "expired":
                lists.delete(keys.user_key("alice"))
            else:  # the same bounds, another follower between them
                ahead = sorted(keys.user_hash(f) for f in fans)
                ahead[3] = keys.user_hash("someone")
                other = rows.encode_follower_list(b"9:9:9", b"".join(ahead))
                lists.put(keys.user_key("alice"), {rows.FOLLOWER_LIST: other})
        scans = _followedby_reads(monkeypatch)
        _run(held)
        assert len(scans) == len(planned) == 2
    assert all(_stream_ids(f) == [twit.id] for f in ["alice", *fans])
    assert console.pending_fanouts().items == ()


def test_a_chunk_queued_with_its_followers_carried_runs_as_before(
    fans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk queued by a version that carried its followers' md5s in the
    message (or by a chunk that planned from a scan) writes to exactly those."""
    with jobs_held() as held:
        twit, (second, third) = _planned(held)
        held.clear()
        ahead = sorted(keys.user_hash(f) for f in fans)
        old = [
            jobs.FanOutChunk(j.twit_id, j.lease, j.start, j.chunk, j.stop, carried.hex())
            for j, carried in ((second, ahead[2] + ahead[3]), (third, ahead[4]))
        ]
        scans = _followedby_reads(monkeypatch)
        _run(list(old))
        assert scans == []
    assert all(_stream_ids(f) == [twit.id] for f in ["alice", *fans])
    assert console.pending_fanouts().items == ()


def test_a_planning_chunk_plans_at_most_plan_ahead_chunks(
    fans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fanout, "PLAN_AHEAD", 1)
    with jobs_held() as held:
        twit = services.post_twit("alice", "one chunk ahead at a time")
        ran = _run(held)
    chunks = [(j.chunk, j.stop, j.readers) for j in ran if isinstance(j, jobs.FanOutChunk)]
    # Each reads one chunk ahead: every chunk plans the next, none carries followers.
    assert chunks == [(0, "", ""), (1, "", ""), (2, "", "")]
    assert all(_stream_ids(f) == [twit.id] for f in ["alice", *fans])
    assert console.pending_fanouts().items == ()


def test_followers_who_come_and_go_while_chunks_wait_leave_the_fan_out_exact(
    fans: list[str],
) -> None:
    """The chunks' bounds are fixed when planned, so the chain of chunks meets
    however the followers change before they run: the fan-out finishes, and,
    with the follow and unfollow jobs run in the order queued, every follower
    has the twit and nobody else does."""
    with jobs_held() as held:
        twit = services.post_twit("alice", "followers moving")
        _run([held.pop(0)])  # the first chunk plans the rest; they wait in held
        for name in ("late0", "late1", "late2", "late3"):
            services.register(name, name, f"{name}@example.com", "password-123")
            services.follow(name, "alice")
        services.unfollow(fans[0], "alice")
        services.unfollow(fans[3], "alice")
        _run(held)
    followers = [*fans[1:3], fans[4], "late0", "late1", "late2", "late3"]
    assert all(_stream_ids(f) == [twit.id] for f in ["alice", *followers])
    assert _stream_ids(fans[0]) == [] and _stream_ids(fans[3]) == []
    assert console.pending_fanouts().items == ()


def test_a_fanned_out_authors_followers_are_read_from_one_cell_while_current(
    fans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first post lists alice's followers in one cell; the next reads the
    list instead of followedBy. A follow and an unfollow in between make it
    stale: the post after them scans again and reaches the new follower,
    not the one who left."""
    first = services.post_twit("alice", "listed")
    scans: list[str] = []
    real = fanout._follower_edges

    def counted(*args: Any, **kwargs: Any) -> list[bytes]:
        scans.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(fanout, "_follower_edges", counted)
    second = services.post_twit("alice", "from the list")
    assert scans == []
    assert all(_stream_ids(f) == [second.id, first.id] for f in fans)

    services.register("late", "late", "late@example.com", "password-123")
    services.follow("late", "alice")
    services.unfollow(fans[0], "alice")
    third = services.post_twit("alice", "after the changes")
    assert scans == ["alice"]
    assert _stream_ids("late")[0] == third.id
    assert third.id not in _stream_ids(fans[0])
    assert all(_stream_ids(f)[0] == third.id for f in fans[1:])
    fourth = services.post_twit("alice", "listed again")
    assert scans == ["alice"]
    assert all(_stream_ids(f)[0] == fourth.id for f in [*fans[1:], "late"])


def test_a_list_made_while_an_unfollow_is_under_way_is_not_used_after_it(
    fans: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unfollow lowers the count before it deletes the edge: a post fanned
    out in between lists the leaving follower under the new count. The
    unfollow raises the followers' version after the edge is gone, so the
    next post does not use that list."""
    real = MarkedChange.count
    during: list[str] = []

    def then_post(
        change: MarkedChange, table: str, row: bytes, column: bytes, delta: int, op: bytes
    ) -> bool:
        result = real(change, table, row, column, delta, op)
        if column == rows.COUNT_FOLLOWERS and delta == -1 and not during:
            during.append(services.post_twit("alice", "during the unfollow").id)
        return result

    monkeypatch.setattr(MarkedChange, "count", then_post)
    services.unfollow(fans[0], "alice")
    monkeypatch.setattr(MarkedChange, "count", real)
    after = services.post_twit("alice", "after the unfollow")
    assert after.id not in _stream_ids(fans[0])
    assert all(_stream_ids(f)[:2] == [after.id, during[0]] for f in fans[1:])
