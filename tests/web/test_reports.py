"""The Report page: linked from a twit's page and a profile, it reports the
twit or the account with a reason, once, and refuses one's own."""

from __future__ import annotations

from django.test import Client

from feeds import services
from feeds.services import reports
from feeds.types import User
from tests.console.helpers import text_of


def test_a_twit_page_links_to_its_report_page_but_not_for_its_author(
    alice_client: Client, bob_client: Client
) -> None:
    twit = services.post_twit("alice", "report me")
    url = f"/u/alice/t/{twit.id}/report"
    assert url in bob_client.get(f"/u/alice/t/{twit.id}").content.decode()
    assert url not in alice_client.get(f"/u/alice/t/{twit.id}").content.decode()
    assert "/u/alice/report" in bob_client.get("/u/alice").content.decode()
    assert "/u/alice/report" not in alice_client.get("/u/alice").content.decode()


def test_reporting_a_twit_goes_back_to_it_and_counts_once(bob_client: Client, alice: User) -> None:
    twit = services.post_twit("alice", "report me")
    url = f"/u/alice/t/{twit.id}/report"
    page = text_of(bob_client.get(url))
    assert "Report this twit" in page and "report me" in page
    for _ in range(2):
        done = bob_client.post(url, {"reason": "spam", "text": "ads"})
        assert done.status_code == 302 and done["Location"] == f"/u/alice/t/{twit.id}"
    [subject] = reports.queue().items
    assert (subject.twit_id, subject.count, subject.reasons[0].text) == (twit.id, 1, "ads")
    assert "the report is with the staff" in text_of(bob_client.get(done["Location"]))


def test_reporting_an_account_and_bad_input(bob_client: Client, alice: User) -> None:
    bad = bob_client.post("/u/alice/report", {"reason": "boring"})
    assert bad.status_code == 400
    long = bob_client.post("/u/alice/report", {"reason": "other", "text": "x" * 281})
    assert long.status_code == 400 and "280 characters" in text_of(long)
    assert reports.queue().items == ()
    done = bob_client.post("/u/alice/report", {"reason": "abuse"})
    assert done.status_code == 302 and done["Location"] == "/u/alice"
    assert [s.userid for s in reports.queue().items] == ["alice"]


def test_one_cannot_report_oneself_and_must_log_in(alice_client: Client, alice: User) -> None:
    refused = alice_client.post("/u/alice/report", {"reason": "spam"})
    assert refused.status_code == 400 and "cannot report yourself" in text_of(refused)
    anonymous = Client().get("/u/alice/report")
    assert anonymous.status_code == 302 and "/login" in anonymous["Location"]
    assert alice_client.get("/u/nobody_here/report").status_code == 404
    assert alice_client.get(f"/u/alice/t/{'0' * 56}/report").status_code == 404
