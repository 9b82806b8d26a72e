"""While HBase cannot be reached, every page answers a styled 503 with
Retry-After: never Django's debug page (even with DEBUG on) nor a 500."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from pytest_django.fixtures import Settings

from feeds import services
from feeds.types import User
from storage.connection import StorageUnavailable
from tests.console.helpers import PAGES as CONSOLE_PAGES
from tests.outage import storage_down

PAGES = ["/", "/login", "/signup", "/u/bob", "/u/bob/followers", "/u/bob/following"]
FORMS = {
    "/": {"text": "posted during an outage"},
    "/login": {"userid": "alice", "password": "password-123"},
    "/u/bob/follow": {},
    "/u/bob/unfollow": {},
}


def assert_503_page(response: HttpResponse) -> None:
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    assert "We will be right back" in html
    assert 'class="card error-page"' in html  # the site's own styled page
    assert "Traceback" not in html and "technical" not in html.lower()
    # The site's header, with the ways on that need no profile: Home and the search box.
    assert '<nav class="nav" aria-label="Main">' in html
    assert 'id="nav-q"' in html


@pytest.fixture
def alice_staff_client(alice_client: Client, bob: User) -> Client:
    services.set_staff("alice")
    return alice_client


@pytest.mark.parametrize("debug", [False, True])
def test_every_page_is_a_styled_503_while_storage_is_down(
    alice_staff_client: Client, settings: Settings, debug: bool
) -> None:
    twit = services.post_twit("bob", "hello")
    settings.DEBUG = debug
    with storage_down(settings):
        for url in [*PAGES, f"/u/bob/t/{twit.id}", *CONSOLE_PAGES]:
            assert_503_page(alice_staff_client.get(url))
        for url, form in [*FORMS.items(), (f"/u/bob/t/{twit.id}/delete", {})]:
            assert_503_page(alice_staff_client.post(url, form))
    assert services.timeline("alice").items == ()
    assert not services.is_following("alice", "bob")


def test_an_anonymous_visitor_gets_the_503_page_too(bob: User, settings: Settings) -> None:
    settings.DEBUG = True
    with storage_down(settings):
        assert_503_page(Client().get("/u/bob"))
        assert_503_page(Client().post("/login", {"userid": "bob", "password": "x"}))
        assert_503_page(
            Client().post(
                "/signup",
                {
                    "userid": "dave",
                    "name": "Dave",
                    "email": "d@example.com",
                    "password": "a long passphrase 93",
                },
            )
        )


def test_django_s_own_404_page_is_a_503_when_it_cannot_load_the_visitor(
    alice_client: Client, settings: Settings
) -> None:
    # Django renders its 404 page outside any view: the header's visitor
    # lookup fails there, past every process_exception.
    client = Client(raise_request_exception=False)
    client.cookies = alice_client.cookies
    with storage_down(settings):
        assert_503_page(client.get("/no/such/page"))


def failing_middleware(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    def middleware(request: HttpRequest) -> HttpResponse:
        raise StorageUnavailable("HBase is down (raised by a middleware)")

    return middleware


@pytest.mark.parametrize("debug", [False, True])
def test_an_outage_met_by_a_middleware_is_a_503_too(
    alice: User, settings: Settings, debug: bool
) -> None:
    settings.DEBUG = debug
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.failing_middleware"]
    assert_503_page(Client(raise_request_exception=False).get("/u/alice"))
    api = Client(raise_request_exception=False).get("/api/users/alice")
    assert api.status_code == 503
    assert api.json()["error"]
    assert api["Retry-After"]


def test_pages_work_again_once_storage_is_back(alice_client: Client, settings: Settings) -> None:
    with storage_down(settings):
        assert_503_page(alice_client.get("/"))
    assert alice_client.get("/").status_code == 200
