"""Accounts: register, authenticate, look up, list, grant staff."""

from __future__ import annotations

import json
import re
import time
import unicodedata

from django.contrib.auth.hashers import check_password, make_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from feeds.errors import Conflict, InvalidInput, NotFound
from feeds.types import Page, User, UserRef, from_millis
from storage import keys
from storage.connection import connection, read_only, table_name
from storage.ops import check_and_put, decode_count

from ._paging import scan_page

USERID_RE = re.compile(r"[A-Za-z0-9_]{3,20}")
NAME_MAX = 50
PASSWORD_MIN = 8
ACCOUNT = b"info:account"
STAFF = b"info:staff"
DISABLED = b"info:disabled"
COUNT_TWITS = b"c:twits"
COUNT_FOLLOWERS = b"c:followers"
COUNT_FOLLOWING = b"c:following"


def has_control_chars(text: str, allow_newlines: bool = False) -> bool:
    for ch in text:
        if allow_newlines and ch == "\n":
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") and ch != "\u200d":
            return True
    return False


def check_userid(userid: object, field: str = "userid") -> str:
    if not isinstance(userid, str) or not USERID_RE.fullmatch(userid):
        raise InvalidInput(field, "A userid is 3 to 20 letters, digits or underscores.")
    return userid


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInput("name", "Enter a name.")
    name = name.strip()
    if len(name) > NAME_MAX:
        raise InvalidInput("name", f"A name is at most {NAME_MAX} characters.")
    if has_control_chars(name):
        raise InvalidInput("name", "A name cannot contain control characters.")
    return name


def _check_email(email: object) -> str:
    if not isinstance(email, str):
        raise InvalidInput("email", "Enter a valid email address.")
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise InvalidInput("email", "Enter a valid email address.") from None
    return email


def _check_password(password: object) -> str:
    if not isinstance(password, str) or len(password) < PASSWORD_MIN:
        raise InvalidInput("password", f"A password is at least {PASSWORD_MIN} characters.")
    if len(password) > 1024:
        raise InvalidInput("password", "A password is at most 1024 characters.")
    return password


def account_json(userid: str, name: str, email: str, password_hash: str, created: int) -> bytes:
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


def register(userid: object, name: object, email: object, password: object) -> User:
    """Create an account. The userid is unique without regard to case.

    The account is one cell written by checkAndPut, so a user exists whole or
    not at all, and two sign-ups racing for one userid cannot both win.
    """
    uid = check_userid(userid)
    clean_name = _check_name(name)
    clean_email = _check_email(email)
    raw_password = _check_password(password)
    created = int(time.time() * 1000)
    record = account_json(uid, clean_name, clean_email, make_password(raw_password), created)
    with connection() as conn:
        won = check_and_put(
            conn, table_name("users"), keys.user_key(uid), ACCOUNT, None, ACCOUNT, record
        )
    if not won:
        raise Conflict(f"The userid {uid} is taken.")
    return User(uid, clean_name, clean_email, from_millis(created))


def _user_from_row(row: dict[bytes, bytes]) -> User | None:
    raw = row.get(ACCOUNT)
    if raw is None:
        return None
    account = json.loads(raw)
    return User(
        userid=account["userid"],
        name=account["name"],
        email=account["email"],
        created=from_millis(account["created"]),
        staff=row.get(STAFF) == b"1",
        disabled=row.get(DISABLED) == b"1",
        twits=decode_count(row.get(COUNT_TWITS)),
        followers=decode_count(row.get(COUNT_FOLLOWERS)),
        following=decode_count(row.get(COUNT_FOLLOWING)),
    )


@read_only
def find_user(userid: str) -> User | None:
    if not isinstance(userid, str) or not USERID_RE.fullmatch(userid):
        return None
    with connection() as conn:
        row = conn.table(table_name("users")).row(keys.user_key(userid))
    return _user_from_row(row)


def get_user(userid: str) -> User:
    """The profile of ``userid`` with its counts; NotFound if there is none."""
    user = find_user(userid)
    if user is None:
        raise NotFound(f"No user {userid!r}.")
    return user


def ref(userid: str) -> UserRef:
    user = get_user(userid)
    return UserRef(user.userid, user.name)


def authenticate(userid: str, password: str) -> User | None:
    """The user if the password matches and the account is enabled, else None."""
    if not isinstance(password, str):
        return None
    row: dict[bytes, bytes] = {}
    if isinstance(userid, str) and USERID_RE.fullmatch(userid):
        with connection() as conn:
            row = conn.table(table_name("users")).row(keys.user_key(userid))
    user = _user_from_row(row)
    if user is None:
        # Spend the same time as a real check, so timing does not reveal userids.
        make_password(password)
        return None
    account = json.loads(row[ACCOUNT])
    if not check_password(password, account["password"]) or user.disabled:
        return None
    return user


@read_only
def list_users(cursor: str | None = None, limit: int = 20) -> Page[User]:
    """Every user, in key (md5) order: stable, not alphabetical."""
    with connection() as conn:
        return scan_page(
            conn.table(table_name("users")),
            b"",
            keys.USER_KEY_LEN,
            cursor,
            limit,
            lambda key, row: _user_from_row(row),
        )


def _set_flag(userid: str, column: bytes, on: bool) -> User:
    get_user(userid)
    with connection() as conn:
        conn.table(table_name("users")).put(keys.user_key(userid), {column: b"1" if on else b"0"})
    return get_user(userid)


def set_staff(userid: str, staff: bool = True) -> User:
    return _set_flag(userid, STAFF, staff)


def set_disabled(userid: str, disabled: bool = True) -> User:
    return _set_flag(userid, DISABLED, disabled)
