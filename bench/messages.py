"""Direct messages: an inbox page and a conversation page through the
services, each against a raw scan of the same rows in the same run.

A reader has ``partners`` conversations (each partner sends three messages
and the reader answers one), and one of them runs to 200 messages. The
services' inbox page is what ``GET /api/conversations`` reads: a prefix
scan of the reader's inbox rows, a multi-get of those conversations'
unread counts and one of the partners' names. The conversation page is
``GET /api/conversations/{userid}``'s first page: a prefix scan of the
pair's message rows, and the read of the conversation's unread cell that
marks it read (a checkAndPut only when something is unread). The raw reads
are the same scans with no decoding: the floor of each page.
"""

from __future__ import annotations

from collections.abc import Callable

from feeds import services
from feeds.services import messages
from storage import keys
from storage.connection import connection, table_name

from .threads import ReadResult, _configured, reads_table, timed_reads

Progress = Callable[[str, int, int], None]
LONG = 200  # messages in the reader's longest conversation


def _raw(table: str, prefix: bytes, limit: int) -> Callable[[], int]:
    """The floor: ``limit`` rows under ``prefix``, every cell, undecoded."""

    def read() -> int:
        with connection() as conn:
            return len(list(conn.table(table_name(table)).scan(row_prefix=prefix, limit=limit)))

    return read


def run(
    host: str, port: int, partners: int = 60, reads: int = 100, progress: Progress | None = None
) -> list[ReadResult]:
    report = progress or (lambda stage, done, total: None)
    with _configured(host, port, TWITBASE_MESSAGES_PER_MINUTE=1_000_000):
        reader = "reader"
        others = [f"friend{i:03d}" for i in range(partners)]
        for userid in [reader, *others]:
            services.register(userid, userid.title(), f"{userid}@example.com", "bench-password-1")
        total = partners * 4 + LONG
        report("messages", 0, total)
        done = 0
        for other in others:
            for n in range(3):
                messages.send(other, reader, f"message {n} from {other}: how are the regions?")
            messages.send(reader, other, f"all balanced, {other}")
            done += 4
            report("messages", done, total)
        for n in range(LONG):
            sender, to = (others[0], reader) if n % 2 else (reader, others[0])
            messages.send(sender, to, f"long conversation, line {n}")
        report("messages", total, total)
        pair = keys.conversation_key(reader, others[0])
        # As the API and the pages call it: with the signed-in user's profile.
        me = services.get_user(reader)
        mine = keys.user_hash(reader)
        cases = [
            ("inbox, 20 conversations (services)", lambda: len(messages.inbox(reader).items)),
            ("raw: 20 inbox rows", _raw("inbox", mine, 20)),
            (
                "conversation, 20 messages (services)",
                lambda: len(messages.conversation(me, others[0])[1].items),
            ),
            ("raw: 20 message rows", _raw("messages", pair, 20)),
            (
                "conversation, 50 messages (services)",
                lambda: len(messages.conversation(me, others[0], limit=50)[1].items),
            ),
            ("raw: 50 message rows", _raw("messages", pair, 50)),
        ]
        results = timed_reads(cases, reads, report)
    return results


def format_table(results: list[ReadResult]) -> str:
    lines = reads_table(results)
    names = ("inbox of 20", "conversation of 20", "conversation of 50")
    ratios = [
        f"{name} {results[2 * i].p50_ms / results[2 * i + 1].p50_ms:.2f}x"
        for i, name in enumerate(names)
    ]
    lines.append("")
    lines.append("Each page against the raw scan below it (p50s): " + ", ".join(ratios) + ".")
    return "\n".join(lines) + "\n"
