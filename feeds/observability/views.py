"""``GET /metrics``: the Prometheus exposition of this process, or of every
gunicorn worker process at once (multiprocess mode), and of the stack.

Never public. A request is answered when it carries ``Authorization: Bearer
<TWITBASE_METRICS_TOKEN>``, or when it comes straight from an address in
TWITBASE_METRICS_NETWORKS (loopback and the private ranges by default). A
request that came through a proxy (it has a Forwarded, X-Forwarded-For or
X-Real-IP header) does not count as coming from the proxy's private address:
behind a reverse proxy on the same network, everyone on the internet would.
Everything else gets 403.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    disable_created_metrics,
    multiprocess,
)
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from feeds.viewhelpers import direct_from

from .collector import STACK

# No "_created" series beside each counter and histogram (when each series
# began): Prometheus does not need them, and they would double the page.
# Multiprocess mode never writes them.
disable_created_metrics()  # type: ignore[no-untyped-call]


def allowed(request: HttpRequest) -> bool:
    """Whether ``request`` may read the metrics (see the module's docstring)."""
    token = settings.TWITBASE_METRICS_TOKEN
    if token:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), token.encode()
        ):
            return True
    return direct_from(request, settings.TWITBASE_METRICS_NETWORKS)


class _Exposition(Collector):
    """The stack's figures, and this process's metrics (or, with
    PROMETHEUS_MULTIPROC_DIR set, those every process wrote there)."""

    def collect(self) -> Iterable[Metric]:
        # The stack's reads first: the HBase errors they meet are then in
        # this scrape's counters, not the next one's.
        stack = list(STACK.collect())
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            processes = CollectorRegistry()
            # prometheus_client leaves this one class unannotated.
            multiprocess.MultiProcessCollector(processes)  # type: ignore[no-untyped-call]
            yield from processes.collect()
        else:
            yield from REGISTRY.collect()
        yield from stack


def metrics(request: HttpRequest) -> HttpResponse:
    if not allowed(request):
        return HttpResponse(
            "/metrics is served to private networks or with the bearer token "
            "(TWITBASE_METRICS_TOKEN).\n",
            status=403,
            content_type="text/plain; charset=utf-8",
        )
    encode, content_type = choose_encoder(request.headers.get("Accept", ""))
    response = HttpResponse(encode(_Exposition()), content_type=content_type)
    response["Cache-Control"] = "no-store"
    return response
