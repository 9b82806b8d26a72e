"""Accounts: register, authenticate, log in, change a password, look up,
list, grant staff, disable.

Passwords are checked by Django's validators (AUTH_PASSWORD_VALIDATORS) with
no SQL user model: the similarity validator gets a small object carrying the
account's userid, name and email.
"""

from __future__ import annotations

import dataclasses
import operator
import re
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import SimpleNamespace

import happybase
from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from feeds.errors import Conflict, Forbidden, InvalidInput, NotFound, Suspended
from feeds.types import Page, User, UserRef, from_millis
from storage import keys, ops, rows
from storage.connection import connection, read_only, table_name
from storage.ops import MarkedChange, apply_once, check_and_put

from . import ratelimit, userindex
from ._kept import Kept, merged
from ._load import LoadRow
from ._paging import scan_page

USERID_RE = re.compile(r"[A-Za-z0-9_]{3,20}")
NAME_MAX = 50
BIO_MAX = 160
PASSWORD_MIN = 8


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


class _Meta:
    """What UserAttributeSimilarityValidator asks of a model's ``_meta``: the
    name to call an attribute by in its message."""

    # "userid": the one word for it on every page, in the API and the console.
    NAMES = {"userid": "userid", "name": "name", "email": "email address"}

    def get_field(self, attribute: str) -> SimpleNamespace:
        return SimpleNamespace(verbose_name=self.NAMES.get(attribute, attribute))


class _Candidate(SimpleNamespace):
    """The account a password is checked against, in place of a SQL user
    (settings name its attributes for the similarity validator)."""

    _meta = _Meta()


def _check_password(
    password: object, userid: str, name: str, email: str, field: str = "password"
) -> str:
    """The password if it passes the length check and Django's validators.

    The length check comes first, with its own message; then every validator
    runs, and each of its messages is one of the InvalidInput's messages.
    """
    if not isinstance(password, str) or len(password) < PASSWORD_MIN:
        raise InvalidInput(field, f"A password is at least {PASSWORD_MIN} characters.")
    if len(password) > 1024:
        raise InvalidInput(field, "A password is at most 1024 characters.")
    who = _Candidate(userid=userid, name=name, email=email)
    try:
        validate_password(password, who)  # type: ignore[arg-type]  # duck-typed on purpose
    except ValidationError as exc:
        reasons = tuple(str(m) for m in exc.messages)
        raise InvalidInput(field, " ".join(reasons), reasons) from None
    return password


def signup_problems(
    userid: object, name: object, email: object, password: object
) -> tuple[InvalidInput, ...]:
    """Every reason :func:`register` would refuse this input, not only the
    first one it stops at: one InvalidInput per field at fault, in the order
    userid, name, email, password. Empty when the input is acceptable (the
    userid may still be taken: only register can tell, atomically)."""
    problems: list[InvalidInput] = []
    for check, value in ((check_userid, userid), (_check_name, name), (_check_email, email)):
        try:
            check(value)
        except InvalidInput as exc:
            problems.append(exc)
    # The similarity check compares with what was typed, even if it is refused.
    typed = [v.strip() if isinstance(v, str) else "" for v in (userid, name, email)]
    try:
        _check_password(password, *typed)
    except InvalidInput as exc:
        problems.append(exc)
    return tuple(problems)


def register(
    userid: object, name: object, email: object, password: object, address: str | None = None
) -> User:
    """Create an account. The userid is unique without regard to case.

    The account is one cell written by checkAndPut, so a user exists whole or
    not at all, and two sign-ups racing for one userid cannot both win.

    A sign-up from a client (``address``: its address) is counted against
    the address's limit (ratelimit.SIGNUPS) once its fields are valid, before
    the password is hashed: RateLimited beyond it, and nothing written. None:
    no client (the ``users`` command, the demo loader), nothing counted.
    """
    uid = check_userid(userid)
    clean_name = _check_name(name)
    clean_email = _check_email(email)
    raw_password = _check_password(password, uid, clean_name, clean_email)
    if address is not None:
        ratelimit.check(ratelimit.SIGNUPS, address)
    created = int(time.time() * 1000)
    record = rows.encode_account(uid, clean_name, clean_email, make_password(raw_password), created)
    with connection() as conn:
        while True:
            won = check_and_put(
                conn,
                table_name("users"),
                keys.user_key(uid),
                rows.ACCOUNT,
                None,
                rows.ACCOUNT,
                record,
            )
            # A deleted account's row goes by a delete marker, which hides a
            # cell written in its very millisecond: a new account of that
            # userid then writes again once the clock has moved on.
            if not won or rows.ACCOUNT in conn.table(table_name("users")).row(
                keys.user_key(uid), columns=[rows.ACCOUNT]
            ):
                break
            time.sleep(0.002)
        if not won:
            raise Conflict(f"The userid {uid} is taken.")
        userindex.index_user(conn, uid, clean_name, clean_email)
    return User(uid, clean_name, clean_email, from_millis(created))


