"""Reports of twits and accounts, and the staff's queue of them. The owner
of the ``reportsBySubject``, ``reportSubjects`` and ``reportQueue`` tables.

A report is one row per (subject, reporter): the subject (a twit, or an
account) first, so a subject's reports are one prefix scan, and a user who
reports the same thing twice writes the same row. Its state cell,
``round:ms:counted``, moves by checkAndPut; the subject's count of open
reports (``c:n<round>`` in its ``reportSubjects`` row) takes each report
once through :class:`storage.ops.MarkedChange`, however often it is sent
or retried.

A subject's row also holds its state (JSON, moved by checkAndPut): the
round (raised by each close: reports of earlier rounds are closed, and a
new report after a close opens the next round), whether it is open, its
count and latest report as the queue shows them, the latest reasons, and
the two ``reportQueue`` rows that list it now: newest first
(``"n" + rts(latest) + subject``) and most reported first
(``"c" + (2^32 - 1 - count) + rts(latest) + subject``). Whoever moves the
state writes the new queue rows first and deletes the rows the state named
before once its move has won; a queue row the state does not name (a
writer that lost the race, or died before its move) is skipped by every
read. The queue is a hint; the subject's state is the truth.

A report that races its subject's close may land in the closed round: it
is closed with the others (the close read the reports as they were).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import happybase

from feeds.errors import InvalidInput, NotFound
from feeds.types import Page, User, from_millis
from storage import keys, ops, rows
from storage.connection import connection, table_name

from . import _clock, accounts, ratelimit, twits
from ._paging import scan_page

REASONS = ("spam", "abuse", "other")
TEXT_MAX = 280
ORDERS = ("newest", "most")
# How many of a subject's reports its page lists at most.
SUBJECT_REPORTS_MAX = 100


@dataclass(frozen=True)
class Reason:
    reason: str
    text: str
    when: datetime


@dataclass(frozen=True)
class Subject:
    """A reported twit or account, as the queue shows it."""

    id: str  # the subject's key in hex: what the console's forms carry
    kind: str  # "twit" or "user"
    userid: str  # the account, or the twit's author
    twit_id: str | None
    text: str  # the start of the twit's text; empty for an account
    open: bool
    count: int  # open reports (0 once closed)
    latest: datetime | None  # the latest open report
    reasons: tuple[Reason, ...]  # the latest, newest first


@dataclass(frozen=True)
class Report:
    """One user's report of one subject."""

    subject: str  # the subject's id
    kind: str
    twit_id: str | None
    userid: str  # the account reported, or the twit's author
    reporter: str
    reason: str
    text: str
    created: datetime
    open: bool


def _tables(conn: happybase.Connection) -> tuple[happybase.Table, happybase.Table]:
    return conn.table(table_name("reportsBySubject")), conn.table(table_name("reportSubjects"))


# -- reporting -----------------------------------------------------------------------


def check_reason(reason: object, text: object) -> tuple[str, str]:
    """The reason (one of REASONS) and the text (trimmed, at most TEXT_MAX
    characters, newlines allowed), or InvalidInput naming the field."""
    if reason not in REASONS:
        raise InvalidInput("reason", f"Pick a reason: {', '.join(REASONS)}.")
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise InvalidInput("text", "text must be a string.")
    text = text.strip()
    if len(text) > TEXT_MAX:
        raise InvalidInput("text", f"Say it in at most {TEXT_MAX} characters.")
    if accounts.has_control_chars(text, allow_newlines=True):
        raise InvalidInput("text", "The text may not hold control characters.")
    assert isinstance(reason, str)
    return reason, text


