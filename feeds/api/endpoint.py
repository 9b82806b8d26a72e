"""How an API view is made: method dispatch, bearer auth, JSON in and out.

Every view under /api/ is an :func:`endpoint`, a table of handlers by HTTP
method. The endpoint turns every refusal into JSON ``{"error": message}``
(with ``"field"`` when one input is to blame) and the status the error
carries, so a handler is only the happy path: parse the input with the
helpers here, call one service, shape the answer.

Clients authenticate with ``Authorization: Bearer <token>`` alone; no
cookie is read, which is why every endpoint is exempt from CSRF checks.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from feeds import failures, services
from feeds.errors import InvalidInput, ServiceError
from feeds.types import User
from storage.connection import is_unreachable
from storage.keys import MAX_CURSOR_LEN

log = logging.getLogger(__name__)

P = ParamSpec("P")
Handler = Callable[..., HttpResponse]
View = Callable[..., HttpResponse]

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
# At most three digits: int() of a long digit string is slow, then refused.
_LIMIT_RE = re.compile(r"[0-9]{1,3}")
# RFC 6750: the scheme is case-insensitive, the token one run of non-spaces.
_BEARER_RE = re.compile(r"\s*bearer +(\S+)\s*", re.IGNORECASE)


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


def _answer(request: HttpRequest, handler: Handler, kwargs: dict[str, Any]) -> HttpResponse:
    try:
        return handler(request, **kwargs)
    except ServiceError as exc:
        return error_response(exc)
    except RequestDataTooBig:
        return error_response(ApiError(413, "The request body is too large."))
    except SuspiciousOperation:
        # Django's other request limits (too many query parameters, ...).
        return error_response(ApiError(400, "The request is malformed or too large."))
    except Exception as exc:
        if is_unreachable(exc):
            log.warning("API request %s %s: %s", request.method, request.path, exc)
            return failures.storage_unavailable(request, failures.as_unavailable(exc))
        # An API client always gets JSON; the traceback goes to the log.
        log.exception("API request %s %s failed", request.method, request.path)
        return error_response(ApiError(500, "Internal server error."))


def endpoint(**handlers: Handler) -> View:
    """A view that sends each method (``GET=handler``, ...) to its handler.

    HEAD goes wherever GET does (the server sends the headers only). Other
    methods get 405 with an ``Allow`` header. A handler receives the
    request and the URL's parameters, and either returns a response or
    raises a :class:`ServiceError`, which becomes the JSON error response.
    """
    if "GET" in handlers:
        handlers.setdefault("HEAD", handlers["GET"])
    allow = ", ".join(sorted(handlers))

    def method_not_allowed(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        raise ApiError(405, f"{request.method} is not allowed here: use {allow}.", {"Allow": allow})

    @csrf_exempt
    def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        return _answer(request, handlers.get(request.method or "", method_not_allowed), kwargs)

    return view


def _no_endpoint(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    raise ApiError(404, f"No API endpoint {request.path!r}.")


@csrf_exempt
def not_found(request: HttpRequest, **kwargs: Any) -> HttpResponse:
    """Any URL under /api/ that no endpoint claims, whatever the method."""
    return _answer(request, _no_endpoint, kwargs)


# -- input -------------------------------------------------------------------------


def bearer_token(request: HttpRequest) -> str:
    """The token of an ``Authorization: Bearer <token>`` header; 401 without one."""
    header = request.headers.get("Authorization")
    if header is None:
        raise unauthorized("Log in first: send Authorization: Bearer <token>.")
    match = _BEARER_RE.fullmatch(header)
    if match is None:
        raise unauthorized('The Authorization header must be "Bearer <token>".')
    return match[1]


def authenticated(
    handler: Callable[Concatenate[HttpRequest, User, P], HttpResponse],
) -> Callable[Concatenate[HttpRequest, P], HttpResponse]:
    """Call ``handler`` with the bearer token's user after the request; 401
    when the token is missing, malformed, revoked or its user disabled."""

    @functools.wraps(handler)
    def wrapper(request: HttpRequest, /, *args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        user = services.token_user(bearer_token(request))
        if user is None:
            raise unauthorized(
                "The token is invalid or has been revoked.", 'Bearer error="invalid_token"'
            )
        return handler(request, user, *args, **kwargs)

    return wrapper


def json_object(request: HttpRequest) -> dict[str, Any]:
    """The body as a JSON object; 400 if it is not one. Content-Type is not
    checked, so ``curl -d '{...}'`` works without ``-H``."""
    try:
        body = json.loads(request.body)
    except (ValueError, RecursionError):
        # ValueError covers bad JSON and bad UTF-8; RecursionError, deep nesting.
        body = None
    if not isinstance(body, dict):
        raise InvalidInput(None, "The request body must be a JSON object.")
    return body


def string(body: dict[str, Any], name: str) -> str:
    """``body[name]``, which must be a string; 400 naming the field if not."""
    value = body.get(name)
    if not isinstance(value, str):
        raise InvalidInput(name, f"{name} is required, as a string.")
    return value


def page_args(request: HttpRequest) -> tuple[str | None, int]:
    """The ``cursor`` (opaque, at most MAX_CURSOR_LEN characters; the
    services check the rest) and ``limit`` (1 to 100, default 20) query
    parameters of a list."""
    raw = request.GET.get("limit")
    limit = DEFAULT_LIMIT
    if raw is not None:
        limit = int(raw) if _LIMIT_RE.fullmatch(raw) else 0
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInput("limit", f"limit must be a whole number from 1 to {MAX_LIMIT}.")
    cursor = request.GET.get("cursor") or None
    if cursor is not None and len(cursor) > MAX_CURSOR_LEN:
        raise InvalidInput(
            "cursor",
            f"cursor is at most {MAX_CURSOR_LEN} characters: pass back a next_cursor as it came.",
        )
    return cursor, limit


# -- output ------------------------------------------------------------------------


def ok(data: object, status: int = 200, headers: dict[str, str] | None = None) -> JsonResponse:
    return JsonResponse(data, status=status, headers=headers, safe=False)


def no_content() -> HttpResponse:
    return HttpResponse(status=204)
