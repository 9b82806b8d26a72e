"""The JSON API: each view takes its parsed input, calls one service and
returns what it gives; :mod:`feeds.api.schemas` shapes it. Errors, auth and
methods are :mod:`feeds.api.endpoint`'s job, and ``GET /api/schema`` is
generated from the declarations here."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from django.http import HttpRequest, HttpResponse
from ninja import Header, Path, Query, Status
from pydantic import WithJsonSchema

from feeds import services
from feeds.errors import Forbidden
from feeds.services import avatars, blocks, idempotency, pins, ratelimit, search
from feeds.services.notify import KIND_NAMES
from feeds.services.search import QUERY_MAX
from feeds.services.tags import TAG_MAX
from feeds.types import Notification, Page, Twit, User
from feeds.viewhelpers import client_address

from . import schemas
from .endpoint import api, caller, get, operation, reader, unauthorized
from .schemas import Cursor, Limit

# The patterns are documented, not enforced: a name that cannot exist is a 404.
Userid = Annotated[
    str,
    Path(),
    WithJsonSchema({"type": "string", "pattern": schemas.USERID_PATTERN, "example": "alice"}),
]
TwitId = Annotated[
    str,
    Path(description="A twit's id, as returned in its `id`."),
    WithJsonSchema({"type": "string", "pattern": schemas.TWIT_ID_PATTERN}),
]
T = TypeVar("T")
BLOCKED = "You are signed in and its author has blocked you."
NoContent = Status[None]
NO_CONTENT: NoContent = Status(204, None)


def _one(request: HttpRequest, twit: Twit) -> Twit:
    """One twit read whole from its row (counts and all, its author checked),
    with the reader's ``liked`` and ``reposted`` when the request is signed in."""
    return services.hydrate((twit,), reader(request), counted=True, suspended=frozenset())[0]


def _as_read(
    listing: Callable[[str, str | None, int, User | str | None], Page[Twit]],
) -> Callable[[HttpRequest, str, str | None, int], Page[Twit]]:
    """A list of twits as the request's reader sees it (the service
    hydrates it: counts, suspensions, the reader's flags)."""

    def read(request: HttpRequest, key: str, cursor: str | None, limit: int) -> Page[Twit]:
        return listing(key, cursor, limit, reader(request))

    return read


def _for_anyone(
    listing: Callable[[str, str | None, int], Page[T]],
) -> Callable[[HttpRequest, str, str | None, int], Page[T]]:
    """A list that is the same whoever reads it."""

    def read(request: HttpRequest, key: str, cursor: str | None, limit: int) -> Page[T]:
        return listing(key, cursor, limit)

    return read


def created(response: HttpResponse, location: str, body: T) -> Status[T]:
    """201 Created, with where the new resource lives."""
    response["Location"] = location
    return Status(201, body)


# -- accounts and tokens -----------------------------------------------------------


@api.post(
    "/login",
    operation_id="login",
    summary="Log in: trade a userid and password for a bearer token",
    **operation(
        {200: schemas.Token},
        400,
        401,
        403,
        429,
        descriptions={200: "A new token."},
        body=True,
    ),
)
def login(request: HttpRequest, credentials: schemas.Login) -> dict[str, str]:
    issued = services.issue_token(
        credentials.userid,
        credentials.password,
        client_address(request),
        credentials.device,
        credentials.code,
    )
    if issued is None:
        raise unauthorized("Wrong userid or password.")
    token, user = issued
    return {"token": token, "userid": user.userid, "device": services.device_token(user.userid)}


@api.post(
    "/logout",
    operation_id="logout",
    summary="Log out: revoke the token this request carries",
    **operation({204: None}, descriptions={204: "Revoked."}, auth=True),
)
def logout(request: HttpRequest) -> NoContent:
    services.revoke_token(caller(request).token)
    return NO_CONTENT


