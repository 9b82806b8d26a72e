"""Idempotency-Keys for ``POST /api/twits``: a retry posts no second twit.

A client that sent a twit and got no clear answer (a 503, a timeout) sends
it again with the same ``Idempotency-Key``. The first request with a key
claims it (a checkAndPut on the ``idempotency`` row md5(userid) +
md5(key), which only one writer wins) and writes in the claim the key of
the twit it is about to post, chosen before anything else is written. Then:

- a later request with the key, once the twit is posted, gets that twit;
- one that comes while the first is still posting waits up to ``WAIT_S``
  for it, then is told to retry (Conflict);
- if the first died part way (its process or HBase went away), a request
  ``TAKEOVER_S`` after the claim finishes it: it posts the same text at the
  same twit key, which writes the same rows and counts them once
  (:func:`feeds.services.posting.post_twit`'s ``at``), so still one twit;
- a first request the service refused (bad text, over the rate limit) wrote
  nothing and gives its claim back, so a retry is judged afresh.

A key names one request: sent with other text or another ``reply_to`` it is
refused. Keys are per user and HBase forgets them after a day (the family's
TTL). A twit posted and since deleted is not posted again: its key answers 404.
"""

from __future__ import annotations

import hashlib
import json
import time

from feeds.errors import Conflict, InvalidInput, NotFound, ServiceError
from feeds.types import Message, Twit, User
from storage import keys, rows
from storage.connection import connection, table_name
from storage.ops import check_and_put, delete_prefix

from . import _clock, accounts, messages, posting, twits

HEADER = "Idempotency-Key"
MAX_LEN = 255
# How long a request waits for a first one that is still posting, and how
# old a claim must be before a retry takes it to mean the first one died
# (well above any post's time: a post gives up on HBase after seconds).
WAIT_S = 2.0
TAKEOVER_S = 10.0
_POLL_S = 0.02


def check_key(key: object) -> str:
    """``key`` if it is 1 to MAX_LEN printable ASCII characters, else
    InvalidInput naming the header."""
    if (
        not isinstance(key, str)
        or not 1 <= len(key) <= MAX_LEN
        or not all(" " <= c <= "~" for c in key)
    ):
        raise InvalidInput(HEADER, f"{HEADER} must be 1 to {MAX_LEN} printable ASCII characters.")
    return key


def _fingerprint(
    text: object, reply_to: str | None, quote_of: str | None = None, images: object = None
) -> bytes:
    # A quote's id and images join the request only when sent: the keys of
    # twits with neither keep the fingerprint they always had.
    request = [text, reply_to]
    if quote_of is not None:
        request.append(quote_of)
    if images is not None:
        request.append(images)
    return hashlib.md5(json.dumps(request, default=repr).encode()).digest()


def post_twit_once(
    author: User | str,
    text: object,
    key: str,
    reply_to: str | None = None,
    quote_of: str | None = None,
    images: object = None,
) -> tuple[Twit, bool]:
    """:func:`posting.post_twit` at most once per ``key`` of ``author`` in a
    day: (the twit, True) when this call posted it, (the twit the key posted
    first, False) when an earlier request did (see the module's docstring).
    InvalidInput when the key was sent with another request; Conflict when
    the first request is still posting; NotFound when its twit is deleted.
    """
    author = accounts.loaded(author)
    key = check_key(key)
    request = _fingerprint(text, reply_to, quote_of, images)
    row = keys.idempotency_key(author.userid, key)
    table = table_name("idempotency")
    deadline = time.monotonic() + WAIT_S
    while True:
        with connection() as conn:
            claim = rows.decode_idempotency(conn.table(table).row(row))
            if claim is None:
                millis, suffix = _clock.now_millis(), keys.new_suffix()
                mine = keys.twit_key(author.userid, millis, suffix)
                cell = rows.encode_idempotency_claim(mine, request)
                if check_and_put(
                    conn, table, row, rows.IDEMPOTENCY_CLAIM, None, rows.IDEMPOTENCY_CLAIM, cell
                ):
                    return _post(author, text, reply_to, row, mine, quote_of, images), True
                continue  # another request claimed it first: read its claim
        if claim.request != request:
            raise InvalidInput(
                HEADER, f"This {HEADER} was sent with another twit: use a new key for a new twit."
            )
        twit_id = keys.twit_id(claim.twit_key)
        if claim.posted:
            try:
                return twits.get_twit(twit_id), False
            except NotFound:
                raise NotFound(f"The twit this {HEADER} posted is deleted.") from None
        claimed = keys.split_twit_key(claim.twit_key).millis
        if time.time() * 1000 - claimed >= TAKEOVER_S * 1000:
            # The first request died part way. Its twit row written, the
            # rest is the fan-out's and the sweep's (as for any post that
            # died); else nothing of it counts yet: post it, at its key.
            try:
                twit = twits.get_twit(twit_id)
            except NotFound:
                return _post(author, text, reply_to, row, claim.twit_key, quote_of, images), False
            _mark_posted(row)
            return twit, False
        if time.monotonic() >= deadline:
            raise Conflict(f"A twit with this {HEADER} is being posted; send it again in a moment.")
        time.sleep(_POLL_S)


