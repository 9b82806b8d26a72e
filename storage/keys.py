"""Every TwitBase row key, built by pure functions. Nothing else builds a key.

Layouts (``+`` is concatenation, all parts fixed width)::

    users       md5(userid)                                   16 bytes
    follows     md5(follower) + md5(followed)                 32 bytes
    followedBy  md5(followed) + md5(follower)                 32 bytes
    twits       md5(author) + rts + suffix                    28 bytes
    pendingFanouts  the twit's key                            28 bytes
    streams     md5(reader) + rts + md5(author) + suffix      44 bytes
    replies     parent's twit key + ms + md5(author) + suffix 56 bytes
    audit       rts + suffix                                  12 bytes
    logins      md5(userid, or "addr "/"device "/"session " + id) + window  24 bytes
    notifications  md5(recipient) + rts + kind + subject      53 bytes
    notifyGroups   twit key + kind                            29 bytes
    idempotency    md5(userid) + md5(Idempotency-Key)         32 bytes

``md5(userid)`` hashes the lower-cased userid: userids are unique without
regard to case, and hashing spreads users evenly over the key space instead
of piling every "a..." user into one region (a hotspot: one region server
taking all the writes of a busy key range).

``rts`` is the reversed timestamp, ``Long.MAX_VALUE - millis`` as 8 bytes
big-endian, so that a prefix scan over one user returns the newest first.
``suffix`` is 4 bytes that keep two twits of one user in one millisecond
apart. A stream row embeds the twit's own key parts, so the stream rows of a
twit can be computed (and deleted) without reading anything.

A replies row is the reply's key parts under its parent's key, with the time
forward (``ms``, milliseconds big-endian) instead of reversed: a thread is
read oldest first, so one prefix scan of the parent's key pages its replies
in the order people read them. The reply's key can be computed from it, and
its replies row from the reply's key and its parent's: a delete reads nothing
to find the row.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import os
import re
import struct
from dataclasses import dataclass

MD5_LEN = 16
RTS_LEN = 8
SUFFIX_LEN = 4
LONG_MAX = (1 << 63) - 1

USER_KEY_LEN = MD5_LEN
EDGE_KEY_LEN = 2 * MD5_LEN
TWIT_KEY_LEN = MD5_LEN + RTS_LEN + SUFFIX_LEN
STREAM_KEY_LEN = MD5_LEN + TWIT_KEY_LEN
REPLY_KEY_LEN = 2 * TWIT_KEY_LEN
AUDIT_KEY_LEN = RTS_LEN + SUFFIX_LEN

_RTS = struct.Struct(">q")


class BadKey(ValueError):
    """A key or cursor that is not of the expected shape."""


@functools.lru_cache(maxsize=8192)
def user_hash(userid: str) -> bytes:
    """md5 of the case-folded userid: 16 bytes. Held for the last 8,192
    userids (about 2 MB): a home page of 20 asks it some 75 times, for its
    authors' rows and the reader's reaction rows, and the cached answer
    costs a tenth of the hash."""
    return hashlib.md5(userid.lower().encode("utf-8")).digest()


def user_key(userid: str) -> bytes:
    return user_hash(userid)


def follows_key(follower: str, followed: str) -> bytes:
    return user_hash(follower) + user_hash(followed)


def followed_by_key(followed: str, follower: str) -> bytes:
    return user_hash(followed) + user_hash(follower)


def reverse_ts(millis: int) -> bytes:
    """Long.MAX - millis, big-endian: later times sort first."""
    if not 0 <= millis <= LONG_MAX:
        raise BadKey(f"timestamp out of range: {millis}")
    return _RTS.pack(LONG_MAX - millis)


def millis_from_rts(rts: bytes) -> int:
    if len(rts) != RTS_LEN:
        raise BadKey(f"reversed timestamp must be {RTS_LEN} bytes, got {len(rts)}")
    (reversed_millis,) = _RTS.unpack(rts)
    millis: int = LONG_MAX - reversed_millis
    return millis


def new_suffix() -> bytes:
    return os.urandom(SUFFIX_LEN)


def twit_key(author: str, millis: int, suffix: bytes) -> bytes:
    if len(suffix) != SUFFIX_LEN:
        raise BadKey(f"suffix must be {SUFFIX_LEN} bytes, got {len(suffix)}")
    return user_hash(author) + reverse_ts(millis) + suffix


@dataclass(frozen=True)
class TwitKeyParts:
    author_hash: bytes
    millis: int
    suffix: bytes


def split_twit_key(key: bytes) -> TwitKeyParts:
    if len(key) != TWIT_KEY_LEN:
        raise BadKey(f"twit key must be {TWIT_KEY_LEN} bytes, got {len(key)}")
    return TwitKeyParts(
        key[:MD5_LEN],
        millis_from_rts(key[MD5_LEN : MD5_LEN + RTS_LEN]),
        key[MD5_LEN + RTS_LEN :],
    )


def stream_key(reader: str, twit: bytes) -> bytes:
    """The row of ``twit`` in ``reader``'s stream: newest first, like the twits."""
    return stream_key_for_hash(user_hash(reader), twit)


def stream_key_for_hash(reader_hash: bytes, twit: bytes) -> bytes:
    """:func:`stream_key` from the reader's md5, as a followedBy key carries it."""
    if len(reader_hash) != MD5_LEN:
        raise BadKey(f"reader hash must be {MD5_LEN} bytes, got {len(reader_hash)}")
    return reader_hash + stream_key_tail(twit)


def stream_key_tail(twit: bytes) -> bytes:
    """What follows the reader's md5 in every stream key of ``twit``: a
    fan-out computes it once and appends it to each follower's md5."""
    parts = split_twit_key(twit)
    return twit[MD5_LEN : MD5_LEN + RTS_LEN] + parts.author_hash + parts.suffix


def twit_key_from_stream_key(key: bytes) -> bytes:
    if len(key) != STREAM_KEY_LEN:
        raise BadKey(f"stream key must be {STREAM_KEY_LEN} bytes, got {len(key)}")
    rts = key[MD5_LEN : MD5_LEN + RTS_LEN]
    author = key[MD5_LEN + RTS_LEN : MD5_LEN + RTS_LEN + MD5_LEN]
    return author + rts + key[-SUFFIX_LEN:]


