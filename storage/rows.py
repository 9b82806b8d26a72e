"""Each TwitBase table's cells: column names, and one encode/decode per row type.

storage/schema.py declares the tables and their families, storage/keys.py
builds every row key; this module is the third part of the mapping: what a
row holds. Nothing else names a column. Services, the bulk loader, the
benchmarks and the staff console write cells with the ``encode_*`` functions
and read them with the ``decode_*`` ones, which take the dict happybase
returns (``{column: value}``) and give plain values or the small frozen
dataclasses below. Cells a service reads with ``include_timestamp=True`` or
compares in a checkAndPut are named by their column constant, and their
values are still made here.

One module rather than a package of one module per table: most tables have
two or three columns, so the whole mapping reads in one screen per table,
in the order of storage/schema.py.

Written by hand: happybase deliberately maps no rows to objects, and the
mapping is a few dozen small pure functions, each tested through the
services that use it.
"""

from __future__ import annotations

import dataclasses
import json
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass

import orjson

from .keys import MD5_LEN, TWIT_KEY_LEN

# -- counters -------------------------------------------------------------------
#
# Two kinds of counter cell, one encoding: a count is 8 bytes, big-endian,
# signed, as HBase's own counters (counter_inc) store it. An apply-once cell
# (storage/ops.py) follows the count with the 16-byte ids of operations it
# has applied: first the last ``WINDOW`` done, oldest first; then, while a
# change's mark is not yet written, the ids it holds pending, and an 8-byte
# tail that counts them. A cell without pending ids is count + ids, as it
# was before pending ids existed; one with them is 16 bytes longer than a
# multiple of 16 (the tail), which tells the two apart.

OP_LEN = 16
_COUNT = struct.Struct(">q")
_PENDING_TAIL = struct.Struct(">4sI")
_PENDING_MAGIC = b"\xffpnd"


def encode_count(n: int) -> bytes:
    """A counter cell holding ``n`` (what counter_inc would read back)."""
    return _COUNT.pack(n)


def decode_count(cell: bytes | None) -> int:
    """The count in a counter or apply-once cell (0 when absent or empty)."""
    if not cell:
        return 0
    return int(_COUNT.unpack_from(cell)[0])


@dataclass(frozen=True)
class Counted:
    """An apply-once cell: its count, the ids of the operations it has
    applied and remembers (oldest first), and those of changes applied but
    not yet marked done where their state lives (``pending``; see
    storage.ops.MarkedChange). Ids are concatenated, OP_LEN bytes each."""

    count: int = 0
    done: bytes = b""
    pending: bytes = b""

    def holds(self, op: bytes) -> tuple[bool, bool]:
        """Whether ``op`` is among the done ids, and among the pending ones."""
        return _has(self.done, op), _has(self.pending, op)


def _ids(ids: bytes) -> list[bytes]:
    return [ids[i : i + OP_LEN] for i in range(0, len(ids), OP_LEN)]


def _has(ids: bytes, op: bytes) -> bool:
    return op in _ids(ids)


def without(ids: bytes, op: bytes) -> bytes:
    """``ids`` with ``op`` taken out."""
    return b"".join(i for i in _ids(ids) if i != op)


def decode_counted(cell: bytes | None) -> Counted:
    """An apply-once cell (an empty :class:`Counted` when absent)."""
    if not cell:
        return Counted()
    count = decode_count(cell)
    if len(cell) % OP_LEN == _COUNT.size:
        return Counted(count, cell[_COUNT.size :])
    magic, held = _PENDING_TAIL.unpack_from(cell, max(0, len(cell) - _PENDING_TAIL.size))
    ids = cell[_COUNT.size : -_PENDING_TAIL.size]
    if len(cell) % OP_LEN or magic != _PENDING_MAGIC or not 0 < held * OP_LEN <= len(ids):
        raise ValueError(f"not an apply-once cell: {cell[:40]!r}")
    split = len(ids) - held * OP_LEN
    return Counted(count, ids[:split], ids[split:])


def encode_counted(counted: Counted) -> bytes:
    cell = _COUNT.pack(counted.count) + counted.done
    if not counted.pending:
        return cell
    held = len(counted.pending) // OP_LEN
    return cell + counted.pending + _PENDING_TAIL.pack(_PENDING_MAGIC, held)


def _millis(ms: int) -> bytes:
    return str(ms).encode()


# -- users: md5(userid) -------------------------------------------------------------

ACCOUNT = b"info:account"  # JSON: userid, name, email, password (hash), created (ms)
STAFF = b"info:staff"  # b"1" or b"0"
DISABLED = b"info:disabled"  # b"1" or b"0"
AUTHGEN = b"info:authgen"  # an HBase counter, raised to end every session and token
BIO = b"info:bio"  # UTF-8 text, absent or empty when the user wrote none
COUNT_TWITS = b"c:twits"  # apply-once counters
COUNT_FOLLOWERS = b"c:followers"
COUNT_FOLLOWING = b"c:following"
# An HBase counter, raised after every change to the user's followedBy rows:
# a packed list of followers (FOLLOWER_LIST) made before it is stale.
FOLLOWERS_CHANGED = b"c:fchanged"
# An HBase counter, raised after every change to the user's follows rows:
# which large accounts they follow, as a process remembered it under an
# older value, may be stale (streams.FollowedCache).
FOLLOWING_CHANGED = b"c:gchanged"
# An HBase counter, raised after every change of the user's likes and
# reposts: the flags a process remembered for them under an older value
# may be stale (reactions.FlagsCache).
REACTIONS_CHANGED = b"c:rchanged"


@dataclass(frozen=True)
class UserRow:
    userid: str
    name: str
    email: str
    password: str  # the hash
    created: int  # ms
    staff: bool
    disabled: bool
    auth_generation: int
    twits: int
    followers: int
    following: int
    bio: str
    account: bytes  # the account cell as read: what a checkAndPut replacing it compares
    avatar: int = 0  # the avatar's version; 0: none
    following_changed: int = 0  # FOLLOWING_CHANGED; 0: absent, or not read
    reactions_changed: int = 0  # REACTIONS_CHANGED; 0: absent, or not read
    shields: str = ""  # the SHIELD_MARKS' letters the row has
    pinned: str = ""  # PINNED: the id of the twit on top of the profile; "": none


# Marks in a users row, each set once and never cleared: the user has
# blocked someone or been blocked ("b"), muted an account ("m"), muted a word
# ("w"). Written before the first such row, so a reader whose row lacks a
# mark skips that lookup on every page (feeds/services/blocks.py).
SHIELD_MARKS = {b"info:sb": "b", b"info:sm": "m", b"info:sw": "w"}
# The twit its user pinned on top of their profile: its id (hex). A read
# that finds it deleted shows nothing; the next pin replaces it.
PINNED = b"info:pinned"


def encode_account(userid: str, name: str, email: str, password_hash: str, created: int) -> bytes:
    """The account cell, compact JSON (the order of its keys is fixed)."""
    return json.dumps(
        {
            "userid": userid,
            "name": name,
            "email": email,
            "password": password_hash,
            "created": created,
        },
        separators=(",", ":"),
    ).encode()


def with_password(account: bytes, password_hash: str) -> bytes:
    """The account cell ``account`` with its password hash replaced (other keys kept)."""
    fields = json.loads(account)
    fields["password"] = password_hash
    return json.dumps(fields, separators=(",", ":")).encode()


def with_name(account: bytes, name: str) -> bytes:
    """The account cell ``account`` with its display name replaced (other keys kept)."""
    fields = json.loads(account)
    fields["name"] = name
    return json.dumps(fields, separators=(",", ":")).encode()


def encode_bio(bio: str) -> bytes:
    return bio.encode()


def account_fields(account: bytes) -> dict[str, object] | None:
    """An account cell's JSON object as read, or None if it is not one
    (for the console, which shows cells it did not write)."""
    try:
        fields = json.loads(account)
    except ValueError:
        return None
    return fields if isinstance(fields, dict) else None


def account_userid(account: bytes) -> str | None:
    """The userid in an account cell; None if the cell is not an account."""
    fields = account_fields(account)
    if fields is None or "userid" not in fields:
        return None
    return str(fields["userid"])


def encode_user(
    account: bytes,
    twits: int | None = None,
    followers: int | None = None,
    following: int | None = None,
) -> dict[bytes, bytes]:
    """A new user row as the bulk loader writes it: the account, and the
    counts it knows (as plain counts: no operation ids)."""
    cells = {ACCOUNT: account}
    for column, n in (
        (COUNT_TWITS, twits),
        (COUNT_FOLLOWERS, followers),
        (COUNT_FOLLOWING, following),
    ):
        if n is not None:
            cells[column] = encode_count(n)
    return cells


def encode_flag(on: bool) -> bytes:
    return b"1" if on else b"0"


def decode_flag(cell: bytes | None) -> bool:
    """Whether a flag cell is set (an absent cell is not)."""
    return cell == b"1"


