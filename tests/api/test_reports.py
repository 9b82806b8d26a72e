"""POST /api/reports: a twit or an account reported, with a reason."""

from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.api import openapi
from feeds.services import reports
from feeds.types import User

from .helpers import Api, error


def test_a_report_of_a_twit_is_201_and_counts_once(as_bob: Api, alice: User) -> None:
    twit = services.post_twit("alice", "spam spam spam")
    body = {"twit": twit.id, "reason": "spam", "text": " ads "}
    response = as_bob.post("/api/reports", body)
    assert response.status_code == 201
    got = response.json()
    assert {k: got[k] for k in ("subject", "twit", "userid", "reason", "text")} == {
        "subject": "twit",
        "twit": twit.id,
        "userid": "alice",
        "reason": "spam",
        "text": "ads",
    }
    again = as_bob.post("/api/reports", {**body, "reason": "abuse"})
    assert again.status_code == 201 and again.json() == got
    [subject] = reports.queue().items
    assert subject.count == 1


def test_a_report_of_an_account_is_201(as_bob: Api, alice: User) -> None:
    response = as_bob.post("/api/reports", {"userid": "Alice", "reason": "abuse"})
    assert response.status_code == 201
    assert (response.json()["subject"], response.json()["twit"]) == ("user", None)
    assert response.json()["userid"] == "alice"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"userid": "alice", "reason": "boring"}, "reason"),
        ({"userid": "alice"}, "reason"),
        ({"userid": "alice", "reason": 3}, "reason"),
        ({"userid": "alice", "reason": "other", "text": "x" * 281}, "text"),
        ({"userid": "bob", "reason": "spam"}, "userid"),
        ({"reason": "spam"}, None),
        ({"userid": "alice", "twit": "0" * 56, "reason": "spam"}, None),
    ],
)
def test_bad_reports_are_400(as_bob: Api, alice: User, body: dict, field: str | None) -> None:
    response = as_bob.post("/api/reports", body)
    error(response, 400)
    assert response.json().get("field") == field
    assert reports.queue().items == ()


def test_reporting_ones_own_twit_is_400(as_alice: Api) -> None:
    twit = services.post_twit("alice", "mine")
    response = as_alice.post("/api/reports", {"twit": twit.id, "reason": "spam"})
    assert "your own twit" in error(response, 400)


@pytest.mark.parametrize(
    "body", [{"twit": "0" * 56, "reason": "spam"}, {"userid": "nobody", "reason": "spam"}]
)
def test_missing_subjects_are_404(as_bob: Api, body: dict) -> None:
    error(as_bob.post("/api/reports", body), 404)


def test_reports_need_a_token(api: Api, alice: User) -> None:
    response = api.post("/api/reports", {"userid": "alice", "reason": "spam"})
    error(response, 401)
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_reports_are_rate_limited(as_bob: Api, alice: User, settings: Settings) -> None:
    settings.TWITBASE_REPORTS_PER_MINUTE = 1
    assert as_bob.post("/api/reports", {"userid": "alice", "reason": "spam"}).status_code == 201
    response = as_bob.post("/api/reports", {"userid": "alice", "reason": "spam"})
    error(response, 429)
    assert int(response["Retry-After"]) >= 1


def test_the_operation_is_in_the_openapi_document() -> None:
    operation = openapi.PATHS["/api/reports"]["post"]
    assert operation["operationId"] == "report"
    assert {str(code) for code in operation["responses"]} == {
        "201",
        "400",
        "401",
        "404",
        "413",
        "429",
        "503",
    }
    # ninja keys the responses by int; a document read back from JSON, by str.
    created = {str(code): r for code, r in operation["responses"].items()}["201"]
    assert "headers" not in created
    body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    fields = openapi.SCHEMA["components"]["schemas"][body.rsplit("/", 1)[1]]["properties"]
    assert set(fields) == {"twit", "userid", "reason", "text"}
    assert fields["reason"]["enum"] == ["spam", "abuse", "other"]
