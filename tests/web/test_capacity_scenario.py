"""What the capacity scenario (loadtest/capacity.py, run by bench/capacity.py)
takes for granted about the pages, held to the pages: a minted session
cookie signs its reader in, and the forms it reads off a page are there and
do what a browser's post of them does. Were any of these to drift, the
scenario would measure redirects to the log-in page, or nothing.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from django.conf import settings
from django.test import Client

from bench.capacity import _session_cookie
from feeds import services
from feeds.services import accounts, reactions, twitlists
from feeds.types import User

PAGES = Path(__file__).resolve().parents[2] / "loadtest" / "pages.py"


def _scenario() -> ModuleType:
    spec = importlib.util.spec_from_file_location("capacity_pages", PAGES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reader(userid: str, secret: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    sid = services.start_session(accounts.get_user(userid))
    client.cookies[settings.SESSION_COOKIE_NAME] = _session_cookie(sid, userid, secret)
    return client


def test_a_minted_session_cookie_signs_its_reader_in_and_no_other_key_does(
    alice: User,
) -> None:
    page = _reader("alice", settings.SECRET_KEY).get("/")
    assert page.status_code == 200 and _scenario().SIGNED_IN in page.content.decode()
    forged = _reader("alice", "not the server's key").get("/")
    assert _scenario().SIGNED_IN not in forged.content.decode()


def test_the_forms_the_scenario_posts_are_on_the_pages_and_work(alice: User, bob: User) -> None:
    scenario = _scenario()
    services.follow("alice", "bob")
    twit = services.post_twit("bob", "read me")
    reader = _reader("alice", settings.SECRET_KEY)
    home = reader.get("/").content.decode()
    token = scenario.CSRF.search(home).group(1)

    like = scenario.LIKE.findall(home)
    assert like == [f"/u/bob/t/{twit.id}/like"]
    liked = reader.post(like[0], {"csrfmiddlewaretoken": token})
    assert liked.status_code == 302
    assert reactions.liked("alice", [twit.id]) == {twit.id}

    assert f"/u/bob/t/{twit.id}" in scenario.TWIT.findall(home)
    permalink = reader.get(f"/u/bob/t/{twit.id}").content.decode()
    action = scenario.COMPOSER.search(permalink).group(1)
    token = scenario.CSRF.search(permalink).group(1)
    replied = reader.post(action, {"csrfmiddlewaretoken": token, "text": "a reply"})
    assert replied.status_code == 302
    assert [r.text for r in twitlists.replies(twit.id).items] == ["a reply"]
