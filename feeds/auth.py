"""Log-in sessions over the HBase users table: no SQL anywhere.

django.contrib.auth's login() and its middleware assume a SQL user model
(an integer primary key, last_login saved on every log-in). TwitBase keeps
users in HBase, so it has its own small equivalents: the session (a signed
cookie) holds the userid, and each request loads the profile through the
services. A disabled account is logged out on its next request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import rotate_token
from django.utils.functional import SimpleLazyObject

from feeds import services
from feeds.types import User

SESSION_KEY = "userid"


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
    """Start a session for ``user``: a new session key and CSRF token."""
    request.session.cycle_key()
    request.session[SESSION_KEY] = user.userid
    rotate_token(request)
    request.user = SessionUser(user)  # type: ignore[assignment]


def logout(request: HttpRequest) -> None:
    request.session.flush()
    request.user = Anonymous()  # type: ignore[assignment]


def _load(request: HttpRequest) -> SessionUser | Anonymous:
    userid = request.session.get(SESSION_KEY)
    if not userid:
        return Anonymous()
    user = services.find_user(userid)
    if user is None or user.disabled:
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
