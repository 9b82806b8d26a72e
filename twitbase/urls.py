from __future__ import annotations

from django.urls import include, path

from feeds.observability.views import metrics

urlpatterns = [
    # Prometheus, for private addresses or a bearer token (feeds/observability/views.py).
    path("metrics", metrics, name="metrics"),
    path("api/", include("feeds.api.urls")),
    path("console/", include("feeds.console.urls")),
    path("", include("feeds.urls")),
]
