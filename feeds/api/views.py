"""The JSON API: each handler parses its input, calls one service and shapes
the answer. Errors, auth and methods are :mod:`feeds.api.endpoint`'s job;
``feeds/api/openapi.py`` documents every endpoint here."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TypeVar

from django.http import HttpRequest, HttpResponse

from feeds import services
from feeds.types import Page, Twit, User, UserRef
from feeds.viewhelpers import client_address

from .endpoint import (
    authenticated,
    bearer_token,
    endpoint,
    json_object,
    no_content,
    ok,
    page_args,
    string,
    unauthorized,
)
from .openapi import SCHEMA

T = TypeVar("T")
Json = dict[str, object]


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC to the millisecond, with a Z: 2026-11-21T12:00:00.123Z."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").removesuffix("+00:00") + "Z"


def twit_json(twit: Twit) -> Json:
    return {
        "id": twit.id,
        "userid": twit.userid,
        "name": twit.name,
        "text": twit.text,
        "created": iso(twit.created),
    }


def profile_json(user: User) -> Json:
    """The public profile: no email, no flags."""
    return {
        "userid": user.userid,
        "name": user.name,
        "created": iso(user.created),
        "twits": user.twits,
        "followers": user.followers,
        "following": user.following,
    }


def ref_json(ref: UserRef) -> Json:
    return {"userid": ref.userid, "name": ref.name}


def page_json(page: Page[T], item: Callable[[T], Json]) -> Json:
    return {"items": [item(x) for x in page.items], "next_cursor": page.next_cursor}


# -- accounts and tokens -----------------------------------------------------------


def _login(request: HttpRequest) -> HttpResponse:
    body = json_object(request)
    issued = services.issue_token(
        string(body, "userid"), string(body, "password"), client_address(request)
    )
    if issued is None:
        raise unauthorized("Wrong userid or password.")
    token, user = issued
    return ok({"token": token, "userid": user.userid})


@authenticated
def _logout(request: HttpRequest, user: User) -> HttpResponse:
    services.revoke_token(bearer_token(request))
    return no_content()


@authenticated
def _logout_everywhere(request: HttpRequest, user: User) -> HttpResponse:
    services.log_out_everywhere(user.userid)
    return no_content()


@authenticated
def _change_password(request: HttpRequest, user: User) -> HttpResponse:
    body = json_object(request)
    services.change_password(
        user.userid,
        string(body, "current_password"),
        string(body, "new_password"),
        bearer_token(request),
        client_address(request),
    )
    return no_content()


def _sign_up(request: HttpRequest) -> HttpResponse:
    body = json_object(request)
    user = services.register(
        string(body, "userid"),
        string(body, "name"),
        string(body, "email"),
        string(body, "password"),
    )
    return ok(profile_json(user), 201, {"Location": f"/api/users/{user.userid}"})


def _profile(request: HttpRequest, userid: str) -> HttpResponse:
    return ok(profile_json(services.public_user(userid)))


def _followers(request: HttpRequest, userid: str) -> HttpResponse:
    cursor, limit = page_args(request)
    services.public_user(userid)
    return ok(page_json(services.followers(userid, cursor, limit), ref_json))


def _following(request: HttpRequest, userid: str) -> HttpResponse:
    cursor, limit = page_args(request)
    services.public_user(userid)
    return ok(page_json(services.following(userid, cursor, limit), ref_json))


@authenticated
def _follow(request: HttpRequest, user: User, userid: str) -> HttpResponse:
    changed = services.follow(user.userid, userid)
    return ok({"userid": userid, "following": True, "changed": changed})


@authenticated
def _unfollow(request: HttpRequest, user: User, userid: str) -> HttpResponse:
    changed = services.unfollow(user.userid, userid)
    return ok({"userid": userid, "following": False, "changed": changed})


# -- twits and streams -------------------------------------------------------------


@authenticated
def _post_twit(request: HttpRequest, user: User) -> HttpResponse:
    twit = services.post_twit(user.userid, string(json_object(request), "text"))
    return ok(twit_json(twit), 201, {"Location": f"/api/twits/{twit.id}"})


def _get_twit(request: HttpRequest, twit_id: str) -> HttpResponse:
    return ok(twit_json(services.public_twit(twit_id)))


@authenticated
def _delete_twit(request: HttpRequest, user: User, twit_id: str) -> HttpResponse:
    services.delete_twit(user.userid, twit_id)
    return no_content()


def _timeline(request: HttpRequest, userid: str) -> HttpResponse:
    cursor, limit = page_args(request)
    services.public_user(userid)
    return ok(page_json(services.timeline(userid, cursor, limit), twit_json))


@authenticated
def _stream(request: HttpRequest, user: User) -> HttpResponse:
    cursor, limit = page_args(request)
    return ok(page_json(services.home_stream(user.userid, cursor, limit), twit_json))


def _schema(request: HttpRequest) -> HttpResponse:
    return ok(SCHEMA)


login = endpoint(POST=_login)
logout = endpoint(POST=_logout)
logout_everywhere = endpoint(POST=_logout_everywhere)
password = endpoint(POST=_change_password)
users = endpoint(POST=_sign_up)
user = endpoint(GET=_profile)
timeline = endpoint(GET=_timeline)
followers = endpoint(GET=_followers)
following = endpoint(GET=_following)
follows = endpoint(PUT=_follow, DELETE=_unfollow)
twits = endpoint(POST=_post_twit)
twit = endpoint(GET=_get_twit, DELETE=_delete_twit)
stream = endpoint(GET=_stream)
schema = endpoint(GET=_schema)
