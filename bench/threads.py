"""Reading a thread: a permalink with 100 replies through the services,
against a raw happybase scan of the same replies rows, in the same run.

The services' read of a permalink is: the twit (a get, with its counts), the
chain above it (one get per ancestor), and a page of replies (one prefix scan
of the replies table, then one multi-get of those replies' counts). The raw
read is the prefix scan alone, with no decoding: the floor the key design
allows. The twit's page as the web shows it to a signed-in reader
(services.thread: the block check too, and one hydrate step for the twit,
its chain and its replies) is timed beside them, and so is the whole
page as a browser gets it (through Django, signed in, its first 20
replies). A floor row reads what no page of replies can do without while
counts are read fresh: the replies rows scanned as the page scans them,
then their twits rows' counts, nothing decoded. Fan-out runs inline
(Celery's eager mode) while the thread is built: the benchmark reads, it
does not measure posting.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import happybase
from django.conf import settings

from storage import keys, ops
from storage.connection import connection, reset_pool, table_name
from storage.schema import create_tables, drop_tables
from twitbase.celery import app as celery_app

if TYPE_CHECKING:
    from django.test import Client


@dataclass(frozen=True)
class ThreadResult:
    read: str
    rows: int
    p50_ms: float
    p90_ms: float


@contextmanager
def _configured(host: str, port: int, thrift2_port: int = 0, **more: object) -> Iterator[None]:
    """This process pointed at the server, with tables of a fresh prefix
    (pre-split when a Thrift2 port is given, as deployed); ``more`` are
    further settings for the while."""
    overrides: dict[str, object] = {
        "TWITBASE_HBASE_HOST": host,
        "TWITBASE_HBASE_PORT": port,
        "TWITBASE_HBASE_THRIFT2_PORT": thrift2_port,
        "TWITBASE_TABLE_PREFIX": "th" + uuid.uuid4().hex[:8],
        "TWITBASE_POSTS_PER_MINUTE": 1_000_000,
        # The home page bench's reader follows more accounts than a minute allows.
        "TWITBASE_FOLLOWS_PER_MINUTE": 1_000_000,
        "TWITBASE_REACTIONS_PER_MINUTE": 1_000_000,
        # The list and media benches add members and upload images by the hundred.
        "TWITBASE_LIST_CHANGES_PER_MINUTE": 1_000_000,
        "TWITBASE_IMAGE_UPLOADS_PER_MINUTE": 1_000_000,
        # Registering the bench's users is not what is measured.
        "PASSWORD_HASHERS": ["django.contrib.auth.hashers.MD5PasswordHasher"],
        **more,
    }
    saved = {k: getattr(settings, k) for k in overrides}
    eager = celery_app.conf.task_always_eager
    for k, v in overrides.items():
        setattr(settings, k, v)
    celery_app.conf.task_always_eager = True
    reset_pool()
    with connection() as conn:
        create_tables(conn)
    try:
        yield
    finally:
        # Dropping a table of two million rows takes the local server longer
        # than a request's usual timeout: a connection of its own, patient.
        patient = happybase.Connection(host, port, timeout=600_000)
        try:
            drop_tables(patient)
        finally:
            patient.close()
        celery_app.conf.task_always_eager = eager
        for k, v in saved.items():
            setattr(settings, k, v)
        reset_pool()


def signed_in_client(userid: str) -> Client:
    """A Django test client signed in as ``userid``, through a session of
    the services' own (its signed cookie, as a browser holds it), with the
    settings as deployed (DJANGO_DEBUG=0: the template engines are made at
    their first page without the debug information they keep otherwise).
    The whole-page rows of the read benchmarks get their pages with it."""
    from django.test import Client

    from bench.capacity import _session_cookie
    from feeds import services

    settings.DEBUG = False
    client = Client()
    sid = services.start_session(services.get_user(userid))
    cookie = _session_cookie(sid, userid, settings.SECRET_KEY)
    client.cookies[settings.SESSION_COOKIE_NAME] = cookie
    return client


def _timed(read: Callable[[], int], reads: int) -> tuple[int, list[float]]:
    read()  # warm: connections open, regions located
    times, got = [], 0
    for _ in range(reads):
        t0 = time.perf_counter()
        got = read()
        times.append((time.perf_counter() - t0) * 1000)
    return got, times


@dataclass(frozen=True)
class ReadResult:
    """One read's figures, as the read benchmarks' tables show them."""

    read: str
    items: int
    p50_ms: float
    p90_ms: float


def timed_reads(
    cases: list[tuple[str, Callable[[], int]]],
    reads: int,
    report: Callable[[str, int, int], None] | None = None,
) -> list[ReadResult]:
    """Each (label, read) of ``cases`` timed ``reads`` times (:func:`_timed`),
    in turn, reporting progress as "reads"."""
    results = []
    if report:
        report("reads", 0, len(cases) * reads)
    for i, (label, read) in enumerate(cases):
        got, times = _timed(read, reads)
        if report:
            report("reads", (i + 1) * reads, len(cases) * reads)
        p90 = statistics.quantiles(times, n=10)[-1]
        results.append(ReadResult(label, got, statistics.median(times), p90))
    return results


def reads_table(results: list[ReadResult]) -> list[str]:
    """The markdown table of ``results``: read, items, p50, p90."""
    lines = ["| read | items | p50 ms | p90 ms |", "|---|---:|---:|---:|"]
    return lines + [f"| {r.read} | {r.items} | {r.p50_ms:.2f} | {r.p90_ms:.2f} |" for r in results]


def run(host: str, port: int, replies: int = 100, reads: int = 50) -> list[ThreadResult]:
    from feeds import services

    with _configured(host, port):
        authors = ["ana", "ben", "cat", "dan", "eve"]
        for userid in authors:
            services.register(userid, userid.title(), f"{userid}@example.com", "bench-password-1")
        root = services.post_twit("ana", "Where does a thread live in HBase?")
        middle = services.post_twit("ben", "Under its parent's key.", reply_to=root.id)
        shown = services.post_twit("cat", "Oldest first, then.", reply_to=middle.id)
        for i in range(replies):
            services.post_twit(authors[i % len(authors)], f"reply number {i}", reply_to=shown.id)
        parent = keys.twit_key_from_id(shown.id)

        def permalink(limit: int) -> Callable[[], int]:
            def read() -> int:
                twit = services.public_twit(shown.id)
                services.ancestors(twit)
                return len(services.replies(shown.id, limit=limit).items)

            return read

        reader = services.get_user("eve")

        def page(limit: int) -> Callable[[], int]:
            # The twit's page as a signed-in reader gets it (issue 39): the
            # twit, the block check, its chain, a page of replies, and the
            # one hydrate step for them all (services.thread), for the
            # reader's profile as the session loaded it.
            def read() -> int:
                twit = services.public_twit(shown.id)
                return len(services.thread(twit, None, reader, limit).replies.items)

            return read

        def whole_page() -> Callable[[], int]:
            # What the reader's browser gets (issue 39: a goal is measured on
            # the whole page): GET of the twit's page through Django, signed
            # in: the session, the twit, its chain, its first page of replies
            # (20), the reader's bookmark and the template. Its floor is
            # the raw scan of 20 rows.
            client = signed_in_client(reader.userid)
            url = f"/u/{shown.userid}/t/{shown.id}"

            def read() -> int:
                response = client.get(url, HTTP_HOST="localhost")
                assert response.status_code == 200, response.status_code
                # The twit, its chain of two, and its replies.
                return response.content.count(b'<article class="twit') - 3

            return read

        def raw(limit: int) -> Callable[[], int]:
            def read() -> int:
                with connection() as conn:
                    table = conn.table(table_name("replies"))
                    scan = table.scan(row_prefix=parent, limit=limit, batch_size=limit + 1)
                    return sum(1 for _ in scan)

            return read

        def floor(limit: int) -> Callable[[], int]:
            # What the page cannot do without, the rows alone (issue 39: why
            # its 2x is out of reach while the counts are read fresh): the
            # replies rows as the page scans them (storage.ops.scan_rows,
            # two round trips), then their twits rows' counts as the hydrate
            # step asks them (twits.ask_counts, one round trip); nothing
            # decoded, no other row read.
            from feeds.services import twits

            def read() -> int:
                with connection() as conn:
                    stop = keys.prefix_stop(parent)
                    table = conn.table(table_name("replies"))
                    found = ops.scan_rows(table, parent, stop, limit + 1)[:limit]
                    pipe = ops.Pipeline(conn)
                    ids = [keys.twit_id(keys.twit_key_from_reply_key(k)) for k, _ in found]
                    twits.ask_counts(pipe, ids)
                    (counted,) = pipe.send()
                    return len(counted)

            return read

        results = []
        for label, read in (
            (f"permalink, all {replies} replies (services)", permalink(min(replies, 100))),
            (f"raw scan of the same {min(replies, 100)} rows", raw(min(replies, 100))),
            (
                f"floor: the same {min(replies, 100)} rows scanned, then their counts",
                floor(min(replies, 100)),
            ),
            ("permalink, first page of 20 (services)", permalink(20)),
            ("raw scan of the same 20 rows", raw(20)),
            ("floor: the same 20 rows scanned, then their counts", floor(20)),
            ("twit page as shown, 100 replies (services.thread, signed in)", page(100)),
            ("twit page as shown, first 20 (services.thread, signed in)", page(20)),
            ("whole twit page, HTML of the first 20 through Django", whole_page()),
        ):
            got, times = _timed(read, reads)
            deciles = statistics.quantiles(times, n=10)
            results.append(ThreadResult(label, got, statistics.median(times), deciles[-1]))
    return results


def format_table(results: list[ThreadResult]) -> str:
    lines = [
        "| read | replies | p50 ms | p90 ms |",
        "|---|---:|---:|---:|",
    ]
    for r in results:
        lines.append(f"| {r.read} | {r.rows} | {r.p50_ms:.2f} | {r.p90_ms:.2f} |")
    return "\n".join(lines)