def stream_twit_id(key: bytes) -> str:
    """``twit_id(twit_key_from_stream_key(key))`` in one step, in a third of
    the time: a page of a stream makes one per row."""
    if len(key) != STREAM_KEY_LEN:
        raise BadKey(f"stream key must be {STREAM_KEY_LEN} bytes, got {len(key)}")
    return (key[_STREAM_AUTHOR] + key[_STREAM_RTS] + key[_STREAM_SUFFIX]).hex()


_STREAM_RTS = slice(MD5_LEN, MD5_LEN + RTS_LEN)
_STREAM_AUTHOR = slice(MD5_LEN + RTS_LEN, MD5_LEN + RTS_LEN + MD5_LEN)
_STREAM_SUFFIX = slice(STREAM_KEY_LEN - SUFFIX_LEN, STREAM_KEY_LEN)


def reply_key(parent: bytes, reply: bytes) -> bytes:
    """The row of ``reply`` among ``parent``'s replies: oldest first under the
    parent's key (forward time, then the reply's author and suffix)."""
    split_twit_key(parent)
    parts = split_twit_key(reply)
    return parent + parts.millis.to_bytes(RTS_LEN, "big") + parts.author_hash + parts.suffix


def liker_key(twit: bytes, liker: str) -> bytes:
    """A twit's liker: under the twit's key, so one multi-get answers a page."""
    return twit + user_hash(liker)


def like_key(liker: str, millis: int, twit: bytes) -> bytes:
    """A user's like: newest first under their hash."""
    return user_hash(liker) + reverse_ts(millis) + twit


def twit_key_from_like_key(key: bytes) -> bytes:
    return key[MD5_LEN + RTS_LEN :]


# Bookmarks: a like's two keys, in tables of their own (private: no count, no
# notification), so "which of these did I bookmark?" is one multi-get and a
# user's bookmarks one prefix scan, newest first.
bookmarker_key = liker_key
bookmark_key = like_key
twit_key_from_bookmark_key = twit_key_from_like_key


# -- reposts --------------------------------------------------------------------------


def reposter_key(twit: bytes, reposter: str) -> bytes:
    """A twit's reposter: under the twit's key, so one multi-get answers
    "did I repost these?" for a page, and one prefix scan finds a deleted
    twit's reposts."""
    return twit + user_hash(reposter)


def repost_key(reposter: str, millis: int, twit: bytes) -> bytes:
    """A user's repost: newest first under their hash (what readers merge for
    a large account, whose reposts are not fanned out)."""
    return user_hash(reposter) + reverse_ts(millis) + twit


def twit_key_from_repost_key(key: bytes) -> bytes:
    return key[MD5_LEN + RTS_LEN :]


def repost_stream_key(reader: str, millis: int, reposter: str, twit: bytes) -> bytes:
    """The row of a repost in ``reader``'s stream: at the repost's time, so it
    sorts as new, with the reposter where a twit's row has its author (an
    unfollow of the reposter finds it so), and 4 bytes of md5(twit) where a
    twit's row has its suffix. As wide as a twit's stream row, so one cursor
    pages both; the row names the twit it shows in a cell."""
    return repost_stream_key_for_hash(user_hash(reader), millis, reposter, twit)


def repost_stream_key_for_hash(
    reader_hash: bytes, millis: int, reposter: str, twit: bytes
) -> bytes:
    return reader_hash + repost_stream_key_tail(millis, reposter, twit)


def repost_stream_key_tail(millis: int, reposter: str, twit: bytes) -> bytes:
    """What follows the reader's md5 in every stream key of a repost, as
    :func:`stream_key_tail` for a twit: a fan-out computes it once."""
    return reverse_ts(millis) + user_hash(reposter) + repost_tag(twit)


def repost_tag(twit: bytes) -> bytes:
    """The last bytes of every stream row that shows a repost of ``twit``."""
    return hashlib.md5(twit).digest()[:SUFFIX_LEN]


def twit_key_from_reply_key(key: bytes) -> bytes:
    """The reply's own twit key, from its row in the replies table."""
    if len(key) != REPLY_KEY_LEN:
        raise BadKey(f"reply key must be {REPLY_KEY_LEN} bytes, got {len(key)}")
    at = TWIT_KEY_LEN
    millis = int.from_bytes(key[at : at + RTS_LEN], "big")
    author = key[at + RTS_LEN : at + RTS_LEN + MD5_LEN]
    return author + reverse_ts(millis) + key[-SUFFIX_LEN:]


# -- notifications -------------------------------------------------------------------

# What a notification is about: one byte in its key, so the key of a retried
# write is the same key.
NOTIFY_MENTION = b"m"
NOTIFY_REPLY = b"r"
NOTIFY_LIKE = b"l"
NOTIFY_REPOST = b"p"
NOTIFY_FOLLOW = b"f"
NOTIFY_QUOTE = b"q"  # a quote, to the quoted twit's author (subject: the quote)
NOTIFY_KINDS = (
    NOTIFY_MENTION,
    NOTIFY_REPLY,
    NOTIFY_LIKE,
    NOTIFY_REPOST,
    NOTIFY_FOLLOW,
    NOTIFY_QUOTE,
)
NOTIFY_KEY_LEN = MD5_LEN + RTS_LEN + 1 + TWIT_KEY_LEN
NOTIFY_GROUP_KEY_LEN = TWIT_KEY_LEN + 1


def notification_key(recipient_hash: bytes, millis: int, kind: bytes, subject: bytes) -> bytes:
    """A notification: newest first under md5(recipient), then what it is
    (``kind``) and what caused it (``subject``, 28 bytes: the twit that
    mentions or replies, the liked or reposted twit, or for a follow
    md5(follower), rts and 4 zero bytes). Deterministic: a retry writes this row again."""
    if len(recipient_hash) != MD5_LEN:
        raise BadKey(f"recipient hash must be {MD5_LEN} bytes, got {len(recipient_hash)}")
    if kind not in NOTIFY_KINDS:
        raise BadKey(f"not a notification kind: {kind!r}")
    if len(subject) != TWIT_KEY_LEN:
        raise BadKey(f"subject must be {TWIT_KEY_LEN} bytes, got {len(subject)}")
    return recipient_hash + reverse_ts(millis) + kind + subject


