"""The API's plumbing on django-ninja: the :data:`api` object, bearer auth,
the body parser and the exception handlers.

Every refusal is JSON ``{"error": message}`` (with ``"field"`` when one input
is to blame) with the status the error carries, so a view is only the happy
path: ninja parses the input into :mod:`feeds.api.schemas` models, the view
calls one service and returns what it gives.

Clients authenticate with ``Authorization: Bearer <token>`` alone; no cookie
is read, which is why ninja exempts every view from CSRF checks.

What ninja does not do our way is written here by hand, small: HEAD wherever
GET works (:func:`get`), a JSON 405 with a sorted ``Allow`` and a JSON 404 for
the rest of /api/ (:func:`json_refusals`, :func:`not_found`), and a parser
that takes any body, whatever its Content-Type, and never raises.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser
from ninja.security import HttpBearer

from feeds import failures, services
from feeds.errors import InvalidInput, ServiceError
from feeds.types import User

from .schemas import DEFAULT_LIMIT, Error

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

# RFC 6750: the scheme is case-insensitive, the token one run of non-spaces.
_BEARER_RE = re.compile(r"\s*bearer +(\S+)\s*", re.IGNORECASE)
NOT_AN_OBJECT = "The request body must be a JSON object."


class ApiError(ServiceError):
    """A refusal the API makes itself (not a service), with extra headers."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


def unauthorized(message: str, challenge: str = "Bearer") -> ApiError:
    return ApiError(401, message, {"WWW-Authenticate": challenge})


def error_response(exc: ServiceError) -> JsonResponse:
    """``{"error": message}`` (and ``"field"``) with the error's status and headers."""
    body = {"error": exc.message}
    if isinstance(exc, InvalidInput) and exc.field:
        body["field"] = exc.field
    headers: dict[str, str] = {}
    if isinstance(exc, ApiError):
        headers = exc.headers
    elif isinstance(exc, services.RateLimited):
        headers = {"Retry-After": str(exc.retry_after)}
    return JsonResponse(body, status=exc.status, headers=headers)


# -- input -------------------------------------------------------------------------


class AnyJson(Parser):
    """The body as JSON whatever the Content-Type (so ``curl -d '{...}'``
    works without ``-H``); None when it is not JSON, which the body's model
    then refuses like any other non-object."""

    def parse_body(self, request: HttpRequest) -> Any:
        try:
            return json.loads(request.body)
        except (ValueError, RecursionError):
            # ValueError: bad JSON, bad UTF-8, an integer too long to convert;
            # RecursionError: deep nesting.
            return None


@dataclass(frozen=True)
class Caller:
    """Who sent the request: the bearer token and its user."""

    token: str
    user: User


class BearerToken(HttpBearer):
    """``Authorization: Bearer <token>`` checked by the token service; 401
    when the token is missing, malformed, revoked or its user disabled."""

    openapi_description = "A token from `POST /api/login`."

    def __call__(self, request: HttpRequest) -> Caller:
        header = request.headers.get("Authorization")
        if header is None:
            raise unauthorized("Log in first: send Authorization: Bearer <token>.")
        match = _BEARER_RE.fullmatch(header)
        if match is None:
            raise unauthorized('The Authorization header must be "Bearer <token>".')
        return self.authenticate(request, match[1])

    def authenticate(self, request: HttpRequest, token: str) -> Caller:
        user = services.token_user(token)
        if user is None:
            raise unauthorized(
                "The token is invalid or has been revoked.", 'Bearer error="invalid_token"'
            )
        return Caller(token, user)


def caller(request: HttpRequest) -> Caller:
    """The :class:`Caller` :class:`BearerToken` put on an authenticated request."""
    found = getattr(request, "auth", None)
    assert isinstance(found, Caller), "caller() on an operation without auth=bearer"
    return found


bearer = BearerToken()