@api.post(
    "/logout/everywhere",
    operation_id="logoutEverywhere",
    summary="Log out everywhere: revoke every token and web session of the account",
    **operation({204: None}, descriptions={204: "Revoked, this token too."}, auth=True),
)
def logout_everywhere(request: HttpRequest) -> NoContent:
    services.log_out_everywhere(caller(request).user.userid)
    return NO_CONTENT


@api.post(
    "/password",
    operation_id="changePassword",
    summary="Change the password; every other token and web session is revoked",
    **operation(
        {204: None},
        400,
        409,
        429,
        descriptions={204: "Changed; the token this request carries stays valid."},
        auth=True,
        body=True,
    ),
)
def password(request: HttpRequest, change: schemas.PasswordChange) -> NoContent:
    me = caller(request)
    services.change_password(
        me.user.userid,
        change.current_password,
        change.new_password,
        me.token,
    )
    return NO_CONTENT


@api.post(
    "/users",
    operation_id="signUp",
    summary="Sign up",
    **operation(
        {201: schemas.Profile},
        400,
        409,
        429,
        descriptions={201: "The new user's profile.", 429: ratelimit.SIGNUPS.describe()},
        body=True,
    ),
)
def sign_up(request: HttpRequest, response: HttpResponse, account: schemas.SignUp) -> Status[User]:
    user = services.register(
        account.userid, account.name, account.email, account.password, client_address(request)
    )
    return created(response, f"/api/users/{user.userid}", user)


@get(
    "/users/{str:userid}",
    operation_id="getUser",
    summary="A user's profile, with counts",
    **operation({200: schemas.Profile}, 403, 404, descriptions={200: "The profile.", 403: BLOCKED}),
)
def profile(request: HttpRequest, userid: Userid) -> User:
    return blocks.visible_user(userid, reader(request))


@api.patch(
    "/users/{str:userid}",
    operation_id="updateProfile",
    summary="Change your display name and/or bio; userid is `me` (or your own userid)",
    **operation(
        {200: schemas.Profile},
        400,
        403,
        409,
        descriptions={200: "Your profile as changed."},
        auth=True,
        body=True,
    ),
)
def update_profile(request: HttpRequest, userid: Userid, change: schemas.ProfileChange) -> User:
    # On the same path as getUser rather than a literal /users/me, which
    # would hide the profile of a user who is called "me".
    me = _own(request, userid, "profile")
    return services.update_profile(me.userid, change.name, change.bio)


_PAGE = "One page of twits."


def _user_list(
    items: str,
    operation_id: str,
    summary: str,
    page: type[Any],
    description: str,
    listing: Callable[[HttpRequest, str, str | None, int], Page[T]],
) -> Callable[..., Page[T]]:
    """``GET /users/{userid}/<items>``: one page of ``listing`` for the
    request, a 404 for a user that does not exist (or is suspended) rather
    than an empty page."""

    @get(
        f"/users/{{str:userid}}/{items}",
        operation_id=operation_id,
        summary=summary,
        **operation({200: page}, 400, 403, 404, descriptions={200: description, 403: BLOCKED}),
    )
    def endpoint(request: HttpRequest, userid: Userid, limit: Limit, cursor: Cursor) -> Page[T]:
        blocks.visible_user(userid, reader(request))
        return listing(request, userid, cursor, limit)

    endpoint.__name__ = endpoint.__qualname__ = items
    return endpoint


timeline = _user_list(
    "twits",
    "getTimeline",
    "A user's own twits, newest first",
    schemas.TwitPage,
    _PAGE,
    _as_read(services.timeline),
)
followers = _user_list(
    "followers",
    "getFollowers",
    "Who follows a user",
    schemas.UserPage,
    "One page of users.",
    _for_anyone(services.followers),
)
following = _user_list(
    "following",
    "getFollowing",
    "Whom a user follows",
    schemas.UserPage,
    "One page of users.",
    _for_anyone(services.following),
)


