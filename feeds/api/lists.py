"""Lists of accounts over the API: ``GET``/``POST /api/lists`` (mine, and a
new one), ``GET``/``DELETE /api/lists/{list_id}``, its timeline
``GET /api/lists/{list_id}/twits``, its members ``GET .../members`` and
``PUT``/``DELETE .../members/{userid}``. Lists are public: anyone may read
one whose owner does not block them. On the same
:data:`~feeds.api.endpoint.api` as :mod:`.views`, so ``GET /api/schema``
documents them with the rest."""

from __future__ import annotations

from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path
from pydantic import BaseModel, Field, StrictStr, WithJsonSchema

from feeds.services import lists, ratelimit
from feeds.services.lists import AccountList
from feeds.types import Page, Twit, UserRef

from . import schemas
from .endpoint import api, caller, get, operation, reader
from .schemas import Answer, Count, Cursor, Limit, Timestamp
from .views import BLOCKED, NO_CONTENT, NoContent, Userid, created

LIST_ID_PATTERN = f"^[0-9a-f]{{{lists.ID_LEN}}}$"

ListId = Annotated[
    str,
    Path(description="A list's id, as returned in its `id`."),
    WithJsonSchema({"type": "string", "pattern": LIST_ID_PATTERN}),
]


class NewList(BaseModel):
    name: StrictStr = Field(
        description=f"Spaces collapsed, then 1 to {lists.NAME_MAX} characters.",
        json_schema_extra=dict(minLength=1, maxLength=lists.NAME_MAX),
    )
    description: StrictStr | None = Field(
        default=None,
        description=f"At most {lists.DESCRIPTION_MAX} characters; omit (or null) for none.",
        json_schema_extra=dict(maxLength=lists.DESCRIPTION_MAX),
    )


class ListOut(Answer):
    id: str = Field(json_schema_extra=dict(pattern=LIST_ID_PATTERN))
    owner: Userid
    name: str
    description: str = Field(description="Empty if none.")
    created: Timestamp
    members: Count = Field(
        description=f"How many accounts are on it (at most {lists.MEMBERS_MAX})."
    )


class ListPage(Answer):
    items: list[ListOut]
    next_cursor: str | None = Field(description=schemas.NEXT_CURSOR)


class Membership(Answer):
    list: str = Field(description="The list, as given in the URL.")
    userid: str = Field(description="The account, as given in the URL.")
    member: bool = Field(description="Whether they are on the list now.")
    changed: bool = Field(description="False if it already was so.")


_NOT_MINE = "No such list of yours (a list of someone else's is not yours to change)."


@get(
    "/lists",
    operation_id="getMyLists",
    summary="Your lists, newest first",
    **operation({200: ListPage}, 400, descriptions={200: "One page."}, auth=True),
)
def my_lists(request: HttpRequest, limit: Limit, cursor: Cursor) -> Page[AccountList]:
    return lists.lists_of(caller(request).user.userid, cursor, limit)


@api.post(
    "/lists",
    operation_id="createList",
    summary="Make a list",
    **operation(
        {201: ListOut},
        400,
        429,
        descriptions={201: "The new list, empty.", 429: ratelimit.LIST_CHANGES.describe()},
        auth=True,
        body=True,
    ),
)
def create_list(request: HttpRequest, response: HttpResponse, new: NewList) -> Any:
    made = lists.create_list(caller(request).user, new.name, new.description)
    return created(response, f"/api/lists/{made.id}", made)


@get(
    "/lists/{str:list_id}",
    operation_id="getList",
    summary="A list",
    **operation({200: ListOut}, 403, 404, descriptions={200: "The list.", 403: BLOCKED}),
)
def get_list(request: HttpRequest, list_id: ListId) -> AccountList:
    return lists.get_list(list_id, reader(request))


@api.delete(
    "/lists/{str:list_id}",
    operation_id="deleteList",
    summary="Delete one of your lists",
    **operation(
        {204: None},
        404,
        429,
        descriptions={204: "Deleted.", 404: _NOT_MINE, 429: ratelimit.LIST_CHANGES.describe()},
        auth=True,
    ),
)
def delete_list(request: HttpRequest, list_id: ListId) -> NoContent:
    lists.delete_list(caller(request).user.userid, list_id)
    return NO_CONTENT


@get(
    "/lists/{str:list_id}/twits",
    operation_id="getListTwits",
    summary="A list's timeline: its members' twits, newest first",
    **operation(
        {200: schemas.TwitPage},
        400,
        403,
        404,
        descriptions={200: "One page (it may hold fewer than `limit`).", 403: BLOCKED},
    ),
)
def list_twits(request: HttpRequest, list_id: ListId, limit: Limit, cursor: Cursor) -> Page[Twit]:
    return lists.list_timeline(list_id, cursor, limit, reader(request))


@get(
    "/lists/{str:list_id}/members",
    operation_id="getListMembers",
    summary="A list's members",
    **operation(
        {200: schemas.UserPage}, 400, 403, 404, descriptions={200: "One page.", 403: BLOCKED}
    ),
)
def list_members(
    request: HttpRequest, list_id: ListId, limit: Limit, cursor: Cursor
) -> Page[UserRef]:
    return lists.members(list_id, cursor, limit, reader(request))


def _membership(done: str) -> dict[str, Any]:
    return operation(
        {200: Membership},
        400,
        403,
        404,
        429,
        descriptions={
            200: done,
            400: f"The list has {lists.MEMBERS_MAX} members already, or the userid is malformed.",
            403: "You block them, or they block you.",
            404: _NOT_MINE + " Or no such account, or it is suspended.",
            429: ratelimit.LIST_CHANGES.describe(),
        },
        auth=True,
    )


@api.put(
    "/lists/{str:list_id}/members/{str:userid}",
    operation_id="addListMember",
    summary="Put an account on one of your lists (idempotent)",
    **_membership("They are on the list."),
)
def add_member(request: HttpRequest, list_id: ListId, userid: Userid) -> dict[str, Any]:
    changed = lists.add_member(caller(request).user.userid, list_id, userid)
    return {"list": list_id, "userid": userid, "member": True, "changed": changed}


@api.delete(
    "/lists/{str:list_id}/members/{str:userid}",
    operation_id="removeListMember",
    summary="Take an account off one of your lists (idempotent)",
    **_membership("They are not on the list."),
)
def remove_member(request: HttpRequest, list_id: ListId, userid: Userid) -> dict[str, Any]:
    changed = lists.remove_member(caller(request).user.userid, list_id, userid)
    return {"list": list_id, "userid": userid, "member": False, "changed": changed}
