"""Searching twits by their words: ``search.search_twits`` against a raw
read of the same rows, in the same run.

Authors post ``twits`` twits through the services (fan-out inline) from a
small vocabulary, so that one word is in about half of them ("table"),
another in a fifth ("region"), and the two together in about a tenth. The
services' read is what the search page does for an anonymous reader: the
scan of the longest word's index rows, a multi-get per other word, the
multi-get of the twits' rows and the hydrate step. The raw read is what the
page shows and no less: a keys-only scan of the same number of index rows
of one word, and one multi-get of those twits' rows, with no decoding.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from feeds import services
from feeds.services import search
from storage import keys, ops, rows
from storage.connection import connection, table_name

from .threads import ReadResult, _configured, reads_table, timed_reads

Progress = Callable[[str, int, int], None]
FILLER = ["hbase", "rows", "keys", "scan", "design", "write", "read", "store", "cell", "family"]


def _text(rng: random.Random, n: int) -> str:
    words = rng.sample(FILLER, 4)
    if rng.random() < 0.5:
        words.append("table")
    if rng.random() < 0.2:
        words.append("region")
    rng.shuffle(words)
    return f"twit {n}: " + " ".join(words)


def _raw(word: str, limit: int) -> Callable[[], int]:
    """The floor: ``limit`` index rows of ``word`` (keys only), then one
    multi-get of their twits' rows."""

    def read() -> int:
        with connection() as conn:
            found = conn.table(table_name("twitWords")).scan(
                row_prefix=keys.word_hash(word), filter=ops.KEYS_ONLY, limit=limit
            )
            wanted = [keys.twit_key_from_word_key(k) for k, _ in found]
            got = conn.table(table_name("twits")).rows(wanted, columns=[rows.TWIT])
        return len(got)

    return read


def _searched(q: str, limit: int) -> Callable[[], int]:
    return lambda: len(search.search_twits(q, limit=limit).items)


def run(
    host: str, port: int, twits: int = 2000, reads: int = 100, progress: Progress | None = None
) -> list[ReadResult]:
    report = progress or (lambda stage, done, total: None)
    rng = random.Random(11)
    with _configured(host, port):
        authors = [f"author{i:02d}" for i in range(20)]
        for userid in authors:
            services.register(userid, userid.title(), f"{userid}@example.com", "bench-password-1")
        report("posts", 0, twits)
        for n in range(twits):
            services.post_twit(rng.choice(authors), _text(rng, n))
            if n % 100 == 99:
                report("posts", n + 1, twits)
        report("posts", twits, twits)
        cases = [
            ("one word, 20 twits (services, hydrated)", _searched("table", 20)),
            ("raw: 20 index rows of the word + their twits' rows", _raw("table", 20)),
            ("two words, 20 twits (services, hydrated)", _searched("table region", 20)),
            ("raw: 20 index rows of the longer word + their twits' rows", _raw("region", 20)),
            ("one word, 50 twits", _searched("table", 50)),
            ("raw: 50 index rows + their twits' rows", _raw("table", 50)),
        ]
        results = timed_reads(cases, reads, report)
    return results


def format_table(results: list[ReadResult]) -> str:
    lines = reads_table(results)
    names = ("one word of 20", "two words of 20", "one word of 50")
    ratios = [
        f"{name} {results[2 * i].p50_ms / results[2 * i + 1].p50_ms:.2f}x"
        for i, name in enumerate(names)
    ]
    lines.append("")
    lines.append("Each search against the raw read below it (p50s): " + ", ".join(ratios) + ".")
    return "\n".join(lines) + "\n"