def report(
    reporter: User,
    *,
    twit_id: str | None = None,
    userid: str | None = None,
    reason: object,
    text: object = None,
) -> Report:
    """``reporter`` reports a twit (``twit_id``) or an account (``userid``),
    one of the two. NotFound for a twit or account that is not there;
    InvalidInput for a report of oneself or one's own twit, or a bad reason.
    A user's repeated report of the same thing, before staff close it,
    counts once and keeps the first reason; after a close it is a new one.
    RateLimited past ``ratelimit.REPORTS`` (each call counts). May be
    repeated (a retry finishes what a crash left)."""
    if (twit_id is None) == (userid is None):
        raise InvalidInput(None, "Report a twit or a userid, one of the two.")
    if twit_id is not None:
        twit = twits.get_twit(twit_id)
        if twit.userid.lower() == reporter.userid.lower():
            raise InvalidInput("twit", "You cannot report your own twit.")
        subject = keys.twit_subject(keys.twit_key_from_id(twit.id))
        owner, snippet = twit.userid, twit.text
    else:
        assert userid is not None
        user = accounts.get_user(userid)
        if user.userid.lower() == reporter.userid.lower():
            raise InvalidInput("userid", "You cannot report yourself.")
        subject = keys.user_subject(user.userid)
        owner, snippet = user.userid, None
    reason, text = check_reason(reason, text)
    ratelimit.check(ratelimit.REPORTS, reporter.userid)
    with connection() as conn:
        subjects_t = _tables(conn)[1]
        subjects_t.put(subject, rows.encode_subject(owner, snippet))
        round_ = _state(subjects_t, subject)[1].round
        key = keys.report_key(subject, reporter.userid)
        found = _move(conn, key, round_, reporter, reason, text)
        _count(conn, subject, key, found)
        state = _refresh(conn, subject, found)
    return _report_of(subject, owner, found, state)


def _move(
    conn: happybase.Connection, key: bytes, round_: int, reporter: User, reason: str, text: str
) -> rows.ReportRow:
    """The reporter's report in ``round_``: the one there, or a new one
    (its cells, then its state by checkAndPut, not yet counted)."""
    reports_t, _ = _tables(conn)
    while True:
        row = reports_t.row(key)
        found = rows.decode_report(row)
        if found is not None and found.round == round_:
            return found
        ms = _clock.now_millis()
        reports_t.put(key, rows.encode_report(reporter.userid, reason, text))
        new = rows.encode_report_state(round_, ms, False)
        cell = row.get(rows.REPORT_STATE)
        name = table_name("reportsBySubject")
        if ops.check_and_put(conn, name, key, rows.REPORT_STATE, cell, rows.REPORT_STATE, new):
            return rows.ReportRow(reporter.userid, reason, text, round_, ms, False)


def _count(conn: happybase.Connection, subject: bytes, key: bytes, found: rows.ReportRow) -> None:
    """Count the report in its round's count, once, then mark it counted."""
    if found.counted:
        return
    reports_t, _ = _tables(conn)
    pending = rows.encode_report_state(found.round, found.ms, False)

    def undone() -> bool:
        cell: bytes | None = reports_t.row(key, columns=[rows.REPORT_STATE]).get(rows.REPORT_STATE)
        return cell == pending

    change = ops.MarkedChange(conn, undone)
    op = ops.op_id(b"report", key, str(found.round).encode())
    column = rows.report_count_column(found.round)
    if change.count(table_name("reportSubjects"), subject, column, +1, op):
        done = rows.encode_report_state(found.round, found.ms, True)
        name = table_name("reportsBySubject")
        ops.check_and_put(conn, name, key, rows.REPORT_STATE, pending, rows.REPORT_STATE, done)
        change.settle()


def _state(subjects_t: happybase.Table, subject: bytes) -> tuple[bytes | None, rows.SubjectState]:
    cell = subjects_t.row(subject, columns=[rows.SUBJECT_STATE]).get(rows.SUBJECT_STATE)
    return cell, rows.decode_subject_state(cell)


