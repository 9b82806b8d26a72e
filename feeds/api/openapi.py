"""The OpenAPI 3.0 description of the JSON API, served at ``GET /api/schema``.

This dict is the one place the API's contract is written down. The tests
check it against the OpenAPI meta-schema, check that it lists exactly the
routes in ``feeds/api/urls.py``, and fuzz every operation with schemathesis
against it, responses included.
"""

from __future__ import annotations

from typing import Any

from storage.keys import MAX_CURSOR_LEN

from .endpoint import DEFAULT_LIMIT, MAX_LIMIT

USERID_PATTERN = "^[A-Za-z0-9_]{3,20}$"
TWIT_ID_PATTERN = "^[0-9a-f]{56}$"

Obj = dict[str, Any]


def _ref(kind: str, name: str) -> Obj:
    return {"$ref": f"#/components/{kind}/{name}"}


def _json(schema: Obj) -> Obj:
    return {"content": {"application/json": {"schema": schema}}}


def _object(properties: Obj, required: list[str] | None = None) -> Obj:
    """A response object: every property present, nothing else."""
    return {
        "type": "object",
        "required": list(properties) if required is None else required,
        "properties": properties,
        "additionalProperties": False,
    }


def _body(name: str, description: str) -> Obj:
    return {"required": True, "description": description, **_json(_ref("schemas", name))}


_ERRORS = {
    400: ("BadRequest", "Malformed JSON, a missing or invalid field, or a bad query parameter."),
    401: ("Unauthorized", "No valid bearer token (or, for log-in, wrong credentials)."),
    403: ("Forbidden", "Not yours to change, or (for log-in) the account is suspended."),
    404: ("NotFound", "No such user, twit or endpoint, or the account is suspended."),
    409: ("Conflict", "The userid is taken, or the password changed meanwhile."),
    413: ("PayloadTooLarge", "The request body is larger than the server accepts."),
    429: (
        "TooManyRequests",
        "Over the per-user posting limit, or too many failed log-ins for the account "
        "or from the client's address; retry after Retry-After seconds.",
    ),
    503: ("ServiceUnavailable", "Storage cannot be reached; retry after Retry-After seconds."),
}


def _operation(
    operation_id: str,
    summary: str,
    responses: Obj,
    errors: tuple[int, ...],
    *,
    auth: bool = False,
    parameters: tuple[str, ...] = (),
    body: Obj | None = None,
) -> Obj:
    op: Obj = {"operationId": operation_id, "summary": summary}
    if parameters:
        op["parameters"] = [_ref("parameters", p) for p in parameters]
    if body is not None:
        op["requestBody"] = body
    # Any operation may meet a storage outage.
    all_errors = sorted({*errors, 503, *((401,) if auth else ()), *((413,) if body else ())})
    op["responses"] = {
        **responses,
        **{str(code): _ref("responses", _ERRORS[code][0]) for code in all_errors},
    }
    if auth:
        op["security"] = [{"bearerAuth": []}]
    return op


def _ok(description: str, schema: str | None = None, status: str = "200") -> Obj:
    response: Obj = {"description": description}
    if schema is not None:
        response.update(_json(_ref("schemas", schema)))
    return {status: response}


_CREATED_HEADERS = {
    "Location": {"description": "The new resource's URL.", "schema": {"type": "string"}}
}
_PAGED = ("limit", "cursor")

_TIMESTAMP = {
    "type": "string",
    "format": "date-time",
    "description": "ISO 8601 in UTC to the millisecond, with a Z: 2026-11-21T12:00:00.123Z.",
    "example": "2026-11-21T12:00:00.123Z",
}
_USERID = {"type": "string", "pattern": USERID_PATTERN, "example": "alice"}
_COUNT = {"type": "integer", "minimum": 0}


def _page(item: str) -> Obj:
    return _object(
        {
            "items": {"type": "array", "items": _ref("schemas", item)},
            "next_cursor": {
                "type": "string",
                "nullable": True,
                "description": "Pass as `cursor` for the next page; null on the last page.",
            },
        }
    )


