"""Sign up, log in, log out, CSRF, and sending visitors to the login page."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.types import User
from tests.helpers import PASSWORD, ServerAddr

from .helpers import csrf_token


def test_visitor_sees_landing_page_with_sign_up_and_log_in(web: ServerAddr) -> None:
    response = Client().get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'href="/signup"' in html
    assert 'href="/login"' in html
    assert "Log out" not in html


def test_sign_up_creates_account_logs_in_and_goes_home(web: ServerAddr) -> None:
    client = Client()
    response = client.post(
        "/signup",
        {"userid": "dora", "name": "Dora D", "email": "dora@example.com", "password": PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    home = client.get("/").content.decode()
    assert "Welcome to TwitBase, Dora D!" in home
    assert "Log out" in home
    assert services.get_user("dora").name == "Dora D"


def test_sign_up_errors_show_next_to_their_fields_with_input_kept(web: ServerAddr) -> None:
    response = Client().post(
        "/signup",
        {"userid": "x!", "name": "Xavier", "email": "xavier@example.com", "password": PASSWORD},
    )
    assert response.status_code == 400
    html = response.content.decode()
    # The service's message, on the userid field; the other input kept.
    assert 'id="id_userid_error">A userid is 3 to 20 letters' in html
    assert 'value="x!"' in html
    assert 'value="Xavier"' in html
    assert 'value="xavier@example.com"' in html
    assert services.find_user("x!") is None


def test_sign_up_short_password_is_an_error_on_the_password_field(web: ServerAddr) -> None:
    response = Client().post(
        "/signup", {"userid": "dora", "name": "Dora", "email": "d@example.com", "password": "short"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_password_error">A password is at least 8 characters.' in html
    # A password is never sent back to the browser.
    assert 'value="short"' not in html


def test_sign_up_with_taken_userid_says_so_on_the_userid_field(alice: User) -> None:
    response = Client().post(
        "/signup",
        {"userid": "ALICE", "name": "Other", "email": "o@example.com", "password": PASSWORD},
    )
    assert response.status_code == 400
    assert 'id="id_userid_error">The userid ALICE is taken.' in response.content.decode()


def test_log_in_with_wrong_password_keeps_userid_and_explains(alice: User) -> None:
    response = Client().post("/login", {"userid": "alice", "password": "wrong-password"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "That userid and password do not match an account." in html
    assert 'value="alice"' in html


def test_log_in_returns_to_next_on_this_site_only(alice: User) -> None:
    client = Client()
    response = client.post(
        "/login?next=/u/alice", {"userid": "alice", "password": PASSWORD, "next": "/u/alice"}
    )
    assert response["Location"] == "/u/alice"
    client = Client()
    response = client.post(
        "/login", {"userid": "alice", "password": PASSWORD, "next": "https://evil.example/"}
    )
    assert response["Location"] == "/"


def test_log_out_is_a_post_and_ends_the_session(alice_client: Client) -> None:
    assert alice_client.get("/logout").status_code == 405
    response = alice_client.post("/logout")
    assert response.status_code == 302
    html = alice_client.get("/").content.decode()
    assert "You are logged out." in html
    assert 'href="/signup"' in html


def test_actions_send_visitors_to_log_in_with_next(bob: User) -> None:
    client = Client()
    response = client.post("/u/bob/follow", {"next": "/u/bob"})
    assert response.status_code == 302
    assert response["Location"] == "/login?next=/u/bob"
    response = client.post("/", {"text": "hello"})
    assert response["Location"] == "/login?next=/"
    assert services.timeline("bob").items == ()


def test_login_page_keeps_next_through_a_failed_attempt(alice: User) -> None:
    client = Client()
    html = client.get("/login?next=/u/alice/followers").content.decode()
    assert 'name="next" value="/u/alice/followers"' in html
    response = client.post("/login", {"userid": "alice", "password": "x", "next": "/u/alice"})
    assert 'name="next" value="/u/alice"' in response.content.decode()


def test_posts_without_a_csrf_token_are_refused(alice: User) -> None:
    client = Client(enforce_csrf_checks=True)
    # Log in as a browser does: the form's token with the cookie it came with.
    token = csrf_token(client.get("/login").content.decode())
    response = client.post(
        "/login", {"userid": "alice", "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    refused = client.post("/", {"text": "forged"})
    assert refused.status_code == 403
    assert "This form has expired" in refused.content.decode()
    assert client.post("/logout").status_code == 403
    assert services.timeline("alice").items == ()
    # The token rotates at log-in: the home page's form carries the new one.
    token = csrf_token(client.get("/").content.decode())
    posted = client.post("/", {"text": "real", "csrfmiddlewaretoken": token})
    assert posted.status_code == 302
    assert [t.text for t in services.timeline("alice").items] == ["real"]


def test_logged_in_user_is_sent_home_from_sign_up_and_log_in(alice_client: Client) -> None:
    assert alice_client.get("/signup")["Location"] == "/"
    assert alice_client.get("/login")["Location"] == "/"
