from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("api/", include("feeds.api.urls")),
    path("console/", include("feeds.console.urls")),
    path("", include("feeds.urls")),
]
