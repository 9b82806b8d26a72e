"""Answers for requests that fail before or outside a view's own handling:
HBase unreachable (503), a body too large (413), a URL no pattern matches
(404). JSON under /api/, a styled page elsewhere; never Django's debug page,
which is for bugs, not outages or typos.

:class:`FailureMiddleware` sits right after SecurityMiddleware, so its answers
still carry the security headers. It refuses an oversized body from its
Content-Length before anything reads it (CsrfViewMiddleware reads a form POST
before any view could catch the error), and turns a :class:`StorageUnavailable`
from a view into the 503. One raised by another middleware or while Django
renders its own 404 page never reaches ``process_exception``; Django reports
it through ``got_request_exception``, which marks the request, and the
middleware puts the 503 in place of Django's 500 on the way out.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.signals import got_request_exception
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve

from storage.connection import StorageUnavailable, is_unreachable

API_PREFIX = "/api/"
_MARK = "_twitbase_storage_unavailable"


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def _page(template: str, status: int, context: dict[str, Any] | None = None) -> HttpResponse:
    # Rendered without the request: the page header would load the visitor's
    # profile from HBase, which may be what is down.
    return HttpResponse(render_to_string(template, context), status=status)


def storage_unavailable(request: HttpRequest, exc: StorageUnavailable) -> HttpResponse:
    """503 with Retry-After: JSON ``{"error"}`` on the API, the 503 page elsewhere."""
    if is_api(request):
        response: HttpResponse = JsonResponse(
            {"error": "The service is temporarily unavailable: storage cannot be reached."},
            status=503,
        )
    else:
        response = _page("503.html", 503, {"retry_after": exc.retry_after})
    response["Retry-After"] = str(exc.retry_after)
    return response


def max_body_bytes() -> int | None:
    limit: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return limit


# The attribute of a view that answers its own oversized bodies (see too_large).
TOO_LARGE_ANSWER = "too_large_answer"


def too_large(request: HttpRequest) -> HttpResponse:
    """413, unless the page's view answers an oversized body itself: given
    the declared size, before anything reads the body (the avatar upload
    sends the person back to the form with the error on its field)."""
    limit = max_body_bytes()
    if is_api(request):
        return JsonResponse(
            {"error": f"The request body is too large: at most {limit} bytes."}, status=413
        )
    try:
        answer = getattr(resolve(request.path_info).func, TOO_LARGE_ANSWER, None)
    except Resolver404:
        answer = None
    if answer is not None:
        response: HttpResponse = answer(request, _declared_length(request))
        return response
    return _page("413.html", 413, {"limit": limit})


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


@receiver(got_request_exception)
def _mark_storage_unavailable(
    sender: object, request: HttpRequest | None = None, **kw: Any
) -> None:
    exc = sys.exc_info()[1]
    if request is not None and exc is not None and is_unreachable(exc):
        setattr(request, _MARK, exc)


class FailureMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = max_body_bytes()
        if limit is not None and _declared_length(request) > limit:
            return too_large(request)
        response = self.get_response(request)
        exc = getattr(request, _MARK, None)
        if exc is not None:
            return storage_unavailable(request, as_unavailable(exc))
        return response

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if is_unreachable(exc):
            return storage_unavailable(request, as_unavailable(exc))
        return None


def as_unavailable(exc: BaseException) -> StorageUnavailable:
    """A raw transport error (from a scan consumed outside ``connection()``)
    gets the same answer as one :func:`storage.connection.connection` wrapped."""
    if isinstance(exc, StorageUnavailable):
        return exc
    return StorageUnavailable(f"{type(exc).__name__}: {exc}")


class NotFoundPageMiddleware:
    """The styled 404 page for a URL that no pattern matches, with DEBUG on too.

    With DEBUG on (as devstack runs) Django answers such a URL with its
    technical 404 page, listing every URL pattern; the handler404 setting is
    not consulted then. Resolving the path here, before Django does, answers
    the site's own page instead. It must come after CommonMiddleware, whose
    APPEND_SLASH turns this 404 into a redirect when the path with a slash
    exists (/console -> /console/), and after the session, auth and messages
    middleware, as the page's header shows the visitor.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            resolve(request.path_info, getattr(request, "urlconf", None))
        except Resolver404:
            return render(request, "404.html", status=404)
        return self.get_response(request)