def follow_subject(follower: str, millis: int) -> bytes:
    """The subject of a follow notification, shaped as a twit key: who
    follows, the follow's time, and 4 zero bytes."""
    return user_hash(follower) + reverse_ts(millis) + bytes(SUFFIX_LEN)


def split_notification_key(key: bytes) -> tuple[int, bytes, bytes]:
    """(millis, kind, subject) of a notification key."""
    if len(key) != NOTIFY_KEY_LEN:
        raise BadKey(f"notification key must be {NOTIFY_KEY_LEN} bytes, got {len(key)}")
    at = MD5_LEN + RTS_LEN
    return millis_from_rts(key[MD5_LEN:at]), key[at : at + 1], key[at + 1 :]


def notify_group_key(twit: bytes, kind: bytes) -> bytes:
    """The like (or repost) group of a twit: its key, then the kind. The
    recipient is the twit's author, whose hash the twit key starts with."""
    split_twit_key(twit)
    if kind not in (NOTIFY_LIKE, NOTIFY_REPOST):
        raise BadKey(f"not a grouped kind: {kind!r}")
    return twit + kind


def pending_fanout_key(twit: bytes) -> bytes:
    """A twit's entry in the index of pending fan-outs: the twit's own key, so
    entries spread over the key space as twits do, and an entry names its twit."""
    split_twit_key(twit)
    return twit


def twit_key_from_pending_key(key: bytes) -> bytes:
    split_twit_key(key)
    return key


PENDING_JOB_KEY_LEN = TWIT_KEY_LEN + MD5_LEN


def pending_job_key(twit: bytes, job: bytes) -> bytes:
    """A repost's or a removal's fan-out (a stream job) in the index of
    pending fan-outs: its twit's key, then the md5 of what the job does
    (feeds.services.pending.job_key), so the entry sits beside its twit's,
    one job has one entry, and an account's deletion drops both by prefix."""
    split_twit_key(twit)
    if len(job) != MD5_LEN:
        raise BadKey(f"a job's digest must be {MD5_LEN} bytes, got {len(job)}")
    return twit + job


def is_pending_job_key(key: bytes) -> bool:
    """Whether an entry of the pending index is a stream job's (else a twit's)."""
    return len(key) == PENDING_JOB_KEY_LEN


def audit_key(millis: int, suffix: bytes) -> bytes:
    """An entry of the staff console's audit log: newest first.

    The one key in TwitBase that starts with time, on purpose: the log takes
    a few writes a minute, far too few to make a hot region, and its one read
    is "the latest entries, whoever made them", a scan from the table's start.
    """
    if len(suffix) != SUFFIX_LEN:
        raise BadKey(f"suffix must be {SUFFIX_LEN} bytes, got {len(suffix)}")
    return reverse_ts(millis) + suffix


def token_key(token: str) -> bytes:
    """An API token's row: its SHA-256, so the table never holds a usable token."""
    return hashlib.sha256(token.encode("utf-8", "replace")).digest()


def rate_window_key(userid: str, window: int) -> bytes:
    """A user's counter for one rate-limit window (e.g. the minute number)."""
    return user_hash(userid) + window.to_bytes(8, "big")


def login_account_key(userid: str, window_minute: int) -> bytes:
    """An account's failed log-ins in the window starting at ``window_minute``
    (minutes since the epoch); the userid need not exist."""
    return user_hash(userid) + window_minute.to_bytes(8, "big")


def login_address_key(address: str, window_minute: int) -> bytes:
    """A client address's failed log-ins in one window. The md5 is of
    "addr " + address: a space no userid has, so it is never a user's hash."""
    digest = hashlib.md5(("addr " + address).encode("utf-8", "replace")).digest()
    return digest + window_minute.to_bytes(8, "big")


def idempotency_key(userid: str, key: str) -> bytes:
    """The row of ``userid``'s Idempotency-Key ``key`` (any text the client
    chose): md5(userid) first, so an account's keys are one prefix; the
    client's key hashed, so every row is 32 bytes whatever it sent."""
    return user_hash(userid) + hashlib.md5(key.encode("utf-8", "replace")).digest()


def login_device_key(nonce: str, window_minute: int) -> bytes:
    """A device token's failed log-ins in one window: md5 of "device " + its
    nonce (a space no userid has), so it names no user."""
    digest = hashlib.md5(("device " + nonce).encode("utf-8", "replace")).digest()
    return digest + window_minute.to_bytes(8, "big")


def login_session_key(credential: str, window_minute: int) -> bytes:
    """A session's (or API token's) wrong passwords in one window, when it
    changes the password or deletes the account: md5 of "session " + its id."""
    digest = hashlib.md5(("session " + credential).encode("utf-8", "replace")).digest()
    return digest + window_minute.to_bytes(8, "big")


METRICS_TOTALS = b"totals"
METRICS_LAG = b"lag:"
METRICS_WORKER = b"worker:"
# One row: every table's row count and key spread, as the background job
# (services/tablestats.py) last measured them; a column per table.
METRICS_TABLES = b"tables"


def metrics_lag_key(millis: int, suffix: bytes) -> bytes:
    """One fan-out's lag, newest first under the ``lag:`` prefix."""
    return METRICS_LAG + reverse_ts(millis) + suffix


def metrics_worker_key(name: str) -> bytes:
    """A worker process's heartbeat row (``host:pid``)."""
    return METRICS_WORKER + name.encode()


# -- ranges ----------------------------------------------------------------------


def prefix_stop(prefix: bytes) -> bytes | None:
    """The least key greater than every key that starts with ``prefix``.

    This is the true prefix successor: trailing 0xFF bytes are dropped before
    the last byte is incremented (b"a\\xff" -> b"b"). The original TwitBase
    added one to the last byte, which for 0xFF wrapped and lost rows.
    None means no upper bound (a prefix of only 0xFF bytes, or empty).
    """
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes([stripped[-1] + 1])


def after(key: bytes) -> bytes:
    """The least key greater than ``key``: where the next page starts."""
    return key + b"\x00"


# -- public ids and cursors --------------------------------------------------------