def decode_user(row: dict[bytes, bytes]) -> UserRow | None:
    """The user in a users row; None if it has no account (no such user)."""
    raw = row.get(ACCOUNT)
    if raw is None:
        return None
    account = json.loads(raw)
    return UserRow(
        userid=account["userid"],
        name=account["name"],
        email=account["email"],
        password=account["password"],
        created=account["created"],
        staff=decode_flag(row.get(STAFF)),
        disabled=decode_flag(row.get(DISABLED)),
        auth_generation=decode_count(row.get(AUTHGEN)),
        twits=decode_count(row.get(COUNT_TWITS)),
        followers=decode_count(row.get(COUNT_FOLLOWERS)),
        following=decode_count(row.get(COUNT_FOLLOWING)),
        bio=row.get(BIO, b"").decode(),
        account=raw,
        avatar=decode_avatar_version(row),
        following_changed=decode_count(row.get(FOLLOWING_CHANGED)),
        reactions_changed=decode_count(row.get(REACTIONS_CHANGED)),
        shields="".join(letter for cell, letter in SHIELD_MARKS.items() if cell in row),
        pinned=row.get(PINNED, b"").decode(),
    )


# -- twits: md5(author) + rts + suffix ----------------------------------------------

TWIT = b"t"  # the family: columns=[TWIT] reads a twit row without asking for each cell
TEXT = b"t:text"
AUTHOR = b"t:userid"
NAME = b"t:name"
CREATED = b"t:created"
FANOUT = b"t:fanout"  # the fan-out's lease, present while the fan-out is unfinished
# Written first by a twit's delete: from then on the twit is gone to readers,
# and a reaction that finds it cleans up after itself (services/reactions.py).
DELETING = b"t:deleting"
# Written (at the twit's own time) once the twit is in its author's count.
TWIT_COUNTED = b"t:counted"
# One cell per finished chunk of the fan-out: PROGRESS + the chunk's number,
# holding "start next" (follower keys in hex; "" for the first chunk's start
# and for the end).
PROGRESS = b"t:p"
# A reply: the parent's twit id (hex), and its author, so "replying to @x"
# renders without reading the parent.
REPLY_TO = b"t:reply_to"
REPLY_USERID = b"t:reply_userid"
# The twit's counts, side by side (apply-once cells): replies now; likes and
# reposts are meant to sit beside it.
COUNT_REPLIES = b"t:replies"
# Written on a reply (at its own time) once its parent's count includes it.
REPLY_COUNTED = b"t:rcounted"
# Written on a reply being deleted once its parent's count no longer includes it.
REPLY_UNCOUNTED = b"t:runcounted"
# The twit's exact like count (apply-once cell), beside its replies.
COUNT_LIKES = b"t:likes"
# likers (twit key + md5(liker)): who likes it, their name as they liked, and
# the like's state as one cell so a compare-and-set moves it:
# b"on:gen:ms:counted" (see services/reactions.py).
LIKER_USERID = b"l:userid"
LIKER_NAME = b"l:name"
LIKE_STATE = b"l:state"
# likes (md5(liker) + rts(like) + twit key): the row key says it all; one cell
# because HBase keeps no row without one.
LIKE_MARK = b"l:x"
# The twit's exact repost count (apply-once cell), beside its likes.
COUNT_REPOSTS = b"t:reposts"
# reposters (twit key + md5(reposter)): who reposted it, and the repost's
# state as one cell, b"on:gen:ms:counted", moved as a like's is (see
# services/reactions.py; encode_like_state / decode_like_state).
REPOSTER_USERID = b"r:userid"
REPOSTER_NAME = b"r:name"
REPOST_STATE = b"r:state"
# On a twit row (t:p<n>), or on a stream job's pending entry (p:p<n>, JOB_PROGRESS).
_PROGRESS_RE = re.compile(rb"[tp]:p(\d+)")


@dataclass(frozen=True)
class TwitRow:
    """A twit's content, as a twit row and each of its stream rows carry it."""

    userid: str  # the author
    name: str  # the author's name when posted
    text: str
    created: int  # ms
    reply_to: str | None = None  # the parent's twit id, for a reply
    reply_userid: str = ""  # the parent's author, for a reply
    edited: int = 0  # ms of its latest edit (0: never edited; a twits row's t:edit)
    quote_of: str | None = None  # the quoted twit's id, for a quote (twits rows only)
    quote_userid: str = ""  # the quoted twit's author, for a quote: whom it notifies
    images: tuple[ImageRef, ...] = ()  # its images (twits rows only; see "media" below)


@dataclass(frozen=True)
class TwitCells:
    """The columns a row keeps a twit's content in: a twits row and a stream
    row carry the same content, each in its own family."""

    userid: bytes
    name: bytes
    text: bytes
    created: bytes
    # Where the row keeps what the twit replies to; None: rows that need not
    # (a replies row's parent is in its key).
    reply_to: bytes | None = None
    reply_userid: bytes | None = None
    # Where the row keeps the twit it quotes; None: rows that do not (the
    # hydrate step reads it from the twit row, see feeds/services/hydration.py).
    quote_of: bytes | None = None
    quote_userid: bytes | None = None
    images: bytes | None = None  # None: rows that do not carry images (hydration adds them)

    def encode(self, twit: TwitRow) -> dict[bytes, bytes]:
        cells = {
            self.userid: twit.userid.encode(),
            self.name: twit.name.encode(),
            self.text: twit.text.encode(),
            self.created: _millis(twit.created),
        }
        if twit.reply_to is not None and self.reply_to and self.reply_userid:
            cells[self.reply_to] = twit.reply_to.encode()
            cells[self.reply_userid] = twit.reply_userid.encode()
        if twit.quote_of is not None and self.quote_of and self.quote_userid:
            cells[self.quote_of] = twit.quote_of.encode()
            cells[self.quote_userid] = twit.quote_userid.encode()
        if twit.images and self.images:
            cells[self.images] = encode_images(twit.images)
        return cells

    def decode(self, row: dict[bytes, bytes], **known: str) -> TwitRow | None:
        """None when the row has no text (see :func:`decode_twit`).

        ``known``: the reply and quote fields (``reply_to``,
        ``reply_userid``, ``quote_of``, ``quote_userid``) of rows that do
        not keep them, as their reader knows them (a replies row's parent is
        the first part of its key). A page of 100 replies set them after
        decoding with ``dataclasses.replace``, which cost a third of its
        rows' decoding (issue 39)."""
        if self.text not in row:
            return None
        # Each of the four: its cell when the row keeps it, else as known.
        cell = row.get(self.reply_to) if self.reply_to else None
        reply_to = known.get("reply_to") if cell is None else cell.decode()
        cell = row.get(self.reply_userid) if self.reply_userid else None
        reply_userid = known.get("reply_userid", "") if cell is None else cell.decode()
        cell = row.get(self.quote_of) if self.quote_of else None
        quote_of = known.get("quote_of") if cell is None else cell.decode()
        cell = row.get(self.quote_userid) if self.quote_userid else None
        quote_userid = known.get("quote_userid", "") if cell is None else cell.decode()
        return TwitRow(
            userid=row[self.userid].decode(),
            name=row[self.name].decode(),
            text=row[self.text].decode(),
            created=int(row[self.created]),
            reply_to=reply_to,
            reply_userid=reply_userid,
            quote_of=quote_of,
            quote_userid=quote_userid,
            images=decode_images(row.get(self.images)) if self.images else (),
        )


TWIT_CELLS = TwitCells(
    userid=AUTHOR,
    name=NAME,
    text=TEXT,
    created=CREATED,
    reply_to=REPLY_TO,
    reply_userid=REPLY_USERID,
    quote_of=b"t:quote_of",
    quote_userid=b"t:quote_userid",
    images=b"t:images",
)


def encode_twit(twit: TwitRow) -> dict[bytes, bytes]:
    return TWIT_CELLS.encode(twit)


def decode_twit(row: dict[bytes, bytes]) -> TwitRow | None:
    """The twit in a twits row; None when it has no text: what is left of a
    deleted twit (a fan-out's bookkeeping cell written just after the delete).
    An edited twit has its latest edit's text (t:edit, see Edit below)."""
    if AUTHOR not in row:  # an edit's cells left in a row a delete took (services/twits.py)
        return None
    twit = TWIT_CELLS.decode(row)
    edit = decode_edit(row) if twit is not None and EDIT in row else None
    if edit is not None and twit is not None:
        twit = dataclasses.replace(twit, text=edit.text, edited=edit.ts)
    return twit


def decode_twit_counts(row: dict[bytes, bytes]) -> tuple[int, int, int, int]:
    """What a twits row counts: (replies, likes, reposts, quotes), each 0
    when it counts none. Every reader of a twit's counts (one twit, a
    timeline's rows, a page's hydrate step) reads the four here."""
    return (
        decode_count(row.get(COUNT_REPLIES)),
        decode_count(row.get(COUNT_LIKES)),
        decode_count(row.get(COUNT_REPOSTS)),
        decode_count(row.get(COUNT_QUOTES)),
    )


def decode_like_state(cell: bytes | None) -> tuple[bool, int, int, bool]:
    """A likers row's state: (on, generation, like ms, counted); no cell is an
    unliked pair with nothing left to count."""
    if not cell:
        return False, 0, 0, True
    on, gen, ms, counted = cell.split(b":")
    return on == b"1", int(gen), int(ms), counted == b"1"


def encode_like_state(on: bool, gen: int, ms: int, counted: bool) -> bytes:
    return b"%d:%d:%d:%d" % (on, gen, ms, counted)


