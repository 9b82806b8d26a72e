"""API bearer tokens, kept in HBase.

A token is 32 random bytes, URL-safe base64. Only its SHA-256 is stored (the
row key), so a leaked table does not leak usable tokens. Logging out deletes
the row.
"""

from __future__ import annotations

import secrets
import time

from feeds.errors import InvalidInput
from feeds.types import User
from storage import keys
from storage.connection import connection, read_only, table_name

from . import accounts

USERID = b"k:userid"
CREATED = b"k:created"


def issue_token(userid: object, password: object) -> tuple[str, User] | None:
    """A new token for valid credentials, or None."""
    if not isinstance(userid, str) or not isinstance(password, str):
        raise InvalidInput(None, "Send userid and password as strings.")
    user = accounts.authenticate(userid, password)
    if user is None:
        return None
    token = secrets.token_urlsafe(32)
    with connection() as conn:
        conn.table(table_name("tokens")).put(
            keys.token_key(token),
            {USERID: user.userid.encode(), CREATED: str(int(time.time() * 1000)).encode()},
        )
    return token, user


@read_only
def token_user(token: str) -> User | None:
    """The enabled user a token belongs to, or None."""
    if not token or len(token) > 200:
        return None
    with connection() as conn:
        row = conn.table(table_name("tokens")).row(keys.token_key(token))
    if USERID not in row:
        return None
    user = accounts.find_user(row[USERID].decode())
    return None if user is None or user.disabled else user


def revoke_token(token: str) -> None:
    with connection() as conn:
        conn.table(table_name("tokens")).delete(keys.token_key(token))
