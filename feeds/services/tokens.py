"""Credentials kept in HBase: API bearer tokens and web sessions.

A credential is 32 random bytes, URL-safe base64. Only its SHA-256 is stored
(the row key), so a leaked table does not leak usable credentials. An API
client sends its token as a bearer token; a browser carries its session's in
the signed session cookie (see feeds/auth.py).

Each is read with its user's row in one round trip: the cookie keeps whom
the session is for beside its id, and an API token begins with its user's
id and a dot (``alice.3q2-…``; a userid has no dot, the random part none
either). The name only says which user's row to read alongside; the
token's row decides, and the name is part of what is hashed, so changing
it makes no other valid token. A token issued before the name was (no dot)
still works, in two round trips: its row, then the user it names. The
userid it shows is public (the profile's address), and 32 random bytes are
as hard to guess beside it.

A credential is valid while three things hold, checked on every request:

- its row exists: logging out deletes it, so a copy of the cookie or token
  kept from before is refused afterwards;
- the generation it was issued at (``k:gen``) is the account's current auth
  generation (``info:authgen`` on the user row): "log out everywhere", a
  password change and disabling the account raise it, ending every
  credential at once without finding them;
- the account is not disabled.

Disabling raises the generation, so re-enabling an account revives none of
its old credentials.
"""

from __future__ import annotations

import secrets
import time

from feeds.types import User
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name
from storage.ops import check_and_put

from . import accounts, twofactor


def _issue(user: User, kind: str) -> str:
    token = secrets.token_urlsafe(32)
    if kind == rows.KIND_API:  # read with its user's row (the module's docstring)
        token = f"{user.userid}.{token}"
    with connection() as conn:
        conn.table(table_name("tokens")).put(
            keys.token_key(token),
            rows.encode_token(user.userid, int(time.time() * 1000), user.auth_generation, kind),
        )
    return token


def issue_token(
    userid: object,
    password: object,
    address: str = "",
    device: object = None,
    code: object = None,
) -> tuple[str, User] | None:
    """A new API token for valid credentials, or None.

    RateLimited when log-ins from ``address`` or to the account (or, with
    ``device``, a device token for it, from that device) are throttled;
    Forbidden when the account is suspended. An account with two-factor
    sign-in on also needs ``code`` (a TOTP or recovery code):
    twofactor.CodeRequired without one, None for a wrong one.
    """
    user = twofactor.log_in(userid, password, code, address, device)
    if user is None:
        return None
    return _issue(user, rows.KIND_API), user


def start_session(user: User) -> str:
    """A new web session's id, for a user the caller has authenticated."""
    return _issue(user, rows.KIND_WEB)


@read_only
def token_user(token: str) -> User | None:
    """The enabled user an API token belongs to, or None if it was revoked,
    is of an old generation, or its user is disabled. The token's row and
    the row of the user it is named for are read at once (the module's
    docstring)."""
    named = token.partition(".")[0] if isinstance(token, str) and "." in token else None
    return _holder(token, rows.KIND_API, named)


@read_only
def session_user(session_id: str, userid: object = None) -> User | None:
    """:func:`token_user` for a web session's id. Each kind is accepted only
    where it was issued: a session id read out of a cookie is no API token.

    ``userid``: whom the session's cookie says it is for (feeds/auth.py
    keeps it beside the id). The session's row and that user's row are
    then read in one round trip. Before, the session's row was read first,
    for the user to read next: two round trips, one after the other, before
    every signed-in page (issue 39). The session's row still decides: a
    cookie naming someone else (or no one) costs a second read, of the
    user the row names."""
    return _holder(session_id, rows.KIND_WEB, userid)


