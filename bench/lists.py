"""A list's timeline (``lists.list_timeline``: its members' twits merged at
read time) against a raw read of the same rows, and against the read the
fan-out design would make, in the same run.

20 members post ``twits`` twits each, interleaved, through the services
(fan-out inline); a reader follows exactly those 20 before they post, so
the reader's home stream holds what a list stream fanned out on each post
would hold, row for row. Then, 20 twits a page:

- the list's timeline, hydrated, as the list page reads it (the members'
  prefix scan, the merge's rounds of scans of the members' twits, the
  hydrate step);
- the raw read of the same rows: a keys-only scan of the list's member
  rows and one multi-get of the page's 20 twits rows, no decoding: the
  floor of any read-time merge;
- the fan-out design's read: the reader's home stream page (a prefix scan
  of 20 packed rows and the hydrate step), what a list stream would cost;
- the list timeline of a list of 100 members (80 more, posting fewer),
  to show how the merge grows with members.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from feeds import services
from feeds.services import lists
from storage import keys, ops, rows
from storage.connection import connection, table_name

from .threads import ReadResult, _configured, reads_table, timed_reads

Progress = Callable[[str, int, int], None]


def _raw(list_id: str, twit_ids: list[str]) -> Callable[[], int]:
    key = keys.list_key_from_id(list_id)

    def read() -> int:
        with connection() as conn:
            members = ops.row_keys_with_prefix(
                conn, table_name("listMembers"), keys.list_hash(key), 1000
            )
            got = conn.table(table_name("twits")).rows(
                [keys.twit_key_from_id(t) for t in twit_ids], columns=[rows.TWIT]
            )
        return len(got) if members else 0

    return read


def run(
    host: str, port: int, twits: int = 25, reads: int = 100, progress: Progress | None = None
) -> list[ReadResult]:
    report = progress or (lambda stage, done, total: None)
    rng = random.Random(7)
    with _configured(host, port):
        members = [f"member{i:03d}" for i in range(100)]
        for userid in [*members, "reader"]:
            services.register(userid, userid.title(), f"{userid}@example.com", "bench-password-1")
        for userid in members[:20]:
            services.follow("reader", userid)
        posts = [(m, twits) for m in members[:20]] + [(m, max(1, twits // 5)) for m in members[20:]]
        order = [m for m, n in posts for _ in range(n)]
        rng.shuffle(order)
        report("posts", 0, len(order))
        for n, userid in enumerate(order):
            services.post_twit(userid, f"twit {n} by {userid} on rows and regions")
            if n % 100 == 99:
                report("posts", n + 1, len(order))
        report("posts", len(order), len(order))
        small = lists.create_list("reader", "Twenty")
        big = lists.create_list("reader", "Hundred")
        for userid in members[:20]:
            lists.add_member("reader", small.id, userid)
        for userid in members:
            lists.add_member("reader", big.id, userid)
        page = lists.list_timeline(small.id, limit=20, reader="reader")
        assert [t.id for t in page.items] == [
            t.id for t in services.home_stream("reader", limit=20).items
        ], "the list and the reader's stream hold the same twits"
        cases = [
            (
                "list of 20 members, 20 twits (services, hydrated)",
                lambda: len(lists.list_timeline(small.id, limit=20, reader="reader").items),
            ),
            (
                "raw: the list's member rows (keys) + one multi-get of the page's 20 twits",
                _raw(small.id, [t.id for t in page.items]),
            ),
            (
                "fan-out design: a stream of the same 20 twits (home_stream, hydrated)",
                lambda: len(services.home_stream("reader", limit=20).items),
            ),
            (
                "list of 100 members, 20 twits (services, hydrated)",
                lambda: len(lists.list_timeline(big.id, limit=20, reader="reader").items),
            ),
        ]
        results = timed_reads(cases, reads, report)
    return results


def format_table(results: list[ReadResult]) -> str:
    lines = reads_table(results)
    merged, raw, fanned, big = (r.p50_ms for r in results)
    lines.append("")
    lines.append(
        f"List of 20 against the raw read: {merged / raw:.2f}x; against the fan-out "
        f"design's read: {merged / fanned:.2f}x; list of 100 against list of 20: "
        f"{big / merged:.2f}x (p50s)."
    )
    return "\n".join(lines) + "\n"
