"""The staff console's pages as the demo grows: each page view's time at
each demo size, beside the background job that keeps the pages' figures
(console.refresh_stats: every table counted and its key spread sampled).

For each size a demo graph is loaded (``loaddemo``'s generator) into tables
of a fresh prefix; the job runs once, timed; then each page is fetched
``reads`` times through Django's test client, logged in as a staff member,
after one warm-up fetch. A page that costs in proportion to what it shows
stays flat as the demo grows; the job grows with the tables, as it must.
"""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings

PAGES = (
    ("overview", "/console/"),
    ("tables", "/console/tables"),
    ("key design, users", "/console/keys?table=users"),
    ("key design, all tables", "/console/keys?table=all"),
    ("fan-out", "/console/fanout"),
    ("rows, first page of streams", "/console/rows?table=streams&by=hex&prefix="),
)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class PageResult:
    users: int
    rows: int  # rows the demo wrote
    page: str
    p50_ms: float
    p90_ms: float


@contextmanager
def _configured(host: str, port: int, thrift2_port: int) -> Iterator[None]:
    """This process pointed at the server, with tables of a fresh prefix
    (pre-split when a Thrift2 port is given, as deployed)."""
    from storage.connection import connection, reset_pool
    from storage.schema import create_tables, drop_tables
    from twitbase.celery import app as celery_app

    names = (
        "TWITBASE_HBASE_HOST",
        "TWITBASE_HBASE_PORT",
        "TWITBASE_HBASE_THRIFT2_PORT",
        "TWITBASE_TABLE_PREFIX",
        "PASSWORD_HASHERS",
        "ALLOWED_HOSTS",
    )
    saved = {k: getattr(settings, k) for k in names}
    eager = celery_app.conf.task_always_eager
    settings.TWITBASE_HBASE_HOST, settings.TWITBASE_HBASE_PORT = host, port
    settings.TWITBASE_HBASE_THRIFT2_PORT = thrift2_port
    settings.TWITBASE_TABLE_PREFIX = "bc" + uuid.uuid4().hex[:8]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ALLOWED_HOSTS = ["testserver"]
    celery_app.conf.task_always_eager = True
    reset_pool()
    with connection() as conn:
        create_tables(conn)
    try:
        yield
    finally:
        with connection() as conn:
            drop_tables(conn)
        celery_app.conf.task_always_eager = eager
        for k, v in saved.items():
            setattr(settings, k, v)
        reset_pool()


def run(
    host: str,
    port: int,
    thrift2_port: int,
    sizes: tuple[int, ...],
    reads: int,
    progress: Progress | None = None,
) -> list[PageResult]:
    from django.test import Client

    from feeds import services
    from feeds.services import bulk, console

    out = []
    for users in sizes:
        with _configured(host, port, thrift2_port):
            stats = bulk.load_demo(users, users, progress=progress)
            services.register("staff", "Staff", "staff@example.com", "bench-password-1")
            services.set_staff("staff")
            t0 = time.perf_counter()
            refresh = getattr(console, "refresh_stats", None)  # None: before it existed
            if refresh is not None:
                refresh()
            job_ms = (time.perf_counter() - t0) * 1000
            if refresh is not None:
                out.append(
                    PageResult(
                        users,
                        sum(stats.rows_written.values()),
                        "background job (not a page)",
                        job_ms,
                        job_ms,
                    )
                )
            client = Client()
            response = client.post("/login", {"userid": "staff", "password": "bench-password-1"})
            assert response.status_code == 302, response.status_code
            for i, (name, url) in enumerate(PAGES):
                if progress:
                    progress(f"pages at {users:,} users", i, len(PAGES))
                assert client.get(url).status_code == 200, url  # warm
                times = []
                for _ in range(reads):
                    t0 = time.perf_counter()
                    response = client.get(url)
                    times.append((time.perf_counter() - t0) * 1000)
                    assert response.status_code == 200, url
                times.sort()
                out.append(
                    PageResult(
                        users,
                        sum(stats.rows_written.values()),
                        name,
                        statistics.median(times),
                        times[min(len(times) - 1, int(len(times) * 0.9))],
                    )
                )
    return out


def format_table(results: list[PageResult]) -> str:
    sizes = sorted({r.users for r in results})
    pages = list(dict.fromkeys(r.page for r in results))
    by = {(r.users, r.page): r for r in results}
    head = "| page | " + " | ".join(f"{n:,} users p50 / p90 ms" for n in sizes) + " |"
    lines = [head, "|---|" + "---:|" * len(sizes)]
    for page in pages:
        cells = []
        for n in sizes:
            r = by.get((n, page))
            if r is None:
                cells.append("")
            elif page.startswith("background"):
                cells.append(f"{r.p50_ms:,.0f} (once)")
            else:
                cells.append(f"{r.p50_ms:,.1f} / {r.p90_ms:,.1f}")
        lines.append(f"| {page} | " + " | ".join(cells) + " |")
    rows = {n: next(r.rows for r in results if r.users == n) for n in sizes}
    lines.append("| (rows in the demo) | " + " | ".join(f"{rows[n]:,}" for n in sizes) + " |")
    return "\n".join(lines)
