"""A user's avatar image: the one they uploaded, or their initial on their colour."""

from __future__ import annotations

from html import escape

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_http_methods

from feeds import services
from feeds.templatetags.ui import hue
from feeds.types import User

from ._common import not_found, service_errors

# An avatar URL with ?v=<version> names one image for good; without it, the
# browser asks again each time (ETag, so unchanged costs a 304).
AVATAR_FOREVER = "public, max-age=31536000, immutable"
AVATAR_REVALIDATE = "public, no-cache"


def _default_avatar(user: User) -> bytes:
    """The avatar of someone who has uploaded none: their initial on their colour."""
    initial = escape(user.name[:1].upper() or "?")
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="256" height="256">'
        f'<circle cx="32" cy="32" r="32" fill="hsl({hue(user.userid)} 65% 55%)"/>'
        '<text x="32" y="42" text-anchor="middle" font-family="system-ui,sans-serif" '
        f'font-size="28" font-weight="700" fill="#fff">{initial}</text></svg>'
    ).encode()


@require_http_methods(["GET", "HEAD"])
@service_errors
def avatar(request: HttpRequest, userid: str) -> HttpResponse:
    """A user's avatar (WebP), or their default (SVG) if they have none; 404
    for no such user, and for a suspended one, as their profile. Cached for
    good under ``?v=`` with its version, else revalidated by ETag."""
    found = services.get_avatar(userid)
    if found is None:
        user = services.find_user(userid)
        if user is None:
            return not_found(request)
        body, content_type = _default_avatar(user), "image/svg+xml"
        etag = f'"d{hue(user.userid)}-{user.name[:1].encode().hex()}"'
    else:
        body, content_type, etag = found.image, found.content_type, f'"{found.version}"'
    forever = found is not None and request.GET.get("v") == str(found.version)
    headers = {"ETag": etag, "Cache-Control": AVATAR_FOREVER if forever else AVATAR_REVALIDATE}
    if etag in request.headers.get("If-None-Match", ""):
        return HttpResponse(status=304, headers=headers)
    return HttpResponse(body, content_type=content_type, headers=headers)