# A User is its row's fields of the same names (never the password hash or
# the raw account cell, which User has no field for), ``created`` as a
# datetime. Found once: a page makes a User of each account it shows.
_SAME = tuple(f.name for f in dataclasses.fields(User) if f.name != "created")
_same_of = operator.attrgetter(*_SAME)


def _user(stored: rows.UserRow | None) -> User | None:
    if stored is None:
        return None
    return User(
        created=from_millis(stored.created), **dict(zip(_SAME, _same_of(stored), strict=True))
    )


def _user_from_row(row: dict[bytes, bytes]) -> User | None:
    return _user(rows.decode_user(row))


def user_from_row(row: dict[bytes, bytes]) -> User | None:
    """The user a users row holds (None: no account), for services that read rows in bulk."""
    return _user(rows.decode_user(row))


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


def userid_of(user: User | str) -> str:
    """The userid of ``user``, given loaded or by its userid."""
    return user.userid if isinstance(user, User) else user


def loaded(user: User | str) -> User:
    """``user`` as given when the caller has loaded it already (the session's
    or the bearer token's profile, read in the same request); else read."""
    return user if isinstance(user, User) else get_user(user)


def public_user(userid: str) -> User:
    """:func:`get_user` for pages everyone sees: Suspended if disabled."""
    return shown_publicly(find_user(userid), userid)


def shown_publicly(user: User | None, userid: str) -> User:
    """``user``, as read for ``userid``, for pages everyone sees: NotFound
    if there is none, Suspended if disabled (:func:`public_user`'s answer)."""
    if user is None:
        raise NotFound(f"No user {userid!r}.")
    if user.disabled:
        raise Suspended()
    return user


def ask_user_keyed(pipe: ops.Pipeline, user_key: bytes) -> Callable[[], User | None]:
    """The user whose users row is keyed ``user_key`` (None: no account),
    as a call in ``pipe``: its answer once ``pipe`` is sent. For a reader
    that has the key before the userid: a twit's key begins with its
    author's (services.twits.public_twit reads both rows at once)."""
    reply = pipe.rows(table_name("users"), [user_key])
    return lambda: _user_from_row(reply.row)


def suspended(conn: happybase.Connection, userids: Iterable[str]) -> frozenset[str]:
    """Which of ``userids`` are suspended (disabled), lower-cased: one
    multi-get of their users rows' flags. The one answer to that question
    for every list that hides a suspended account's twits or reposts."""
    with ops.pipelined(conn) as pipe:
        answer = ask_suspended(pipe, userids)
    return answer()


def ask_suspended(pipe: ops.Pipeline, userids: Iterable[str]) -> Callable[[], frozenset[str]]:
    """:func:`suspended` as a call in ``pipe``: its answer, once ``pipe``
    is sent. A page asks it beside its other lookups, in one round trip;
    what the process keeps (:data:`SUSPENDED`) is not asked again."""
    wanted = sorted({u.lower() for u in userids})
    if not wanted:
        return frozenset
    return SUSPENDED.ask(pipe, wanted)


def _ask_disabled(pipe: ops.Pipeline, wanted: list[str]) -> Callable[[], dict[str, bool]]:
    """Whether each of ``wanted`` (lower-cased) is disabled, from their users
    rows' flags, once ``pipe`` is sent (an account not there: not)."""
    if not wanted:
        return dict
    reply = pipe.rows(table_name("users"), [keys.user_key(u) for u in wanted], [rows.DISABLED])

    def answer() -> dict[str, bool]:
        found = dict(reply.value)
        return {
            u: rows.decode_flag(found.get(keys.user_key(u), {}).get(rows.DISABLED)) for u in wanted
        }

    return answer