@api.put(
    "/follows/{str:userid}",
    operation_id="follow",
    summary="Follow a user (idempotent)",
    **operation(
        {200: schemas.Follow},
        400,
        403,
        404,
        429,
        descriptions={
            200: "You follow them.",
            403: "One of you blocks the other.",
            429: ratelimit.FOLLOWS.describe(),
        },
        auth=True,
    ),
)
def follow(request: HttpRequest, userid: Userid) -> dict[str, Any]:
    changed = services.follow(caller(request).user, userid)
    return {"userid": userid, "following": True, "changed": changed}


@api.delete(
    "/follows/{str:userid}",
    operation_id="unfollow",
    summary="Stop following a user (idempotent)",
    **operation(
        {200: schemas.Follow},
        400,
        404,
        429,
        descriptions={200: "You do not follow them.", 429: ratelimit.FOLLOWS.describe()},
        auth=True,
    ),
)
def unfollow(request: HttpRequest, userid: Userid) -> dict[str, Any]:
    changed = services.unfollow(caller(request).user, userid)
    return {"userid": userid, "following": False, "changed": changed}


# -- twits and streams -------------------------------------------------------------


# The Param last: ninja reads only the last metadata as where the value comes from.
IdempotencyKey = Annotated[
    str | None,
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": idempotency.MAX_LEN}),
    Header(
        None,
        alias=idempotency.HEADER,
        description="Any string of yours (a UUID, say), new for each new twit and the same "
        "when you send that twit again after an unclear answer (a 503, a timeout): for a "
        "day, the same key from you posts at most one twit, and a repeat answers 201 with "
        f"that twit and `Idempotent-Replayed: true`. 1 to {idempotency.MAX_LEN} printable "
        "ASCII characters.",
    ),
]


@api.post(
    "/twits",
    operation_id="postTwit",
    summary="Post a twit",
    **operation(
        {201: schemas.Twit},
        400,
        403,
        404,
        409,
        429,
        descriptions={
            201: "The twit, with its id; with an Idempotency-Key seen before, the twit it "
            "posted then (and `Idempotent-Replayed: true`).",
            403: "The author of the twit you reply to (or quote) blocks you, or you block them.",
            404: "The twit you quote is gone or its author suspended, or the twit this "
            "Idempotency-Key posted is deleted.",
            409: "A twit with this Idempotency-Key is still being posted: send it again "
            "in a moment.",
        },
        auth=True,
        body=True,
    ),
)
def post_twit(
    request: HttpRequest,
    response: HttpResponse,
    new: schemas.NewTwit,
    idempotency_key: IdempotencyKey = None,
) -> Status[Twit]:
    author = caller(request).user
    if idempotency_key is None:
        twit = services.post_twit(
            author, new.text, reply_to=new.reply_to, quote_of=new.quote_of, images=new.images
        )
    else:
        twit, first = idempotency.post_twit_once(
            author, new.text, idempotency_key, new.reply_to, new.quote_of, new.images
        )
        if not first:
            response["Idempotent-Replayed"] = "true"
    # A twit just posted: nobody, its author included, has liked or reposted it.
    mine = dataclasses.replace(twit, liked=False, reposted=False)
    return created(response, f"/api/twits/{twit.id}", mine)


@get(
    "/twits/{str:twit_id}",
    operation_id="getTwit",
    summary="One twit",
    **operation({200: schemas.Twit}, 403, 404, descriptions={200: "The twit.", 403: BLOCKED}),
)
def twit(request: HttpRequest, twit_id: TwitId) -> Twit:
    found = services.public_twit(twit_id)
    blocks.refuse_if_blocked_by(found.userid, reader(request))
    return _one(request, found)


@get(
    "/twits/{str:twit_id}/replies",
    operation_id="getReplies",
    summary="The replies to a twit, oldest first",
    **operation({200: schemas.TwitPage}, 400, 403, 404, descriptions={200: _PAGE, 403: BLOCKED}),
)
def replies(request: HttpRequest, twit_id: TwitId, limit: Limit, cursor: Cursor) -> Page[Twit]:
    return services.replies(twit_id, cursor, limit, reader(request))


