"""``manage.py runserver`` (with static files, as django.contrib.staticfiles
has it) whose own error answers are JSON under /api/.

The development server refuses some requests before Django sees them: a
request line over 64 KB (414), too many or too long headers (431), a bad
HTTP version. Python's http.server answers those with an HTML page; an API
client expects ``{"error": ...}`` like every other API error, so for a
request line that starts with a method and ``/api/`` the answer is JSON.
Everything else is Django's runserver unchanged.

The production server (gunicorn) has its own limit, --limit-request-line,
and its own HTML answer; see the Dockerfile.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.contrib.staticfiles.management.commands.runserver import Command as StaticRunserver
from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer

# What of the request line is readable when it is too long: "GET /api/...".
_API_REQUEST = re.compile(rb"[A-Z]{1,16} /api/")


class ApiErrorsRequestHandler(WSGIRequestHandler):
    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        if not _API_REQUEST.match(getattr(self, "raw_requestline", b"")):
            super().send_error(code, message, explain)
            return
        try:
            short, _ = self.responses[code]
        except KeyError:
            short = "Error"
        text = message or short
        if code == 414:
            text = "The URL is too long: at most 64 KB (cursors are at most a few hundred bytes)."
        body = json.dumps({"error": text}).encode()
        self.log_error("code %d, message %s", code, text)
        self.send_response(code, short)
        self.send_header("Content-Type", "application/json")
        self.send_header("Connection", "close")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and code >= 200 and code not in (204, 304):
            self.wfile.write(body)


class ApiErrorsServer(WSGIServer):
    def __init__(self, server_address: Any, handler: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(server_address, ApiErrorsRequestHandler, *args, **kwargs)


class Command(StaticRunserver):
    server_cls = ApiErrorsServer