SCHEMAS: Obj = {
    "Error": _object(
        {
            "error": {"type": "string", "description": "What went wrong, for people."},
            "field": {"type": "string", "description": "The input to blame, when there is one."},
        },
        required=["error"],
    ),
    "Login": {
        "type": "object",
        "required": ["userid", "password"],
        "properties": {"userid": {"type": "string"}, "password": {"type": "string"}},
    },
    "Token": _object(
        {
            "token": {"type": "string", "description": "Send as `Authorization: Bearer <token>`."},
            "userid": _USERID,
        }
    ),
    "PasswordChange": {
        "type": "object",
        "required": ["current_password", "new_password"],
        "properties": {
            "current_password": {"type": "string"},
            "new_password": {
                "type": "string",
                "minLength": 8,
                "maxLength": 1024,
                "description": "Checked by the password validators: not common, not all "
                "digits, not like the userid, name or email.",
            },
        },
    },
    "SignUp": {
        "type": "object",
        "required": ["userid", "name", "email", "password"],
        "properties": {
            "userid": {**_USERID, "description": "Unique regardless of case."},
            "name": {
                "type": "string",
                "minLength": 1,
                "maxLength": 50,
                "description": "Trimmed; not blank, no control characters.",
            },
            "email": {"type": "string", "format": "email", "maxLength": 254},
            "password": {
                "type": "string",
                "minLength": 8,
                "maxLength": 1024,
                "description": "Checked by the password validators: not common, not all "
                "digits, not like the userid, name or email.",
            },
        },
    },
    "Profile": _object(
        {
            "userid": _USERID,
            "name": {"type": "string"},
            "created": _TIMESTAMP,
            "twits": _COUNT,
            "followers": _COUNT,
            "following": _COUNT,
        }
    ),
    "UserRef": _object({"userid": _USERID, "name": {"type": "string"}}),
    "NewTwit": {
        "type": "object",
        "required": ["text"],
        "properties": {
            "text": {
                "type": "string",
                "minLength": 1,
                "maxLength": 280,
                "description": "Trimmed, then 1 to 280 characters; newlines allowed, "
                "other control characters not.",
            }
        },
    },
    "Twit": _object(
        {
            "id": {"type": "string", "pattern": TWIT_ID_PATTERN},
            "userid": _USERID,
            "name": {"type": "string"},
            "text": {"type": "string", "minLength": 1, "maxLength": 280},
            "created": _TIMESTAMP,
        }
    ),
    "TwitPage": _page("Twit"),
    "UserPage": _page("UserRef"),
    "Follow": _object(
        {
            "userid": {"type": "string", "description": "The other user, as given in the URL."},
            "following": {"type": "boolean", "description": "Whether you follow them now."},
            "changed": {"type": "boolean", "description": "False if it already was so."},
        }
    ),
}

PARAMETERS: Obj = {
    "userid": {"name": "userid", "in": "path", "required": True, "schema": _USERID},
    "twit_id": {
        "name": "twit_id",
        "in": "path",
        "required": True,
        "description": "A twit's id, as returned in its `id`.",
        "schema": {"type": "string", "pattern": TWIT_ID_PATTERN},
    },
    "limit": {
        "name": "limit",
        "in": "query",
        "description": "How many items a page holds at most.",
        "schema": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_LIMIT,
            "default": DEFAULT_LIMIT,
        },
    },
    "cursor": {
        "name": "cursor",
        "in": "query",
        "description": "The `next_cursor` of the previous page; omit for the first page.",
        "schema": {"type": "string", "maxLength": MAX_CURSOR_LEN},
    },
}

