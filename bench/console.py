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
from collections.abc import Callable
from dataclasses import dataclass

from .threads import _configured

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
    failed: str = ""  # why the page gave no answer (e.g. a Thrift call timed out)


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
    from storage.connection import StorageUnavailable

    out = []
    for users in sizes:
        with _configured(host, port, thrift2_port, ALLOWED_HOSTS=["testserver"]):
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
            out += _periodic(users, sum(stats.rows_written.values()), reads)
            client = Client()
            response = client.post("/login", {"userid": "staff", "password": "bench-password-1"})
            assert response.status_code == 302, response.status_code
            for i, (name, url) in enumerate(PAGES):
                if progress:
                    progress(f"pages at {users:,} users", i, len(PAGES))
                times: list[float] = []
                failed = ""
                for _ in range(reads + 1):  # the first warms connections and caches
                    t0 = time.perf_counter()
                    try:
                        response = client.get(url)
                    except StorageUnavailable:
                        failed = f"timed out after {(time.perf_counter() - t0):.0f} s"
                        _wait_for_server()
                        break
                    times.append((time.perf_counter() - t0) * 1000)
                    assert response.status_code == 200, url
                times = sorted(times[1:]) or [float("nan")]
                out.append(
                    PageResult(
                        users,
                        sum(stats.rows_written.values()),
                        name,
                        statistics.median(times),
                        times[min(len(times) - 1, int(len(times) * 0.9))],
                        failed,
                    )
                )
    return out


def _wait_for_server(timeout_s: float = 600) -> None:
    """After a page timed out, until the server answers again: it is still
    working through the scans the page began (the old code's key spreads)."""
    from storage.connection import StorageUnavailable, connection, reset_pool

    deadline = time.monotonic() + timeout_s
    while True:
        reset_pool()
        try:
            with connection() as conn:
                conn.tables()
            return
        except StorageUnavailable:
            if time.monotonic() > deadline:
                raise


def _periodic(users: int, demo_rows: int, reads: int) -> list[PageResult]:
    """Work that runs again and again besides pages: the sweep of pending
    fan-outs (Celery beat, every minute) and a home-stream read (every page
    view of every user, with the large-account list it consults)."""
    from django.conf import settings

    from feeds import services
    from feeds.services import bulk, fanout

    readers = [bulk.demo_userid(i) for i in range(0, users, max(1, users // reads))][:reads]
    jobs: list[tuple[str, list[Callable[[], object]]]] = [
        (
            "sweep of pending fan-outs",
            [lambda: fanout.sweep_pending(settings.TWITBASE_SWEEP_AFTER_S)] * reads,
        ),
        (
            "home stream, first page (20)",
            [lambda u=u: services.home_stream(u) for u in readers],  # type: ignore[misc]
        ),
    ]
    out = []
    for name, calls in jobs:
        calls[0]()  # warm
        times = []
        for call in calls:
            t0 = time.perf_counter()
            call()
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        out.append(
            PageResult(
                users,
                demo_rows,
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
            elif r.failed:
                cells.append(f"failed: {r.failed}")
            elif page.startswith("background"):
                cells.append(f"{r.p50_ms:,.0f} (once)")
            else:
                cells.append(f"{r.p50_ms:,.1f} / {r.p90_ms:,.1f}")
        lines.append(f"| {page} | " + " | ".join(cells) + " |")
    rows = {n: next(r.rows for r in results if r.users == n) for n in sizes}
    lines.append("| (rows in the demo) | " + " | ".join(f"{rows[n]:,}" for n in sizes) + " |")
    return "\n".join(lines)


def parse_table(text: str) -> list[PageResult]:
    """The results in a table :func:`format_table` printed (to chart a run
    of another checkout beside this one's)."""
    import re

    lines = [ln for ln in text.splitlines() if ln.startswith("| ")]
    sizes = [int(n.replace(",", "")) for n in re.findall(r"([\d,]+) users", lines[0])]
    out = []
    for line in lines[1:]:
        page, *cells = [c.strip() for c in line.strip("| ").split(" | ")]
        if page.startswith("("):
            continue
        for n, cell in zip(sizes, cells, strict=True):
            if not cell or cell.startswith("failed"):
                continue
            p50 = float(cell.split()[0].replace(",", ""))
            out.append(PageResult(n, 0, page, p50, p50))
    return out


def draw(
    results: list[PageResult], path: str, title: str, before: list[PageResult] | None = None
) -> None:
    """Each page's p50 at each demo size, log scale, with the 300 ms goal;
    with ``before``, an earlier run's bars beside them."""
    import textwrap

    from .charts import bar_chart

    runs = [("before: ", before), ("after: ", results)] if before else [("", results)]
    sizes = sorted({r.users for r in results})
    pages = list(dict.fromkeys(r.page for r in results))
    series = {}
    for label, run in runs:
        by = {(r.users, r.page): r.p50_ms for r in run or [] if not r.failed}
        for n in sizes:
            series[f"{label}{n:,} users"] = [by.get((n, p)) for p in pages]
    bar_chart(
        path,
        title,
        ["\n".join(textwrap.wrap(p.replace(" (not a page)", ""), 13)) for p in pages],
        series,
        "p50 ms (log)",
        log=True,
        line=("goal: 300 ms a page", 300.0),
    )