def twit_id(key: bytes) -> str:
    """The public id of a twit: its row key in lower-case hex (56 characters)."""
    if len(key) != TWIT_KEY_LEN:
        raise BadKey(f"twit key must be {TWIT_KEY_LEN} bytes, got {len(key)}")
    return key.hex()


_TWIT_ID = re.compile(f"[0-9a-f]{{{2 * TWIT_KEY_LEN}}}")


def twit_key_from_id(tid: str) -> bytes:
    """The row key of a twit id; only the exact form twit_id() gives is accepted."""
    if not isinstance(tid, str):
        raise BadKey(f"not a twit id: {tid!r}")
    return _twit_key(tid)


@functools.lru_cache(maxsize=4096)
def _twit_key(tid: str) -> bytes:
    """Held for the last 4,096 ids (about 1 MB): a home page of 20 asks it
    some 60 times, for its counts and the reader's like and repost rows."""
    if not _TWIT_ID.fullmatch(tid):
        raise BadKey(f"not a twit id: {tid!r}")
    return bytes.fromhex(tid)


# The longest cursor accepted: base64 of a 192-byte key, four times the
# longest key a list pages (a stream row, 44 bytes). A longer one is refused
# before it is decoded.
MAX_CURSOR_LEN = 256


def encode_cursor(last_key: bytes) -> str:
    """An opaque cursor naming the last row of a page (URL-safe, no padding)."""
    return base64.urlsafe_b64encode(last_key).rstrip(b"=").decode("ascii")


def decode_cursor(cursor: str, prefix: bytes, key_len: int | None) -> bytes:
    """The last row key a cursor names; it must lie in the list it pages
    (start with ``prefix``, and be ``key_len`` long unless that is None)."""
    if len(cursor) > MAX_CURSOR_LEN:
        raise BadKey(f"cursor longer than {MAX_CURSOR_LEN} characters")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        raise BadKey("malformed cursor") from None
    if not raw or (key_len is not None and len(raw) != key_len) or not raw.startswith(prefix):
        raise BadKey("cursor does not belong to this list")
    return raw


# -- layouts, for tools that show keys (the staff console) ---------------------------

# Each table's key as its parts, in order: (name, kind, width). Kinds: "md5"
# (of a userid), "rts", "suffix" (random), "sha256" (of an API token),
# "minute" (a rate-limit window, 8 bytes big-endian), "ms" (milliseconds
# since the epoch, 8 bytes big-endian: forward time). metrics has no fixed
# layout: its keys are text ("totals", "lag:" + rts + 4 bytes, "worker:" + name).
LAYOUTS: dict[str, tuple[tuple[str, str, int], ...]] = {
    "users": (("user", "md5", MD5_LEN),),
    "twits": (
        ("author", "md5", MD5_LEN),
        ("time", "rts", RTS_LEN),
        ("suffix", "suffix", SUFFIX_LEN),
    ),
    "follows": (("follower", "md5", MD5_LEN), ("followed", "md5", MD5_LEN)),
    "followedBy": (("followed", "md5", MD5_LEN), ("follower", "md5", MD5_LEN)),
    "pendingFanouts": (
        ("author", "md5", MD5_LEN),
        ("time", "rts", RTS_LEN),
        ("suffix", "suffix", SUFFIX_LEN),
    ),
    "streams": (
        ("reader", "md5", MD5_LEN),
        ("time", "rts", RTS_LEN),
        ("author", "md5", MD5_LEN),
        ("suffix", "suffix", SUFFIX_LEN),
    ),
    "replies": (
        ("parent author", "md5", MD5_LEN),
        ("parent time", "rts", RTS_LEN),
        ("parent suffix", "suffix", SUFFIX_LEN),
        ("time", "ms", RTS_LEN),
        ("author", "md5", MD5_LEN),
        ("suffix", "suffix", SUFFIX_LEN),
    ),
    "likers": (
        ("twit author", "md5", MD5_LEN),
        ("twit time", "rts", RTS_LEN),
        ("twit suffix", "suffix", SUFFIX_LEN),
        ("liker", "md5", MD5_LEN),
    ),
    "likes": (
        ("liker", "md5", MD5_LEN),
        ("time", "rts", RTS_LEN),
        ("twit author", "md5", MD5_LEN),
        ("twit time", "rts", RTS_LEN),
        ("twit suffix", "suffix", SUFFIX_LEN),
    ),
    "reposters": (
        ("twit author", "md5", MD5_LEN),
        ("twit time", "rts", RTS_LEN),
        ("twit suffix", "suffix", SUFFIX_LEN),
        ("reposter", "md5", MD5_LEN),
    ),
    "reposts": (
        ("reposter", "md5", MD5_LEN),
        ("time", "rts", RTS_LEN),
        ("twit author", "md5", MD5_LEN),
        ("twit time", "rts", RTS_LEN),
        ("twit suffix", "suffix", SUFFIX_LEN),
    ),
    "tokens": (("token", "sha256", 32),),
    "ratelimits": (("user", "md5", MD5_LEN), ("minute", "minute", 8)),
    "logins": (("subject", "md5", MD5_LEN), ("window", "minute", 8)),
    "celebrities": (("user", "md5", MD5_LEN),),
    "idempotency": (("user", "md5", MD5_LEN), ("idempotency key", "md5key", MD5_LEN)),
    "audit": (("time", "rts", RTS_LEN), ("suffix", "suffix", SUFFIX_LEN)),
    # Notifications (feeds/services/notifications.py).
    "notifications": (
        ("recipient", "md5", MD5_LEN),
        ("time", "rts", RTS_LEN),
        ("kind", "kind", 1),
        ("subject author", "md5", MD5_LEN),
        ("subject time", "rts", RTS_LEN),
        ("subject suffix", "suffix", SUFFIX_LEN),
    ),
    "notifyGroups": (
        ("twit author", "md5", MD5_LEN),
        ("twit time", "rts", RTS_LEN),
        ("twit suffix", "suffix", SUFFIX_LEN),
        ("kind", "kind", 1),
    ),
}


# Tables keyed by text, as layout_text() shows them.
TEXT_LAYOUTS = {
    "metrics": '"totals" | "tables" | "lag:" + rts + suffix | "worker:" + host:pid',
    "suspensions": '"all"',
}

