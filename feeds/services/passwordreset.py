"""Password reset by email: a link to the account's address that sets a new
password once.

The link carries a reset token (:func:`feeds.services.tokens.issue_reset`):
stored as its sha256 only, like every credential, in the tokens table; it
works for an hour, once, and only while the account's auth generation is
the one it was issued at, so a password change, another reset or "log out
everywhere" kills every link sent before.

A request answers the same whether or not the account exists: nothing
tells a stranger which userids are taken. That holds for the answer's time
too: the request only counts the rate limits and hands a
:class:`~feeds.jobs.SendPasswordReset` job to the background, which looks
the account up, makes the token and talks to the SMTP server
(:func:`send_reset`). So a slow mail server slows no page, and an address
that has an account answers as fast as one that has not. (With the broker
down the job runs in the request, as every small job does, rather than be
lost: then the time shows it again, for as long as the broker is down.)

"Forgot your userid?": the request may name an email address instead. The
link then goes to that address for each enabled account registered with it
(found through the userSearch index, :func:`userindex.userids_by_email`,
each checked against its users row), by a
:class:`~feeds.jobs.SendPasswordResetsTo` job, so an address with accounts
answers like one without. Its limits: the client address's, as for a
userid, and the per-account limit counted once for the email address in
the request and once for each account it finds in the job, so alternating
a userid and its address gets no more links than the userid alone.

The job carries the userid and the site's address, never the token: the
worker makes the token as it sends, so the broker, which any worker host
can read, never holds a working link. A job run twice (a retry after the
SMTP server failed, a redelivery) sends a second link; both work, once,
until either is used or they expire. Setting the password follows a
password change's rules and raises the auth generation, which ends every
session and API token of the account. Two-factor sign-in, when enrolled,
is still asked for at the next log-in: a reset proves the email, not the
second factor.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.urls import reverse

from feeds.errors import InvalidInput
from feeds.jobs import SendPasswordReset, SendPasswordResetsTo, dispatch
from feeds.types import User

from . import accounts, ratelimit, tokens, userindex

INVALID_LINK = "This reset link is invalid, used or expired. Ask for a new one."
SUBJECT = "Reset your TwitBase password"
EMAIL_MAX = 254  # characters of an address (RFC 5321's path, less its brackets)


def reset_path(token: str) -> str:
    """The page a reset link opens (the site's address goes before it)."""
    return reverse("password_reset_confirm", args=[token])


def request_reset(userid: object, site: str, address: str) -> None:
    """Have ``userid``'s account emailed a reset link on ``site`` (scheme and
    host, e.g. ``https://twitbase.example``) if there is such an enabled
    account; return the same, and say nothing, if there is not. ``userid``
    may be an email address instead: then each enabled account registered
    with it is sent a link, to it (:func:`send_resets_to`).

    InvalidInput naming ``userid`` only when ``userid`` is neither a userid
    nor an email address at all (no account could have it). RateLimited
    beyond the resets asked from client ``address``, or for one userid (or
    email address), a minute: counted whether or not the
    account exists, so the limit tells nothing either. The email goes from
    the background (:func:`send_reset`): the work here is the same for any
    userid. Each call sends a new link; earlier ones keep working until one
    is used or they expire.
    """
    if isinstance(userid, str) and "@" in userid:
        request_reset_by_email(userid, site, address, field="userid")
        return
    userid = accounts.check_userid(userid)
    ratelimit.check(ratelimit.PASSWORD_RESETS_PER_ADDRESS, address)
    ratelimit.check(ratelimit.PASSWORD_RESETS, userid.lower())
    dispatch(SendPasswordReset(userid, site))


def send_reset(userid: str, site: str) -> bool:
    """Email ``userid``'s enabled account a new reset link on ``site``; False,
    and nothing sent, when there is no such account (the background job of
    :func:`request_reset`)."""
    user = accounts.find_user(userid)
    if user is None or user.disabled:
        return False
    token = tokens.issue_reset(user)
    link = site.rstrip("/") + reset_path(token)
    minutes = tokens.RESET_TTL_S // 60
    send_mail(
        SUBJECT,
        f"Hello {user.name},\n\n"
        f"Someone, hopefully you, asked to reset the password of @{user.userid} "
        f"on TwitBase. To choose a new one, open this link within {minutes} minutes:\n\n"
        f"{link}\n\n"
        "It works once. Setting a new password logs you out on every device and "
        "ends every API token. If you did not ask, ignore this email: your "
        "password stays as it is.\n",
        settings.DEFAULT_FROM_EMAIL,
        [user.email],
    )
    return True


def request_reset_by_email(email: object, site: str, address: str, field: str = "email") -> None:
    """:func:`request_reset` for an email address ("forgot your userid?"):
    each enabled account registered with ``email`` is sent a link, to it.
    InvalidInput naming ``field`` when ``email`` is no email address."""
    if not isinstance(email, str):
        raise InvalidInput(field, "Send the email address as a string.")
    email = email.strip()
    try:
        if len(email) > EMAIL_MAX:
            raise ValidationError("too long")
        validate_email(email)
    except ValidationError:
        raise InvalidInput(
            field, "Enter your userid, or the email address of your account."
        ) from None
    ratelimit.check(ratelimit.PASSWORD_RESETS_PER_ADDRESS, address)
    # Keyed by the normalised address: no userid holds an "@".
    ratelimit.check(ratelimit.PASSWORD_RESETS, userindex.normalise(email))
    dispatch(SendPasswordResetsTo(email, site))


def send_resets_to(email: str, site: str) -> int:
    """Email a new reset link on ``site`` to ``email`` for each enabled
    account registered with it, within each account's reset limit; how many
    were sent (the background job of :func:`request_reset` for an address).
    The index finds the accounts; each users row must still hold ``email``
    (normalised alike)."""
    wanted = userindex.normalise(email)
    sent = 0
    for userid in userindex.userids_by_email(email):
        user = accounts.find_user(userid)
        if user is None or user.disabled or userindex.normalise(user.email) != wanted:
            continue
        try:
            ratelimit.check(ratelimit.PASSWORD_RESETS, user.userid.lower())
        except ratelimit.RateLimited:
            continue
        sent += send_reset(user.userid, site)
    return sent


def reset_user(token: object) -> User | None:
    """The account a reset link is for, while the link still works; None if
    it does not (the page then says so before asking for a password)."""
    return tokens.reset_user(token)


def confirm_reset(token: object, new_password: object) -> User:
    """Set the password of the account ``token`` is a reset link for, and end
    every session and API token of it. InvalidInput naming ``token`` for a
    link that is invalid, used or expired (a replay changes nothing), or
    naming ``new_password`` for a password a change would refuse; that
    refusal leaves the link unused."""
    user = tokens.reset_user(token)
    if user is None or not isinstance(token, str):
        raise InvalidInput("token", INVALID_LINK)
    accounts.check_new_password(user.userid, new_password)
    # Spent before the password is set: of two confirmations racing, one
    # sets it, and a crash in between costs the user a new link, not safety.
    if not tokens.claim_reset(token, user):
        raise InvalidInput("token", INVALID_LINK)
    return accounts.set_password(user.userid, new_password)
