from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from . import services


def healthz(request: HttpRequest) -> JsonResponse:
    """200 when HBase answers, 503 otherwise: for load balancers and devstack."""
    h = services.health()
    return JsonResponse(
        {"hbase": "ok" if h.hbase_ok else "down", "tables": h.tables, "detail": h.detail},
        status=200 if h.hbase_ok else 503,
    )
