"""Helpers shared by the web UI's views and the staff console's: safe
redirects, the visitor, and the 405 page of a POST-only URL."""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Callable, Iterable
from functools import wraps
from typing import TypeAlias, cast

from django.conf import settings
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme

from . import auth, services
from .services import messages


def safe_next(request: HttpRequest, default: str, param: str = "next") -> str:
    """The ``next`` parameter (or ``param``) if it is a path on this site,
    else ``default``.

    Checked so that a crafted link cannot send a user elsewhere after logging in.
    """
    target = request.POST.get(param) or request.GET.get(param) or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


def redirect_to_login(back: str) -> HttpResponse:
    """To the login page, with ``?next=`` to come back to ``back`` afterwards.

    (django.contrib.auth's helper of the same name would import its SQL models.)
    """
    query = QueryDict(mutable=True)
    query["next"] = back
    return redirect(f"{resolve_url(settings.LOGIN_URL)}?{query.urlencode(safe='/')}")


def client_address(request: HttpRequest) -> str:
    """The address failed log-ins are counted by: REMOTE_ADDR, the peer.

    Behind a reverse proxy that is the proxy's address, so the per-address
    limit then counts everyone together; the per-account limit still holds.
    """
    return str(request.META.get("REMOTE_ADDR") or "")


# A request that came through a proxy carries one of these: its peer is then
# the proxy, not the client.
PROXY_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Real-IP")
Network: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network
LOOPBACK: tuple[Network, ...] = (
    ipaddress.ip_network("127.0.0.0/8"),
    ipaddress.ip_network("::1/128"),
)


def direct_from(request: HttpRequest, networks: Iterable[Network]) -> bool:
    """Whether ``request`` came straight from an address in ``networks``:
    its peer (REMOTE_ADDR) is in one, and it has no proxy header. Behind a
    reverse proxy on the same host or network, the peer is the proxy's
    address for everyone on the internet, so a forwarded request never counts.
    """
    if any(header in request.headers for header in PROXY_HEADERS):
        return False
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:  # none (a Unix socket), or not an address
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in networks)


def cursor_param(request: HttpRequest) -> str | None:
    return request.GET.get("cursor") or None


def visitor(request: HttpRequest) -> auth.SessionUser | auth.Anonymous:
    """``request.user`` as feeds.auth sets it (django-stubs types it as contrib.auth's)."""
    return cast("auth.SessionUser | auth.Anonymous", request.user)


View: TypeAlias = Callable[..., HttpResponse]
Explain: TypeAlias = Callable[..., dict[str, object]]


def post_only(explain: Explain) -> Callable[[View], View]:
    """Like Django's require_POST, but any other method gets the 405 page
    (with ``Allow: POST``) instead of a blank answer: a heading and a reason
    from ``explain(request, *args, **kwargs)``, and a way forward, either the
    button that does it (``action``, ``action_label``) or a link
    (``link``, ``link_label``), or both."""

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            if request.method != "POST":
                context = explain(request, *args, **kwargs)
                response = render(request, "405.html", context, status=405)
                response["Allow"] = "POST"
                return response
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def _badges(request: HttpRequest) -> tuple[int | None, int | None]:
    """The signed-in user's unread notifications and direct messages, read
    together (services.messages.unread_badges: one round trip) the first time a page
    shows either, and kept for the rest of the request; (None, None) for a
    visitor, or while storage is down: a page still renders."""
    held = getattr(request, "_unread_badges", None)
    if held is None:
        user = visitor(request)
        held = (None, None)
        if isinstance(user, auth.SessionUser):
            with contextlib.suppress(services.StorageUnavailable):
                held = messages.unread_badges(user.userid)
        request._unread_badges = held  # type: ignore[attr-defined]
    return held


def unread_notifications(request: HttpRequest) -> dict[str, object]:
    """A context processor: ``unread_notifications``, the signed-in user's
    unread count for the top bar, read only if a page shows it (:func:`_badges`)."""
    return {"unread_notifications": lambda: _badges(request)[0]}


def unread_messages(request: HttpRequest) -> dict[str, object]:
    """A context processor: ``unread_messages``, the signed-in user's unread
    direct messages for the top bar, read with ``unread_notifications``."""
    return {"unread_messages": lambda: _badges(request)[1]}
