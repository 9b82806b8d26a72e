"""The JSON API under /api/; ``GET /api/schema`` describes it (OpenAPI)."""

from __future__ import annotations

from django.urls import URLPattern, path, re_path

from . import endpoint, views

urlpatterns: list[URLPattern] = [
    path("login", views.login, name="api-login"),
    path("logout", views.logout, name="api-logout"),
    path("logout/everywhere", views.logout_everywhere, name="api-logout-everywhere"),
    path("password", views.password, name="api-password"),
    path("users", views.users, name="api-users"),
    path("users/<str:userid>", views.user, name="api-user"),
    path("users/<str:userid>/twits", views.timeline, name="api-timeline"),
    path("users/<str:userid>/followers", views.followers, name="api-followers"),
    path("users/<str:userid>/following", views.following, name="api-following"),
    path("follows/<str:userid>", views.follows, name="api-follows"),
    path("twits", views.twits, name="api-twits"),
    path("twits/<str:twit_id>", views.twit, name="api-twit"),
    path("stream", views.stream, name="api-stream"),
    path("schema", views.schema, name="api-schema"),
    # Last: the rest of /api/ answers a JSON 404, not the web UI's HTML page.
    re_path(r"^", endpoint.not_found),
]
