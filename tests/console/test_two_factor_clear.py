"""Staff clear the two-factor sign-in of a user who lost both the app and
the recovery codes (issue 36): a button on the user's console page, a
confirmation, both POSTs with the CSRF token, an audit row; the user's
sessions end, and the password alone logs in afterwards."""

from __future__ import annotations

import re

import pyotp
from django.test import Client

from feeds import services
from feeds.services import accounts, twofactor
from feeds.types import User
from storage import rows
from tests.helpers import PASSWORD
from tests.web.helpers import csrf_token

from .helpers import audit_actions, text_of


def _staff_browser(userid: str) -> Client:
    """A client that sends CSRF tokens as a browser does, logged in."""
    client = Client(enforce_csrf_checks=True)
    token = csrf_token(client.get("/login").content.decode())
    response = client.post(
        "/login", {"userid": userid, "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    return client


def _enrol(userid: str) -> None:
    enrolment = twofactor.begin(userid)
    twofactor.confirm(userid, pyotp.TOTP(enrolment.secret).now())


def _password_log_in(userid: str) -> str:
    """Where the log-in form sends a browser that gave only the password."""
    response = Client().post("/login", {"userid": userid, "password": PASSWORD})
    assert response.status_code == 302
    return str(response["Location"])


def test_staff_clear_a_users_two_factor_and_the_password_alone_logs_in(
    sam: User, alice_client: Client
) -> None:
    _enrol("alice")
    assert _password_log_in("alice") == "/login/code"
    staff = _staff_browser("sam")

    page = staff.get("/console/users/alice").content.decode()
    assert "Clear two-factor sign-in" in page
    action = "/console/users/alice/2fa/clear"
    assert f'action="{action}"' in page
    assert staff.post(action, {"confirm": "yes"}).status_code == 403  # no CSRF token
    asked = staff.post(action, {"csrfmiddlewaretoken": csrf_token(page)})
    assert asked.status_code == 200
    assert "Clear @alice's two-factor sign-in?" in text_of(asked)
    assert twofactor.enabled("alice") and audit_actions() == []

    done = staff.post(
        action, {"confirm": "yes", "csrfmiddlewaretoken": csrf_token(asked.content.decode())}
    )
    assert done.status_code == 302 and done["Location"] == "/console/users/alice"
    after = text_of(staff.get("/console/users/alice"))
    assert "two-factor sign-in is cleared" in after
    assert "Clear two-factor sign-in" not in after
    assert audit_actions() == [("sam", "user.2fa.clear", "alice")]
    audit = text_of(staff.get("/console/audit"))
    assert "user.2fa.clear" in audit and "@sam" in audit

    # The secret and the recovery codes are gone from the users row.
    assert accounts.two_factor_cell("alice") == rows.TWO_FACTOR_OFF
    assert twofactor.status("alice") == twofactor.Status(False, 0)
    # Her sessions ended, as a password change ends them.
    assert 'href="/signup"' in alice_client.get("/").content.decode()
    assert _password_log_in("alice") == "/"
    assert services.issue_token("alice", PASSWORD) is not None


def test_clearing_what_is_not_there_is_refused_and_not_recorded(sam: User, alice: User) -> None:
    staff = _staff_browser("sam")
    page = staff.get("/console/users/alice").content.decode()
    assert "Clear two-factor sign-in" not in page
    response = staff.post(
        "/console/users/alice/2fa/clear",
        {"confirm": "yes", "csrfmiddlewaretoken": csrf_token(page)},
    )
    assert response.status_code == 409
    assert "@alice has no two-factor sign-in to clear." in text_of(response)
    assert audit_actions() == []
    gone = staff.post("/console/users/nobody/2fa/clear", {"csrfmiddlewaretoken": csrf_token(page)})
    assert gone.status_code == 404


def test_only_staff_can_clear_it(alice: User, bob: User) -> None:
    _enrol("alice")
    client = Client()
    client.post("/login", {"userid": "bob", "password": PASSWORD})
    response = client.post("/console/users/alice/2fa/clear", {"confirm": "yes"})
    assert response.status_code == 403
    assert twofactor.enabled("alice")
    assert re.search("/login/code", _password_log_in("alice"))