def twit_author(row: dict[bytes, bytes]) -> str:
    """The author a twits row names ("" if it names none)."""
    return row.get(AUTHOR, b"").decode()


def progress_column(chunk: int, prefix: bytes = PROGRESS) -> bytes:
    """A finished chunk's cell: on a twit row (PROGRESS), or on a stream
    job's pending entry (JOB_PROGRESS)."""
    return prefix + str(chunk).encode()


def encode_progress(start: str, after: str) -> bytes:
    """A finished chunk's record: where it began and where the next begins."""
    return f"{start} {after}".encode()


def decode_progress(row: dict[bytes, bytes]) -> dict[int, tuple[str, str]]:
    """The finished chunks recorded on a twit row, or a stream job's pending
    entry: number -> (start, next)."""
    done = {}
    for column, value in row.items():
        m = _PROGRESS_RE.fullmatch(column)
        if m:
            start, _, nxt = value.decode().partition(" ")
            done[int(m.group(1))] = (start, nxt)
    return done


def progress_columns(columns: Iterable[bytes]) -> list[bytes]:
    """The progress cells among ``columns`` (a row's columns)."""
    return [c for c in columns if _PROGRESS_RE.fullmatch(c)]


# The lease in FANOUT: "owner:since:takeovers:queued" (see feeds/services/pending.py).
LEASE_FINISHED = b"done"  # the lease's value while the finishing chunk clears it


def encode_lease(owner: str, since: int, takeovers: int, queued: int) -> bytes:
    return f"{owner}:{since}:{takeovers}:{queued}".encode()


def decode_lease(raw: bytes) -> tuple[str, int, int, int]:
    """(owner, since, takeovers, queued) of a FANOUT cell. A cell from before
    leases ("pending") is a lease nobody holds, taken in 1970."""
    try:
        owner, since, takeovers, queued = raw.decode().split(":")
        return owner, int(since), int(takeovers), int(queued)
    except (UnicodeDecodeError, ValueError):
        return "", 0, 0, 0


# -- pendingFanouts: the twit's key ---------------------------------------------------

PENDING_AUTHOR = b"p:userid"
# A stream job's entry (a repost's or a removal's fan-out; its key is
# keys.pending_job_key): the job (JSON, feeds.services.pending), its lease
# (as FANOUT on a twit row) and its finished chunks (as PROGRESS).
PENDING_JOB = b"p:job"
PENDING_LEASE = b"p:lease"
JOB_PROGRESS = b"p:p"


def encode_pending(author: str) -> dict[bytes, bytes]:
    return {PENDING_AUTHOR: author.encode()}


# -- followerLists: md5(author) ----------------------------------------------------------

# The author's followers' md5s in key order, run together, after the version
# of the users row they were read under (see follower_list_version).
FOLLOWER_LIST = b"l:list"


def follower_list_version(row: dict[bytes, tuple[bytes, int]]) -> bytes:
    """What a packed follower list must have been made under to be current,
    from the author's users row read with timestamps (ACCOUNT,
    COUNT_FOLLOWERS, FOLLOWERS_CHANGED): the changes counter, and the times
    of the account and the count, which a bulk load or a new account of the
    same userid rewrites without raising the counter."""
    changed = decode_count(row[FOLLOWERS_CHANGED][0]) if FOLLOWERS_CHANGED in row else 0
    account = row[ACCOUNT][1] if ACCOUNT in row else 0
    counted = row[COUNT_FOLLOWERS][1] if COUNT_FOLLOWERS in row else 0
    return f"{changed}:{account}:{counted}".encode()


def encode_follower_list(version: bytes, followers: bytes) -> bytes:
    """A packed list of the followers' md5s (run together), made under ``version``."""
    return bytes([len(version)]) + version + followers


def decode_follower_list(raw: bytes | None, version: bytes) -> bytes | None:
    """The md5s (run together) in a packed list made under ``version``; None
    if there is no list, it was made under another, or it is not a list at all."""
    if not raw or raw[1 : 1 + raw[0]] != version:
        return None
    packed = raw[1 + raw[0] :]
    if len(packed) % 16:
        return None
    return packed


# -- follows and followedBy: md5(one) + md5(other) --------------------------------------

EDGE_USERID = b"f:userid"  # the other end: the followed (follows), the follower (followedBy)
EDGE_NAME = b"f:name"
EDGE_CREATED = b"f:created"  # ms, the edge's generation
# The id of the follow that created this edge; its timestamp is the generation.
EDGE_OP = b"f:op"
EDGE_COUNTED = b"f:counted"  # follows only: the op whose follow the counts include


def encode_edge(
    userid: str, name: str, created: int, op: bytes | None = None, counted: bytes | None = None
) -> dict[bytes, bytes]:
    """An edge's cells: the other end (userid, name), when, and the follow's
    operation id where the writer knows it."""
    cells = {EDGE_USERID: userid.encode(), EDGE_NAME: name.encode(), EDGE_CREATED: _millis(created)}
    if op is not None:
        cells[EDGE_OP] = op
    if counted is not None:
        cells[EDGE_COUNTED] = counted
    return cells


def encode_counted_edge(op: bytes) -> dict[bytes, bytes]:
    """The follows edge's record that its follow's counts are applied."""
    return {EDGE_COUNTED: op}


def decode_edge(row: dict[bytes, bytes]) -> tuple[str, str] | None:
    """The other end of an edge, (userid, name); None for a row without one.
    An edge from before names were kept shows the userid as the name."""
    if EDGE_USERID not in row:
        return None
    userid = row[EDGE_USERID]
    return userid.decode(), row.get(EDGE_NAME, userid).decode()


def edge_userid(row: dict[bytes, bytes]) -> str:
    return row[EDGE_USERID].decode()


# -- streams: md5(reader) + rts + md5(author) + suffix -----------------------------------

# A stream row keeps the twit in one cell, a compact JSON array, rather than a
# cell per field: every cell carries the row key, family, qualifier and
# timestamp again, and a fan-out writes one row per follower, so a row of one
# cell is a quarter of the KeyValues a row of four would be for the server to
# decode, sort and store (docs/schema.md). A stream row is always read whole.
#   a twit's own row:  s:t = [userid, name, text, created, reply_to, reply_userid]
#   a repost's row:    s:r = the same six, then [repost_of, reposted_by, reposted_by_name]
# The column alone tells a repost's row from a twit's, so a KeyOnlyFilter
# scan (new_in_stream) still can.
STREAM_TWIT = b"s:t"
STREAM_REPOST = b"s:r"

# Rows written before the packing kept a cell per field; they are still read.
STREAM_USERID = b"s:userid"
STREAM_NAME = b"s:name"
STREAM_TEXT = b"s:text"
STREAM_CREATED = b"s:created"
STREAM_REPLY_TO = b"s:reply_to"
STREAM_REPLY_USERID = b"s:reply_userid"


STREAM_CELLS = TwitCells(
    userid=STREAM_USERID,
    name=STREAM_NAME,
    text=STREAM_TEXT,
    created=STREAM_CREATED,
    reply_to=STREAM_REPLY_TO,
    reply_userid=STREAM_REPLY_USERID,
)


# A repost's stream row (keys.repost_stream_key) carries the twit as any
# stream row does, plus the twit's id (its key says the reposter, not the
# twit) and who reposted it. Before the packing, in these cells:
STREAM_REPOST_OF = b"s:repost_of"
STREAM_REPOSTED_BY = b"s:rby"
STREAM_REPOSTED_BY_NAME = b"s:rbyname"

_PACK = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _packed(twit: TwitRow, *more: str) -> bytes:
    fields = [twit.userid, twit.name, twit.text, twit.created, twit.reply_to, twit.reply_userid]
    return _PACK([*fields, *more]).encode()


def encode_repost_stream(
    twit: TwitRow, twit_id: str, reposter: str, name: str
) -> dict[bytes, bytes]:
    """A reposted twit as a stream row carries it: the twit and who reposted it."""
    return {STREAM_REPOST: _packed(twit, twit_id, reposter, name)}


def is_repost_row(row: dict[bytes, bytes]) -> bool:
    """Whether a stream row (values read or not) is a repost's."""
    return STREAM_REPOST in row or STREAM_REPOST_OF in row


def decode_repost(row: dict[bytes, bytes]) -> tuple[str, str, str] | None:
    """(twit id, reposter, reposter's name) of a repost's stream or reposts
    row; None for a twit's own stream row."""
    packed = row.get(STREAM_REPOST)
    if packed is not None:
        f = orjson.loads(packed)
        return str(f[6]), str(f[7]), str(f[8])
    if STREAM_REPOST_OF in row:
        return (
            row[STREAM_REPOST_OF].decode(),
            row.get(STREAM_REPOSTED_BY, b"").decode(),
            row.get(STREAM_REPOSTED_BY_NAME, b"").decode(),
        )
    return None


def encode_stream(twit: TwitRow) -> dict[bytes, bytes]:
    """A twit as a stream row carries it: enough to render, no read of the twit."""
    return {STREAM_TWIT: _packed(twit)}


def decode_stream(row: dict[bytes, bytes]) -> TwitRow | None:
    """The twit a stream (or reposts) row carries; None for a row without one."""
    item = decode_stream_item(row)
    return None if item is None else item[0]