class SuspendedCache:
    """Who is suspended, of the accounts this process's pages showed: a page
    of 50 asks about some 40 users rows for it, the same authors page after
    page, and suspensions are rare. Kept (services._kept) under the one
    counter every suspension and reinstatement raises (the suspensions
    table's row), for at most TWITBASE_PAGE_CACHE_S seconds, at most MOST
    accounts.

    Each page reads the counter in its pipelined round trip, before the
    users rows of the accounts it does not know. Kept answers are used when
    the counter is the value they were kept under; when it moved, they are
    asked again (one more round trip, once per change in each process).
    :func:`set_disabled` raises the counter after the flag is written, so a
    suspension shows on every page read after it returns, whichever process
    reads. A crash between the flag and the raise leaves the old answer for
    the seconds at most; suspending again raises it.
    """

    MOST = 50_000

    def __init__(self) -> None:
        self._kept: Kept[tuple[int, dict[str, bool]]] = Kept(
            1, lambda: settings.TWITBASE_PAGE_CACHE_S
        )

    def ask(self, pipe: ops.Pipeline, wanted: list[str]) -> Callable[[], frozenset[str]]:
        if not settings.TWITBASE_PAGE_CACHE_S:
            fresh = _ask_disabled(pipe, wanted)
            return lambda: frozenset(u for u, on in fresh().items() if on)
        # Keyed by the users table's name: it carries the table prefix.
        key = table_name("users")
        seen, known = self._kept.get(key) or (None, {})
        # First: the rows asked after it are at least as new as the counter.
        counter = pipe.count(
            table_name("suspensions"), keys.SUSPENSIONS_ROW, rows.SUSPENSIONS_CHANGED
        )
        unknown = [u for u in wanted if u not in known]
        fresh = _ask_disabled(pipe, unknown)

        def answer() -> frozenset[str]:
            now, got = counter(), fresh()
            if now == seen:
                flags, new = merged(known, got, wanted, self.MOST)
                if new:
                    self._kept.keep(key, (now, flags))
            else:
                # The kept answers are of an older counter: ask for them again.
                again = [u for u in wanted if u in known]
                if again:
                    with connection() as conn, ops.pipelined(conn) as retry:
                        asked = _ask_disabled(retry, again)
                    got.update(asked())
                self._kept.keep(key, (now, got))
                flags = got
            return frozenset(u for u in wanted if flags[u])

        return answer

    def clear(self) -> None:
        self._kept.clear()


SUSPENDED = SuspendedCache()


def ask_users(pipe: ops.Pipeline, userids: Iterable[str]) -> Callable[[], Mapping[str, User]]:
    """:func:`users_of` as a call in ``pipe``: each of ``userids`` that has
    an account, by lower-cased userid, once ``pipe`` is sent."""
    wanted = sorted({u.lower() for u in userids})
    if not wanted:
        return dict
    wanted_keys = [keys.user_key(u) for u in wanted]
    reply = pipe.rows(table_name("users"), wanted_keys)

    def answer() -> Mapping[str, User]:
        found = dict(reply.value)
        pairs = zip(wanted, wanted_keys, strict=True)
        return _Users({u: row for u, k in pairs if rows.ACCOUNT in (row := found.get(k, {}))})

    return answer


class _Users(Mapping[str, User]):
    """Users rows by lower-cased userid, each made a User when first asked
    for: the suggestions box reads twenty candidates' rows in one round
    trip and shows the first five it may, and decoding a row is most of the
    cost of one (the account's JSON and two dataclasses)."""

    def __init__(self, found: dict[str, dict[bytes, bytes]]) -> None:
        self._rows = found
        self._users: dict[str, User] = {}

    def __getitem__(self, userid: str) -> User:
        user = self._users.get(userid)
        if user is None:
            made = _user_from_row(self._rows[userid])
            if made is None:  # never: only rows with an account are kept
                raise KeyError(userid)
            user = self._users[userid] = made
        return user

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def display_names(conn: happybase.Connection, userids: Iterable[str]) -> dict[str, str]:
    """Each of ``userids`` that has an account: its display name, by the
    lower-cased userid. One multi-get."""
    wanted = sorted({u.lower() for u in userids})
    if not wanted:
        return {}
    found = conn.table(table_name("users")).rows([keys.user_key(u) for u in wanted])
    users = (_user_from_row(row) for _, row in found)
    return {u.userid.lower(): u.name for u in users if u is not None}


