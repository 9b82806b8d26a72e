"""Helpers of the console tests; their fixtures are in conftest.py."""

from __future__ import annotations

import html as htmllib
import re

from feeds.services import console

# Every page of the console, as a GET.
PAGES = [
    "/console/",
    "/console/tables",
    "/console/rows",
    "/console/rows?table=users&by=hex&prefix=",
    "/console/keys",
    "/console/fanout",
    "/console/users",
    "/console/users/alice",
    "/console/audit",
]


def text_of(response: object) -> str:
    """A page's text without tags, unescaped and with runs of space made one."""
    body = response.content.decode()  # type: ignore[attr-defined]
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def audit_actions() -> list[tuple[str, str, str]]:
    """(actor, action, target) of the audit log, newest first."""
    return [(e.actor, e.action, e.target) for e in console.audit_log(limit=100).items]


def assert_answers(response: object, status: int, message: str) -> None:
    """``response`` has ``status`` and shows ``message`` in its text."""
    assert response.status_code == status  # type: ignore[attr-defined]
    assert message in text_of(response)
