"""Sessions end when they should (issue 9): logout, log out everywhere, a
password change and disabling the account; and a cookie is not a session
unless the server still knows it."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.test import Client

from feeds import services
from feeds.types import User
from tests.helpers import PASSWORD, socket_turns

from .helpers import log_in

NEW_PASSWORD = "a-brand-new-secret-9"


def copy_of(client: Client) -> Client:
    """Another browser carrying the same cookies: a session cookie someone saved."""
    other = Client()
    for name, morsel in client.cookies.items():
        other.cookies[name] = morsel.value
    return other


def logged_in_as(client: Client) -> str | None:
    """The userid the home page greets, None for the landing page."""
    html = client.get("/").content.decode()
    if 'href="/signup"' in html:
        return None
    assert "Log out" in html
    user = client.get("/u/alice")
    return "alice" if user.status_code == 200 and "Edit profile" in user.content.decode() else "?"


def test_a_cookie_saved_before_logout_no_longer_signs_in(alice_client: Client) -> None:
    saved = copy_of(alice_client)
    assert logged_in_as(saved) == "alice"
    assert alice_client.post("/logout").status_code == 302
    assert logged_in_as(saved) is None
    assert logged_in_as(alice_client) is None


def test_logging_out_ends_only_that_session(alice: User) -> None:
    phone, laptop = Client(), Client()
    log_in(phone, "alice")
    log_in(laptop, "alice")
    phone.post("/logout")
    assert logged_in_as(phone) is None
    assert logged_in_as(laptop) == "alice"


def test_a_forged_cookie_naming_a_staff_user_is_refused(alice: User) -> None:
    """A cookie signed with the server's own key but naming a user, as the
    old sessions held, signs nobody in: only a session the server issued does."""
    services.set_staff("alice")
    forged = SessionStore()
    forged["userid"] = "alice"
    forged["sid"] = "made-up-session-id"
    forged.save()
    client = Client()
    client.cookies[django_settings.SESSION_COOKIE_NAME] = forged.session_key
    response = client.get("/console/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login")
    assert logged_in_as(client) is None


def test_log_out_everywhere_ends_every_session_and_token(alice: User) -> None:
    phone, laptop = Client(), Client()
    log_in(phone, "alice")
    log_in(laptop, "alice")
    issued = services.issue_token("alice", PASSWORD)
    assert issued is not None
    page = laptop.get("/account").content.decode()
    assert 'action="/logout/everywhere"' in page
    assert phone.get("/logout/everywhere").status_code == 405
    response = phone.post("/logout/everywhere")
    assert response.status_code == 302
    assert "You are logged out everywhere" in phone.get("/").content.decode()
    assert logged_in_as(phone) is None
    assert logged_in_as(laptop) is None
    assert services.token_user(issued[0]) is None
    # A new log-in works as before.
    log_in(laptop, "alice")
    assert logged_in_as(laptop) == "alice"


def test_changing_the_password_keeps_this_session_and_ends_the_others(alice: User) -> None:
    here, there = Client(), Client()
    log_in(here, "alice")
    log_in(there, "alice")
    saved = copy_of(here)
    issued = services.issue_token("alice", PASSWORD)
    assert issued is not None
    response = here.post("/account", {"current_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == "/account"
    assert "Your password is changed" in here.get("/account").content.decode()
    assert logged_in_as(here) == "alice"
    # The same cookie, copied: it is this session, so it stays too.
    assert logged_in_as(saved) == "alice"
    assert logged_in_as(there) is None
    assert services.token_user(issued[0]) is None
    assert services.authenticate("alice", PASSWORD) is None
    assert services.authenticate("alice", NEW_PASSWORD) is not None


def test_a_password_change_needs_the_current_password_and_a_good_new_one(
    alice_client: Client,
) -> None:
    response = alice_client.post(
        "/account", {"current_password": "not-it-at-all", "new_password": NEW_PASSWORD}
    )
    assert response.status_code == 400
    assert 'id="id_current_password_error">That is not your current password.' in (
        response.content.decode()
    )
    response = alice_client.post(
        "/account", {"current_password": PASSWORD, "new_password": "12345678"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_new_password_error">' in html
    assert "This password is too common." in html
    assert "This password is entirely numeric." in html
    assert services.authenticate("alice", PASSWORD) is not None


def test_the_account_page_sends_visitors_to_log_in(alice: User) -> None:
    response = Client().get("/account")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=/account"
    response = Client().post("/logout/everywhere")
    assert response["Location"].startswith("/login")


def test_disabling_ends_sessions_for_good(alice_client: Client) -> None:
    saved = copy_of(alice_client)
    services.set_disabled("alice")
    assert logged_in_as(saved) is None
    services.set_disabled("alice", False)
    # Re-enabled: the old cookie is still refused; a new log-in works.
    assert logged_in_as(saved) is None
    assert logged_in_as(alice_client) is None
    log_in(alice_client, "alice")
    assert logged_in_as(alice_client) == "alice"


def _cookie_of(sid: str, **more: str) -> Client:
    """A browser whose session cookie (signed with the server's key) holds
    the session id ``sid`` and ``more``."""
    store = SessionStore()
    store["sid"] = sid
    store.update(more)
    store.save()
    client = Client()
    client.cookies[django_settings.SESSION_COOKIE_NAME] = store.session_key
    return client


def test_a_signed_in_request_reads_its_session_and_user_in_one_round_trip(
    alice_client: Client,
) -> None:
    """Logging in keeps whom the session is for beside its id, so the
    session's row and the user's row are read at once: one round trip
    where the session's row named the user to read next."""
    sid, userid = alice_client.session["sid"], alice_client.session["uid"]
    assert userid == "alice"
    user, turns = socket_turns(lambda: services.session_user(sid, userid))
    assert turns == ["write", "read"]
    assert user == services.get_user("alice")


def test_the_session_row_decides_whom_a_cookie_signs_in(alice: User, bob: User) -> None:
    """The cookie's userid only says which user's row to read with the
    session's row: a cookie naming someone else, no one (one kept from
    before the userid was), or nonsense signs in the session's own user,
    and none signs anyone in once the session has ended."""
    sid = services.start_session(services.get_user("alice"))
    for named in ({"uid": "alice"}, {"uid": "bob"}, {}, {"uid": "no such user!"}):
        assert logged_in_as(_cookie_of(sid, **named)) == "alice", named
    services.revoke_token(sid)
    assert logged_in_as(_cookie_of(sid, uid="alice")) is None
