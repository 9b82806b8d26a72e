"""Bookmarks over the API: ``PUT``/``DELETE /api/twits/{id}/bookmark`` and
``GET /api/bookmarks``. A bookmark is private: no count, no notification,
and only its user lists them. On the same :data:`~feeds.api.endpoint.api`
as :mod:`.views`, so ``GET /api/schema`` documents them with the rest."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from pydantic import Field

from feeds.services import ratelimit, reactions, twitlists
from feeds.types import Page, Twit

from . import schemas
from .endpoint import api, caller, get, operation
from .schemas import Answer, Cursor, Limit
from .views import TwitId


class Bookmark(Answer):
    twit: str = Field(description="The twit, as given in the URL.")
    bookmarked: bool = Field(description="Whether you have it bookmarked now.")


def _operation(done: str) -> dict[str, Any]:
    return operation(
        {200: Bookmark},
        403,
        404,
        429,
        descriptions={
            200: done,
            403: "Its author blocks you, or you block its author.",
            429: ratelimit.REACTIONS.describe(),
        },
        auth=True,
    )


@api.put(
    "/twits/{str:twit_id}/bookmark",
    operation_id="bookmarkTwit",
    summary="Bookmark a twit, privately (idempotent)",
    **_operation("You have it bookmarked."),
)
def bookmark(request: HttpRequest, twit_id: TwitId) -> dict[str, Any]:
    twit = reactions.bookmark(caller(request).user.userid, twit_id)
    return {"twit": twit.id, "bookmarked": True}


@api.delete(
    "/twits/{str:twit_id}/bookmark",
    operation_id="unbookmarkTwit",
    summary="Remove a bookmark (idempotent)",
    **_operation("It is not among your bookmarks."),
)
def unbookmark(request: HttpRequest, twit_id: TwitId) -> dict[str, Any]:
    twit = reactions.unbookmark(caller(request).user.userid, twit_id)
    return {"twit": twit.id, "bookmarked": False}


@get(
    "/bookmarks",
    operation_id="getBookmarks",
    summary="Your bookmarks, newest first",
    **operation({200: schemas.TwitPage}, 400, descriptions={200: "One page."}, auth=True),
)
def bookmarks(request: HttpRequest, limit: Limit, cursor: Cursor) -> Page[Twit]:
    return twitlists.user_bookmarks(caller(request).user, cursor, limit)
