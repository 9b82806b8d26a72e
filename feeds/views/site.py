"""The pages every site has: the health check, the favicon, and the page
of a form refused for its CSRF token."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static

from feeds import services
from feeds.viewhelpers import LOOPBACK, direct_from, visitor


def healthz(request: HttpRequest) -> JsonResponse:
    """200 when HBase and the broker answer, else 503 naming what is down:
    for load balancers, docker-compose and devstack.

    Everyone sees ok or down for each part. What went wrong (an exception's
    text names hosts and ports) and the table count are shown only to staff
    and to requests made straight from this host (loopback, no proxy header).
    A session is read from HBase, so while it is down only this host is told.
    """
    h = services.health()
    storage: dict[str, object] = {"ok": h.storage.ok}
    broker: dict[str, object] = {"ok": h.broker.ok}
    if direct_from(request, LOOPBACK) or (h.storage.ok and visitor(request).is_staff):
        storage |= {"detail": h.storage.detail, "tables": h.tables}
        broker |= {"detail": h.broker.detail}
    return JsonResponse(
        {"status": "ok" if h.ok else "down", "down": h.down, "storage": storage, "broker": broker},
        status=200 if h.ok else 503,
    )


def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers and tools ask for whatever a page links:
    the site's icon (a static file) rather than a 404 in the log."""
    return redirect(static("feeds/favicon.svg"))


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """The 403 of a form whose CSRF token is missing or stale (the
    CSRF_FAILURE_VIEW setting): Django's own view renders its template
    without the request, so the page lost its header's navigation."""
    return render(request, "403_csrf.html", status=403)