def _holder(token: str, kind: str, named: object = None) -> User | None:
    if not isinstance(token, str) or not token or len(token) > 200:
        return None
    with connection() as conn, ops.pipelined(conn) as pipe:
        found = pipe.rows(table_name("tokens"), [keys.token_key(token)])
        guessed = None
        if isinstance(named, str) and accounts.USERID_RE.fullmatch(named):
            guessed = accounts.ask_user_keyed(pipe, keys.user_key(named))
    stored = rows.decode_token(found.row)
    if stored is None or stored.kind != kind:
        return None
    user = None if guessed is None else guessed()
    if user is None or user.userid.lower() != stored.userid.lower():
        user = accounts.find_user(stored.userid)
    if (
        user is None
        or user.disabled
        or stored.generation != rows.encode_generation(user.auth_generation)
    ):
        return None
    return user


# How long an emailed password-reset link works.
RESET_TTL_S = 3600


def issue_reset(user: User) -> str:
    """A new password-reset token for ``user``, to email. Like every
    credential, only its sha256 is stored; it is spent by its first
    :func:`claim_reset`, and dies after RESET_TTL_S or with any raise of the
    auth generation (a password change or reset, logging out everywhere)."""
    return _issue(user, rows.KIND_RESET)


def reset_user(token: object) -> User | None:
    """The enabled user a reset token is for, while it is unspent, unexpired
    and of the account's current generation; else None. Spends nothing."""
    if not isinstance(token, str) or not token or len(token) > 200:
        return None
    with connection() as conn:
        stored = rows.decode_token(conn.table(table_name("tokens")).row(keys.token_key(token)))
    if stored is None or stored.created < (time.time() - RESET_TTL_S) * 1000:
        return None
    return _holder(token, rows.KIND_RESET)


def claim_reset(token: str, user: User) -> bool:
    """Spend a reset token :func:`reset_user` gave ``user`` for: True for the
    one caller whose conditional put marks it spent (against the generation
    it was issued at), False for every other, at once or later."""
    with connection() as conn:
        won = check_and_put(
            conn,
            table_name("tokens"),
            keys.token_key(token),
            rows.TOKEN_GEN,
            rows.encode_generation(user.auth_generation),
            rows.TOKEN_GEN,
            rows.TOKEN_SPENT,
        )
        if won:
            conn.table(table_name("tokens")).delete(keys.token_key(token))
    return won


def revoke_token(token: str) -> None:
    """End one token or session (logging out); repeating it does nothing."""
    with connection() as conn:
        conn.table(table_name("tokens")).delete(keys.token_key(token))


def log_out_everywhere(userid: str) -> None:
    """End every token and session of ``userid``."""
    accounts.bump_generation(userid)


def change_password(userid: str, current: object, new: object, keep: str) -> User:
    """Change the password and end every other token and session of the
    account; ``keep`` (the caller's own token or session id) stays valid.

    ``keep`` is moved to the new generation only while its row still names
    this user (a conditional put), so a credential revoked meanwhile is not
    brought back.
    """
    user = accounts.change_password(userid, current, new, keep)
    with connection() as conn:
        check_and_put(
            conn,
            table_name("tokens"),
            keys.token_key(keep),
            rows.TOKEN_USERID,
            user.userid.encode(),
            rows.TOKEN_GEN,
            rows.encode_generation(user.auth_generation),
        )
    return user


def forget_user(userid: str) -> int:
    """Delete every token and session naming ``userid``, for the deletion of
    their account: one filtered scan of the table (tokens are keyed by their
    sha256, so no prefix finds them). Returns how many there were."""
    # Not with ops.KEYS_ONLY: on HBase, FirstKeyOnlyFilter ends each row at its
    # first cell (k:created), before the value filter sees k:userid.
    match = f"SingleColumnValueFilter('k', 'userid', =, 'binary:{userid}', true, true)"
    with connection() as conn:
        table = conn.table(table_name("tokens"))
        found = [
            k for k, _ in table.scan(filter=match, columns=[rows.TOKEN_USERID], batch_size=1000)
        ]
        with table.batch(batch_size=1000) as b:
            for k in found:
                b.delete(k)
    return len(found)
