"""A small JSON API client for the reliability tests (standard library only)."""

from __future__ import annotations

import functools
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from tests import waiting

# Strong enough for Django's password validators (length, common, similarity).
PASSWORD = "Vq7-lantern-orbit-52"


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any


def call(
    base: str, method: str, path: str, body: object = None, token: str | None = None
) -> Answer:
    """One request; an HTTP error status is an answer, not an exception.
    A refused or dropped connection raises OSError."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return Answer(resp.status, json.loads(raw) if raw else None)
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw[:200]
        return Answer(exc.code, parsed)


def sign_up(base: str, userid: str) -> str:
    """Register ``userid`` and log in: its bearer token."""
    made = call(
        base,
        "POST",
        "/api/users",
        {
            "userid": userid,
            "name": userid.title(),
            "email": f"{userid}@example.com",
            "password": PASSWORD,
        },
    )
    assert made.status == 201, made
    login = call(base, "POST", "/api/login", {"userid": userid, "password": PASSWORD})
    assert login.status == 200, login
    return str(login.body["token"])


def stream_ids(base: str, token: str) -> set[str]:
    ids: set[str] = set()
    cursor = ""
    while True:
        page = call(base, "GET", f"/api/stream?limit=100{cursor}", token=token)
        assert page.status == 200, page
        ids |= {t["id"] for t in page.body["items"]}
        if not page.body["next_cursor"]:
            return ids
        cursor = f"&cursor={page.body['next_cursor']}"


# The reliability tests poll parts that are being killed and brought back:
# a refused connection meanwhile is "not yet".
eventually = functools.partial(waiting.eventually, every=0.25, retry_on=(OSError,))