# The suspensions table's one row.
SUSPENSIONS_ROW = b"all"


@dataclass(frozen=True)
class KeyPart:
    name: str
    kind: str
    raw: bytes


def layout_text(table: str) -> str:
    """A table's key layout as the docs write it: "md5(author) + rts + suffix"."""
    parts = LAYOUTS.get(table)
    if parts is None:
        return TEXT_LAYOUTS.get(table, "text")
    shown = {"md5": "md5({})", "sha256": "sha256({})", "rts": "rts", "suffix": "suffix", "ms": "ms"}
    return " + ".join(shown.get(kind, "{}").format(name) for name, kind, _ in parts)


def split_key(table: str, key: bytes) -> tuple[KeyPart, ...]:
    """``key`` cut into the parts of ``table``'s layout. A key that does not
    fit (another length), or a table without a layout, is one "text" part;
    but a fan-out's lag row (see :func:`metrics_lag_key`) is its three parts."""
    if table == "metrics" and key.startswith(METRICS_LAG):
        lag = key[len(METRICS_LAG) :]
        if len(lag) == RTS_LEN + SUFFIX_LEN:
            return (
                KeyPart("kind", "text", METRICS_LAG),
                KeyPart("time", "rts", lag[:RTS_LEN]),
                KeyPart("suffix", "suffix", lag[RTS_LEN:]),
            )
    parts = LAYOUTS.get(table)
    if parts is None or len(key) != sum(width for _, _, width in parts):
        return (KeyPart("key", "text", key),)
    out = []
    at = 0
    for name, kind, width in parts:
        out.append(KeyPart(name, kind, key[at : at + width]))
        at += width
    return tuple(out)


def keyed_by_user(table: str) -> bool:
    """Whether ``table``'s keys start with md5(userid), so a userid is a prefix."""
    parts = LAYOUTS.get(table)
    return parts is not None and parts[0][1] == "md5"


# Tables whose sequential alternative starts with a userid (the rest: with time).
USERID_FIRST: tuple[str, ...] = ("users", "celebrities", "follows", "followedBy")
# The sequential alternative of each table that has one, as :func:`sequential_head` builds it.
SEQUENTIAL_LAYOUTS: dict[str, str] = {
    "users": "userid",
    "celebrities": "userid",
    "follows": "follower + followed (userids)",
    "followedBy": "followed + follower (userids)",
    "twits": "millis + md5(author) + suffix",
    "pendingFanouts": "millis + md5(author) + suffix",
    "streams": "millis + md5(reader) + md5(author) + suffix",
    "replies": "millis + parent's key + md5(author) + suffix",
    "ratelimits": "minute + md5(user)",
    "notifications": "millis + md5(recipient) + kind + subject",
}


def sequential_head(table: str, key: bytes, userid: str | None) -> bytes | None:
    """The start of the key ``table`` would have in the sequential design that
    writes to one region at a time (see the module docstring), for a row whose
    real key is ``key``.

    Keyed by user: the userid itself (``userid`` is the user of the key's
    first md5; None when unknown gives None). Keyed by time: the time first,
    as milliseconds big-endian. None for tables without such an alternative
    (tokens are random already; audit and metrics are time- or name-first).
    """
    parts = split_key(table, key)
    if parts[0].kind == "text":
        return None
    if table in USERID_FIRST:
        return None if userid is None else userid.lower().encode()
    if table in ("twits", "pendingFanouts", "streams", "notifications"):
        return millis_from_rts(parts[1].raw).to_bytes(RTS_LEN, "big")
    if table == "replies":
        return parts[3].raw
    if table == "ratelimits":
        return parts[1].raw
    return None


# -- hashtags, trending tags and user search ---------------------------------------------
#
#    hashtags    md5(tag) + rts + md5(author) + suffix        44 bytes
#    tagCounts   salt + bucket + tag (UTF-8)                  9 bytes + the tag
#    userSearch  value (UTF-8, at most 120 bytes) + 0x00 + md5(userid) + kind
#                (a userid, a display name or an email address, normalised)
#
# ``tag`` is always the normalised tag (feeds.services.textparse.normalise_tag:
# NFKC, then case-folded), so #Tea, #TEA and #tea share one page and one counter.

TAG_KEY_LEN = MD5_LEN + RTS_LEN + MD5_LEN + SUFFIX_LEN
TREND_SALTS = 4  # tagCounts spreads each bucket over this many key ranges
TREND_KEY_HEAD = 1 + 8  # salt byte + bucket number
SEARCH_VALUE_MAX = 120  # bytes of a normalised name or userid the index keeps
SEARCH_USERID = b"u"  # the kinds of a userSearch row: the user's userid ...
SEARCH_NAME = b"n"  # ... or their display name ...
SEARCH_EMAIL = b"e"  # ... or their email address (never listed by search)
SEARCH_SEP = b"\x00"


def tag_hash(tag: str) -> bytes:
    """md5 of a normalised tag (the caller normalises): spreads tags over the key space."""
    return hashlib.md5(tag.encode("utf-8")).digest()


def tag_key(tag: str, twit: bytes) -> bytes:
    """The row of ``twit`` on ``tag``'s page: newest first under the tag's hash,
    then the twit's author and suffix, so the twit's key can be computed back
    (and the row computed from the twit: a delete reads nothing to find it)."""
    parts = split_twit_key(twit)
    return tag_hash(tag) + twit[MD5_LEN : MD5_LEN + RTS_LEN] + parts.author_hash + parts.suffix


def twit_key_from_tag_key(key: bytes) -> bytes:
    if len(key) != TAG_KEY_LEN:
        raise BadKey(f"hashtag key must be {TAG_KEY_LEN} bytes, got {len(key)}")
    rts = key[MD5_LEN : MD5_LEN + RTS_LEN]
    author = key[MD5_LEN + RTS_LEN : MD5_LEN + RTS_LEN + MD5_LEN]
    return author + rts + key[-SUFFIX_LEN:]


def trend_salt(tag: str) -> int:
    """Which of the TREND_SALTS ranges ``tag``'s counters live in (by its md5)."""
    return tag_hash(tag)[0] % TREND_SALTS