def enabled(conn: happybase.Connection, userids: Iterable[str]) -> list[str]:
    """Of ``userids`` (lower-cased), those with an account that is not
    suspended, as they spell their userid, in the order given: one multi-get."""
    wanted = list(dict.fromkeys(userids))
    if not wanted:
        return []
    got = dict(
        conn.table(table_name("users")).rows(
            [keys.user_key(u) for u in wanted], columns=[rows.ACCOUNT, rows.DISABLED]
        )
    )
    found = []
    for u in wanted:
        row = got.get(keys.user_key(u), {})
        userid = rows.account_userid(row.get(rows.ACCOUNT, b""))
        if userid and not rows.decode_flag(row.get(rows.DISABLED)):
            found.append(userid)
    return found


def profiles_among(userids: Iterable[str]) -> frozenset[str]:
    """Of ``userids``, those with a profile a page can link to (an account,
    not suspended), lower-cased: one multi-get; what a twit's @mentions
    link to, so that @nosuchuser is not a link to a 404."""
    wanted = sorted({u.lower() for u in userids})
    if not wanted:
        return frozenset()
    with connection() as conn:
        return frozenset(u.lower() for u in enabled(conn, wanted))


def ref(userid: str) -> UserRef:
    user = get_user(userid)
    return UserRef(user.userid, user.name)


def _password_matches(userid: str | None, password: str) -> User | None:
    """The user whose password ``password`` is (enabled or not), else None.
    ``userid`` is None when it is not a valid userid: nothing is read then."""
    row: dict[bytes, bytes] = {}
    if userid is not None:
        with connection() as conn:
            row = conn.table(table_name("users")).row(keys.user_key(userid))
    stored = rows.decode_user(row)
    if stored is None:
        # Spend the same time as a real check, so timing does not reveal userids.
        make_password(password)
        return None
    if not check_password(password, stored.password):
        return None
    return _user(stored)


def authenticate(userid: str, password: str) -> User | None:
    """The user if the password matches and the account is enabled, else None."""
    if not isinstance(password, str):
        return None
    valid = isinstance(userid, str) and USERID_RE.fullmatch(userid)
    user = _password_matches(userid if valid else None, password)
    return None if user is None or user.disabled else user


def log_in(userid: object, password: object, address: str, device: object = None) -> User | None:
    """The user, for a log-in from client ``address``; None on wrong credentials.

    Throttled before the password hash is computed: RateLimited once the
    device (``device``, a device token for the account), or else the
    account's untrusted clients or the address, has had too many failures
    lately (see :mod:`feeds.services.ratelimit`). A right password for a disabled
    account is Forbidden, saying the account is suspended; a wrong one is
    just wrong, so the message does not tell strangers who is suspended.
    """
    if not isinstance(userid, str) or not isinstance(password, str):
        raise InvalidInput(None, "Send userid and password as strings.")
    known = userid if USERID_RE.fullmatch(userid) else None
    slots = ratelimit.admit_login(known, address, device)
    user = _password_matches(known, password)
    if user is None:
        return None
    ratelimit.release_login(slots)
    if user.disabled:
        raise Forbidden("This account is suspended.")
    return user


def reauthenticate(
    userid: str, password: str, credential: str, field: str, wrong: str
) -> rows.UserRow:
    """``userid``'s users row as stored, if ``password`` is its password: for
    an action that asks for the password again (a password change, an
    account's deletion). Throttled per ``credential`` (the caller's session
    or token: :func:`ratelimit.admit_reauth`), not by the log-in counts.
    NotFound without an account; InvalidInput naming ``field``, saying
    ``wrong``, for a wrong password."""
    slots = ratelimit.admit_reauth(credential)
    user = account_row(userid)
    if user is None:
        raise NotFound(f"No user {userid!r}.")
    if not check_password(password, user.password):
        raise InvalidInput(field, wrong)
    ratelimit.release_login(slots)
    return user


def change_password(userid: str, current: object, new: object, credential: str) -> User:
    """Replace the password and raise the auth generation, which ends every
    session and token of the account (the caller keeps its own, see
    :func:`feeds.services.tokens.change_password`). The current password is
    checked, throttled per ``credential`` (the caller's session or token,
    :func:`ratelimit.admit_reauth`), not by the log-in counts."""
    if not isinstance(current, str) or not isinstance(new, str):
        raise InvalidInput(None, "Send current_password and new_password as strings.")
    user = reauthenticate(
        userid, current, credential, "current_password", "That is not your current password."
    )
    return _replace_password(user, new)


