"""The audit log: who did what, when, through the console. The audit table's owner.

Every action a staff member takes through the console is written here once
it has succeeded; the row browser's queries are recorded the same way, as
reads of user data.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime

from feeds.types import Page, from_millis
from storage import keys, rows
from storage.connection import connection, table_name

from .. import _clock
from .._paging import scan_page


@dataclass(frozen=True)
class AuditEntry:
    when: datetime
    actor: str
    action: str
    target: str
    detail: str


def record(actor: str, action: str, target: str, detail: str = "") -> AuditEntry:
    """Append one entry to the audit log. Never changes an entry: each call
    writes a new row, later in the log than any this process wrote before it
    (see _clock); a random suffix keeps entries of other processes apart."""
    millis = _clock.now_millis()
    entry = rows.AuditRow(actor, action, target, detail[: rows.DETAIL_MAX])
    with connection() as conn:
        conn.table(table_name("audit")).put(
            keys.audit_key(millis, os.urandom(keys.SUFFIX_LEN)), rows.encode_audit(entry)
        )
    return AuditEntry(from_millis(millis), entry.actor, entry.action, entry.target, entry.detail)


def _entry(key: bytes, row: dict[bytes, bytes]) -> AuditEntry | None:
    stored = rows.decode_audit(row)
    if stored is None:
        return None
    return AuditEntry(
        when=from_millis(keys.millis_from_rts(key[: keys.RTS_LEN])),
        actor=stored.actor,
        action=stored.action,
        target=stored.target,
        detail=stored.detail,
    )


def audit_log(cursor: str | None = None, limit: int = 50) -> Page[AuditEntry]:
    """The audit log, newest first, a page at a time."""
    with connection() as conn:
        return scan_page(
            conn.table(table_name("audit")), b"", keys.AUDIT_KEY_LEN, cursor, limit, _entry
        )
