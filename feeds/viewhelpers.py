"""Helpers shared by the web UI's views and the staff console's."""

from __future__ import annotations

from typing import cast

from django.conf import settings
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme

from . import auth


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


def cursor_param(request: HttpRequest) -> str | None:
    return request.GET.get("cursor") or None


def visitor(request: HttpRequest) -> auth.SessionUser | auth.Anonymous:
    """``request.user`` as feeds.auth sets it (django-stubs types it as contrib.auth's)."""
    return cast("auth.SessionUser | auth.Anonymous", request.user)