def trend_bucket_prefix(salt: int, bucket: int) -> bytes:
    """Where one bucket's counters start in one salt range."""
    if not 0 <= salt < TREND_SALTS:
        raise BadKey(f"salt must be from 0 to {TREND_SALTS - 1}, got {salt}")
    if bucket < 0:
        raise BadKey(f"bucket must not be negative, got {bucket}")
    return bytes([salt]) + bucket.to_bytes(8, "big")


def trend_key(tag: str, bucket: int) -> bytes:
    """The counter of ``tag``'s uses in time bucket ``bucket`` (a bucket
    number: milliseconds since the epoch // the bucket's width)."""
    return trend_bucket_prefix(trend_salt(tag), bucket) + tag.encode("utf-8")


def split_trend_key(key: bytes) -> tuple[int, str]:
    """(bucket, tag) of a tagCounts key."""
    if len(key) <= TREND_KEY_HEAD:
        raise BadKey(f"tag counter key must be longer than {TREND_KEY_HEAD} bytes")
    return int.from_bytes(key[1:TREND_KEY_HEAD], "big"), key[TREND_KEY_HEAD:].decode("utf-8")


def search_value(value: str) -> bytes:
    """A normalised name or userid as the index keeps it: UTF-8, cut to at
    most SEARCH_VALUE_MAX bytes on a character boundary."""
    raw = value.encode("utf-8")[:SEARCH_VALUE_MAX]
    return raw.decode("utf-8", errors="ignore").encode("utf-8")


def search_key(value: str, userid: str, kind: bytes) -> bytes:
    """A userSearch row: the normalised ``value`` first (alphabetical, so a
    query is a prefix scan), then a zero byte (no name or userid holds one),
    the user's hash and the kind (``SEARCH_USERID``, ``SEARCH_NAME`` or
    ``SEARCH_EMAIL``): one row per user and kind, even when a user's name and
    userid read the same."""
    if kind not in (SEARCH_USERID, SEARCH_NAME, SEARCH_EMAIL):
        raise BadKey(f"unknown search kind: {kind!r}")
    return search_value(value) + SEARCH_SEP + user_hash(userid) + kind


def split_search_key(key: bytes) -> tuple[bytes, bytes, bytes]:
    """(value, md5(userid), kind) of a userSearch key."""
    if len(key) < 1 + MD5_LEN + 1 or key[-(MD5_LEN + 2)] != 0:
        raise BadKey("not a userSearch key")
    return key[: -(MD5_LEN + 2)], key[-(MD5_LEN + 1) : -1], key[-1:]


LAYOUTS["hashtags"] = (
    ("tag", "md5tag", MD5_LEN),
    ("time", "rts", RTS_LEN),
    ("author", "md5", MD5_LEN),
    ("suffix", "suffix", SUFFIX_LEN),
)
TEXT_LAYOUTS["tagCounts"] = "salt (1 byte) + bucket (8 bytes) + tag"
TEXT_LAYOUTS["userSearch"] = "name or userid (normalised) + 0x00 + md5(user) + kind"
# -- avatars (account branch) ----------------------------------------------------------


def avatar_key(userid: str) -> bytes:
    """A user's avatar image: md5(userid), as their users row."""
    return user_hash(userid)


LAYOUTS["avatars"] = (("user", "md5", MD5_LEN),)
USERID_FIRST = (*USERID_FIRST, "avatars")
SEQUENTIAL_LAYOUTS["avatars"] = "userid"


# -- reports (feeds/services/reports.py) ---------------------------------------------
#
#    reportsBySubject  subject + md5(reporter)                   45 bytes
#    reportSubjects    subject                                   29 bytes
#    reportQueue       b"n" + rts(latest) + subject              38 bytes
#                      b"c" + (2^32 - 1 - count) + rts(latest) + subject  42 bytes
#
# A subject is what was reported, 29 bytes: b"t" + the twit's key, or b"u" +
# md5(userid) + 12 zero bytes. Its kind first, then md5(author or user): one
# user's twits' subjects are one prefix (b"t" + md5(user)), as is the user's.

REPORT_TWIT = b"t"
REPORT_USER = b"u"
SUBJECT_LEN = 1 + TWIT_KEY_LEN
REPORT_KEY_LEN = SUBJECT_LEN + MD5_LEN
QUEUE_NEWEST = b"n"
QUEUE_MOST = b"c"
_COUNT_MAX = (1 << 32) - 1


def twit_subject(twit: bytes) -> bytes:
    """The subject of a report of the twit keyed ``twit``."""
    split_twit_key(twit)
    return REPORT_TWIT + twit


def user_subject(userid: str) -> bytes:
    """The subject of a report of the account ``userid``: as wide as a twit's."""
    return REPORT_USER + user_hash(userid) + bytes(TWIT_KEY_LEN - MD5_LEN)


def subject_prefixes(userid: str) -> tuple[bytes, bytes]:
    """The prefixes of every subject about ``userid``: their twits, their account."""
    return REPORT_TWIT + user_hash(userid), REPORT_USER + user_hash(userid)


def check_subject(subject: bytes) -> bytes:
    if len(subject) != SUBJECT_LEN or subject[:1] not in (REPORT_TWIT, REPORT_USER):
        raise BadKey(f"not a report subject: {subject!r}")
    return subject


def report_key(subject: bytes, reporter: str) -> bytes:
    """One reporter's report of ``subject``: one row per pair (a repeated
    report is the same row), and a subject's reports are one prefix scan."""
    return check_subject(subject) + user_hash(reporter)


def queue_newest_key(latest_ms: int, subject: bytes) -> bytes:
    """A subject with open reports, in the newest-first list: by its latest report."""
    return QUEUE_NEWEST + reverse_ts(latest_ms) + check_subject(subject)


def queue_most_key(count: int, latest_ms: int, subject: bytes) -> bytes:
    """A subject with open reports, in the most-reported list: by its count of
    open reports (most first), then its latest report (newest first)."""
    if not 0 <= count <= _COUNT_MAX:
        raise BadKey(f"count out of range: {count}")
    return (
        QUEUE_MOST
        + (_COUNT_MAX - count).to_bytes(4, "big")
        + queue_newest_key(latest_ms, subject)[1:]
    )


def subject_from_queue_key(key: bytes) -> bytes:
    return check_subject(key[-SUBJECT_LEN:])


