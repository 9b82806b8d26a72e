"""The row browser: any table's rows (a table named by the staff member, so
read by a variable name, not by an owner's verbs), a page at a time under a
key prefix, each key cut into its layout's parts and each cell shown raw (as
HBase prints it) and decoded. Every query is recorded in the audit log: the
rows hold user data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from feeds.errors import InvalidInput, NotFound
from feeds.types import from_millis
from storage import keys, rows
from storage.connection import connection

from .. import accounts
from .._paging import check_limit
from .audit import record
from .catalog import check_table, open_table

# -- bytes as people read them ------------------------------------------------------


def string_binary(data: bytes) -> str:
    """``data`` as HBase's Bytes.toStringBinary shows it: printable ASCII as
    is, every other byte (and the backslash) as \\xHH."""
    return "".join(chr(b) if 0x20 <= b <= 0x7E and b != 0x5C else f"\\x{b:02X}" for b in data)


def _when(millis: int) -> str:
    return from_millis(millis).strftime("%Y-%m-%d %H:%M:%S.") + f"{millis % 1000:03d} UTC"


def _text(data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "0x" + data.hex()
    return text if text.isprintable() or "\n" in text else string_binary(data)


# -- the row browser ---------------------------------------------------------------


@dataclass(frozen=True)
class KeyPartView:
    name: str
    kind: str
    hex: str
    decoded: str


@dataclass(frozen=True)
class CellView:
    column: str
    timestamp: int
    when: str
    vlen: int
    raw: str  # the value as toStringBinary (an account's password hash left out)
    decoded: str
    dump: str  # the cell as `hbase hfile -p` prints one
    # A counter or a duration: the number, which the page groups by thousands
    # (humanize's intcomma), and its unit; ``decoded`` is then its plain digits.
    number: int | None = None
    unit: str = ""


@dataclass(frozen=True)
class RowView:
    key_hex: str
    key_binary: str
    parts: tuple[KeyPartView, ...]
    cells: tuple[CellView, ...]


@dataclass(frozen=True)
class RowsPage:
    table: str
    layout: str
    prefix_hex: str
    prefix_from: str  # how the prefix was given: "md5('alice')", "hex", "text"
    rows: tuple[RowView, ...]
    next_cursor: str | None


BY_CHOICES = ("userid", "hex", "text")
PREFIX_MAX = 64


def row_prefix(table: str, by: str, value: str) -> tuple[bytes, str]:
    """The row prefix a console user asked for, and how it was made.

    ``by`` is "userid" (hashed here: the table must be keyed by user, and the
    user must exist), "hex", or "text" (UTF-8). An empty prefix, given any
    way, is the whole table from its first row.
    """
    check_table(table)
    value = value.strip()
    if by not in BY_CHOICES:
        raise InvalidInput("by", f"Give the prefix as one of: {', '.join(BY_CHOICES)}.")
    if not value:
        # Nothing typed is the whole table in every mode: the browser then
        # starts at the table's first row instead of asking for a userid.
        return b"", by
    if by == "userid":
        if not keys.keyed_by_user(table):
            raise InvalidInput("by", f"Rows of {table} are not keyed by user: give a hex prefix.")
        userid = accounts.check_userid(value, "prefix")
        if accounts.find_user(userid) is None:
            raise NotFound(
                f"No user {userid!r}. To scan by its hash anyway, "
                f"use the hex prefix {keys.user_hash(userid).hex()}."
            )
        return keys.user_hash(userid), f"md5({userid.lower()!r})"
    if by == "hex":
        digits = "".join(value.split()).removeprefix("0x")
        try:
            prefix = bytes.fromhex(digits)
        except ValueError:
            raise InvalidInput(
                "prefix",
                f"{value!r} is not hex: give pairs of the digits 0-9 and a-f, like 6c61673a.",
            ) from None
        how = "hex"
    elif by == "text":
        prefix, how = value.encode("utf-8"), "text"
    else:
        raise InvalidInput("by", f"Give the prefix as one of: {', '.join(BY_CHOICES)}.")
    if len(prefix) > PREFIX_MAX:
        raise InvalidInput("prefix", f"A prefix is at most {PREFIX_MAX} bytes.")
    return prefix, how


def browse_rows(
    actor: str, table: str, by: str, value: str, cursor: str | None = None, limit: int = 20
) -> RowsPage:
    """One page of ``table``'s rows under a prefix, in key order, each cell raw
    and decoded. The query is recorded in the audit log (rows hold user data)."""
    check_limit(limit)
    prefix, how = row_prefix(table, by, value)
    start = prefix
    if cursor:
        try:
            start = keys.after(keys.decode_cursor(cursor, prefix, None))
        except keys.BadKey as exc:
            raise InvalidInput("cursor", f"invalid cursor: {exc}") from None
    with connection() as conn:
        found = list(
            open_table(conn, table).scan(
                row_start=start,
                row_stop=keys.prefix_stop(prefix),
                include_timestamp=True,
                limit=limit + 1,
                batch_size=limit + 1,
            )
        )
    page = found[:limit]
    names = _userids_for(table, page)
    next_cursor = keys.encode_cursor(page[-1][0]) if len(found) > limit else None
    record(actor, "rows.browse", f"{table} {how} {prefix.hex()}", f"{len(page)} rows")
    return RowsPage(
        table=table,
        layout=keys.layout_text(table),
        prefix_hex=prefix.hex(),
        prefix_from=how,
        rows=tuple(_row_view(table, key, cells, names) for key, cells in page),
        next_cursor=next_cursor,
    )


def _userids_for(
    table: str,
    page: Iterable[tuple[bytes, dict[bytes, tuple[bytes, int]]]],
) -> dict[bytes, str]:
    """md5 -> userid for the users a page of rows mentions, where known: the
    userids its cells carry, then the users rows of the md5s still unknown
    (users are keyed by md5(userid), so one multi-get finds them)."""
    names: dict[bytes, str] = {}
    wanted: set[bytes] = set()
    for key, cells in page:
        for column, (value, _) in cells.items():
            userid = None
            if column in rows.USERID_CELLS:
                userid = value.decode(errors="replace")
            elif column == rows.ACCOUNT:
                userid = rows.account_userid(value)
            if userid:
                names[keys.user_hash(userid)] = userid
        wanted.update(p.raw for p in keys.split_key(table, key) if p.kind == "md5")
    found = accounts.users_by_hash(wanted - names.keys())
    return names | {key: user.userid for key, user in found.items()}


def _part_view(part: keys.KeyPart, names: dict[bytes, str]) -> KeyPartView:
    raw = part.raw
    if part.kind == "md5":
        decoded = f"@{names[raw]}" if raw in names else "md5 of an unknown userid"
    elif part.kind == "rts":
        decoded = _when(keys.millis_from_rts(raw))
    elif part.kind == "ms":
        decoded = _when(int.from_bytes(raw, "big"))
    elif part.kind == "minute":
        decoded = "minute from " + _when(int.from_bytes(raw, "big") * 60_000)
    elif part.kind == "suffix":
        decoded = "random"
    elif part.kind == "sha256":
        decoded = "sha256 of an API token or web session id"
    elif part.kind == "md5tag":
        decoded = "md5 of a hashtag (the row's h:tag names it)"
    elif part.kind == "md5list":
        decoded = "md5 of a list's key (its userLists row)"
    elif part.kind == "md5key":
        decoded = "md5 of a client's Idempotency-Key"
    else:
        decoded = _text(raw)
    return KeyPartView(part.name, part.kind, raw.hex(), decoded)


def _number_of(column: bytes, value: bytes) -> tuple[int, str] | None:
    """A counter cell's count, or a duration cell's milliseconds, with its unit."""
    if column in rows.COUNTER_CELLS and len(value) == 8:
        return rows.decode_count(value), ""
    if column in rows.DURATION_MS_CELLS and value.isdigit():
        return int(value), "ms"
    return None


def _decode_value(column: bytes, value: bytes) -> tuple[str, bytes]:
    """A cell's value as a person reads it, and the bytes to show as raw (an
    account's password hash is never shown, decoded or raw)."""
    if column == rows.ACCOUNT:
        account = rows.account_fields(value)
        if account is None:
            return _text(value), value
        if "password" in account:
            account["password"] = "(hidden)"
        shown = json.dumps(account, separators=(",", ":")).encode()
        created = account.get("created")
        parts = [f"{k} {account[k]}" for k in ("userid", "name", "email") if k in account]
        if isinstance(created, int):
            parts.append(f"created {_when(created)}")
        return " · ".join(parts) + " · password hash hidden", shown
    if column == rows.AVATAR_IMAGE:
        # An image: its size, and only its first bytes as raw (the header).
        return f"WebP image, {len(value):,} bytes", value[:32]
    if column in rows.FLAG_CELLS:
        return ("yes" if rows.decode_flag(value) else "no"), value
    if column in rows.COUNTED_CELLS and len(value) >= 8:
        counted = rows.decode_counted(value)
        kept = f"count {counted.count} · last {len(counted.done) // rows.OP_LEN} operation ids kept"
        if counted.pending:
            kept += f" · {len(counted.pending) // rows.OP_LEN} pending their mark"
        return kept, value
    number = _number_of(column, value)
    if number is not None:
        return f"{number[0]} {number[1]}".rstrip(), value
    if column in rows.MILLIS_CELLS and value.isdigit():
        return _when(int(value)), value
    if column in rows.OP_CELLS:
        return f"operation id {value.hex()}", value
    return _text(value), value


def _row_view(
    table: str, key: bytes, cells: dict[bytes, tuple[bytes, int]], names: dict[bytes, str]
) -> RowView:
    shown_key = string_binary(key)
    views = []
    for column, (value, ts) in cells.items():
        decoded, raw = _decode_value(column, value)
        number = _number_of(column, value)
        raw_text = string_binary(raw)
        col = string_binary(column)
        views.append(
            CellView(
                column=col,
                timestamp=ts,
                when=_when(ts),
                vlen=len(value),
                raw=raw_text,
                decoded=decoded,
                dump=f"K: {shown_key}/{col}/{ts}/Put/vlen={len(value)} V: {raw_text}",
                number=None if number is None else number[0],
                unit="" if number is None else number[1],
            )
        )
    return RowView(
        key_hex=key.hex(),
        key_binary=shown_key,
        parts=tuple(_part_view(p, names) for p in keys.split_key(table, key)),
        cells=tuple(views),
    )