def _post(
    author: User,
    text: object,
    reply_to: str | None,
    row: bytes,
    twit_key: bytes,
    quote_of: str | None = None,
    images: object = None,
) -> Twit:
    """Post the claimed twit at ``twit_key``, then mark the claim posted; a
    refusal (nothing written) gives the claim back."""
    parts = keys.split_twit_key(twit_key)
    try:
        twit = posting.post_twit(
            author,
            text,
            reply_to,
            at=(parts.millis, parts.suffix),
            quote_of=quote_of,
            images=images,
        )
    except ServiceError:
        with connection() as conn:
            conn.table(table_name("idempotency")).delete(row)
        raise
    _mark_posted(row)
    return twit


def _mark_posted(row: bytes) -> None:
    with connection() as conn:
        conn.table(table_name("idempotency")).put(row, {rows.IDEMPOTENCY_POSTED: b"1"})


def forget_user(userid: str) -> int:
    """Delete ``userid``'s Idempotency-Keys, for the deletion of their account;
    returns how many there were."""
    with connection() as conn:
        return delete_prefix(conn, table_name("idempotency"), keys.user_hash(userid))


# -- direct messages (feeds/services/messages.py) ---------------------------------------
#
# ``POST /api/conversations/{userid}`` takes an Idempotency-Key too. Its claim
# is a row of its own, md5(userid) + md5("\0message " + key): no twit's key
# (printable ASCII) hashes to it. The claim holds the message's time and
# suffix, chosen first; a retry returns that message, or sends it at that
# key if the first request died before writing it. A first request that died
# after writing its message and before counting it unread leaves it uncounted:
# the retry finds the message and does not count it twice.


def send_message_once(
    sender: User | str, userid: str, text: object, key: str
) -> tuple[Message, bool]:
    """:func:`messages.send` at most once per ``key`` of ``sender`` in a day:
    (the message, True) when this call sent it, (the one the key sent, False)
    when an earlier request did. InvalidInput when the key came with another
    request; Conflict while the first request is still sending."""
    sender = accounts.loaded(sender)
    key = check_key(key)
    request = _fingerprint(text, userid.lower() if isinstance(userid, str) else userid)
    row = keys.idempotency_key(sender.userid, "\0message " + key)
    table = table_name("idempotency")
    deadline = time.monotonic() + WAIT_S
    while True:
        with connection() as conn:
            cell = conn.table(table).row(row).get(rows.IDEMPOTENCY_CLAIM)
            claim = rows.decode_message_claim(cell)
            if claim is None:
                millis, suffix = _clock.now_millis(), keys.new_suffix()
                mine = rows.encode_message_claim(millis, suffix, request)
                if check_and_put(
                    conn, table, row, rows.IDEMPOTENCY_CLAIM, None, rows.IDEMPOTENCY_CLAIM, mine
                ):
                    try:
                        return messages.send(sender, userid, text, at=(millis, suffix)), True
                    except ServiceError:
                        conn.table(table).delete(row)
                        raise
                continue
        millis, suffix, fingerprint = claim
        if fingerprint != request:
            raise InvalidInput(
                HEADER,
                f"This {HEADER} was sent with another message: use a new key for a new one.",
            )
        found = messages.sent(sender.userid, userid, millis, suffix)
        if found is not None:
            return found, False
        if time.time() * 1000 - millis >= TAKEOVER_S * 1000:
            return messages.send(sender, userid, text, at=(millis, suffix)), False
        if time.monotonic() >= deadline:
            raise Conflict(
                f"A message with this {HEADER} is being sent; send it again in a moment."
            )
        time.sleep(_POLL_S)