LAYOUTS["reportsBySubject"] = (
    ("kind", "kind", 1),
    ("subject author", "md5", MD5_LEN),
    ("subject time", "rts", RTS_LEN),
    ("subject suffix", "suffix", SUFFIX_LEN),
    ("reporter", "md5", MD5_LEN),
)
LAYOUTS["reportSubjects"] = (
    ("kind", "kind", 1),
    ("subject author", "md5", MD5_LEN),
    ("subject time", "rts", RTS_LEN),
    ("subject suffix", "suffix", SUFFIX_LEN),
)
TEXT_LAYOUTS["reportQueue"] = (
    '"n" + rts(latest) + subject | "c" + (2^32 - 1 - count) + rts(latest) + subject'
)


# -- blocks and mutes (feeds/services/blocks.py) -------------------------------------
#
#    blocks      md5(blocker) + md5(blocked)                  32 bytes
#    blockedBy   md5(blocked) + md5(blocker)                  32 bytes
#    mutes       md5(muter) + md5(muted)                      32 bytes
#    mutedWords  md5(muter) + md5(word, case-folded)          32 bytes


def pair_key(first: str, second: str) -> bytes:
    """md5(first) + md5(second): a block, a blockedBy row, a mute."""
    return user_hash(first) + user_hash(second)


def muted_word_key(muter: str, word: str) -> bytes:
    return user_hash(muter) + hashlib.md5(word.casefold().encode("utf-8")).digest()


LAYOUTS["blocks"] = (("blocker", "md5", MD5_LEN), ("blocked", "md5", MD5_LEN))
LAYOUTS["blockedBy"] = (("blocked", "md5", MD5_LEN), ("blocker", "md5", MD5_LEN))
LAYOUTS["mutes"] = (("muter", "md5", MD5_LEN), ("muted", "md5", MD5_LEN))
LAYOUTS["mutedWords"] = (("muter", "md5", MD5_LEN), ("word", "md5word", MD5_LEN))


# -- the words index (feeds/services/tagindex.py) -------------------------------------
#
#    twitWords   md5("word:" + word) + rts + md5(author) + suffix   44 bytes
#
# A hashtag's row layout, in a table of its own: a word's twits newest first,
# and from a word and a twit's key the row, so "does this twit have this
# word?" is a get, and a delete reads nothing to find its rows.


def word_hash(word: str) -> bytes:
    """md5 of b"word:" + a normalised word: salted, so the word "alice" (a
    mention) and the user alice have different hashes, and no words row
    reads as a row of a user's in a table keyed by users' md5s."""
    return hashlib.md5(b"word:" + word.encode("utf-8")).digest()


def word_key(word: str, twit: bytes) -> bytes:
    return word_hash(word) + tag_key(word, twit)[MD5_LEN:]


def twit_key_from_word_key(key: bytes) -> bytes:
    return twit_key_from_tag_key(key)


LAYOUTS["twitWords"] = (
    ("word", "md5word", MD5_LEN),
    ("time", "rts", RTS_LEN),
    ("author", "md5", MD5_LEN),
    ("suffix", "suffix", SUFFIX_LEN),
)


LAYOUTS["bookmarkers"] = (
    ("twit author", "md5", MD5_LEN),
    ("twit time", "rts", RTS_LEN),
    ("twit suffix", "suffix", SUFFIX_LEN),
    ("user", "md5", MD5_LEN),
)
LAYOUTS["bookmarks"] = (
    ("user", "md5", MD5_LEN),
    ("time", "rts", RTS_LEN),
    ("twit author", "md5", MD5_LEN),
    ("twit time", "rts", RTS_LEN),
    ("twit suffix", "suffix", SUFFIX_LEN),
)


# -- media: an uploaded image (feeds/services/media.py) -----------------------------------

MEDIA_KEY_LEN = MD5_LEN + RTS_LEN + SUFFIX_LEN


def media_key(uploader: str, millis: int, suffix: bytes) -> bytes:
    """md5(uploader) + reversed ms + suffix: a user's images are one prefix
    scan, newest first, and the key says whose an image is without a read."""
    if len(suffix) != SUFFIX_LEN:
        raise BadKey(f"suffix must be {SUFFIX_LEN} bytes, got {len(suffix)}")
    return user_hash(uploader) + reverse_ts(millis) + suffix


def media_id(key: bytes) -> str:
    """The public id of an image: its row key in lower-case hex (56 characters)."""
    if len(key) != MEDIA_KEY_LEN:
        raise BadKey(f"media key must be {MEDIA_KEY_LEN} bytes, got {len(key)}")
    return key.hex()


_MEDIA_ID = re.compile(f"[0-9a-f]{{{2 * MEDIA_KEY_LEN}}}")


def media_key_from_id(mid: str) -> bytes:
    """The row key of a media id; only the exact form media_id() gives is accepted."""
    if not isinstance(mid, str) or not _MEDIA_ID.fullmatch(mid):
        raise BadKey(f"not a media id: {mid!r}")
    return bytes.fromhex(mid)


def media_millis(key: bytes) -> int:
    """When the image of ``key`` was uploaded (ms)."""
    return LONG_MAX - int.from_bytes(key[MD5_LEN : MD5_LEN + RTS_LEN], "big")


LAYOUTS["media"] = (
    ("uploader", "md5", MD5_LEN),
    ("time", "rts", RTS_LEN),
    ("suffix", "suffix", SUFFIX_LEN),
)


# -- direct messages (feeds/services/messages.py) ---------------------------------------
#
#    messages    md5(low) + md5(high) + rts + suffix               44 bytes
#    inbox       md5(owner) + rts(latest message) + md5(other)     40 bytes
#    inboxState  md5(owner) + md5(other)                           32 bytes
#                md5(owner)                                        16 bytes (the total)
#
# ``low``/``high``: the two participants' md5s in byte order, the seeds'
# MD5(a)MD5(b) relation key made symmetric, so both see one conversation
# and each message is written once. Under it the messages run newest first.

MESSAGE_KEY_LEN = 2 * MD5_LEN + RTS_LEN + SUFFIX_LEN
INBOX_KEY_LEN = MD5_LEN + RTS_LEN + MD5_LEN


