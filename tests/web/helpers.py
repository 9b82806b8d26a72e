"""Helpers of the web tests; their fixtures are in conftest.py."""

from __future__ import annotations

import re
import time

from django.test import Client

from feeds import services
from tests.helpers import PASSWORD


def post_in_order(userid: str, texts: list[str]) -> None:
    """Post ``texts`` oldest first, each in a later millisecond than the one
    before: twits of one millisecond have no defined order in a stream."""
    for text in texts:
        services.post_twit(userid, text)
        time.sleep(0.002)


def log_in(client: Client, userid: str, password: str = PASSWORD) -> None:
    response = client.post("/login", {"userid": userid, "password": password})
    assert response.status_code == 302, response.content.decode()


def logged_in(userid: str) -> Client:
    """A test client with ``userid``'s session, as after the log-in form."""
    client = Client()
    log_in(client, userid)
    return client


def csrf_token(html: str) -> str:
    """The token of the first form on a page, as a browser would submit it."""
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert found, "no CSRF token on the page"
    return found.group(1)