def _replace_password(user: rows.UserRow, new: str) -> User:
    _check_password(new, user.userid, user.name, user.email, "new_password")
    record = rows.with_password(user.account, make_password(new))
    with connection() as conn:
        # Against the cell as read: of two changes racing, one wins, and the
        # other is told to try again rather than silently overwritten.
        won = check_and_put(
            conn,
            table_name("users"),
            keys.user_key(user.userid),
            rows.ACCOUNT,
            user.account,
            rows.ACCOUNT,
            record,
        )
    if not won:
        raise Conflict("The password was changed meanwhile; try again.")
    bump_generation(user.userid)
    return get_user(user.userid)


def check_new_password(userid: str, new: object) -> None:
    """InvalidInput naming ``new_password`` if :func:`set_password` would
    refuse ``new`` for ``userid`` (the rules of a password change)."""
    user = account_row(userid)
    if user is None:
        raise NotFound(f"No user {userid!r}.")
    _check_password(new, user.userid, user.name, user.email, "new_password")


def set_password(userid: str, new: object) -> User:
    """Replace the password without the current one (a password reset, whose
    caller has proved the account's email) and raise the auth generation,
    ending every session and token, as :func:`change_password` does."""
    user = account_row(userid)
    if user is None:
        raise NotFound(f"No user {userid!r}.")
    if not isinstance(new, str):
        raise InvalidInput("new_password", "Send new_password as a string.")
    return _replace_password(user, new)


def password_matches(userid: str, password: object) -> bool:
    """Whether ``password`` is ``userid``'s password (no throttling: the
    caller throttles)."""
    user = account_row(userid)
    if user is None or not isinstance(password, str):
        return False
    return check_password(password, user.password)


def two_factor_cell(userid: str) -> bytes | None:
    """``userid``'s two-factor cell as stored (None: never set), for
    :mod:`feeds.services.twofactor` to decode and to compare against."""
    with connection() as conn:
        row = conn.table(table_name("users")).row(keys.user_key(userid), columns=[rows.TWO_FACTOR])
    cell: bytes | None = row.get(rows.TWO_FACTOR)
    return cell


def swap_two_factor(userid: str, expected: bytes | None, new: bytes) -> bool:
    """Replace ``userid``'s two-factor cell with ``new`` if it still holds
    ``expected`` (None: never set); False if another change came first."""
    with connection() as conn:
        return check_and_put(
            conn,
            table_name("users"),
            keys.user_key(userid),
            rows.TWO_FACTOR,
            expected,
            rows.TWO_FACTOR,
            new,
        )


def _check_bio(bio: object) -> str:
    if not isinstance(bio, str):
        raise InvalidInput("bio", "Send the bio as a string.")
    bio = bio.strip()
    if len(bio) > BIO_MAX:
        raise InvalidInput("bio", f"A bio is at most {BIO_MAX} characters.")
    if has_control_chars(bio, allow_newlines=True):
        raise InvalidInput("bio", "A bio cannot contain control characters.")
    return bio


def update_profile(userid: str, name: object = None, bio: object = None) -> User:
    """Change the display name and/or the bio (None leaves either as is).

    Both are checked before anything is written, so bad input changes
    nothing. The name lives in the account cell and is replaced by a
    checkAndPut against the cell as read, as a password change is; twits
    already written keep the name they were posted under (it is
    denormalised into each twit row)."""
    clean_name = None if name is None else _check_name(name)
    clean_bio = None if bio is None else _check_bio(bio)
    key = keys.user_key(userid)
    with connection() as conn:
        table = conn.table(table_name("users"))
        user = rows.decode_user(table.row(key))
        if user is None:
            raise NotFound(f"No user {userid!r}.")
        if clean_name is not None and clean_name != user.name:
            won = check_and_put(
                conn,
                table_name("users"),
                key,
                rows.ACCOUNT,
                user.account,
                rows.ACCOUNT,
                rows.with_name(user.account, clean_name),
            )
            if not won:
                raise Conflict("The account was changed meanwhile; try again.")
            userindex.rename(conn, user.userid, user.name, clean_name)
        if clean_bio is not None:
            table.put(key, {rows.BIO: rows.encode_bio(clean_bio)})
    return get_user(user.userid)


