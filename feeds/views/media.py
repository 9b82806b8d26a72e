"""A twit's image, as stored (WebP): one URL per image for good, so it is
cached for good; an ETag answers a revalidation with a 304."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_http_methods

from feeds.services import media

from ._common import service_errors

FOREVER = "public, max-age=31536000, immutable"


@require_http_methods(["GET", "HEAD"])
@service_errors
def image(request: HttpRequest, media_id: str) -> HttpResponse:
    """The image ``media_id``; 404 if it is gone (its twit deleted, never
    posted and swept) or its uploader suspended."""
    found = media.get_image(media_id)
    headers = {
        "ETag": found.etag,
        "Cache-Control": FOREVER,
        # Served as what it is, never sniffed as anything else.
        "X-Content-Type-Options": "nosniff",
    }
    if found.etag in request.headers.get("If-None-Match", ""):
        return HttpResponse(status=304, headers=headers)
    return HttpResponse(found.image, content_type=found.content_type, headers=headers)
