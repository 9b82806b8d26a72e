"""Edits over the API: ``PATCH /api/twits/{twit_id}`` (``{"text"}``, by its
author within 15 minutes of posting) and ``GET /api/twits/{twit_id}/history``
(its texts, newest first). The texts are HBase cell versions of the twit
row's h:text (feeds/services/twits.py). On the same
:data:`~feeds.api.endpoint.api` as :mod:`.views`, so ``GET /api/schema``
documents them with the rest."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from pydantic import BaseModel, Field, StrictStr

from feeds import services
from feeds.services import blocks, twits
from feeds.types import Twit, from_millis

from . import schemas
from .endpoint import api, caller, get, operation, reader
from .schemas import Answer, Timestamp
from .views import TwitId


class TwitEdit(BaseModel):
    text: StrictStr = Field(
        description=f"The new text, checked as a post's: trimmed, then 1 to {twits.TEXT_MAX} "
        "characters; newlines allowed, other control characters not.",
        json_schema_extra=dict(minLength=1, maxLength=twits.TEXT_MAX),
    )


class Version(Answer):
    text: str = Field(description="The text the twit had.")
    at: Timestamp


class History(Answer):
    twit: str = Field(description="The twit, as given in the URL.")
    items: list[Version] = Field(
        description="Its texts, newest first: the current one first, the text as posted last."
    )


@api.patch(
    "/twits/{str:twit_id}",
    operation_id="editTwit",
    summary="Edit your own twit's text, within 15 minutes of posting",
    **operation(
        {200: schemas.Twit},
        400,
        403,
        404,
        409,
        descriptions={
            200: "The twit with its new text and `edited_at`. The same text again changes nothing.",
            403: "It is someone else's twit.",
            409: "More than 15 minutes have passed since it was posted, or it was "
            f"edited {twits.EDITS_MAX} times already.",
        },
        auth=True,
        body=True,
    ),
)
def edit_twit(request: HttpRequest, twit_id: TwitId, edit: TwitEdit) -> Twit:
    userid = caller(request).user.userid
    changed = twits.edit_twit(userid, twit_id, edit.text)
    return services.hydrate((changed,), userid, counted=True, suspended=frozenset())[0]


@get(
    "/twits/{str:twit_id}/history",
    operation_id="getTwitHistory",
    summary="The texts a twit has had, newest first",
    **operation(
        {200: History},
        403,
        404,
        descriptions={200: "Its texts.", 403: "Its author blocks you, or you block its author."},
    ),
)
def history(request: HttpRequest, twit_id: TwitId) -> dict[str, Any]:
    found = services.public_twit(twit_id)
    blocks.refuse_if_blocked_by(found.userid, reader(request))
    versions = twits.history(twit_id)
    return {
        "twit": found.id,
        "items": [{"text": v.text, "at": from_millis(v.at)} for v in versions],
    }