def reader(request: HttpRequest) -> User | None:
    """Who reads, on an operation open to all: the caller's profile when the
    request carries a valid bearer token (or :func:`caller` put one there),
    looked up once per request, else None. A missing or bad token is no
    error here: the answer is the public one, without the reader's
    ``liked``/``reposted``."""
    found = getattr(request, "auth", None)
    if isinstance(found, Caller):
        return found.user
    if not hasattr(request, "_reader_profile"):
        match = _BEARER_RE.fullmatch(request.headers.get("Authorization") or "")
        user = None if match is None else services.token_user(match[1])
        request._reader_profile = user  # type: ignore[attr-defined]
    profile: User | None = request._reader_profile  # type: ignore[attr-defined]
    return profile


DESCRIPTION = f"""\
The TwitBase JSON API. Bodies are JSON (the Content-Type is not checked).

**Authentication.** `POST /api/login` returns a token; send it as
`Authorization: Bearer <token>` where an operation requires it.
`POST /api/logout` revokes it; `POST /api/logout/everywhere` revokes every
token and web session of the account, and so does changing the password
(`POST /api/password`), except for the token that changed it. Disabling an
account revokes them all for good. Failed log-ins are throttled per account
and per client address: 429 with Retry-After.

**Errors.** Every error is a JSON object `{{"error": message}}`, with `"field"`
naming the input to blame when there is one. Methods an endpoint does not
support get 405 with an `Allow` header; HEAD works wherever GET does. URLs
under /api/ that name no endpoint get 404. A body larger than the server
takes gets 413. When storage cannot be reached, every operation answers 503
with `Retry-After`: nothing was changed unless the answer says so, and a
read may simply be repeated.

**Times** are ISO 8601 in UTC to the millisecond, ending in `Z`.

**Lists** take `limit` (1 to {services.MAX_LIMIT}, default {DEFAULT_LIMIT}) and `cursor`, and return
`{{"items": [...], "next_cursor": ...}}`; pass `next_cursor` back as `cursor`
for the next page. It is null on the last page. Cursors are opaque: no page
repeats or skips an item when new twits arrive meanwhile. A cursor is at most
{services.MAX_CURSOR_LEN} characters; a longer one gets 400 naming `cursor`. A request
line longer than the web server reads gets 414 from the server itself, before
the app sees it: JSON from the development server (over 64 KB), gunicorn's
own page from the Docker image (over 4094 bytes).
"""


class Api(NinjaAPI):
    def get_content_type(self) -> str:
        # As every error answer has it: JSON is UTF-8 (RFC 8259), no charset.
        return self.renderer.media_type or "application/json"


api = Api(
    title="TwitBase API",
    version="1.0.0",
    description=DESCRIPTION,
    parser=AnyJson(),
    # GET /api/schema is an operation of its own (views.py), documented like
    # the rest; its HTML page, /api/docs, is docs.py's.
    openapi_url=None,
    docs_url=None,
    urls_namespace="api",
)


# -- errors ------------------------------------------------------------------------


def _invalid(errors: list[dict[str, Any]]) -> InvalidInput:
    """The first of ninja's validation errors as the services would say it."""
    first = errors[0]
    source, *path = first["loc"]
    if source == "body":
        # ("body", param): the body itself; ("body", param, name): one field.
        if len(path) < 2:
            return InvalidInput(None, NOT_AN_OBJECT)
        # Every body field is a StrictStr (schemas.py), so this is what went wrong.
        name = str(path[1])
        return InvalidInput(name, f"{name} is required, as a string.")
    name = str(path[-1]) if path else source
    if first["type"] == name:  # our own PydanticCustomError, message and all
        return InvalidInput(name, first["msg"])
    return InvalidInput(name, f"{name}: {first['msg']}")


@api.exception_handler(ServiceError)
def _refused(request: HttpRequest, exc: ServiceError) -> HttpResponse:
    return error_response(exc)