@api.put(
    "/twits/{str:twit_id}/like",
    operation_id="likeTwit",
    summary="Like a twit (idempotent)",
    **operation(
        {200: schemas.Twit},
        403,
        404,
        429,
        descriptions={
            200: "The twit; you like it.",
            403: "Its author blocks you, or you block its author.",
            429: ratelimit.REACTIONS.describe(),
        },
        auth=True,
    ),
)
def like(request: HttpRequest, twit_id: TwitId) -> Twit:
    return _one(request, services.like(caller(request).user.userid, twit_id))


@api.delete(
    "/twits/{str:twit_id}/like",
    operation_id="unlikeTwit",
    summary="Stop liking a twit (idempotent)",
    **operation(
        {200: schemas.Twit},
        404,
        429,
        descriptions={200: "The twit; you do not like it.", 429: ratelimit.REACTIONS.describe()},
        auth=True,
    ),
)
def unlike(request: HttpRequest, twit_id: TwitId) -> Twit:
    return _one(request, services.unlike(caller(request).user.userid, twit_id))


@get(
    "/users/{str:userid}/likes",
    operation_id="getUserLikes",
    summary="The twits a user likes, newest like first",
    **operation({200: schemas.TwitPage}, 400, 403, 404, descriptions={200: _PAGE, 403: BLOCKED}),
)
def user_likes(request: HttpRequest, userid: Userid, limit: Limit, cursor: Cursor) -> Page[Twit]:
    services.public_user(userid)
    return services.user_likes(userid, cursor, limit, reader(request))


@api.put(
    "/twits/{str:twit_id}/repost",
    operation_id="repostTwit",
    summary="Repost a twit to your followers' streams (idempotent; not your own)",
    **operation(
        {200: schemas.Twit},
        403,
        404,
        429,
        descriptions={200: "The twit; you reposted it.", 429: ratelimit.REACTIONS.describe()},
        auth=True,
    ),
)
def repost(request: HttpRequest, twit_id: TwitId) -> Twit:
    return services.repost(caller(request).user.userid, twit_id)


@api.delete(
    "/twits/{str:twit_id}/repost",
    operation_id="unrepostTwit",
    summary="Undo your repost of a twit; it leaves your followers' streams (idempotent)",
    **operation(
        {200: schemas.Twit},
        404,
        429,
        descriptions={
            200: "The twit; you do not repost it.",
            429: ratelimit.REACTIONS.describe(),
        },
        auth=True,
    ),
)
def unrepost(request: HttpRequest, twit_id: TwitId) -> Twit:
    return services.unrepost(caller(request).user.userid, twit_id)


@api.delete(
    "/twits/{str:twit_id}",
    operation_id="deleteTwit",
    summary="Delete your own twit, from your timeline and every stream",
    **operation({204: None}, 403, 404, descriptions={204: "Deleted."}, auth=True),
)
def delete_twit(request: HttpRequest, twit_id: TwitId) -> NoContent:
    services.delete_twit(caller(request).user.userid, twit_id)
    return NO_CONTENT


@get(
    "/stream",
    operation_id="getStream",
    summary="Your home stream: your twits and those of whom you follow, newest first",
    **operation({200: schemas.TwitPage}, 400, descriptions={200: _PAGE}, auth=True),
)
def stream(request: HttpRequest, limit: Limit, cursor: Cursor) -> Page[Twit]:
    return services.home_stream(caller(request).user, cursor, limit)


# -- hashtags and search -------------------------------------------------------------

Tag = Annotated[
    str,
    Path(description="A hashtag without its '#', in any case: #Tea, #TEA and #tea are one."),
    WithJsonSchema({"type": "string", "maxLength": TAG_MAX, "example": "hbase"}),
]
SearchQuery = Annotated[
    str,
    Query(description="The start of a userid or display name, in any case ('@' optional)."),
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": QUERY_MAX, "example": "ali"}),
]