def conversation_key_for_hashes(one: bytes, other: bytes) -> bytes:
    """The conversation of the users hashed ``one`` and ``other``: the same
    32 bytes whichever of them asks."""
    if len(one) != MD5_LEN or len(other) != MD5_LEN:
        raise BadKey("a conversation is keyed by two 16-byte md5s")
    return min(one, other) + max(one, other)


def conversation_key(a: str, b: str) -> bytes:
    return conversation_key_for_hashes(user_hash(a), user_hash(b))


def message_key(conversation: bytes, millis: int, suffix: bytes) -> bytes:
    """A message in ``conversation``: newest first under the conversation's key."""
    if len(conversation) != EDGE_KEY_LEN or len(suffix) != SUFFIX_LEN:
        raise BadKey("a message key is a conversation key, a time and a 4-byte suffix")
    return conversation + reverse_ts(millis) + suffix


def message_millis(key: bytes) -> int:
    return millis_from_rts(key[EDGE_KEY_LEN : EDGE_KEY_LEN + RTS_LEN])


def inbox_key_for_hashes(owner: bytes, millis: int, other: bytes) -> bytes:
    """``owner``'s inbox row of the conversation with ``other``, placed by its
    latest message: the inbox is one prefix scan, latest conversation first."""
    return owner + reverse_ts(millis) + other


def inbox_key(owner: str, millis: int, other: str) -> bytes:
    return inbox_key_for_hashes(user_hash(owner), millis, user_hash(other))


def inbox_state_key(owner: str, other: str) -> bytes:
    """Where ``owner``'s inbox row for ``other`` is, and its unread count."""
    return user_hash(owner) + user_hash(other)


def unread_total_key(owner: str) -> bytes:
    """``owner``'s unread messages in all: the 16-byte head of their state rows."""
    return user_hash(owner)


LAYOUTS["messages"] = (
    ("one participant", "md5", MD5_LEN),
    ("other participant", "md5", MD5_LEN),
    ("time", "rts", RTS_LEN),
    ("suffix", "suffix", SUFFIX_LEN),
)
LAYOUTS["inbox"] = (
    ("owner", "md5", MD5_LEN),
    ("latest", "rts", RTS_LEN),
    ("other", "md5", MD5_LEN),
)
LAYOUTS["inboxState"] = (("owner", "md5", MD5_LEN), ("other", "md5", MD5_LEN))
# -- lists of accounts (feeds/services/lists.py) --------------------------------------
#
#    userLists    md5(owner) + rts + suffix                    28 bytes
#    listMembers  md5(list key) + md5(member)                  32 bytes
#
# A user's lists are one prefix scan, newest first; a list's id is its key in
# hex, so a list is one get from its id alone. A list's members sit under the
# md5 of its key: every list's members are one fixed-width prefix, however the
# list key changes, and "is she on this list?" is a get.

LIST_KEY_LEN = MD5_LEN + RTS_LEN + SUFFIX_LEN
LIST_MEMBER_KEY_LEN = 2 * MD5_LEN
_LIST_ID = re.compile(f"[0-9a-f]{{{2 * LIST_KEY_LEN}}}")


def list_key(owner: str, millis: int, suffix: bytes) -> bytes:
    return user_hash(owner) + reverse_ts(millis) + suffix


def list_id(key: bytes) -> str:
    return key.hex()


def list_key_from_id(lid: str) -> bytes:
    """The list key an id names; BadKey for anything that is not one."""
    if not isinstance(lid, str) or not _LIST_ID.fullmatch(lid):
        raise BadKey("not a list id")
    return bytes.fromhex(lid)


def list_hash(key: bytes) -> bytes:
    return hashlib.md5(key).digest()


def list_member_key(key: bytes, member: str) -> bytes:
    return list_hash(key) + user_hash(member)


def list_order_key(twit: bytes) -> bytes:
    """A twit's place in a list timeline, which merges its members' twits at
    read time: rts + md5(author) + suffix, so ascending is newest first and
    two twits of one millisecond still have an order (the page's cursor)."""
    return twit[MD5_LEN : MD5_LEN + RTS_LEN] + twit[:MD5_LEN] + twit[MD5_LEN + RTS_LEN :]


def twit_key_from_list_order_key(order: bytes) -> bytes:
    return order[RTS_LEN : RTS_LEN + MD5_LEN] + order[:RTS_LEN] + order[RTS_LEN + MD5_LEN :]


LAYOUTS["userLists"] = (
    ("owner", "md5", MD5_LEN),
    ("time", "rts", RTS_LEN),
    ("suffix", "suffix", SUFFIX_LEN),
)
LAYOUTS["listMembers"] = (("list", "md5list", MD5_LEN), ("member", "md5", MD5_LEN))
# -- quotes (feeds/services/twits.py) ---------------------------------------------------
#
# A twit's quotes: under the quoted twit's key, the quote's reversed time,
# then the quoting twit's whole key. Newest first, so the quoted twit's page
# is one prefix scan; the quoting key at the end names the twit the row
# shows (its time is in it again: 8 bytes spent so the key needs no
# reassembly, unlike a reply's).

QUOTE_KEY_LEN = 2 * TWIT_KEY_LEN + RTS_LEN


def quote_key(quoted: bytes, quoting: bytes) -> bytes:
    """The row of the twit ``quoting`` among the quotes of ``quoted``."""
    split_twit_key(quoted)
    parts = split_twit_key(quoting)
    return quoted + reverse_ts(parts.millis) + quoting


def twit_key_from_quote_key(key: bytes) -> bytes:
    """The quoting twit's key, from its row in the quotes table."""
    if len(key) != QUOTE_KEY_LEN:
        raise BadKey(f"quote key must be {QUOTE_KEY_LEN} bytes, got {len(key)}")
    return key[TWIT_KEY_LEN + RTS_LEN :]


LAYOUTS["quotes"] = (
    ("quoted author", "md5", MD5_LEN),
    ("quoted time", "rts", RTS_LEN),
    ("quoted suffix", "suffix", SUFFIX_LEN),
    ("time", "rts", RTS_LEN),
    ("author", "md5", MD5_LEN),
    ("quote time", "rts", RTS_LEN),
    ("suffix", "suffix", SUFFIX_LEN),
)