PackedItem = tuple[str, str, str, int, str | None, str, str | None, str | None, str]


def packed_stream_item(row: dict[bytes, bytes]) -> PackedItem | None:
    """What a packed stream row carries, as nearly every one is, from one
    parse: the twit's six fields in :class:`TwitRow`'s order, then the
    repost's twit id, reposter and reposter's name (None, None, "" for a
    twit's own row). No TwitRow, for a page to make its ``Twit`` from at
    once. None for any other row, which :func:`decode_stream_item` reads."""
    packed = row.get(STREAM_TWIT)
    if packed:
        if STREAM_REPOST in row or STREAM_REPOST_OF in row:
            return None
        f = orjson.loads(packed)
        return str(f[0]), str(f[1]), str(f[2]), int(f[3]), f[4], str(f[5]), None, None, ""
    packed = row.get(STREAM_REPOST)
    if not packed:
        return None
    f = orjson.loads(packed)
    return (
        str(f[0]),
        str(f[1]),
        str(f[2]),
        int(f[3]),
        f[4],
        str(f[5]),
        str(f[6]),
        str(f[7]),
        str(f[8]),
    )


def decode_stream_item(
    row: dict[bytes, bytes],
) -> tuple[TwitRow, tuple[str, str, str] | None] | None:
    """The twit a stream (or reposts) row carries, and for a repost's row
    :func:`decode_repost`'s (twit id, reposter, name), from one parse of
    its packed cell (a page decodes every row it shows: orjson parses it in
    a tenth of the time the json module takes). None for a row without a twit."""
    packed = row.get(STREAM_TWIT)
    repost = not packed and bool(row.get(STREAM_REPOST))
    if repost:
        packed = row[STREAM_REPOST]
    if packed:
        f = orjson.loads(packed)
        twit = TwitRow(str(f[0]), str(f[1]), str(f[2]), int(f[3]), f[4], str(f[5]))
        return twit, (str(f[6]), str(f[7]), str(f[8])) if repost else decode_repost(row)
    twit_row = STREAM_CELLS.decode(row)
    return None if twit_row is None else (twit_row, decode_repost(row))


# -- replies: parent's key + ms + md5(author) + suffix -------------------------------------

REPLIES_USERID = b"r:userid"
REPLIES_NAME = b"r:name"
REPLIES_TEXT = b"r:text"
REPLIES_CREATED = b"r:created"

# A replies row carries the reply as a stream row does: the permalink renders
# a page of replies from one scan. Its parent is the key's first part.
REPLY_CELLS = TwitCells(
    userid=REPLIES_USERID, name=REPLIES_NAME, text=REPLIES_TEXT, created=REPLIES_CREATED
)


def encode_reply(twit: TwitRow) -> dict[bytes, bytes]:
    return REPLY_CELLS.encode(twit)


def decode_reply(row: dict[bytes, bytes], **known: str) -> TwitRow | None:
    """The reply in a replies row; ``known``: its parent's ``reply_to`` and
    ``reply_userid``, which the row does not keep (TwitCells.decode)."""
    return REPLY_CELLS.decode(row, **known)


# -- tokens: sha256(token) ---------------------------------------------------------------

TOKEN_USERID = b"k:userid"
TOKEN_CREATED = b"k:created"
TOKEN_GEN = b"k:gen"  # the account's auth generation when issued, decimal
TOKEN_KIND = b"k:kind"
KIND_API = "api"  # a bearer token
KIND_WEB = "web"  # a web session
KIND_RESET = "reset"  # a password reset's emailed link (feeds/services/passwordreset.py)
# A claimed reset token's k:gen: no generation matches it, so the link is spent.
TOKEN_SPENT = b"spent"


@dataclass(frozen=True)
class TokenRow:
    userid: str
    generation: bytes  # as stored: compared with encode_generation(), never parsed
    kind: str
    created: int = 0  # ms


def encode_generation(generation: int) -> bytes:
    return str(generation).encode()


def encode_token(userid: str, created: int, generation: int, kind: str) -> dict[bytes, bytes]:
    return {
        TOKEN_USERID: userid.encode(),
        TOKEN_CREATED: _millis(created),
        TOKEN_GEN: encode_generation(generation),
        TOKEN_KIND: kind.encode(),
    }


def decode_token(row: dict[bytes, bytes]) -> TokenRow | None:
    """The credential in a tokens row; None if the row lacks its user or generation."""
    if TOKEN_USERID not in row or TOKEN_GEN not in row:
        return None
    return TokenRow(
        userid=row[TOKEN_USERID].decode(),
        generation=row[TOKEN_GEN],
        kind=row.get(TOKEN_KIND, b"").decode(errors="replace"),
        created=int(row.get(TOKEN_CREATED) or b"0"),
    )


# -- ratelimits and logins: md5(subject) + window -------------------------------------------

POSTS = b"r:posts"  # an HBase counter: posts in the window
# The other limits' counters (feeds.services.ratelimit declares the limits),
# one a limit; a row of an account or a client address holds those it needs.
RATE_SIGNUPS = b"r:signups"
RATE_FOLLOWS = b"r:follows"
RATE_REACTIONS = b"r:reactions"
RATE_AVATARS = b"r:avatars"
RATE_REPORTS = b"r:reports"
RATE_RESETS = b"r:resets"
RATE_BLOCKS = b"r:blocks"
RATE_MESSAGES = b"r:messages"  # direct messages sent
RATE_IMAGES = b"r:images"  # a twit's images uploaded
RATE_LISTS = b"r:lists"  # lists made or deleted, members added or removed
RATE_COUNTERS = (
    POSTS,
    RATE_SIGNUPS,
    RATE_FOLLOWS,
    RATE_REACTIONS,
    RATE_AVATARS,
    RATE_REPORTS,
    RATE_RESETS,
    RATE_BLOCKS,
    RATE_MESSAGES,
    RATE_IMAGES,
    RATE_LISTS,
)
LOGIN_FAILS = b"l:fails"  # an HBase counter: failed log-ins in the window


# -- suspensions: "all" --------------------------------------------------------------------

# An HBase counter, raised after every suspension and reinstatement: who is
# suspended, as a process remembered it under an older value, may be stale
# (accounts.SuspendedCache).
SUSPENSIONS_CHANGED = b"s:changed"

# -- celebrities: md5(userid) ---------------------------------------------------------------

CELEBRITY_USERID = b"c:userid"


def encode_celebrity(userid: str) -> dict[bytes, bytes]:
    return {CELEBRITY_USERID: userid.encode()}


def decode_celebrity(row: dict[bytes, bytes]) -> str:
    return row[CELEBRITY_USERID].decode()


# -- metrics: "totals", "lag:" + rts + suffix, "worker:" + host:pid ----------------------------

FANOUTS = b"m:fanouts"  # totals: HBase counters
STREAM_ROWS = b"m:stream_rows"
FAILURES = b"m:failures"
LAST_FAILURE = b"m:last_failure"  # totals: text
LAG_MS = b"m:lag_ms"  # a lag row: decimal ms
SEEN = b"m:seen"  # a worker row: ms, decimal
TASKS = b"m:tasks"  # a worker row: an HBase counter
# The tables row: per table, its count ("m:rows:" + name) and key spread
# ("m:spread:" + name), each a JSON object (services/tablestats.py).
TABLE_ROWS = b"m:rows:"
TABLE_SPREAD = b"m:spread:"
LAST_FAILURE_MAX = 500


@dataclass(frozen=True)
class Totals:
    fanouts: int
    stream_rows: int
    failures: int
    last_failure: str


def decode_totals(row: dict[bytes, bytes]) -> Totals:
    return Totals(
        fanouts=decode_count(row.get(FANOUTS)),
        stream_rows=decode_count(row.get(STREAM_ROWS)),
        failures=decode_count(row.get(FAILURES)),
        last_failure=row.get(LAST_FAILURE, b"").decode(),
    )


def encode_failure(text: str) -> dict[bytes, bytes]:
    return {LAST_FAILURE: text[:LAST_FAILURE_MAX].encode()}


def encode_lag(lag_ms: int) -> dict[bytes, bytes]:
    return {LAG_MS: str(lag_ms).encode()}


def decode_lag(row: dict[bytes, bytes]) -> int:
    return int(row[LAG_MS])


def encode_seen(millis: int) -> dict[bytes, bytes]:
    return {SEEN: _millis(millis)}


def decode_worker(row: dict[bytes, bytes]) -> tuple[int, int]:
    """A worker row's (last seen, ms; tasks run)."""
    return int(row.get(SEEN, b"0")), decode_count(row.get(TASKS))


# -- audit: rts + suffix -----------------------------------------------------------------------

AUDIT_ACTOR = b"a:actor"
AUDIT_ACTION = b"a:action"
AUDIT_TARGET = b"a:target"
AUDIT_DETAIL = b"a:detail"
DETAIL_MAX = 500


@dataclass(frozen=True)
class AuditRow:
    actor: str
    action: str
    target: str
    detail: str


def encode_audit(entry: AuditRow) -> dict[bytes, bytes]:
    return {
        AUDIT_ACTOR: entry.actor.encode(),
        AUDIT_ACTION: entry.action.encode(),
        AUDIT_TARGET: entry.target.encode(),
        AUDIT_DETAIL: entry.detail[:DETAIL_MAX].encode(),
    }