@get(
    "/tags/{str:tag}",
    operation_id="getTagTwits",
    summary="The twits with a hashtag, newest first",
    **operation({200: schemas.TwitPage}, 400, descriptions={200: _PAGE}),
)
def tag_twits(request: HttpRequest, tag: Tag, limit: Limit, cursor: Cursor) -> Page[Twit]:
    return services.tag_twits(tag, cursor, limit, reader(request))


@get(
    "/search/users",
    operation_id="searchUsers",
    summary="Users whose userid or display name starts with q",
    **operation({200: schemas.ProfilePage}, 400, descriptions={200: "One page of users."}),
)
def search_users(request: HttpRequest, q: SearchQuery, limit: Limit, cursor: Cursor) -> Page[User]:
    return services.search_users(q, cursor, limit)


WordsQuery = Annotated[
    str,
    Query(
        description="Words the twits must all have, whole, in any case (a hashtag's word "
        f"finds it too); at most {search.QUERY_WORDS_MAX} words."
    ),
    WithJsonSchema(
        {"type": "string", "minLength": 2, "maxLength": QUERY_MAX, "example": "row keys"}
    ),
]


@get(
    "/search/twits",
    operation_id="searchTwits",
    summary="Twits with all of the words in q, newest first",
    **operation(
        {200: schemas.TwitPage},
        400,
        descriptions={
            200: "One page of twits. A page reads at most "
            f"{search.SCAN_MAX} index rows, so it may hold fewer than `limit`, even none, "
            "with a `next_cursor` to go on."
        },
    ),
)
def search_twits(request: HttpRequest, q: WordsQuery, limit: Limit, cursor: Cursor) -> Page[Twit]:
    return search.search_twits(q, cursor, limit, reader(request))


@get(
    "/stream/new",
    operation_id="countNewInStream",
    summary="How many twits arrived in your stream above the newest you show (for a banner)",
    **operation(
        {200: schemas.NewTwits},
        400,
        descriptions={200: "The count, exact up to a cap; poll it every 15 s or more."},
        auth=True,
    ),
)
def stream_new(request: HttpRequest, since: schemas.Since) -> services.NewTwits:
    return services.new_in_stream(caller(request).user, since)


NotificationType = Annotated[
    str | None,
    WithJsonSchema({"type": "string", "enum": list(KIND_NAMES.values())}),
    Query(None, description="Only this type of notification; all of them when left out."),
]


@get(
    "/notifications",
    operation_id="getNotifications",
    summary="Your notifications, newest first: mentions, replies, likes, reposts, follows",
    description="Reading the first page of all of them (no cursor, no type) sets your "
    "unread count to 0, as opening the notifications page does.",
    **operation({200: schemas.NotificationPage}, 400, descriptions={200: _PAGE}, auth=True),
)
def notifications(
    request: HttpRequest, limit: Limit, cursor: Cursor, type: NotificationType = None
) -> Page[Notification]:
    userid = caller(request).user.userid
    page = services.notifications(userid, cursor, limit, only=type)
    if not cursor and type is None:
        services.mark_read(userid)
    return page


@get(
    "/notifications/unread",
    operation_id="getUnreadCount",
    summary="How many notifications arrived since you last opened them",
    **operation({200: schemas.Unread}, descriptions={200: "The count."}, auth=True),
)
def unread(request: HttpRequest) -> dict[str, int]:
    return {"unread": services.unread_count(caller(request).user.userid)}


@get(
    "/schema",
    operation_id="getSchema",
    summary="This document",
    **operation({200: dict[str, Any]}, descriptions={200: "OpenAPI 3.1."}),
)
def schema(request: HttpRequest) -> dict[str, Any]:
    return document()


@functools.cache
def document() -> dict[str, Any]:
    """The OpenAPI document of every operation above."""
    schema = dict(api.get_openapi_schema(path_prefix="/api"))
    for operations in schema["paths"].values():
        for details in operations.values():
            # ninja writes "parameters": [] where there are none; left out, it
            # tells a client (and schemathesis) there is nothing to vary.
            if details.get("parameters") == []:
                del details["parameters"]
    return schema


