"""The JSON API: each view takes its parsed input, calls one service and
returns what it gives; :mod:`feeds.api.schemas` shapes it. Errors, auth and
methods are :mod:`feeds.api.endpoint`'s job, and ``GET /api/schema`` is
generated from the declarations here."""

from __future__ import annotations

import functools
from typing import Annotated, Any

from django.http import HttpRequest, HttpResponse
from ninja import Path, Status
from pydantic import WithJsonSchema

from feeds import services
from feeds.types import Page, Twit, User, UserRef
from feeds.viewhelpers import client_address

from . import schemas
from .endpoint import api, caller, get, operation, unauthorized
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
NoContent = Status[None]
NO_CONTENT: NoContent = Status(204, None)


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
    issued = services.issue_token(credentials.userid, credentials.password, client_address(request))
    if issued is None:
        raise unauthorized("Wrong userid or password.")
    token, user = issued
    return {"token": token, "userid": user.userid}


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
        client_address(request),
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
        descriptions={201: "The new user's profile."},
        body=True,
    ),
)
def sign_up(request: HttpRequest, response: HttpResponse, account: schemas.SignUp) -> Status[User]:
    user = services.register(account.userid, account.name, account.email, account.password)
    response["Location"] = f"/api/users/{user.userid}"
    return Status(201, user)


@get(
    "/users/{str:userid}",
    operation_id="getUser",
    summary="A user's profile, with counts",
    **operation({200: schemas.Profile}, 404, descriptions={200: "The profile."}),
)
def profile(request: HttpRequest, userid: Userid) -> User:
    return services.public_user(userid)


_PAGE = "One page of twits."


@get(
    "/users/{str:userid}/twits",
    operation_id="getTimeline",
    summary="A user's own twits, newest first",
    **operation({200: schemas.TwitPage}, 400, 404, descriptions={200: _PAGE}),
)
def timeline(request: HttpRequest, userid: Userid, limit: Limit, cursor: Cursor) -> Page[Twit]:
    services.public_user(userid)
    return services.timeline(userid, cursor, limit)


@get(
    "/users/{str:userid}/followers",
    operation_id="getFollowers",
    summary="Who follows a user",
    **operation({200: schemas.UserPage}, 400, 404, descriptions={200: "One page of users."}),
)
def followers(request: HttpRequest, userid: Userid, limit: Limit, cursor: Cursor) -> Page[UserRef]:
    services.public_user(userid)
    return services.followers(userid, cursor, limit)


@get(
    "/users/{str:userid}/following",
    operation_id="getFollowing",
    summary="Whom a user follows",
    **operation({200: schemas.UserPage}, 400, 404, descriptions={200: "One page of users."}),
)
def following(request: HttpRequest, userid: Userid, limit: Limit, cursor: Cursor) -> Page[UserRef]:
    services.public_user(userid)
    return services.following(userid, cursor, limit)


@api.put(
    "/follows/{str:userid}",
    operation_id="follow",
    summary="Follow a user (idempotent)",
    **operation({200: schemas.Follow}, 400, 404, descriptions={200: "You follow them."}, auth=True),
)
def follow(request: HttpRequest, userid: Userid) -> dict[str, Any]:
    changed = services.follow(caller(request).user, userid)
    return {"userid": userid, "following": True, "changed": changed}


@api.delete(
    "/follows/{str:userid}",
    operation_id="unfollow",
    summary="Stop following a user (idempotent)",
    **operation(
        {200: schemas.Follow}, 400, 404, descriptions={200: "You do not follow them."}, auth=True
    ),
)
def unfollow(request: HttpRequest, userid: Userid) -> dict[str, Any]:
    changed = services.unfollow(caller(request).user, userid)
    return {"userid": userid, "following": False, "changed": changed}


# -- twits and streams -------------------------------------------------------------


@api.post(
    "/twits",
    operation_id="postTwit",
    summary="Post a twit",
    **operation(
        {201: schemas.Twit},
        400,
        429,
        descriptions={201: "The twit, with its id."},
        auth=True,
        body=True,
    ),
)
def post_twit(request: HttpRequest, response: HttpResponse, new: schemas.NewTwit) -> Status[Twit]:
    twit = services.post_twit(caller(request).user, new.text)
    response["Location"] = f"/api/twits/{twit.id}"
    return Status(201, twit)


@get(
    "/twits/{str:twit_id}",
    operation_id="getTwit",
    summary="One twit",
    **operation({200: schemas.Twit}, 404, descriptions={200: "The twit."}),
)
def twit(request: HttpRequest, twit_id: TwitId) -> Twit:
    return services.public_twit(twit_id)


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