def decode_audit(row: dict[bytes, bytes]) -> AuditRow | None:
    """An audit entry; None for a row without an action. Undecodable bytes
    are shown replaced: the log is read by people, never parsed back."""
    if AUDIT_ACTION not in row:
        return None
    return AuditRow(
        actor=row.get(AUDIT_ACTOR, b"").decode(errors="replace"),
        action=row[AUDIT_ACTION].decode(errors="replace"),
        target=row.get(AUDIT_TARGET, b"").decode(errors="replace"),
        detail=row.get(AUDIT_DETAIL, b"").decode(errors="replace"),
    )


# -- notifications ----------------------------------------------------------------------------
#
# A notification row is what the page shows of it, whole: who (the latest
# actors, newest first, at most NOTIFY_ACTORS of them), how many in all (a
# like or repost group), the twit it is about and a snippet of its text.

NOTIFY_ACTORS_CELL = b"n:actors"  # JSON: [[userid, name], ...], newest first
NOTIFY_COUNT = b"n:count"  # 8-byte count of actors in all (a group); absent: 1
NOTIFY_TWIT = b"n:twit"  # the twit's id (hex), absent for a follow
NOTIFY_TEXT = b"n:text"  # UTF-8, the first NOTIFY_SNIPPET characters of the twit
NOTIFY_SNIPPET = 100
NOTIFY_ACTORS = 3
# A user's unread notifications: an apply-once cell in the users row, so a
# retried notification counts once; opening the page sets it to 0.
COUNT_UNREAD = b"c:unread"
# A like (or repost) group: its state, moved by checkAndPut, and its count.
# JSON: {"gen": n, "top": ms, "latest": [[userid, name, ms], ...], "was": [[ms, gen], ...]}
GROUP_STATE = b"g:state"
GROUP_COUNT = b"g:count"  # apply-once: actors in the group


@dataclass(frozen=True)
class NotificationRow:
    actors: tuple[tuple[str, str], ...]
    count: int
    twit_id: str | None
    text: str


def encode_notification(n: NotificationRow) -> dict[bytes, bytes]:
    cells = {
        NOTIFY_ACTORS_CELL: json.dumps([list(a) for a in n.actors]).encode(),
        NOTIFY_COUNT: encode_count(n.count),
        NOTIFY_TEXT: n.text[:NOTIFY_SNIPPET].encode(),
    }
    if n.twit_id is not None:
        cells[NOTIFY_TWIT] = n.twit_id.encode()
    return cells


def decode_notification(row: dict[bytes, bytes]) -> NotificationRow | None:
    """None for a row without actors (a half-deleted one)."""
    raw = row.get(NOTIFY_ACTORS_CELL)
    if not raw:
        return None
    actors = tuple((str(u), str(n)) for u, n in json.loads(raw))
    if not actors:
        return None
    twit = row.get(NOTIFY_TWIT)
    return NotificationRow(
        actors=actors,
        count=decode_count(row[NOTIFY_COUNT]) if NOTIFY_COUNT in row else 1,
        twit_id=None if twit is None else twit.decode(),
        text=row.get(NOTIFY_TEXT, b"").decode(errors="replace"),
    )


@dataclass(frozen=True)
class GroupState:
    gen: int  # raised by every change; the notification row's cell timestamp
    top: int  # the ms its notification row is keyed at; 0: none
    latest: tuple[tuple[str, str, int], ...]  # (userid, name, ms), newest first
    # Rows earlier states pointed at that may still be there: (ms, gen).
    was: tuple[tuple[int, int], ...] = ()


def encode_group_state(state: GroupState) -> bytes:
    return json.dumps(
        {
            "gen": state.gen,
            "top": state.top,
            "latest": [list(e) for e in state.latest],
            "was": [list(w) for w in state.was],
        }
    ).encode()


def decode_group_state(cell: bytes | None) -> GroupState:
    if not cell:
        return GroupState(0, 0, ())
    raw = json.loads(cell)
    latest = tuple((str(u), str(n), int(ms)) for u, n, ms in raw["latest"])
    was = tuple((int(ms), int(gen)) for ms, gen in raw.get("was", []))
    return GroupState(int(raw["gen"]), int(raw["top"]), latest, was)


# -- cell kinds, for tools that show any cell (the staff console) ------------------------------

# Cells that hold a userid: what the console learns md5 -> userid from.
USERID_CELLS = frozenset(
    {
        REPOSTER_USERID,
        STREAM_REPOSTED_BY,
        AUTHOR,
        STREAM_USERID,
        REPLY_USERID,
        STREAM_REPLY_USERID,
        REPLIES_USERID,
        EDGE_USERID,
        CELEBRITY_USERID,
        TOKEN_USERID,
        AUDIT_ACTOR,
        PENDING_AUTHOR,
    }
)
# Apply-once cells: a count followed by the ids of the operations applied.
COUNTED_CELLS = frozenset(
    {
        COUNT_TWITS,
        COUNT_FOLLOWERS,
        COUNT_FOLLOWING,
        COUNT_REPLIES,
        COUNT_LIKES,
        COUNT_REPOSTS,
        COUNT_UNREAD,
        GROUP_COUNT,
    }
)
# Plain HBase counters (8 bytes, big-endian).
COUNTER_CELLS = frozenset(
    {FANOUTS, STREAM_ROWS, FAILURES, TASKS, SUSPENSIONS_CHANGED, *RATE_COUNTERS}
)
# Milliseconds since the epoch, as decimal text.
MILLIS_CELLS = frozenset(
    {CREATED, STREAM_CREATED, REPLIES_CREATED, EDGE_CREATED, TOKEN_CREATED, SEEN}
)
# 16-byte operation ids.
OP_CELLS = frozenset({EDGE_OP, EDGE_COUNTED})
# "1" or "0".
FLAG_CELLS = frozenset({STAFF, DISABLED})
# A duration in milliseconds, as decimal text.
DURATION_MS_CELLS = frozenset({LAG_MS})

# Every column above, by table: what tests check against storage/schema.py's
# families. Progress cells are PROGRESS + a chunk number.
COLUMNS: dict[str, tuple[bytes, ...]] = {
    "users": (
        ACCOUNT,
        STAFF,
        DISABLED,
        AUTHGEN,
        COUNT_TWITS,
        COUNT_FOLLOWERS,
        COUNT_FOLLOWING,
        FOLLOWERS_CHANGED,
        FOLLOWING_CHANGED,
        REACTIONS_CHANGED,
    ),
    "followerLists": (FOLLOWER_LIST,),
    "twits": (
        TEXT,
        AUTHOR,
        NAME,
        CREATED,
        FANOUT,
        TWIT_COUNTED,
        PROGRESS,
        REPLY_TO,
        REPLY_USERID,
        COUNT_REPLIES,
        REPLY_COUNTED,
        REPLY_UNCOUNTED,
        COUNT_LIKES,
        COUNT_REPOSTS,
    ),
    "likers": (LIKER_USERID, LIKE_STATE),
    "likes": (LIKE_MARK,),
    "pendingFanouts": (PENDING_AUTHOR, PENDING_JOB, PENDING_LEASE, JOB_PROGRESS),
    "follows": (EDGE_USERID, EDGE_NAME, EDGE_CREATED, EDGE_OP, EDGE_COUNTED),
    "followedBy": (EDGE_USERID, EDGE_NAME, EDGE_CREATED, EDGE_OP),
    "streams": (
        STREAM_TWIT,
        STREAM_REPOST,
        STREAM_USERID,
        STREAM_NAME,
        STREAM_TEXT,
        STREAM_CREATED,
        STREAM_REPLY_TO,
        STREAM_REPLY_USERID,
        STREAM_REPOST_OF,
        STREAM_REPOSTED_BY,
        STREAM_REPOSTED_BY_NAME,
    ),
    "reposters": (REPOSTER_USERID, REPOSTER_NAME, REPOST_STATE),
    # A user's repost (md5(reposter) + rts(repost) + twit key): the twit as a
    # stream row carries it, in the streams' cells ("s" family), so a reader
    # merging a large account's reposts decodes it as a repost's stream row.
    "reposts": (
        STREAM_TWIT,
        STREAM_REPOST,
        STREAM_USERID,
        STREAM_NAME,
        STREAM_TEXT,
        STREAM_CREATED,
        STREAM_REPLY_TO,
        STREAM_REPLY_USERID,
        STREAM_REPOST_OF,
        STREAM_REPOSTED_BY,
        STREAM_REPOSTED_BY_NAME,
    ),
    "replies": (REPLIES_USERID, REPLIES_NAME, REPLIES_TEXT, REPLIES_CREATED),
    "tokens": (TOKEN_USERID, TOKEN_CREATED, TOKEN_GEN, TOKEN_KIND),
    "ratelimits": RATE_COUNTERS,
    "logins": (LOGIN_FAILS,),
    "celebrities": (CELEBRITY_USERID,),
    "suspensions": (SUSPENSIONS_CHANGED,),
    "metrics": (FANOUTS, STREAM_ROWS, FAILURES, LAST_FAILURE, LAG_MS, SEEN, TASKS),
    "audit": (AUDIT_ACTOR, AUDIT_ACTION, AUDIT_TARGET, AUDIT_DETAIL),
    "notifications": (NOTIFY_ACTORS_CELL, NOTIFY_COUNT, NOTIFY_TWIT, NOTIFY_TEXT),
    "notifyGroups": (GROUP_STATE, GROUP_COUNT),
}


