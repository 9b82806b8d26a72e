"""How TwitBase logs: plain text lines in development, one JSON object per
line in production (``TWITBASE_LOG_FORMAT``, by default ``json`` when
DJANGO_DEBUG=0), for a log shipper to parse without guessing.

A JSON line has ``time`` (ISO 8601, UTC), ``level``, ``logger`` and
``message``; an exception adds ``exc_info``, and whatever a caller passed as
``extra`` comes along. A line logged while a request is being served (by
the thread serving it) also has ``request_id``, ``method``, ``path``,
``route`` (the URL pattern, once resolved) and ``remote_addr``:
:class:`RequestFields` adds them, from the request that
``feeds.observability.middleware`` puts in :data:`current_request`.

The formatter is python-json-logger's, the library most Python services use
for this; only the field names and the request fields are ours. The same
configuration serves Django's settings (``LOGGING``) and gunicorn's own
loggers (``twitbase/gunicorn_conf.py``), so that a production process writes
JSON and nothing else.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.http import HttpRequest


# Set and reset around each request by the metrics middleware.
current_request: ContextVar[HttpRequest | None] = ContextVar("current_request", default=None)
# Where the middleware keeps a request's id (the client's X-Request-ID, or a
# made-up one): in its WSGI environ, which Django's own log records reach too.
REQUEST_ID = "twitbase.request_id"

# LogRecord attributes python-json-logger leaves out, plus Django's
# ``request`` (an HttpRequest object, or a socket in runserver's log):
# RequestFields puts its fields in as plain strings instead.
_LEFT_OUT = ("request", "server_time")


def request_fields(request: HttpRequest) -> dict[str, str]:
    """What a log line says of ``request``."""
    match = getattr(request, "resolver_match", None)
    fields = {
        "request_id": str(request.META.get(REQUEST_ID, "")),
        "method": str(request.method),
        "path": request.path,
        "remote_addr": str(request.META.get("REMOTE_ADDR", "")),
    }
    if match is not None:
        fields["route"] = "/" + str(match.route)
    return {k: v for k, v in fields.items() if v}


class RequestFields(logging.Filter):
    """Adds the fields of the request being served (or of the one the record
    names, as ``django.request`` does) to every record; lets every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        from django.http import HttpRequest

        # Django's request log comes after the middleware has let go of the
        # request, but names it in the record.
        request = getattr(record, "request", None)
        if not isinstance(request, HttpRequest):
            request = current_request.get()
        if request is not None:
            for key, value in request_fields(request).items():
                record.__dict__.setdefault(key, value)
        return True


def json_formatter() -> dict[str, Any]:
    """The dictConfig entry of the JSON formatter."""
    from pythonjsonlogger.core import RESERVED_ATTRS

    return {
        "()": "pythonjsonlogger.json.JsonFormatter",
        "fmt": "%(levelname)s %(name)s %(message)s",
        "rename_fields": {"levelname": "level", "name": "logger"},
        "timestamp": "time",
        "reserved_attrs": [*RESERVED_ATTRS, *_LEFT_OUT],
    }


PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
FORMATS = ("text", "json")


def log_format(debug: bool) -> str:
    """TWITBASE_LOG_FORMAT: "json" or "text", by default text when ``debug``."""
    from .env import env_choice

    return env_choice("TWITBASE_LOG_FORMAT", "text" if debug else "json", FORMATS)


def log_level() -> str:
    from .env import env_str

    return env_str("TWITBASE_LOG_LEVEL", "INFO")


def logging_config(log_format: str, level: str) -> dict[str, Any]:
    """Django's LOGGING: every record to stderr, as JSON (``log_format``
    "json") or as plain text lines ("text").

    With JSON, Python's warnings are logged too (logger ``py.warnings``)
    instead of being printed as two lines of bare text.
    """
    if log_format == "json":
        logging.captureWarnings(True)
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": PLAIN_FORMAT}, "json": json_formatter()},
        "filters": {"request": {"()": "twitbase.logconfig.RequestFields"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json" if log_format == "json" else "plain",
                "filters": ["request"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
    }