@api.exception_handler(ValidationError)
def _bad_input(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    return error_response(_invalid(exc.errors))


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return error_response(ApiError(exc.status_code, str(exc)))


@api.exception_handler(AuthenticationError)
def _no_auth(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    # BearerToken raises its own 401s; this is ninja's fallback, never reached.
    return error_response(unauthorized("Log in first: send Authorization: Bearer <token>."))


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return error_response(ApiError(413, "The request body is too large."))


@api.exception_handler(SuspiciousOperation)
def _suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
    # Django's other request limits (too many query parameters, ...).
    return error_response(ApiError(400, "The request is malformed or too large."))


@api.exception_handler(Exception)
def _failed(request: HttpRequest, exc: Exception) -> HttpResponse:
    if services.is_unreachable(exc):
        log.warning("API request %s %s: %s", request.method, request.path, exc)
        return failures.storage_unavailable(request, failures.as_unavailable(exc))
    # An API client always gets JSON; the traceback goes to the log.
    log.exception("API request %s %s failed", request.method, request.path, exc_info=exc)
    return error_response(ApiError(500, "Internal server error."))


# -- routes ------------------------------------------------------------------------

_DESCRIPTIONS = {
    400: "Malformed JSON, a missing or invalid field, or a bad query parameter.",
    401: "No valid bearer token (or, for log-in, wrong credentials).",
    403: "Not yours to change, or (for log-in) the account is suspended.",
    404: "No such user, twit or endpoint, or the account is suspended.",
    409: "The userid is taken, or the password changed meanwhile.",
    413: "The request body is larger than the server accepts.",
    429: "Over the per-user posting limit, or too many failed log-ins for the account "
    "or from the client's address; retry after Retry-After seconds.",
    503: "Storage cannot be reached; retry after Retry-After seconds.",
}


def _header(description: str, *, required: bool = False, seconds: bool = False) -> dict[str, Any]:
    schema = {"type": "integer", "minimum": 1} if seconds else {"type": "string"}
    header: dict[str, Any] = {"description": description, "schema": schema}
    if required:
        header["required"] = True
    return header


_HEADERS = {
    201: {"Location": _header("The new resource's URL.")},
    401: {"WWW-Authenticate": _header("The Bearer challenge.")},
    429: {
        "Retry-After": _header(
            "Seconds until posting or logging in is allowed again.", required=True, seconds=True
        )
    },
    503: {
        "Retry-After": _header("Seconds to wait before trying again.", required=True, seconds=True)
    },
}


def operation(
    answers: dict[int, Any],
    *errors: int,
    descriptions: dict[int, str],
    auth: bool = False,
    body: bool = False,
) -> dict[str, Any]:
    """ninja's ``response=``, ``openapi_extra=`` and ``auth=`` for an operation
    that answers ``answers`` (status: model, None for no body) or one of
    ``errors``. Any operation may meet a storage outage (503), one with auth
    a bad token (401), one with a body a body too large (413)."""
    codes = sorted({*errors, 503, *((401,) if auth else ()), *((413,) if body else ())})
    # An operation's own word for an error, where it has one, over the general one.
    general = {code: _DESCRIPTIONS[code] for code in codes if code not in descriptions}
    documented = {**descriptions, **general}
    responses = {
        code: {"description": text, **({"headers": _HEADERS[code]} if code in _HEADERS else {})}
        for code, text in documented.items()
    }
    return {
        "response": {**answers, **dict.fromkeys(codes, Error)},
        "openapi_extra": {"responses": responses},
        "auth": bearer if auth else None,
    }


def get(path: str, **kwargs: Any) -> Callable[[F], F]:
    """``api.get`` that also answers HEAD (the server sends the headers
    only), as RFC 9110 has it; HEAD is not documented on its own."""

    def register(view: F) -> F:
        api.default_router.add_api_operation(path, ["GET"], view, **kwargs)
        head = {**kwargs, "include_in_schema": False}
        api.default_router.add_api_operation(path, ["HEAD"], view, **head)
        return view

    return register


def json_refusals(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """A view under /api/ whose 405 is JSON, with ``Allow`` sorted."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        response = view(request, *args, **kwargs)
        if isinstance(response, HttpResponseNotAllowed):
            allow = ", ".join(sorted(m.strip() for m in response["Allow"].split(",")))
            message = f"{request.method} is not allowed here: use {allow}."
            return error_response(ApiError(405, message, {"Allow": allow}))
        return response

    return wrapped


@csrf_exempt
def not_found(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    """Any URL under /api/ that no endpoint claims, whatever the method."""
    return error_response(ApiError(404, f"No API endpoint {request.path!r}."))