# -- a finished like, as the bulk loader writes it ---------------------------------------


# -- hashtags: md5(tag) + rts + md5(author) + suffix ---------------------------------------

HASHTAG_TAG = b"h:tag"  # the normalised tag, so a row names its tag (the key holds its md5)
HASHTAG_USERID = b"h:userid"
HASHTAG_NAME = b"h:name"
HASHTAG_TEXT = b"h:text"
HASHTAG_CREATED = b"h:created"
HASHTAG_REPLY_TO = b"h:reply_to"
HASHTAG_REPLY_USERID = b"h:reply_userid"

# A hashtags row carries the twit as a stream row does: a tag page renders
# from one scan (plus one multi-get of counts, which change).
HASHTAG_CELLS = TwitCells(
    userid=HASHTAG_USERID,
    name=HASHTAG_NAME,
    text=HASHTAG_TEXT,
    created=HASHTAG_CREATED,
    reply_to=HASHTAG_REPLY_TO,
    reply_userid=HASHTAG_REPLY_USERID,
)


def encode_hashtag(tag: str, twit: TwitRow) -> dict[bytes, bytes]:
    return {HASHTAG_TAG: tag.encode(), **HASHTAG_CELLS.encode(twit)}


def decode_hashtag(row: dict[bytes, bytes]) -> TwitRow | None:
    return HASHTAG_CELLS.decode(row)


# -- tagCounts: salt + bucket + tag ----------------------------------------------------------

TAG_USES = b"n:uses"  # an HBase counter: the tag's uses in the bucket


# -- userSearch: value + 0x00 + md5(userid) + kind --------------------------------------------

SEARCH_USERID = b"x:userid"  # the user the row finds, as they spell it


def encode_search(userid: str) -> dict[bytes, bytes]:
    return {SEARCH_USERID: userid.encode()}


def decode_search(row: dict[bytes, bytes]) -> str | None:
    cell = row.get(SEARCH_USERID)
    return None if cell is None else cell.decode()


USERID_CELLS = USERID_CELLS | {HASHTAG_USERID, HASHTAG_REPLY_USERID, SEARCH_USERID}
COUNTER_CELLS = COUNTER_CELLS | {TAG_USES}
MILLIS_CELLS = MILLIS_CELLS | {HASHTAG_CREATED}
COLUMNS["hashtags"] = (
    HASHTAG_TAG,
    HASHTAG_USERID,
    HASHTAG_NAME,
    HASHTAG_TEXT,
    HASHTAG_CREATED,
    HASHTAG_REPLY_TO,
    HASHTAG_REPLY_USERID,
)
COLUMNS["tagCounts"] = (TAG_USES,)
COLUMNS["userSearch"] = (SEARCH_USERID,)
# On a twit row being deleted: its hashtags' uses are out of the trending counters.
TAGS_UNCOUNTED = b"t:tuncounted"
COLUMNS["twits"] = (*COLUMNS["twits"], TAGS_UNCOUNTED)
# -- avatars: md5(userid) (account branch) ------------------------------------------------

AVATAR = b"info:avatar"  # users row: the avatar's version (ms, decimal); absent: none
AVATAR_IMAGE = b"a:image"  # avatars row: the image, WebP
AVATAR_VERSION = b"a:version"  # avatars row: its version (ms, decimal), as info:avatar


def encode_avatar(image: bytes, version: int) -> dict[bytes, bytes]:
    return {AVATAR_IMAGE: image, AVATAR_VERSION: _millis(version)}


def decode_avatar(row: dict[bytes, bytes]) -> tuple[bytes, int] | None:
    """The image and its version; None when there is none."""
    if AVATAR_IMAGE not in row:
        return None
    return row[AVATAR_IMAGE], int(row.get(AVATAR_VERSION, b"0") or 0)


def encode_avatar_version(version: int) -> dict[bytes, bytes]:
    return {AVATAR: _millis(version)}


def decode_avatar_version(row: dict[bytes, bytes]) -> int:
    """The users row's avatar version; 0 when it has none."""
    cell = row.get(AVATAR)
    return int(cell) if cell else 0


COLUMNS["users"] = (*COLUMNS["users"], AVATAR)
COLUMNS["avatars"] = (AVATAR_IMAGE, AVATAR_VERSION)
MILLIS_CELLS = MILLIS_CELLS | {AVATAR, AVATAR_VERSION}
COLUMNS["users"] += (COUNT_UNREAD,)


# -- two-factor sign-in, on the users row (feeds/services/twofactor.py) --------------------
#
# One cell, replaced by checkAndPut against its value as read, so a code used
# twice at once is accepted once. Disabling writes TWO_FACTOR_OFF rather than
# deleting, so every change compares against a value (None only: never set).

TWO_FACTOR = b"info:totp"  # JSON: secret (base32), confirmed, codes (sha256 hex), step
TWO_FACTOR_OFF = b"-"


@dataclass(frozen=True)
class TwoFactorRow:
    secret: str  # base32, as an authenticator app takes it
    confirmed: bool  # False: enrolment begun, not yet confirmed by a first code
    codes: tuple[str, ...]  # sha256 (hex) of each recovery code not yet used
    step: int  # the newest TOTP time step accepted (0: none), never accepted again


def encode_two_factor(state: TwoFactorRow) -> bytes:
    return json.dumps(
        {
            "secret": state.secret,
            "confirmed": state.confirmed,
            "codes": list(state.codes),
            "step": state.step,
        },
        separators=(",", ":"),
    ).encode()


def decode_two_factor(cell: bytes | None) -> TwoFactorRow | None:
    """The two-factor state in a TWO_FACTOR cell; None when absent or off."""
    if not cell or cell == TWO_FACTOR_OFF:
        return None
    raw = json.loads(cell)
    return TwoFactorRow(
        secret=str(raw["secret"]),
        confirmed=bool(raw["confirmed"]),
        codes=tuple(str(c) for c in raw["codes"]),
        step=int(raw["step"]),
    )


COLUMNS["users"] += (TWO_FACTOR,)
COLUMNS["users"] += tuple(SHIELD_MARKS)
COLUMNS["users"] += (PINNED,)


# -- idempotency: md5(userid) + md5(Idempotency-Key) ---------------------------------------

# The key's claim, taken by checkAndPut: the key of the twit it posts (chosen
# before the twit is written, so a retry finishes that twit, not another)
# and the md5 of the request (text, reply_to), so the key cannot post
# something else.
IDEMPOTENCY_CLAIM = b"i:claim"
IDEMPOTENCY_POSTED = b"i:posted"  # "1": the twit was written whole


@dataclass(frozen=True)
class IdempotencyClaim:
    twit_key: bytes
    request: bytes  # md5 of the request
    posted: bool


def encode_idempotency_claim(twit_key: bytes, request: bytes) -> bytes:
    return twit_key + request


def decode_idempotency(row: dict[bytes, bytes]) -> IdempotencyClaim | None:
    """The claim a row holds; None for none (or a cell of another shape)."""
    cell = row.get(IDEMPOTENCY_CLAIM)
    if cell is None or len(cell) != TWIT_KEY_LEN + MD5_LEN:
        return None
    return IdempotencyClaim(
        cell[:TWIT_KEY_LEN], cell[TWIT_KEY_LEN:], row.get(IDEMPOTENCY_POSTED) == b"1"
    )


COLUMNS["idempotency"] = (IDEMPOTENCY_CLAIM, IDEMPOTENCY_POSTED)


# -- reports (feeds/services/reports.py) --------------------------------------------------
#
# A report (subject + md5(reporter)): who, why, and its state
# "round:ms:counted", moved by checkAndPut. A subject's row: what the queue
# shows of it (its state, JSON) and whose it is, with one apply-once count
# of reports per round (REPORT_COUNT + the round). A queue row's key says
# it all; the subject's state names the queue rows that are current.

REPORT_USERID = b"r:userid"  # the reporter
REPORT_REASON = b"r:reason"  # one of feeds.services.reports.REASONS
REPORT_TEXT = b"r:text"  # UTF-8, what the reporter added; absent if nothing
REPORT_STATE = b"r:state"  # "round:ms:counted"
SUBJECT_STATE = b"s:state"
SUBJECT_USERID = b"s:userid"  # the account reported, or the reported twit's author
SUBJECT_TEXT = b"s:text"  # the reported twit's first SUBJECT_SNIPPET characters
SUBJECT_SNIPPET = 100
REPORT_COUNT = b"c:n"  # + the round (decimal): apply-once, the round's reports
QUEUE_MARK = b"q:x"  # the key says it all


def report_count_column(round_: int) -> bytes:
    return REPORT_COUNT + str(round_).encode()


@dataclass(frozen=True)
class ReportRow:
    userid: str
    reason: str
    text: str
    round: int
    ms: int
    counted: bool


def encode_report_state(round_: int, ms: int, counted: bool) -> bytes:
    return f"{round_}:{ms}:{int(counted)}".encode()