def _refresh(
    conn: happybase.Connection, subject: bytes, found: rows.ReportRow
) -> rows.SubjectState:
    """Bring the subject's state (and so its queue rows) up to its count,
    with ``found`` among its latest reasons; nothing if its round is closed.
    Returns the state as it is then."""
    _, subjects_t = _tables(conn)
    queue_t = conn.table(table_name("reportQueue"))
    written: set[bytes] = set()
    mine = (found.reason, found.text, found.ms)
    column = rows.report_count_column(found.round)
    while True:
        cell, state = _state(subjects_t, subject)
        if state.round != found.round:
            _drop_rows(queue_t, written - set(state.queued))
            return state
        # Read after the state: a count is never lower than the state's.
        count = rows.decode_counted(subjects_t.row(subject, columns=[column]).get(column)).count
        latest = max(state.latest, found.ms)
        reasons = sorted(set(state.reasons) | {mine}, key=lambda r: r[2], reverse=True)
        queued = (
            keys.queue_newest_key(latest, subject),
            keys.queue_most_key(count, latest, subject),
        )
        new = rows.SubjectState(
            found.round, True, count, latest, tuple(reasons[: rows.SUBJECT_REASONS]), queued
        )
        if new == state:
            _drop_rows(queue_t, written - set(queued))
            return state
        with queue_t.batch() as b:
            for k in queued:
                b.put(k, {rows.QUEUE_MARK: b""})
        written |= set(queued)
        name = table_name("reportSubjects")
        encoded = rows.encode_subject_state(new)
        if ops.check_and_put(
            conn, name, subject, rows.SUBJECT_STATE, cell, rows.SUBJECT_STATE, encoded
        ):
            _drop_rows(queue_t, (written | set(state.queued)) - set(queued))
            return new


def _drop_rows(queue_t: happybase.Table, stale: set[bytes]) -> None:
    if stale:
        with queue_t.batch() as b:
            for k in stale:
                b.delete(k)


def _report_of(
    subject: bytes, owner: str, found: rows.ReportRow, state: rows.SubjectState
) -> Report:
    twit_id = keys.twit_id(subject[1:]) if subject[:1] == keys.REPORT_TWIT else None
    return Report(
        subject=subject.hex(),
        kind="twit" if twit_id else "user",
        twit_id=twit_id,
        userid=owner,
        reporter=found.userid,
        reason=found.reason,
        text=found.text,
        created=from_millis(found.ms),
        open=state.open and state.round == found.round,
    )


# -- the queue -----------------------------------------------------------------------


def _subject_key(subject_id: str) -> bytes:
    try:
        return keys.check_subject(bytes.fromhex(subject_id))
    except (ValueError, keys.BadKey):
        raise NotFound(f"No reported subject {subject_id!r}.") from None


def _subject(key: bytes, row: dict[bytes, bytes]) -> Subject:
    state = rows.decode_subject_state(row.get(rows.SUBJECT_STATE))
    twit = key[:1] == keys.REPORT_TWIT
    return Subject(
        id=key.hex(),
        kind="twit" if twit else "user",
        userid=row.get(rows.SUBJECT_USERID, b"").decode(),
        twit_id=keys.twit_id(key[1:]) if twit else None,
        text=row.get(rows.SUBJECT_TEXT, b"").decode(errors="replace"),
        open=state.open,
        count=state.count if state.open else 0,
        latest=from_millis(state.latest) if state.open else None,
        reasons=tuple(Reason(r, t, from_millis(ms)) for r, t, ms in state.reasons),
    )


def queue(order: str = "newest", cursor: str | None = None, limit: int = 20) -> Page[Subject]:
    """The subjects with open reports: by their latest report, newest first
    (``order="newest"``), or by how many open reports they have, most first
    and then newest first (``"most"``). Cursor-paged; a page may hold fewer
    than ``limit`` subjects when it met queue rows their subjects no longer
    name (a race, a crash), which it skips. A subject whose count or latest
    report changes moves, so a page turned meanwhile may show it again or
    miss it until the list is read from its start."""
    if order not in ORDERS:
        raise InvalidInput("order", f"Pick one of: {', '.join(ORDERS)}.")
    prefix = keys.QUEUE_NEWEST if order == "newest" else keys.QUEUE_MOST
    with connection() as conn:
        _, subjects_t = _tables(conn)
        page = scan_page(
            conn.table(table_name("reportQueue")),
            prefix,
            None,
            cursor,
            limit,
            lambda key, _row: key,
        )
        wanted = sorted({keys.subject_from_queue_key(k) for k in page.items})
        found = dict(subjects_t.rows(wanted)) if wanted else {}
    items = []
    for k in page.items:
        subject = keys.subject_from_queue_key(k)
        row = found.get(subject, {})
        state = rows.decode_subject_state(row.get(rows.SUBJECT_STATE))
        if state.open and k in state.queued:
            items.append(_subject(subject, row))
    return Page(tuple(items), page.next_cursor)


