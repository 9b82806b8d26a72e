"""Issue 11's errors and pages: the styled 404 with DEBUG on, a page for a
GET on a POST-only URL, sign-up's errors all at once with the focus on the
first, one word for the userid, messages after follow and unfollow, the
delete confirmation, the favicon, thousands separators, UTC times that a
script makes local, and an <h1> on every page."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.test import Client, RequestFactory
from pytest_django.fixtures import Settings

from feeds import auth, services
from feeds.templatetags import ui
from feeds.types import Page, User
from tests.helpers import PASSWORD, ServerAddr

# -- 404 and 405 ------------------------------------------------------------------


@pytest.mark.parametrize("debug", [False, True])
def test_an_unknown_url_is_the_styled_404_page_with_debug_on_too(
    alice_client: Client, settings: Settings, debug: bool
) -> None:
    settings.DEBUG = debug
    for client in (Client(), alice_client):
        response = client.get("/no/such/page")
        assert response.status_code == 404
        html = response.content.decode()
        assert "<h1>Nothing here</h1>" in html
        # Django's technical page lists the URL patterns; the site's has its header.
        assert "URLconf" not in html
        assert 'class="topbar"' in html
    assert "Log out" in alice_client.get("/no/such/page").content.decode()


@pytest.mark.parametrize("debug", [False, True])
def test_a_missing_slash_still_redirects_and_the_api_still_answers_json(
    web: ServerAddr, settings: Settings, debug: bool
) -> None:
    settings.DEBUG = debug
    response = Client().get("/console")
    assert response.status_code == 301
    assert response["Location"] == "/console/"
    api = Client().get("/api/no/such/thing")
    assert api.status_code == 404
    assert api.json()["error"]


def _assert_405_page(html: str, heading: str) -> None:
    assert f"<h1>{heading}</h1>" in html, html
    assert "405" in html


def test_get_on_logout_is_a_page_with_the_button_and_logs_nobody_out(
    alice_client: Client,
) -> None:
    response = alice_client.get("/logout")
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    html = response.content.decode()
    _assert_405_page(html, "Log out with the button")
    # The way forward: the button that logs out, and a link to stay.
    assert re.search(r'<form class="inline" method="post" action="/logout">', html)
    assert '<a class="button button-secondary" href="/">Stay logged in</a>' in html
    assert "Log out" in alice_client.get("/").content.decode()
    # Its button works.
    assert alice_client.post("/logout").status_code == 302
    assert "Log out" not in alice_client.get("/").content.decode()


def test_get_on_logout_when_logged_out_says_so(web: ServerAddr) -> None:
    response = Client().get("/logout")
    assert response.status_code == 405
    html = response.content.decode()
    _assert_405_page(html, "You are not logged in")
    assert 'href="/login">Log in</a>' in html


def test_get_on_logout_everywhere_leads_to_the_account_page(alice_client: Client) -> None:
    response = alice_client.get("/logout/everywhere")
    assert response.status_code == 405
    html = response.content.decode()
    _assert_405_page(html, "Log out everywhere from your account page")
    assert 'href="/account">Go to your account</a>' in html
    assert "Log out" in alice_client.get("/").content.decode()


@pytest.mark.parametrize("verb", ["follow", "unfollow"])
def test_get_on_follow_or_unfollow_is_a_page_with_the_button(
    bob: User, alice_client: Client, verb: str
) -> None:
    if verb == "unfollow":
        services.follow("alice", "bob")
    response = alice_client.get(f"/u/bob/{verb}")
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    html = response.content.decode()
    _assert_405_page(html, f"{verb.capitalize()} @bob from their profile")
    assert f'action="/u/bob/{verb}"' in html
    assert 'name="next" value="/u/bob"' in html
    assert 'href="/u/bob">Go to @bob</a>' in html
    # Nothing changed.
    assert services.is_following("alice", "bob") is (verb == "unfollow")
    # A visitor gets the link only.
    html = Client().get(f"/u/bob/{verb}").content.decode()
    assert f'action="/u/bob/{verb}"' not in html
    assert 'href="/u/bob">Go to @bob</a>' in html


# -- sign-up -----------------------------------------------------------------------


def _autofocused(html: str) -> list[str]:
    """The names of the inputs with autofocus."""
    return re.findall(r'<input[^>]*\bname="(\w+)"[^>]*\bautofocus\b', html) + re.findall(
        r'<input[^>]*\bautofocus\b[^>]*\bname="(\w+)"', html
    )


def test_sign_up_shows_every_field_error_at_once_and_focuses_the_first(
    web: ServerAddr,
) -> None:
    response = Client().post(
        "/signup", {"userid": "x!", "name": "   ", "email": "not-an-email", "password": "short"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_userid_error">A userid is 3 to 20 letters' in html
    assert 'id="id_name_error">This field is required.' in html
    assert 'id="id_email_error">Enter a valid email address.' in html
    assert 'id="id_password_error">A password is at least 8 characters.' in html
    for name in ("userid", "name", "email", "password"):
        assert re.search(rf'<input[^>]*name="{name}"[^>]*aria-invalid="true"', html), name
    assert 'value="x!"' in html
    assert 'value="not-an-email"' in html
    assert 'value="short"' not in html
    assert _autofocused(html) == ["userid"]
    assert services.find_user("x!") is None


def test_sign_up_focuses_the_first_bad_field_even_when_it_is_not_the_first(
    web: ServerAddr,
) -> None:
    html = (
        Client()
        .post("/signup", {"userid": "dora", "name": "Dora", "email": "nope", "password": PASSWORD})
        .content.decode()
    )
    assert _autofocused(html) == ["email"]
    assert 'value="dora"' in html
    assert 'value="Dora"' in html
    assert f'value="{PASSWORD}"' not in html
    # Every error at once includes the password's, judged against what was typed.
    html = (
        Client()
        .post(
            "/signup",
            {"userid": "doraexplorer", "name": "D", "email": "nope", "password": "doraexplorer1"},
        )
        .content.decode()
    )
    assert 'id="id_email_error"' in html
    assert "The password is too similar to the userid." in html
    assert _autofocused(html) == ["email"]


def test_sign_up_with_a_taken_userid_focuses_the_userid(alice: User) -> None:
    html = (
        Client()
        .post(
            "/signup",
            {"userid": "alice", "name": "Al", "email": "al@example.com", "password": PASSWORD},
        )
        .content.decode()
    )
    assert "The userid alice is taken." in html
    assert _autofocused(html) == ["userid"]


def test_an_empty_sign_up_form_focuses_the_userid(web: ServerAddr) -> None:
    assert _autofocused(Client().get("/signup").content.decode()) == ["userid"]


def test_log_in_focuses_the_field_to_fix(alice: User) -> None:
    assert _autofocused(Client().get("/login").content.decode()) == ["userid"]
    html = Client().post("/login", {"userid": "alice", "password": ""}).content.decode()
    assert _autofocused(html) == ["password"]
    html = Client().post("/login", {"userid": "", "password": "x"}).content.decode()
    assert _autofocused(html) == ["userid"]
    # Refused as a whole: the userid is kept, the password is to type again.
    html = Client().post("/login", {"userid": "alice", "password": "wrong-pass"}).content.decode()
    assert "That userid and password do not match an account." in html
    assert _autofocused(html) == ["password"]


def test_the_user_name_is_called_userid_on_every_form_and_error(alice: User) -> None:
    pages = [
        Client().get("/signup"),
        Client().get("/login"),
        Client().post("/login", {"userid": "alice", "password": "wrong-password"}),
        Client().post("/signup", {"userid": "alice", "name": "A", "email": "a@example.com"}),
    ]
    for response in pages:
        html = response.content.decode()
        text = re.sub(r'autocomplete="username"', "", html)
        assert not re.search(r"user\s?name", text, re.IGNORECASE), html
        assert "Userid" in html or "userid" in html


# -- follow, unfollow, delete ------------------------------------------------------


def test_follow_and_unfollow_say_what_happened(bob: User, alice_client: Client) -> None:
    response = alice_client.post("/u/bob/follow", {"next": "/u/bob"}, follow=True)
    assert "You follow @bob now" in response.content.decode()
    html = alice_client.post("/u/bob/follow", {"next": "/u/bob"}, follow=True).content.decode()
    assert "You already follow @bob." in html
    html = alice_client.post("/u/bob/unfollow", {"next": "/u/bob"}, follow=True).content.decode()
    assert "You no longer follow @bob" in html
    html = alice_client.post("/u/bob/unfollow", {"next": "/"}, follow=True).content.decode()
    assert "You were not following @bob." in html
    # Said once: the next page has no message.
    assert "follow @bob" not in alice_client.get("/").content.decode()


def test_the_delete_confirmation_shows_the_twit_and_deletes_only_on_its_button(
    alice_client: Client,
) -> None:
    twit = services.post_twit("alice", "think twice")
    url = f"/u/alice/t/{twit.id}/delete"
    html = alice_client.get(url + "?next=/&back=/u/alice").content.decode()
    assert "<h1>Delete this twit?</h1>" in html
    assert "think twice" in html
    assert 'href="/u/alice">Cancel</a>' in html
    # The confirmation shows no Delete link of its own.
    assert html.count("/delete") == 1
    assert services.get_twit(twit.id).text == "think twice"
    assert alice_client.post(url, {"next": "/"})["Location"] == "/"
    assert alice_client.get(url).status_code == 404


def test_the_delete_confirmation_is_the_authors_only(alice: User, bob_client: Client) -> None:
    twit = services.post_twit("alice", "mine")
    url = f"/u/alice/t/{twit.id}/delete"
    response = bob_client.get(url)
    assert response.status_code == 403
    assert "You can delete only your own twits." in response.content.decode()
    # A visitor logs in first, then comes back to the confirmation.
    assert Client().get(url)["Location"] == f"/login?next={url}"


def test_the_delete_confirmation_cancels_to_this_site_only(alice_client: Client) -> None:
    twit = services.post_twit("alice", "mine")
    url = f"/u/alice/t/{twit.id}/delete?back=https://evil.example/&next=//evil.example"
    html = alice_client.get(url).content.decode()
    assert "evil.example" not in html
    assert f'href="/u/alice/t/{twit.id}">Cancel</a>' in html
    assert 'name="next" value="/u/alice"' in html


# -- favicon, counts, times --------------------------------------------------------


def test_the_favicon_is_linked_and_served(web: ServerAddr) -> None:
    html = Client().get("/").content.decode()
    assert '<link rel="icon" href="/static/feeds/favicon.svg" type="image/svg+xml">' in html
    assert finders.find("feeds/favicon.svg")
    response = Client().get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == "/static/feeds/favicon.svg"
    assert 'rel="icon"' in render_to_string("500.html")


def _profile_page(user: User, template: str, **extra: object) -> str:
    request = RequestFactory().get(f"/u/{user.userid}")
    request.user = auth.Anonymous()  # type: ignore[assignment]
    context = {"user": user, "page": Page((), None), "cursor": None, **extra}
    return render_to_string(template, context, request=request)


def test_counts_have_thousands_separators(web: ServerAddr) -> None:
    big = User(
        "star",
        "Star",
        "star@example.com",
        datetime(2026, 1, 2, tzinfo=UTC),
        twits=12345,
        followers=1234567,
        following=1000,
    )
    html = _profile_page(big, "profile.html", is_me=False, follows=False)
    assert "<strong>12,345</strong> twits" in html
    assert "<strong>1,234,567</strong> followers" in html
    assert "<strong>1,000</strong> following" in html
    html = _profile_page(big, "people.html", which="followers")
    assert "1,234,567 followers" in html
    assert "1,000 following" in html


def test_utc_iso_is_utc_to_the_millisecond() -> None:
    when = datetime(2026, 3, 4, 23, 30, 5, 123456, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert ui.utc_iso(when) == "2026-03-04T14:30:05.123Z"


@pytest.mark.parametrize(
    "when",
    [
        datetime(2026, 3, 4, 23, 30, 5, tzinfo=UTC),
        datetime(2026, 1, 9, 7, 5, tzinfo=UTC),
        datetime(2025, 12, 31, 23, 59, 59, tzinfo=UTC),
        # Elsewhere than UTC: the title says UTC, and the day can differ.
        datetime(2026, 3, 5, 1, 2, tzinfo=ZoneInfo("Asia/Tokyo")),
    ],
)
def test_a_cards_utc_stamp_is_what_djangos_date_filter_said(when: datetime) -> None:
    from django.template import defaultfilters

    assert ui.utc_stamp(when) == defaultfilters.date(when.astimezone(UTC), "j M Y, H:i")


def test_a_permalink_shows_utc_that_the_script_can_make_local(alice: User) -> None:
    twit = services.post_twit("alice", "what time is it")
    html = Client().get(f"/u/alice/t/{twit.id}").content.decode()
    found = re.search(r'<time datetime="([^"]+)" title="([^"]+)" data-local>([^<]+)</time>', html)
    assert found, html
    assert found.group(1) == ui.utc_iso(twit.created)
    assert found.group(2).endswith(" UTC")
    assert found.group(3) == f"{twit.created:%H:%M} · {twit.created.day} {twit.created:%B %Y} UTC"
    assert '<script src="/static/feeds/localtime.js" defer></script>' in html
    assert finders.find("feeds/localtime.js")


# -- an <h1> on every page ---------------------------------------------------------


def _h1s(html: str) -> int:
    return len(re.findall(r"<h1[\s>]", html))


def test_every_page_has_one_h1(alice: User, bob: User, settings: Settings) -> None:
    twit = services.post_twit("alice", "hello")
    alice_client, bob_client = Client(), Client()
    for client, userid in ((alice_client, "alice"), (bob_client, "bob")):
        assert client.post("/login", {"userid": userid, "password": PASSWORD}).status_code == 302
    pages = {
        "landing": Client().get("/"),
        "signup": Client().get("/signup"),
        "signup with errors": Client().post("/signup", {"userid": "x"}),
        "login": Client().get("/login"),
        "home, empty": bob_client.get("/"),
        "home": alice_client.get("/"),
        "account": alice_client.get("/account"),
        "profile": Client().get("/u/alice"),
        "followers": Client().get("/u/alice/followers"),
        "following": Client().get("/u/alice/following"),
        "permalink": Client().get(f"/u/alice/t/{twit.id}"),
        "delete confirmation": alice_client.get(f"/u/alice/t/{twit.id}/delete"),
        "403 (someone else's twit)": bob_client.post(f"/u/alice/t/{twit.id}/delete"),
        "404": Client().get("/no/such/page"),
        "405": alice_client.get("/logout"),
        "403 (form expired)": Client(enforce_csrf_checks=True).post("/login", {}),
    }
    services.set_disabled("alice")
    pages["suspended"] = Client().get("/u/alice")
    for name, response in pages.items():
        assert _h1s(response.content.decode()) == 1, name
    for template, context in (
        ("413.html", {"limit": 1024}),
        ("500.html", {}),
        ("503.html", {"retry_after": 5}),
    ):
        assert _h1s(render_to_string(template, context)) == 1, template