def decode_report_state(cell: bytes | None) -> tuple[int, int, bool] | None:
    """(round, ms, counted), or None for no report."""
    if not cell:
        return None
    round_, ms, counted = cell.decode().split(":")
    return int(round_), int(ms), counted == "1"


def encode_report(userid: str, reason: str, text: str) -> dict[bytes, bytes]:
    """A report's cells but its state, which the caller moves by checkAndPut."""
    return {
        REPORT_USERID: userid.encode(),
        REPORT_REASON: reason.encode(),
        REPORT_TEXT: text.encode(),
    }


def decode_report(row: dict[bytes, bytes]) -> ReportRow | None:
    state = decode_report_state(row.get(REPORT_STATE))
    if state is None or REPORT_USERID not in row:
        return None
    return ReportRow(
        userid=row[REPORT_USERID].decode(),
        reason=row.get(REPORT_REASON, b"").decode(),
        text=row.get(REPORT_TEXT, b"").decode(errors="replace"),
        round=state[0],
        ms=state[1],
        counted=state[2],
    )


@dataclass(frozen=True)
class SubjectState:
    """What the queue shows of a subject, and which queue rows are its own."""

    round: int  # raised by each close; reports of earlier rounds are closed
    open: bool
    count: int  # open reports, as last written to the queue
    latest: int  # ms of the latest open report
    reasons: tuple[tuple[str, str, int], ...]  # (reason, text, ms), newest first
    queued: tuple[bytes, ...]  # the subject's current queue rows


SUBJECT_REASONS = 3


def encode_subject_state(state: SubjectState) -> bytes:
    return json.dumps(
        {
            "round": state.round,
            "open": state.open,
            "count": state.count,
            "latest": state.latest,
            "reasons": [list(r) for r in state.reasons],
            "queued": [k.hex() for k in state.queued],
        }
    ).encode()


def decode_subject_state(cell: bytes | None) -> SubjectState:
    if not cell:
        return SubjectState(0, False, 0, 0, (), ())
    raw = json.loads(cell)
    return SubjectState(
        round=int(raw["round"]),
        open=bool(raw["open"]),
        count=int(raw["count"]),
        latest=int(raw["latest"]),
        reasons=tuple((str(r), str(t), int(ms)) for r, t, ms in raw["reasons"]),
        queued=tuple(bytes.fromhex(k) for k in raw["queued"]),
    )


def encode_subject(userid: str, text: str | None) -> dict[bytes, bytes]:
    cells = {SUBJECT_USERID: userid.encode()}
    if text is not None:
        cells[SUBJECT_TEXT] = text[:SUBJECT_SNIPPET].encode()
    return cells


COLUMNS["reportsBySubject"] = (REPORT_USERID, REPORT_REASON, REPORT_TEXT, REPORT_STATE)
COLUMNS["reportSubjects"] = (SUBJECT_STATE, SUBJECT_USERID, SUBJECT_TEXT, REPORT_COUNT)
COLUMNS["reportQueue"] = (QUEUE_MARK,)
USERID_CELLS = USERID_CELLS | {REPORT_USERID, SUBJECT_USERID}


# -- blocks and mutes (feeds/services/blocks.py) -------------------------------------------
#
# A blocks, blockedBy or mutes row names the other end and when; a
# mutedWords row holds the word as the user wrote it.

BLOCK_USERID = b"b:userid"  # the other end: the blocked (blocks), the blocker (blockedBy)
BLOCK_CREATED = b"b:created"  # ms
MUTE_USERID = b"m:userid"  # the muted account
MUTE_CREATED = b"m:created"
MUTED_WORD = b"w:word"  # UTF-8, as written (a hashtag keeps its #)
MUTED_WORD_CREATED = b"w:created"


def encode_pair(
    userid_cell: bytes, created_cell: bytes, userid: str, ms: int
) -> dict[bytes, bytes]:
    return {userid_cell: userid.encode(), created_cell: _millis(ms)}


def encode_muted_word(word: str, ms: int) -> dict[bytes, bytes]:
    return {MUTED_WORD: word.encode(), MUTED_WORD_CREATED: _millis(ms)}


COLUMNS["blocks"] = (BLOCK_USERID, BLOCK_CREATED)
COLUMNS["blockedBy"] = (BLOCK_USERID, BLOCK_CREATED)
COLUMNS["mutes"] = (MUTE_USERID, MUTE_CREATED)
COLUMNS["mutedWords"] = (MUTED_WORD, MUTED_WORD_CREATED)
USERID_CELLS = USERID_CELLS | {BLOCK_USERID, MUTE_USERID}
MILLIS_CELLS = MILLIS_CELLS | {BLOCK_CREATED, MUTE_CREATED, MUTED_WORD_CREATED}


# -- the words index: md5(word) + rts + md5(author) + suffix ------------------------------
#
# The key says it all; the twit itself is read from its row (the truth: a
# deleted twit's rows may linger a moment, and are skipped).

WORD_MARK = b"w:x"
COLUMNS["twitWords"] = (WORD_MARK,)


# -- bookmarks (feeds/services/reactions.py: the BOOKMARK kind) ---------------------------
#
# A like's cells in a family of their own: the pair's state and who, and a
# mark in the user's own row.

BOOKMARKER_USERID = b"b:userid"
BOOKMARKER_NAME = b"b:name"
BOOKMARK_STATE = b"b:state"
BOOKMARK_MARK = b"b:x"
COLUMNS["bookmarkers"] = (BOOKMARKER_USERID, BOOKMARKER_NAME, BOOKMARK_STATE)
COLUMNS["bookmarks"] = (BOOKMARK_MARK,)
USERID_CELLS = USERID_CELLS | {BOOKMARKER_USERID}


# -- media: md5(uploader) + reversed ms + suffix (feeds/services/media.py) ------------------

MEDIA_OWNER = b"i:owner"  # the uploader's userid
MEDIA_ALT = b"i:alt"  # the alt text, UTF-8
MEDIA_WIDTH = b"i:width"
MEDIA_HEIGHT = b"i:height"
MEDIA_TWIT = b"i:twit"  # the twit it is attached to (an id); absent: not attached yet
MEDIA_IMAGE = b"m:image"  # the image as served (WebP), in the MOB family
TWIT_IMAGES = TWIT_CELLS.images or b""  # a twits row's images: ImageRefs, JSON


@dataclass(frozen=True)
class ImageRef:
    """An image as a twit shows it: its media id, alt text and size (px)."""

    id: str
    alt: str
    width: int
    height: int


@dataclass(frozen=True)
class MediaRow:
    """A media row's "i" family: who uploaded it, as what, where it is used."""

    owner: str
    alt: str
    width: int
    height: int
    twit: str | None  # the twit id it is attached to; None while unattached


def encode_images(images: tuple[ImageRef, ...]) -> bytes:
    return _PACK([[i.id, i.alt, i.width, i.height] for i in images]).encode()


def decode_images(cell: bytes | None) -> tuple[ImageRef, ...]:
    """The images a twits row lists; () for none (a cell never written)."""
    if not cell:
        return ()
    return tuple(ImageRef(str(i), str(a), int(w), int(h)) for i, a, w, h in orjson.loads(cell))


def encode_media(owner: str, alt: str, width: int, height: int, image: bytes) -> dict[bytes, bytes]:
    return {
        MEDIA_OWNER: owner.encode(),
        MEDIA_ALT: alt.encode(),
        MEDIA_WIDTH: b"%d" % width,
        MEDIA_HEIGHT: b"%d" % height,
        MEDIA_IMAGE: image,
    }


def decode_media(row: dict[bytes, bytes]) -> MediaRow | None:
    """The "i" cells of a media row; None for no row."""
    if MEDIA_OWNER not in row:
        return None
    twit = row.get(MEDIA_TWIT)
    return MediaRow(
        row[MEDIA_OWNER].decode(),
        row.get(MEDIA_ALT, b"").decode(),
        int(row.get(MEDIA_WIDTH, b"0")),
        int(row.get(MEDIA_HEIGHT, b"0")),
        twit.decode() if twit else None,
    )


COLUMNS["media"] = (MEDIA_OWNER, MEDIA_ALT, MEDIA_WIDTH, MEDIA_HEIGHT, MEDIA_TWIT, MEDIA_IMAGE)
COLUMNS["twits"] = (*COLUMNS["twits"], TWIT_IMAGES)
USERID_CELLS = USERID_CELLS | {MEDIA_OWNER}


# -- direct messages (feeds/services/messages.py) -----------------------------------------
#
# A message: who sent it and its text (its time is in the key). An inbox row:
# the other participant and the latest message's sender and start, what the
# inbox shows without opening the conversation. A state row: where the inbox
# row is (JSON, moved by checkAndPut) and the unread count (an HBase counter,
# counter_inc); the total row holds only the counter.

MESSAGE_FROM = b"m:from"
MESSAGE_TEXT = b"m:text"
INBOX_USERID = b"i:userid"
INBOX_FROM = b"i:from"
INBOX_TEXT = b"i:text"
INBOX_PLACE = b"s:place"
INBOX_UNREAD = b"s:unread"
INBOX_SNIPPET = 100  # characters of the latest message an inbox row keeps


@dataclass(frozen=True)
class MessageRow:
    sender: str
    text: str


