"""Edits: a twit's history (``twits.history``) against a raw multi-version
get of the same cells, and the hydrate step's read of current texts
(``twits.counts``, which now asks for t:edit too) against the multi-get it
made before edits, in the same run.

Twenty twits are posted, half of them edited EDITS_MAX times (the most
history a twit can have). The history read is what the history page and
``GET /api/twits/{id}/history`` do: one get of the twit's cells, one of
h:text's versions. Its raw read is the second alone, undecoded. The counts
read is the hydrate step's per-page lookup for those twenty ids; its raw
read is the same multi-get without the t:edit column (what a reader paid
before edits, and what a deployment that never edits pays now).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

from feeds import services
from feeds.services import twits
from storage import keys, rows
from storage.connection import connection, table_name

from .threads import _configured, _timed

PAGE = 20


@dataclass(frozen=True)
class EditResult:
    read: str
    items: int
    p50_ms: float
    p90_ms: float


def _raw_versions(twit_id: str) -> Callable[[], int]:
    key = keys.twit_key_from_id(twit_id)

    def read() -> int:
        with connection() as conn:
            found = conn.table(table_name("twits")).cells(
                key, rows.HISTORY_TEXT, versions=twits.EDITS_MAX + 1, include_timestamp=True
            )
        return len(found)

    return read


def _raw_counts(ids: list[str]) -> Callable[[], int]:
    wanted = [keys.twit_key_from_id(t) for t in sorted(ids)]
    columns = [rows.TEXT, rows.COUNT_REPLIES, rows.COUNT_LIKES, rows.COUNT_REPOSTS]

    def read() -> int:
        with connection() as conn:
            return len(conn.table(table_name("twits")).rows(wanted, columns=columns))

    return read


def _counts(ids: list[str]) -> Callable[[], int]:
    def read() -> int:
        with connection() as conn:
            return len(twits.counts(conn, ids))

    return read


def run(host: str, port: int, reads: int = 200) -> list[EditResult]:
    with _configured(host, port):
        services.register("editor", "Ed", "ed@example.com", "bench-password-1")
        posted = [
            services.post_twit("editor", f"twit {n} about rows and regions") for n in range(PAGE)
        ]
        for twit in posted[::2]:
            for n in range(twits.EDITS_MAX):
                twits.edit_twit("editor", twit.id, f"twit about rows and regions, edit {n}")
        edited, plain = posted[0].id, posted[1].id
        ids = [t.id for t in posted]
        cases = [
            ("history of a twit edited 5 times (services)", lambda: len(twits.history(edited))),
            ("raw: one get of its h:text versions", _raw_versions(edited)),
            ("history of a twit never edited (services)", lambda: len(twits.history(plain))),
            ("raw: one get of its h:text versions (none)", _raw_versions(plain)),
            ("hydrate's counts and current texts, 20 twits", _counts(ids)),
            ("raw: the same multi-get without t:edit", _raw_counts(ids)),
        ]
        results = []
        for label, read in cases:
            got, times = _timed(read, reads)
            p90 = statistics.quantiles(times, n=10)[-1]
            results.append(EditResult(label, got, statistics.median(times), p90))
    return results


def format_table(results: list[EditResult]) -> str:
    lines = ["| read | items | p50 ms | p90 ms |", "|---|---:|---:|---:|"]
    lines += [f"| {r.read} | {r.items} | {r.p50_ms:.2f} | {r.p90_ms:.2f} |" for r in results]
    names = ("edited history", "unedited history", "hydrate's lookup")
    ratios = [
        f"{name} {results[2 * i].p50_ms / results[2 * i + 1].p50_ms:.2f}x"
        for i, name in enumerate(names)
    ]
    lines.append("")
    lines.append("Each read against the raw read below it (p50s): " + ", ".join(ratios) + ".")
    return "\n".join(lines) + "\n"