def bump_generation(userid: str) -> int:
    """End every session and token ``userid`` has: raise the account's auth
    generation. Returns the new generation."""
    get_user(userid)
    with connection() as conn:
        return int(conn.table(table_name("users")).counter_inc(keys.user_key(userid), rows.AUTHGEN))


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
        conn.table(table_name("users")).put(keys.user_key(userid), {column: rows.encode_flag(on)})
    return get_user(userid)


def set_staff(userid: str, staff: bool = True) -> User:
    return _set_flag(userid, rows.STAFF, staff)


def set_disabled(userid: str, disabled: bool = True) -> User:
    """Disable (or enable) an account. Disabling ends every session and token
    for good: the flag first, then the generation, so a log-in racing with
    this either sees the flag or gets a credential of the old generation;
    re-enabling leaves the generation raised."""
    user = _set_flag(userid, rows.DISABLED, disabled)
    with connection() as conn:
        # After the flag: a kept answer renewed by this raise reads it.
        conn.table(table_name("suspensions")).counter_inc(
            keys.SUSPENSIONS_ROW, rows.SUSPENSIONS_CHANGED
        )
    if disabled:
        bump_generation(userid)
        user = get_user(userid)
    return user


def account_row(userid: str) -> rows.UserRow | None:
    """``userid``'s users row as stored, password hash and creation time
    included (None: no account): for account deletion."""
    with connection() as conn:
        return rows.decode_user(conn.table(table_name("users")).row(keys.user_key(userid)))


@read_only
def users_by_hash(user_hashes: Iterable[bytes]) -> dict[bytes, User]:
    """The users whose users row keys (md5 of the userid) are ``user_hashes``,
    by that key: one multi-get. A key without an account is left out."""
    wanted = sorted(set(user_hashes))
    if not wanted:
        return {}
    with connection() as conn:
        found = conn.table(table_name("users")).rows(wanted)
    return {key: user for key, row in found if (user := _user_from_row(row)) is not None}


def set_avatar_version(userid: str, version: int | None) -> None:
    """Name avatar ``version`` on ``userid``'s row (None: back to no avatar);
    the image itself is services/avatars.py's. Idempotent."""
    with connection() as conn:
        table = conn.table(table_name("users"))
        if version is None:
            table.delete(keys.user_key(userid), columns=[rows.AVATAR])
        else:
            table.put(keys.user_key(userid), rows.encode_avatar_version(version))


def forget_user(userid: str) -> None:
    """Delete ``userid``'s users row: the last step of an account deletion,
    which frees the userid. Idempotent."""
    with connection() as conn:
        conn.table(table_name("users")).delete(keys.user_key(userid))


def user_rows(
    account: bytes,
    userid: str,
    name: str,
    *,
    twits: int = 0,
    followers: int = 0,
    following: int = 0,
) -> list[LoadRow]:
    """The rows of a user whose account cell is ``account``
    (rows.encode_account), with these counts, as register and the counted
    posts and follows leave them: the users row and its userSearch rows.
    For the bulk loader; nothing is written."""
    cells = rows.encode_user(account, twits=twits, followers=followers, following=following)
    stored = rows.decode_user({rows.ACCOUNT: account})
    email = stored.email if stored is not None else ""
    return [
        ("users", keys.user_key(userid), cells, None),
        *userindex.load_rows(userid, name, email),
    ]


# -- counts kept in the users row ---------------------------------------------------------


def count_change(change: MarkedChange, userid: str, column: bytes, delta: int, op: bytes) -> bool:
    """Add ``delta`` to one of ``userid``'s counts (``rows.COUNT_*``: twits,
    followers, following) as part of ``change``, once."""
    return change.count(table_name("users"), keys.user_key(userid), column, delta, op)


def reacted_rows(userids: Iterable[str]) -> list[LoadRow]:
    """For the bulk loader, once it has written the likes and reposts of
    accounts it made: each one's REACTIONS_CHANGED counter at 1, as their
    first like through the services would leave it, so a process keeps
    their flags (reactions.FlagsCache asks about a counter of 0 every time).
    Written after the reactions, a page that reads it reads them too."""
    return [
        ("users", keys.user_key(u), {rows.REACTIONS_CHANGED: rows.encode_count(1)}, None)
        for u in userids
    ]


def bump(conn: happybase.Connection, userid: str, column: bytes) -> None:
    """Raise one of ``userid``'s change counters (``rows.FOLLOWERS_CHANGED``,
    ``rows.FOLLOWING_CHANGED``) by one: what caches of their graph compare."""
    conn.table(table_name("users")).counter_inc(keys.user_key(userid), column)


