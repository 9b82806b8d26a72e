"""The JSON API under /api/; ``GET /api/schema`` describes it (OpenAPI),
``GET /api/docs`` shows that as a page."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path, re_path

from . import blocks, bookmarks, edits, lists, media, messages, quotes, recovery, reports, views  # noqa: F401  (registers the operations on the api)
from .docs import docs
from .endpoint import api, json_refusals, not_found


def _routes() -> list[URLPattern | URLResolver]:
    """ninja's routes, one per path (ninja gives one per operation), with JSON 405s."""
    patterns: dict[str, URLPattern] = {}
    for pattern in api.urls[0]:
        assert isinstance(pattern, URLPattern)
        route = str(pattern.pattern)
        if pattern.name and pattern.name != "api-root" and route not in patterns:
            patterns[route] = path(route, json_refusals(pattern.callback), name=pattern.name)
    return list(patterns.values())


urlpatterns: list[URLPattern | URLResolver] = [
    *_routes(),
    path("docs", json_refusals(docs), name="api-docs"),
    # Last: the rest of /api/ answers a JSON 404, not the web UI's HTML page.
    re_path(r"^", not_found),
]