RESPONSES: Obj = {
    name: {"description": description, **_json(_ref("schemas", "Error"))}
    for name, description in _ERRORS.values()
}
RESPONSES["Unauthorized"]["headers"] = {
    "WWW-Authenticate": {"description": "The Bearer challenge.", "schema": {"type": "string"}}
}
RESPONSES["TooManyRequests"]["headers"] = {
    "Retry-After": {
        "description": "Seconds until posting or logging in is allowed again.",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}
RESPONSES["ServiceUnavailable"]["headers"] = {
    "Retry-After": {
        "description": "Seconds to wait before trying again.",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}

PATHS: Obj = {
    "/api/login": {
        "post": _operation(
            "login",
            "Log in: trade a userid and password for a bearer token",
            _ok("A new token.", "Token"),
            (400, 401, 403, 429),
            body=_body("Login", "The account's credentials."),
        )
    },
    "/api/logout": {
        "post": _operation(
            "logout",
            "Log out: revoke the token this request carries",
            _ok("Revoked.", status="204"),
            (),
            auth=True,
        )
    },
    "/api/logout/everywhere": {
        "post": _operation(
            "logoutEverywhere",
            "Log out everywhere: revoke every token and web session of the account",
            _ok("Revoked, this token too.", status="204"),
            (),
            auth=True,
        )
    },
    "/api/password": {
        "post": _operation(
            "changePassword",
            "Change the password; every other token and web session is revoked",
            _ok("Changed; the token this request carries stays valid.", status="204"),
            (400, 409, 429),
            auth=True,
            body=_body("PasswordChange", "The current password and the new one."),
        )
    },
    "/api/users": {
        "post": _operation(
            "signUp",
            "Sign up",
            {
                "201": {
                    "description": "The new user's profile.",
                    "headers": _CREATED_HEADERS,
                    **_json(_ref("schemas", "Profile")),
                }
            },
            (400, 409),
            body=_body("SignUp", "The new account."),
        )
    },
    "/api/users/{userid}": {
        "get": _operation(
            "getUser",
            "A user's profile, with counts",
            _ok("The profile.", "Profile"),
            (404,),
            parameters=("userid",),
        )
    },
    "/api/users/{userid}/twits": {
        "get": _operation(
            "getTimeline",
            "A user's own twits, newest first",
            _ok("One page of twits.", "TwitPage"),
            (400, 404),
            parameters=("userid", *_PAGED),
        )
    },
    "/api/users/{userid}/followers": {
        "get": _operation(
            "getFollowers",
            "Who follows a user",
            _ok("One page of users.", "UserPage"),
            (400, 404),
            parameters=("userid", *_PAGED),
        )
    },
    "/api/users/{userid}/following": {
        "get": _operation(
            "getFollowing",
            "Whom a user follows",
            _ok("One page of users.", "UserPage"),
            (400, 404),
            parameters=("userid", *_PAGED),
        )
    },
    "/api/follows/{userid}": {
        "put": _operation(
            "follow",
            "Follow a user (idempotent)",
            _ok("You follow them.", "Follow"),
            (400, 404),
            auth=True,
            parameters=("userid",),
        ),
        "delete": _operation(
            "unfollow",
            "Stop following a user (idempotent)",
            _ok("You do not follow them.", "Follow"),
            (400, 404),
            auth=True,
            parameters=("userid",),
        ),
    },
    "/api/twits": {
        "post": _operation(
            "postTwit",
            "Post a twit",
            {
                "201": {
                    "description": "The twit, with its id.",
                    "headers": _CREATED_HEADERS,
                    **_json(_ref("schemas", "Twit")),
                }
            },
            (400, 429),
            auth=True,
            body=_body("NewTwit", "The twit."),
        )
    },
    "/api/twits/{twit_id}": {
        "get": _operation(
            "getTwit",
            "One twit",
            _ok("The twit.", "Twit"),
            (404,),
            parameters=("twit_id",),
        ),
        "delete": _operation(
            "deleteTwit",
            "Delete your own twit, from your timeline and every stream",
            _ok("Deleted.", status="204"),
            (403, 404),
            auth=True,
            parameters=("twit_id",),
        ),
    },
    "/api/stream": {
        "get": _operation(
            "getStream",
            "Your home stream: your twits and those of whom you follow, newest first",
            _ok("One page of twits.", "TwitPage"),
            (400,),
            auth=True,
            parameters=_PAGED,
        )
    },
    "/api/schema": {
        "get": _operation(
            "getSchema",
            "This document",
            {"200": {"description": "OpenAPI 3.0.", **_json({"type": "object"})}},
            (),
        )
    },
}

DESCRIPTION = """\
The TwitBase JSON API. Bodies are JSON (the Content-Type is not checked).

**Authentication.** `POST /api/login` returns a token; send it as
`Authorization: Bearer <token>` where an operation requires it.
`POST /api/logout` revokes it; `POST /api/logout/everywhere` revokes every
token and web session of the account, and so does changing the password
(`POST /api/password`), except for the token that changed it. Disabling an
account revokes them all for good. Failed log-ins are throttled per account
and per client address: 429 with Retry-After.

**Errors.** Every error is a JSON object `{"error": message}`, with `"field"`
naming the input to blame when there is one. Methods an endpoint does not
support get 405 with an `Allow` header; HEAD works wherever GET does. URLs
under /api/ that name no endpoint get 404. A body larger than the server
takes gets 413. When storage cannot be reached, every operation answers 503
with `Retry-After`: nothing was changed unless the answer says so, and a
read may simply be repeated.

**Times** are ISO 8601 in UTC to the millisecond, ending in `Z`.

**Lists** take `limit` (1 to 100, default 20) and `cursor`, and return
`{"items": [...], "next_cursor": ...}`; pass `next_cursor` back as `cursor`
for the next page. It is null on the last page. Cursors are opaque: no page
repeats or skips an item when new twits arrive meanwhile. A cursor is at most
MAX_CURSOR_LEN characters; a longer one gets 400 naming `cursor`. A request
line longer than the web server reads gets 414 from the server itself, before
the app sees it: JSON from the development server (over 64 KB), gunicorn's
own page from the Docker image (over 4094 bytes).
""".replace("MAX_CURSOR_LEN", str(MAX_CURSOR_LEN))

SCHEMA: Obj = {
    "openapi": "3.0.3",
    "info": {"title": "TwitBase API", "version": "1.0.0", "description": DESCRIPTION},
    "paths": PATHS,
    "components": {
        "schemas": SCHEMAS,
        "parameters": PARAMETERS,
        "responses": RESPONSES,
        "securitySchemes": {
            "bearerAuth": {
                "type": "http",
                "scheme": "bearer",
                "description": "A token from `POST /api/login`.",
            }
        },
    },
}