def encode_message(row: MessageRow) -> dict[bytes, bytes]:
    return {MESSAGE_FROM: row.sender.encode(), MESSAGE_TEXT: row.text.encode()}


def decode_message(data: dict[bytes, bytes]) -> MessageRow | None:
    if MESSAGE_FROM not in data:
        return None
    return MessageRow(data[MESSAGE_FROM].decode(), data.get(MESSAGE_TEXT, b"").decode())


@dataclass(frozen=True)
class InboxRow:
    other: str
    sender: str
    text: str


def encode_inbox(row: InboxRow) -> dict[bytes, bytes]:
    return {
        INBOX_USERID: row.other.encode(),
        INBOX_FROM: row.sender.encode(),
        INBOX_TEXT: row.text[:INBOX_SNIPPET].encode(),
    }


def decode_inbox(data: dict[bytes, bytes]) -> InboxRow | None:
    if INBOX_USERID not in data:
        return None
    return InboxRow(
        data[INBOX_USERID].decode(),
        data.get(INBOX_FROM, b"").decode(),
        data.get(INBOX_TEXT, b"").decode(),
    )


@dataclass(frozen=True)
class InboxPlace:
    """Where an inbox row is: ``top`` (ms of its latest message; 0: none),
    the one before it (a row a crashed mover may have left), and the
    generation that wrote it, the cell timestamp of its put and deletes."""

    top: int = 0
    was: int = 0
    gen: int = 0


def encode_inbox_place(place: InboxPlace) -> bytes:
    return orjson.dumps([place.top, place.was, place.gen])


def decode_inbox_place(cell: bytes | None) -> InboxPlace:
    if not cell:
        return InboxPlace()
    top, was, gen = orjson.loads(cell)
    return InboxPlace(int(top), int(was), int(gen))


def encode_message_claim(millis: int, suffix: bytes, request: bytes) -> bytes:
    """An Idempotency-Key's claim for a message (idempotency's family): the
    message's time and suffix, then the md5 of the request; 28 bytes, never
    the 44 of a twit's claim."""
    return struct.pack(">q", millis) + suffix + request


def decode_message_claim(cell: bytes | None) -> tuple[int, bytes, bytes] | None:
    if cell is None or len(cell) != 8 + 4 + MD5_LEN:
        return None
    return struct.unpack(">q", cell[:8])[0], cell[8:12], cell[12:]


COLUMNS["messages"] = (MESSAGE_FROM, MESSAGE_TEXT)
COLUMNS["inbox"] = (INBOX_USERID, INBOX_FROM, INBOX_TEXT)
COLUMNS["inboxState"] = (INBOX_PLACE, INBOX_UNREAD)
USERID_CELLS = USERID_CELLS | {MESSAGE_FROM, INBOX_USERID, INBOX_FROM}
COUNTER_CELLS = COUNTER_CELLS | {INBOX_UNREAD}
# -- lists of accounts (feeds/services/lists.py) -------------------------------------------
#
# A userLists row is the list (its owner, name, description, time) and its
# member count, an apply-once cell as a user's follow counts are; a
# listMembers row names the member and the operation that added them
# (LIST_MEMBER_OP), and says once that addition is counted (LIST_MEMBER_COUNTED).

LIST_OWNER = b"l:owner"
LIST_NAME = b"l:name"
LIST_DESCRIPTION = b"l:description"
LIST_CREATED = b"l:created"
LIST_MEMBERS = b"c:members"
LIST_MEMBER_USERID = b"m:userid"
LIST_MEMBER_NAME = b"m:name"
LIST_MEMBER_LIST = b"m:list"  # the list's key: a deleted account finds the lists it leaves
LIST_MEMBER_OP = b"m:op"
LIST_MEMBER_COUNTED = b"m:counted"


@dataclass(frozen=True)
class ListRow:
    owner: str
    name: str
    description: str
    created: int  # ms
    members: int


def encode_list(owner: str, name: str, description: str, created: int) -> dict[bytes, bytes]:
    return {
        LIST_OWNER: owner.encode(),
        LIST_NAME: name.encode(),
        LIST_DESCRIPTION: description.encode(),
        LIST_CREATED: _millis(created),
    }


def decode_list(row: dict[bytes, bytes]) -> ListRow | None:
    """The list a userLists row holds; None for a row without one (a count
    written after the list's delete)."""
    if LIST_OWNER not in row or LIST_NAME not in row:
        return None
    return ListRow(
        row[LIST_OWNER].decode(),
        row[LIST_NAME].decode(),
        row.get(LIST_DESCRIPTION, b"").decode(),
        int(row.get(LIST_CREATED, b"0") or 0),
        decode_counted(row.get(LIST_MEMBERS)).count,
    )


def encode_list_member(list_key: bytes, userid: str, name: str) -> dict[bytes, bytes]:
    return {
        LIST_MEMBER_LIST: list_key,
        LIST_MEMBER_USERID: userid.encode(),
        LIST_MEMBER_NAME: name.encode(),
    }


COLUMNS["userLists"] = (LIST_OWNER, LIST_NAME, LIST_DESCRIPTION, LIST_CREATED, LIST_MEMBERS)
COLUMNS["listMembers"] = (
    LIST_MEMBER_USERID,
    LIST_MEMBER_NAME,
    LIST_MEMBER_LIST,
    LIST_MEMBER_OP,
    LIST_MEMBER_COUNTED,
)
USERID_CELLS = USERID_CELLS | {LIST_OWNER, LIST_MEMBER_USERID}
MILLIS_CELLS = MILLIS_CELLS | {LIST_CREATED}
COUNTED_CELLS = COUNTED_CELLS | {LIST_MEMBERS}
OP_CELLS = OP_CELLS | {LIST_MEMBER_OP, LIST_MEMBER_COUNTED}
# -- edits of a twit's text (feeds/services/twits.py: edit_twit, history) ------------------
#
# An edit is decided by one compare-and-set of t:edit, the twit's current
# edit as JSON ({"n", "ts", "text", "prev"}): the n-th edit, its time, its
# text and the text it replaced. It sits in the "t" family, so every read of
# a twit row gets it for nothing and shows the current text (decode_twit).
# The texts themselves are kept as versions of h:text, one per edit at the
# edit's time and the original at the twit's: the history is one get with
# max_versions. t:text follows the edit at the edit's time.

EDIT = b"t:edit"
HISTORY_FAMILY = b"h"
HISTORY_TEXT = b"h:text"
COLUMNS["twits"] = (*COLUMNS["twits"], EDIT, HISTORY_TEXT)


@dataclass(frozen=True)
class Edit:
    """The twit's latest edit, as t:edit holds it."""

    n: int  # the how-manieth edit (1: the first)
    ts: int  # ms: the edit's time, the timestamp of its cells
    text: str  # the text it set
    prev: str  # the text it replaced


def encode_edit(edit: Edit) -> bytes:
    return json.dumps(
        {"n": edit.n, "ts": edit.ts, "text": edit.text, "prev": edit.prev},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()


def decode_edit(row: dict[bytes, bytes]) -> Edit | None:
    """The row's latest edit; None for a twit never edited."""
    cell = row.get(EDIT)
    if not cell:
        return None
    d = json.loads(cell)
    return Edit(int(d["n"]), int(d["ts"]), str(d["text"]), str(d["prev"]))


# -- quotes: quoted twit's key + rts + quoting twit's key (feeds/services/twits.py) -------
#
# The quoting twit's row names what it quotes (t:quote_of, TWIT_CELLS); the
# quoted twit's row counts its quotes as it counts replies: an apply-once
# cell, and marks on the quoting row (at its own time) once the count holds
# it, and once it no longer does. A quotes row carries the quoting twit as
# a replies row does.

QUOTE_OF = b"t:quote_of"
QUOTE_USERID = b"t:quote_userid"
COUNT_QUOTES = b"t:quotes"
QUOTE_COUNTED = b"t:qcounted"
QUOTE_UNCOUNTED = b"t:quncounted"
COLUMNS["twits"] = (
    *COLUMNS["twits"],
    QUOTE_OF,
    QUOTE_USERID,
    COUNT_QUOTES,
    QUOTE_COUNTED,
    QUOTE_UNCOUNTED,
)

QUOTES_USERID = b"q:userid"
QUOTES_NAME = b"q:name"
QUOTES_TEXT = b"q:text"
QUOTES_CREATED = b"q:created"
QUOTE_CELLS = TwitCells(
    userid=QUOTES_USERID, name=QUOTES_NAME, text=QUOTES_TEXT, created=QUOTES_CREATED
)
COLUMNS["quotes"] = (QUOTES_USERID, QUOTES_NAME, QUOTES_TEXT, QUOTES_CREATED)
USERID_CELLS = USERID_CELLS | {QUOTES_USERID, QUOTE_USERID}
MILLIS_CELLS = MILLIS_CELLS | {QUOTES_CREATED}


def encode_quote(twit: TwitRow) -> dict[bytes, bytes]:
    return QUOTE_CELLS.encode(twit)


def decode_quote(row: dict[bytes, bytes], **known: str) -> TwitRow | None:
    """The quoting twit in a quotes row; ``known``: the ``quote_of`` and
    ``quote_userid`` it quotes, which the row does not keep (TwitCells.decode)."""
    return QUOTE_CELLS.decode(row, **known)