def get_subject(subject_id: str) -> Subject:
    """A reported subject, open or closed; NotFound if nobody ever reported it."""
    key = _subject_key(subject_id)
    with connection() as conn:
        row = _tables(conn)[1].row(key)
    if rows.SUBJECT_USERID not in row:
        raise NotFound(f"No reported subject {subject_id!r}.")
    return _subject(key, row)


def subject_reports(subject_id: str) -> tuple[Report, ...]:
    """A subject's reports, newest first (one prefix scan, at most
    SUBJECT_REPORTS_MAX), each saying whether it is still open."""
    subject = get_subject(subject_id)
    key = _subject_key(subject_id)
    with connection() as conn:
        reports_t, subjects_t = _tables(conn)
        state = _state(subjects_t, key)[1]
        found = [
            rows.decode_report(row)
            for _, row in ops.scan_rows(reports_t, key, keys.prefix_stop(key), SUBJECT_REPORTS_MAX)
        ]
    listed = [
        _report_of(key, subject.userid, r, state)
        for r in sorted((r for r in found if r is not None), key=lambda r: -r.ms)
    ]
    return tuple(listed)


def close(subject_id: str) -> Subject:
    """Close a subject's open reports (the queue drops it): the subject as
    it was, with its count. NotFound if it has none open. A later report of
    it opens it again, counted from 1."""
    key = _subject_key(subject_id)
    with connection() as conn:
        _, subjects_t = _tables(conn)
        queue_t = conn.table(table_name("reportQueue"))
        name = table_name("reportSubjects")
        while True:
            row = subjects_t.row(key)
            cell = row.get(rows.SUBJECT_STATE)
            state = rows.decode_subject_state(cell)
            if not state.open:
                raise NotFound("It has no open reports.")
            new = rows.SubjectState(state.round + 1, False, 0, state.latest, (), ())
            encoded = rows.encode_subject_state(new)
            if ops.check_and_put(
                conn, name, key, rows.SUBJECT_STATE, cell, rows.SUBJECT_STATE, encoded
            ):
                _drop_rows(queue_t, set(state.queued))
                return _subject(key, row)


# -- account deletion ------------------------------------------------------------------


def forget_user(userid: str) -> int:
    """Delete every report of ``userid``'s twits and account, with their
    subjects and queue rows, and every report ``userid`` made (one scan
    filtered on r:userid: no prefix finds a reporter). Counts of others'
    subjects stay as they were: they say how many reported. Returns how
    many reports went."""
    match = f"SingleColumnValueFilter('r', 'userid', =, 'binary:{userid}', true, true)"
    gone = 0
    with connection() as conn:
        reports_t, subjects_t = _tables(conn)
        queue_t = conn.table(table_name("reportQueue"))
        for prefix in keys.subject_prefixes(userid):
            for _, row in subjects_t.scan(
                row_prefix=prefix, columns=[rows.SUBJECT_STATE], batch_size=1000
            ):
                state = rows.decode_subject_state(row.get(rows.SUBJECT_STATE))
                _drop_rows(queue_t, set(state.queued))
            ops.delete_prefix(conn, table_name("reportSubjects"), prefix)
            gone += ops.delete_prefix(conn, table_name("reportsBySubject"), prefix)
        made = {
            k
            for k, _ in reports_t.scan(filter=match, columns=[rows.REPORT_USERID], batch_size=1000)
        }
        _drop_rows(reports_t, made)
    return gone + len(made)