def set_pinned(userid: str, twit_id: str | None) -> None:
    """Pin the twit ``twit_id`` (checked by the caller to be the user's) on
    top of ``userid``'s profile; None unpins."""
    with connection() as conn:
        users = conn.table(table_name("users"))
        if twit_id is None:
            users.delete(keys.user_key(userid), columns=[rows.PINNED])
        else:
            users.put(keys.user_key(userid), {rows.PINNED: twit_id.encode()})


def mark_shields(conn: happybase.Connection, userids: Iterable[str], letter: str) -> None:
    """Set the ``letter`` mark of rows.SHIELD_MARKS in each of ``userids``'
    rows, before their first block or mute row of that kind is written:
    a reader's page looks those rows up only when its user has the mark."""
    (cell,) = [c for c, marked in rows.SHIELD_MARKS.items() if marked == letter]
    with conn.table(table_name("users")).batch() as batch:
        for userid in userids:
            batch.put(keys.user_key(userid), {cell: b"1"})


# -- the unread count (notify's, kept in the users row) ---------------------------------


def count_unread(
    conn: happybase.Connection, user_hash: bytes, op: bytes, change: MarkedChange | None = None
) -> None:
    """One more unread notification for the user keyed ``user_hash``, once
    for ``op``: through ``change`` when it is part of one."""
    if change is None:
        apply_once(conn, table_name("users"), user_hash, rows.COUNT_UNREAD, 1, op)
    else:
        change.count(table_name("users"), user_hash, rows.COUNT_UNREAD, 1, op)


@read_only
def unread(userid: str) -> int:
    """How many notifications arrived since ``userid`` last opened them: one cell."""
    with connection() as conn:
        pipe = ops.Pipeline(conn)
        answer = ask_unread(pipe, userid)
        pipe.send()
    return answer()


def ask_unread(pipe: ops.Pipeline, userid: str) -> Callable[[], int]:
    """:func:`unread` as a call in ``pipe``: its answer, once ``pipe`` is sent."""
    return pipe.count(table_name("users"), keys.user_key(userid), rows.COUNT_UNREAD)


def clear_unread(userid: str) -> None:
    """Set ``userid``'s unread count to 0, keeping the ids of the operations
    it has applied (so a late retry of one of them does not count it again)."""
    table = table_name("users")
    key = keys.user_key(userid)
    with connection() as conn:
        users = conn.table(table)
        while True:
            cell = users.row(key, columns=[rows.COUNT_UNREAD]).get(rows.COUNT_UNREAD)
            now = rows.decode_counted(cell)
            if cell is None or now.count == 0:
                return
            new = rows.encode_counted(dataclasses.replace(now, count=0))
            if check_and_put(conn, table, key, rows.COUNT_UNREAD, cell, rows.COUNT_UNREAD, new):
                return


def followers_of(conn: happybase.Connection, userid: str) -> tuple[int, bytes]:
    """How many follow ``userid``, as their users row counts them, and the
    version of that row their packed follower list must be made under
    (rows.follower_list_version): what a fan-out asks before it reads the
    followers."""
    profile = conn.table(table_name("users")).row(
        keys.user_key(userid),
        columns=[rows.ACCOUNT, rows.COUNT_FOLLOWERS, rows.FOLLOWERS_CHANGED],
        include_timestamp=True,
    )
    followers = rows.decode_count(profile.get(rows.COUNT_FOLLOWERS, (b"", 0))[0])
    return followers, rows.follower_list_version(profile)


# -- reads for the follow graph's suggestions ---------------------------------------------


def users_of(conn: happybase.Connection, userids: Iterable[str]) -> dict[str, User]:
    """Each of ``userids`` that has an account, by lower-cased userid: one
    multi-get of their users rows."""
    pipe = ops.Pipeline(conn)
    answer = ask_users(pipe, userids)
    pipe.send()
    return dict(answer())


def sample(conn: happybase.Connection, limit: int) -> list[User]:
    """The first ``limit`` users rows in key (md5) order, as accounts: an
    arbitrary sample, one scan."""
    found = conn.table(table_name("users")).scan(
        columns=[rows.ACCOUNT, rows.COUNT_FOLLOWERS, rows.DISABLED], limit=limit, batch_size=limit
    )
    users = (_user_from_row(row) for _, row in found)
    return [u for u in users if u is not None]
