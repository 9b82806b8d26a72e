"""Two-factor sign-in: a TOTP code (RFC 6238, an authenticator app's six
digits) after the password, or one of ten single-use recovery codes.

The state is one cell of the users row (accounts owns it:
:func:`accounts.two_factor_cell`, :func:`accounts.swap_two_factor`): the
secret, whether enrolment was confirmed, the sha256 of each unused recovery
code, and the newest time step a code was accepted for. Every change is a
checkAndPut against the cell as read, so a code sent twice at once is
accepted once, and a TOTP code, once used, is refused for the rest of its
window (as are the codes of earlier steps).

Enrolment is two steps: :func:`begin` makes a secret (shown as an otpauth
URI and as text) and :func:`confirm` turns it on with a first code from the
app, returning the recovery codes, which are shown once and stored only
hashed. Turning it off asks for a code or the password (:func:`disable`);
staff can clear it for a user who lost both the app and the recovery codes
(:func:`clear`, through the console).

The secret is kept encrypted (:func:`_seal`): Fernet (AES-128-CBC with an
HMAC-SHA256) from the ``cryptography`` package, under a key derived by
HKDF-SHA256 from Django's SECRET_KEY and a context string of its own, so
whoever reads the users table (a backup, the console's row browser, an
export) cannot make codes without the web's settings too. A key of each of
SECRET_KEY_FALLBACKS still opens a cell, so the SECRET_KEY can be rotated as
Django's docs describe. A cell written before encryption holds the secret as
is (no ``f1:`` prefix) and still works; it is encrypted at its next write,
which every accepted code makes (the last time step moves on), so an account
is migrated the first time its owner signs in with a code.

Log-in (:func:`log_in` for the API, :func:`second_step` for the web's
second page) asks for a code after the right password; a wrong code counts
as a failed log-in (:func:`ratelimit.admit_login`).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

import pyotp
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.encoding import force_bytes

from feeds.errors import Conflict, InvalidInput
from feeds.types import User
from storage import rows

from . import accounts, ratelimit

ISSUER = "TwitBase"
RECOVERY_CODES = 10
# Codes of the step before and after now are accepted too: clocks drift.
DRIFT_STEPS = 1
_RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i


class CodeRequired(InvalidInput):
    """The password was right; the account asks for a two-factor code too."""

    status = 401

    def __init__(self) -> None:
        super().__init__("code", "This account uses two-factor sign-in: send a code as well.")


@dataclass(frozen=True)
class Status:
    enabled: bool
    recovery_codes_left: int


@dataclass(frozen=True)
class Enrolment:
    """A secret waiting for its first code: what an authenticator app takes."""

    secret: str  # base32
    uri: str  # otpauth://totp/...


def _now() -> float:
    """Seconds since the epoch: the clock codes are checked against."""
    return time.time()


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def _normal(code: str) -> str:
    return "".join(code.split()).replace("-", "").lower()


def _new_recovery_codes() -> list[str]:
    codes = []
    for _ in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(10))
        codes.append(f"{raw[:5]}-{raw[5:]}")
    return codes


# What a sealed secret starts with, in the cell; a cell without it is plain
# (written before the secret was encrypted).
_SEALED = "f1:"
# HKDF's context: a key for this use alone, unlike any other derived from
# the same SECRET_KEY.
_KEY_CONTEXT = b"twitbase two-factor secret v1"


def _fernet(secret_key: str | bytes) -> Fernet:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_KEY_CONTEXT)
    return Fernet(base64.urlsafe_b64encode(hkdf.derive(force_bytes(secret_key))))


def _keys() -> MultiFernet:
    """SECRET_KEY's key first (it seals), then each fallback's (they open)."""
    return MultiFernet(
        [_fernet(key) for key in (settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS)]
    )


def _seal(secret: str) -> str:
    return _SEALED + _keys().encrypt(secret.encode()).decode()


def _open(stored: str) -> str:
    if not stored.startswith(_SEALED):
        return stored  # plain: sealed at the cell's next write
    try:
        return _keys().decrypt(stored[len(_SEALED) :].encode()).decode()
    except InvalidToken:
        raise ImproperlyConfigured(
            "A two-factor secret was sealed under a SECRET_KEY that is neither "
            "DJANGO_SECRET_KEY nor one of SECRET_KEY_FALLBACKS: keep the old key as a "
            "fallback, or have staff clear the account's two-factor sign-in."
        ) from None


def _encode(state: rows.TwoFactorRow) -> bytes:
    """The cell of ``state``, whose secret is plain, with the secret sealed."""
    return rows.encode_two_factor(dataclasses.replace(state, secret=_seal(state.secret)))


def _decode(cell: bytes | None) -> rows.TwoFactorRow | None:
    """The state in ``cell``, its secret opened (plain)."""
    state = rows.decode_two_factor(cell)
    if state is None:
        return None
    return dataclasses.replace(state, secret=_open(state.secret))


def _state(userid: str) -> tuple[bytes | None, rows.TwoFactorRow | None]:
    cell = accounts.two_factor_cell(userid)
    return cell, _decode(cell)


def status(userid: str) -> Status:
    state = _state(userid)[1]
    if state is None or not state.confirmed:
        return Status(False, 0)
    return Status(True, len(state.codes))


def enabled(userid: str) -> bool:
    return status(userid).enabled


def _enrolment(userid: str, secret: str) -> Enrolment:
    uri = pyotp.TOTP(secret).provisioning_uri(name=userid, issuer_name=ISSUER)
    return Enrolment(secret, uri)


def pending(userid: str) -> Enrolment | None:
    """The enrolment :func:`begin` made and no code has confirmed yet, if any."""
    state = _state(userid)[1]
    if state is None or state.confirmed:
        return None
    return _enrolment(userid, state.secret)


def begin(userid: str) -> Enrolment:
    """A new secret for ``userid``, not in force until :func:`confirm`. A
    secret begun before and not confirmed is replaced. Conflict when
    two-factor sign-in is on already (turn it off first)."""
    user = accounts.get_user(userid)
    cell, state = _state(userid)
    if state is not None and state.confirmed:
        raise Conflict("Two-factor sign-in is on already; turn it off first.")
    secret = pyotp.random_base32()
    pending = rows.TwoFactorRow(secret=secret, confirmed=False, codes=(), step=0)
    if not accounts.swap_two_factor(userid, cell, _encode(pending)):
        raise Conflict("Two-factor sign-in was changed meanwhile; try again.")
    return _enrolment(user.userid, secret)


def _totp_step(secret: str, code: str, after: int) -> int | None:
    """The time step ``code`` is the code of, near now and after step
    ``after``; None if none."""
    if not (len(code) == 6 and code.isdigit()):
        return None
    totp = pyotp.TOTP(secret)
    now = int(_now()) // totp.interval
    for step in range(now - DRIFT_STEPS, now + DRIFT_STEPS + 1):
        if step > after and hmac.compare_digest(totp.generate_otp(step), code):
            return step
    return None


def confirm(userid: str, code: object) -> tuple[str, ...]:
    """Turn two-factor sign-in on with a first code of the secret
    :func:`begin` made; return the ten recovery codes, shown this once.
    InvalidInput naming ``code`` for a wrong code; Conflict when there is
    no enrolment to confirm."""
    if not isinstance(code, str):
        raise InvalidInput("code", "Send the code as a string.")
    cell, state = _state(userid)
    if state is None or state.confirmed:
        raise Conflict("There is no enrolment to confirm: begin one first.")
    step = _totp_step(state.secret, _normal(code), state.step)
    if step is None:
        raise InvalidInput("code", "That code is not right. Enter the one your app shows now.")
    codes = _new_recovery_codes()
    on = rows.TwoFactorRow(state.secret, True, tuple(_hash(_normal(c)) for c in codes), step)
    if not accounts.swap_two_factor(userid, cell, _encode(on)):
        raise Conflict("Two-factor sign-in was changed meanwhile; try again.")
    return tuple(codes)


def use_code(userid: str, code: object) -> bool:
    """Whether ``code`` is a TOTP code of ``userid``'s not used before, or
    one of their unused recovery codes; either is used up by this call (a
    checkAndPut: of two uses at once, one wins). False when two-factor
    sign-in is off."""
    if not isinstance(code, str):
        return False
    typed = _normal(code)
    while True:
        cell, state = _state(userid)
        if state is None or not state.confirmed:
            return False
        step = _totp_step(state.secret, typed, state.step)
        if step is not None:
            after = rows.TwoFactorRow(state.secret, True, state.codes, step)
        elif _hash(typed) in state.codes:
            left = tuple(c for c in state.codes if c != _hash(typed))
            after = rows.TwoFactorRow(state.secret, True, left, state.step)
        else:
            return False
        if accounts.swap_two_factor(userid, cell, _encode(after)):
            return True
        # Changed meanwhile (another code used): look again, with what won.


def second_step(userid: str, code: object, address: str, device: object = None) -> User | None:
    """The user, once ``code`` (a TOTP or recovery code) is right, for the
    web's second log-in page; None for a wrong one, counted as a failed
    log-in (RateLimited once too many have failed)."""
    slots = ratelimit.admit_login(userid, address, device)
    if not use_code(userid, code):
        return None
    ratelimit.release_login(slots)
    return accounts.get_user(userid)


def log_in(
    userid: object, password: object, code: object, address: str, device: object = None
) -> User | None:
    """:func:`accounts.log_in`, then, for an account with two-factor
    sign-in on, the code: CodeRequired when ``code`` is None, None when it
    is wrong (a failed log-in)."""
    user = accounts.log_in(userid, password, address, device)
    if user is None or not enabled(user.userid):
        return user
    if code is None:
        raise CodeRequired()
    return second_step(user.userid, code, address, device)


def disable(userid: str, code_or_password: object, credential: str) -> None:
    """Turn two-factor sign-in off, given a current code (TOTP or recovery)
    or the account's password; wrong guesses count per session or token
    ``credential`` (:func:`ratelimit.admit_reauth`). InvalidInput naming
    ``code`` for a wrong one; nothing happens when it is off already."""
    if not isinstance(code_or_password, str):
        raise InvalidInput("code", "Send a code or your password as a string.")
    cell, state = _state(userid)
    if state is None:
        return
    slots = ratelimit.admit_reauth(credential)
    if not (
        use_code(userid, code_or_password) or accounts.password_matches(userid, code_or_password)
    ):
        raise InvalidInput("code", "That is neither a current code nor your password.")
    ratelimit.release_login(slots)
    while not accounts.swap_two_factor(userid, cell, rows.TWO_FACTOR_OFF):
        cell, state = _state(userid)
        if state is None:
            return


def clear(userid: str) -> bool:
    """Turn ``userid``'s two-factor sign-in off (or drop an enrolment begun)
    without a code or the password, for staff helping a user who lost the
    app and the recovery codes (console.moderation.clear_two_factor), and
    end every session and API token of the account, as a password change
    does: a session someone else opened with the lost factor ends too. The
    password alone logs in afterwards. False, changing nothing, when there
    was nothing to clear. NotFound for an unknown userid."""
    accounts.get_user(userid)
    cell, state = _state(userid)
    while state is not None:
        if accounts.swap_two_factor(userid, cell, rows.TWO_FACTOR_OFF):
            accounts.bump_generation(userid)
            return True
        cell, state = _state(userid)
    return False


def regenerate_codes(userid: str, code: object) -> tuple[str, ...]:
    """Ten new recovery codes in place of the old ones, given a current
    code; InvalidInput naming ``code`` for a wrong one."""
    if not use_code(userid, code):
        raise InvalidInput("code", "That code is not right.")
    codes = _new_recovery_codes()
    while True:
        cell, state = _state(userid)
        if state is None or not state.confirmed:
            raise Conflict("Two-factor sign-in is off.")
        after = rows.TwoFactorRow(
            state.secret, True, tuple(_hash(_normal(c)) for c in codes), state.step
        )
        if accounts.swap_two_factor(userid, cell, _encode(after)):
            return tuple(codes)
