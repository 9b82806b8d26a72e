"""Log-in sessions over the HBase users table: no SQL anywhere.

django.contrib.auth's login() and its middleware assume a SQL user model
(an integer primary key, last_login saved on every log-in). TwitBase keeps
users in HBase, so it has its own small equivalents: the session (a signed
cookie) holds a session id and the userid it was issued for, and each
request looks it up through the services, which keep it in the tokens table
beside the API tokens (the session's row and its user's row in one round
trip: the userid says which user's row to read with it, the row decides).

A signed cookie cannot be deleted server-side, so it is not trusted alone:
logging out deletes the session's row, and "log out everywhere", a password
change or disabling the account raise the account's auth generation (see
feeds/services/tokens.py). A cookie saved from before is then refused, even
one signed with the right key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import rotate_token
from django.urls import reverse
from django.utils.functional import SimpleLazyObject

from feeds import services
from feeds.services.ratelimit import DEVICE_MAX_AGE_S
from feeds.types import User

SESSION_KEY = "sid"
# Whom the session is for, beside its id: the session's row and the user's
# are then read at once (services.session_user). The row decides; this only
# says which user's row to read with it.
USERID_KEY = "uid"


@dataclass(frozen=True)
class Anonymous:
    is_authenticated: bool = False
    is_anonymous: bool = True
    is_staff: bool = False
    userid: str = ""


@dataclass(frozen=True)
class SessionUser:
    """``request.user`` for a logged-in user."""

    profile: User
    is_authenticated: bool = True
    is_anonymous: bool = False

    @property
    def userid(self) -> str:
        return self.profile.userid

    @property
    def is_staff(self) -> bool:
        return self.profile.staff

    def __str__(self) -> str:
        return self.profile.userid


def login(request: HttpRequest, user: User) -> None:
    """Start a session for ``user``: a new session id and CSRF token. A
    session the request already had ends."""
    old = request.session.get(SESSION_KEY)
    if isinstance(old, str):
        services.revoke_token(old)
    request.session.cycle_key()
    request.session[SESSION_KEY] = services.start_session(user)
    request.session[USERID_KEY] = user.userid
    rotate_token(request)
    request.user = SessionUser(user)  # type: ignore[assignment]


# The device cookie (OWASP's, see feeds/services/ratelimit.py): a client that
# has logged in to an account keeps trying it against its own failure count,
# not the count strangers share. Sent to the log-in page only.
DEVICE_COOKIE = "twitbase_device"


def device(request: HttpRequest) -> str | None:
    """The device token this browser holds, if any (checked by the service)."""
    return request.COOKIES.get(DEVICE_COOKIE)


def remember_device(response: HttpResponse, user: User) -> HttpResponse:
    """Give the browser a new device token for ``user``, who just logged in."""
    response.set_cookie(
        DEVICE_COOKIE,
        services.device_token(user.userid),
        max_age=DEVICE_MAX_AGE_S,
        path=reverse("login"),
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return response


def session_id(request: HttpRequest) -> str:
    """The current session's id ("" for none): what a password change keeps."""
    sid = request.session.get(SESSION_KEY)
    return sid if isinstance(sid, str) else ""


def logout(request: HttpRequest) -> None:
    """End this session: its row goes, so a copy of the cookie is refused."""
    sid = session_id(request)
    if sid:
        services.revoke_token(sid)
    request.session.flush()
    request.user = Anonymous()  # type: ignore[assignment]


def _load(request: HttpRequest) -> SessionUser | Anonymous:
    sid = session_id(request)
    if not sid:
        return Anonymous()
    user = services.session_user(sid, request.session.get(USERID_KEY))
    if user is None:
        request.session.flush()
        return Anonymous()
    return SessionUser(user)


class SessionAuthMiddleware:
    """Sets ``request.user``, loading the profile only when a view asks."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.user = SimpleLazyObject(lambda: _load(request))  # type: ignore[assignment]
        return self.get_response(request)
