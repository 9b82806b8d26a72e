"""Times every request into ``twitbase_http_request_duration_seconds`` and
names it in the log lines written while it is served (twitbase.logconfig).

First in MIDDLEWARE, so the time includes every other middleware: the HTTPS
redirect, static files, the 413 and 503 answers.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from prometheus_client import Histogram

from twitbase import logconfig

REQUESTS = Histogram(
    "twitbase_http_request_duration_seconds",
    "Time from the first middleware to the response, by URL pattern, method and status class",
    ["route", "method", "status"],
)

# Any other method (a client may send anything) is "other": labels stay few.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# A path no URL pattern matched (404s, and requests answered before Django
# resolves the URL: HTTPS redirects, static files, 413s).
UNMATCHED = "unmatched"
# A client's X-Request-ID is kept when it looks like an id; else one is made.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def route_of(request: HttpRequest) -> str:
    """The URL pattern that served ``request`` ("/u/<str:userid>"), not its path."""
    match = getattr(request, "resolver_match", None)
    return "/" + str(match.route) if match is not None else UNMATCHED


def request_id(request: HttpRequest) -> str:
    given = request.headers.get("X-Request-ID", "")
    return given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex[:16]


class RequestMetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        method = request.method if request.method in METHODS else "other"
        request.META[logconfig.REQUEST_ID] = request_id(request)
        serving = logconfig.current_request.set(request)
        started = time.perf_counter()
        status = "5xx"  # if a response never comes (Django turns exceptions into 500s)
        try:
            response = self.get_response(request)
            status = f"{response.status_code // 100}xx"
            return response
        finally:
            REQUESTS.labels(route_of(request), method, status).observe(
                time.perf_counter() - started
            )
            logconfig.current_request.reset(serving)
