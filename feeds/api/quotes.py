"""Quotes over the API: ``GET /api/twits/{id}/quotes``, the twits that quote
one, newest first. Posting a quote is ``POST /api/twits`` with ``quote_of``
(:mod:`.views`); each twit's ``quoted`` card and ``quotes`` count come with
it wherever twits are listed. On the same :data:`~feeds.api.endpoint.api`
as :mod:`.views`, so ``GET /api/schema`` documents it with the rest."""

from __future__ import annotations

from django.http import HttpRequest

from feeds.services import twitlists
from feeds.types import Page, Twit

from . import schemas
from .endpoint import get, operation, reader
from .schemas import Cursor, Limit
from .views import BLOCKED, TwitId


@get(
    "/twits/{str:twit_id}/quotes",
    operation_id="getQuotes",
    summary="The twits that quote a twit, newest first",
    **operation(
        {200: schemas.TwitPage},
        400,
        403,
        404,
        descriptions={
            200: "A page of twits that quote it (deleted ones, and those you may not "
            "see, left out, so a page may hold fewer than `limit`).",
            403: BLOCKED,
        },
    ),
)
def quotes(request: HttpRequest, twit_id: TwitId, limit: Limit, cursor: Cursor) -> Page[Twit]:
    return twitlists.quotes(twit_id, cursor, limit, reader(request))