# -- avatars and account deletion (account branch) --------------------------------------


def _own(request: HttpRequest, userid: str, what: str) -> User:
    """The caller, when ``userid`` is ``me`` or their own userid; else Forbidden."""
    me = caller(request).user
    if userid != "me" and userid.lower() != me.userid.lower():
        raise Forbidden(f"You can change only your own {what}.")
    return me


@api.put(
    "/users/{str:userid}/pinned",
    operation_id="pinTwit",
    summary="Pin one of your twits on top of your profile; userid is `me`",
    **operation(
        {200: schemas.Pinned},
        400,
        403,
        404,
        descriptions={200: "It is pinned (replacing the one pinned before)."},
        auth=True,
        body=True,
    ),
)
def pin_twit(request: HttpRequest, userid: Userid, pin: schemas.Pin) -> dict[str, Any]:
    me = _own(request, userid, "pinned twit")
    return {"twit": pins.pin(me.userid, pin.twit).id}


@api.delete(
    "/users/{str:userid}/pinned",
    operation_id="unpinTwit",
    summary="Unpin the twit on top of your profile (idempotent); userid is `me`",
    **operation({200: schemas.Pinned}, 403, descriptions={200: "Nothing is pinned."}, auth=True),
)
def unpin_twit(request: HttpRequest, userid: Userid) -> dict[str, Any]:
    pins.unpin(_own(request, userid, "pinned twit").userid)
    return {"twit": None}


_IMAGE = {"schema": {"type": "string", "format": "binary"}}
_AVATAR_PUT = operation(
    {200: schemas.Profile},
    400,
    403,
    429,
    descriptions={
        200: "Your profile, with the new avatar_url.",
        429: ratelimit.AVATAR_UPLOADS.describe(),
    },
    auth=True,
    body=True,
)
_AVATAR_PUT["openapi_extra"]["requestBody"] = {
    "required": True,
    "description": f"The image itself as the body (not JSON, not multipart): PNG, JPEG, "
    f"WebP or GIF, at most {avatars.MAX_BYTES // (1024 * 1024)} MB and "
    f"{avatars.max_pixels() / 1_000_000:g} megapixels. It is turned upright (EXIF), "
    f"cropped square and stored as a {avatars.SIZE} px WebP. A refused image changes nothing.",
    "content": dict.fromkeys(avatars.MEDIA_TYPES, _IMAGE),
}


@api.put(
    "/users/{str:userid}/avatar",
    operation_id="setAvatar",
    summary="Upload your avatar; userid is `me` (or your own userid)",
    **_AVATAR_PUT,
)
def set_avatar(request: HttpRequest, userid: Userid) -> User:
    me = _own(request, userid, "avatar")
    return services.set_avatar(me.userid, request.body)


@api.delete(
    "/users/{str:userid}/avatar",
    operation_id="removeAvatar",
    summary="Remove your avatar (idempotent); userid is `me` (or your own userid)",
    **operation(
        {200: schemas.Profile}, 403, descriptions={200: "Your profile, avatar removed."}, auth=True
    ),
)
def remove_avatar(request: HttpRequest, userid: Userid) -> User:
    me = _own(request, userid, "avatar")
    return services.remove_avatar(me.userid)


@api.delete(
    "/users/{str:userid}",
    operation_id="deleteAccount",
    summary="Delete your account and everything in it; userid is `me` (or your own userid)",
    **operation(
        {202: None},
        400,
        403,
        429,
        descriptions={
            202: "Accepted: the account is suspended and every token ended at once; its "
            "twits, follows, likes and avatar are deleted in the background, and the "
            "userid is free again once they are."
        },
        auth=True,
        body=True,
    ),
)
def delete_account(
    request: HttpRequest, userid: Userid, deletion: schemas.AccountDeletion
) -> Status[None]:
    me = _own(request, userid, "account")
    services.delete_account(me.userid, deletion.password, caller(request).token)
    return Status(202, None)
