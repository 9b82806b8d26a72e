"""Reading quotes: the quoted twit's page and its quotes page through the
services, against a raw happybase scan of the same quotes rows, in the same
run; and a timeline of quotes (each card looked up at read time) against a
timeline of plain twits, the cost of not copying the card into the rows.

The twit page's read is what feeds/views/twits.py makes: the twit, its
thread (no replies here), and its newest 3 quotes; the quotes page is one
prefix scan of the quotes table and the hydrate step (counts, and the
cards: one multi-get of the quoted twits, then their authors' suspensions).
The raw read is the prefix scan alone, with no decoding: the floor the key
design allows. Fan-out runs inline while the quotes are posted: the
benchmark reads, it does not measure posting.
"""

from __future__ import annotations

from collections.abc import Callable

from feeds import services
from storage import keys
from storage.connection import connection, table_name

from .threads import ReadResult, _configured, reads_table, timed_reads

Progress = Callable[[str, int, int], None]


def _raw(prefix: bytes, limit: int) -> Callable[[], int]:
    def read() -> int:
        with connection() as conn:
            scan = conn.table(table_name("quotes")).scan(
                row_prefix=prefix, limit=limit, batch_size=limit + 1
            )
            return sum(1 for _ in scan)

    return read


def _twit_page(twit_id: str) -> Callable[[], int]:
    def read() -> int:
        twit = services.public_twit(twit_id)
        thread = services.thread(twit)
        return len(services.quotes(twit_id, None, 3).items) if thread.twit.quotes else 0

    return read


def _quotes_page(twit_id: str, limit: int) -> Callable[[], int]:
    return lambda: len(services.quotes(twit_id, None, limit).items)


def _timeline(userid: str, limit: int) -> Callable[[], int]:
    return lambda: len(services.timeline(userid, None, limit).items)


def run(
    host: str, port: int, quotes: int = 100, reads: int = 50, progress: Progress | None = None
) -> list[ReadResult]:
    report = progress or (lambda stage, done, total: None)
    with _configured(host, port):
        authors = ["ana", "ben", "cat", "dan", "eve", "plain"]
        for userid in authors:
            services.register(userid, userid.title(), f"{userid}@example.com", "bench-password-1")
        quoted = services.post_twit("ana", "Where do a twit's quotes live in HBase?")
        report("quotes", 0, quotes)
        for i in range(quotes):
            services.post_twit(authors[1 + i % 4], f"quote number {i}", quote_of=quoted.id)
            services.post_twit("plain", f"plain twit number {i}")
            if i % 20 == 19:
                report("quotes", i + 1, quotes)
        prefix = keys.twit_key_from_id(quoted.id)
        n = min(quotes, 100)
        cases = [
            (f"twit page with {quotes} quotes, its newest 3 (services)", _twit_page(quoted.id)),
            ("raw scan of the same 3 quotes rows", _raw(prefix, 3)),
            ("quotes page of 20 (services, hydrated, cards)", _quotes_page(quoted.id, 20)),
            ("raw scan of the same 20 rows", _raw(prefix, 20)),
            (f"quotes page of {n} (services)", _quotes_page(quoted.id, n)),
            (f"raw scan of the same {n} rows", _raw(prefix, n)),
            ("timeline of 20 quotes (cards read at read time)", _timeline("ben", 20)),
            ("timeline of 20 plain twits (no card)", _timeline("plain", 20)),
        ]
        results = timed_reads(cases, reads)
    return results


def format_table(results: list[ReadResult]) -> str:
    lines = reads_table(results)
    pairs = [(0, 1, "twit page"), (2, 3, "quotes of 20"), (4, 5, "all quotes"), (6, 7, "cards")]
    ratios = [f"{name} {results[a].p50_ms / results[b].p50_ms:.2f}x" for a, b, name in pairs]
    lines.append("")
    lines.append("Each read against the one below it (p50s): " + ", ".join(ratios) + ".")
    return "\n".join(lines) + "\n"
