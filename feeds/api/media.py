"""Images for twits over the API: ``POST /api/media`` (multipart: ``file``
and ``alt``) stores one and gives its id, which ``POST /api/twits`` then
lists in ``images``. On the same :data:`~feeds.api.endpoint.api` as
:mod:`.views`, so ``GET /api/schema`` documents it with the rest."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from ninja import File, Form, Status, UploadedFile
from pydantic import Field

from feeds.services import images, media, ratelimit
from feeds.types import TwitImage

from .endpoint import api, caller, operation
from .schemas import Answer

MEDIA_ID_PATTERN = f"^[0-9a-f]{{{56}}}$"


class Media(Answer):
    id: str = Field(
        description="Its id: list it in `images` of `POST /api/twits`.",
        json_schema_extra=dict(pattern=MEDIA_ID_PATTERN),
    )
    alt: str = Field(description="The alt text, trimmed.", json_schema_extra=dict(maxLength=1000))
    width: int = Field(description="Width in px, as stored.", ge=1)
    height: int = Field(description="Height in px, as stored.", ge=1)
    url: str = Field(description="Where the image is served (cacheable for good).")


_LIMITS = (
    f"PNG, JPEG, WebP or GIF, at most {media.MAX_BYTES // (1024 * 1024)} MB and "
    f"{images.max_pixels() / 1_000_000:g} megapixels; turned upright (EXIF) and stored as a "
    f"WebP of at most {media.MAX_SIDE} px a side."
)


@api.post(
    "/media",
    operation_id="uploadMedia",
    summary="Upload an image for a twit",
    description=f"Multipart form: `file` ({_LIMITS}) and `alt`, its alt text (at most "
    f"{media.MAX_ALT} characters). Only you can attach it, to one twit, within a day: "
    "an image no twit uses by then is deleted. A refused upload stores nothing.",
    **operation(
        {201: Media},
        400,
        429,
        descriptions={
            201: "The image, stored; its id goes in a twit's `images`.",
            429: ratelimit.IMAGE_UPLOADS.describe(),
        },
        auth=True,
        body=True,
    ),
)
def upload(
    request: HttpRequest,
    response: HttpResponse,
    file: File[UploadedFile],
    alt: Form[str] = "",
) -> Status[TwitImage]:
    found = media.upload(caller(request).user.userid, file.read(media.MAX_BYTES + 1), alt)
    response["Location"] = found.url
    return Status(201, found)
