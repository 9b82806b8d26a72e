"""Two-factor sign-in with TOTP (issue 36), on both servers: enrolment
confirmed by a first code, log-in asking for a code, codes not replayable
within their window, ten single-use recovery codes stored hashed, and
turning it off with a code or the password."""

from __future__ import annotations

import threading

import pyotp
import pytest
from pytest_django.fixtures import Settings

from feeds import services
from feeds.errors import Conflict, InvalidInput
from feeds.services import accounts, twofactor
from feeds.types import User
from storage import rows
from tests.helpers import PASSWORD

T0 = 1_800_000_000.0  # a fixed moment, a step boundary: codes are computed against it


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The clock two-factor checks codes against: set ``clock[0]`` to move it."""
    now = [T0]
    monkeypatch.setattr(twofactor, "_now", lambda: now[0])
    return now


def code_at(secret: str, moment: float) -> str:
    return pyotp.TOTP(secret).at(moment)


def enrol(userid: str = "alice") -> tuple[str, tuple[str, ...]]:
    """Turn two-factor sign-in on (at T0); the secret and the recovery codes."""
    enrolment = twofactor.begin(userid)
    return enrolment.secret, twofactor.confirm(userid, code_at(enrolment.secret, T0))


def test_enrolment_shows_a_key_and_turns_on_only_with_a_right_first_code(
    alice: User, clock: list[float]
) -> None:
    enrolment = twofactor.begin("alice")
    assert enrolment.uri.startswith("otpauth://totp/TwitBase:alice?secret=" + enrolment.secret)
    assert "issuer=TwitBase" in enrolment.uri
    assert not twofactor.enabled("alice")
    assert twofactor.pending("alice") == enrolment
    wrong = "000000" if code_at(enrolment.secret, T0) != "000000" else "111111"
    with pytest.raises(InvalidInput) as err:
        twofactor.confirm("alice", wrong)
    assert err.value.field == "code"
    assert not twofactor.enabled("alice")
    codes = twofactor.confirm("alice", code_at(enrolment.secret, T0))
    assert len(codes) == len(set(codes)) == twofactor.RECOVERY_CODES
    assert twofactor.status("alice") == twofactor.Status(True, 10)
    assert twofactor.pending("alice") is None
    with pytest.raises(Conflict):
        twofactor.begin("alice")


def test_a_new_begin_replaces_an_unconfirmed_key(alice: User, clock: list[float]) -> None:
    first = twofactor.begin("alice")
    second = twofactor.begin("alice")
    assert first.secret != second.secret
    if code_at(first.secret, T0) != code_at(second.secret, T0):
        with pytest.raises(InvalidInput):
            twofactor.confirm("alice", code_at(first.secret, T0))
    twofactor.confirm("alice", code_at(second.secret, T0))
    assert twofactor.enabled("alice")


def test_the_recovery_codes_are_stored_only_hashed(alice: User, clock: list[float]) -> None:
    _, codes = enrol()
    cell = accounts.two_factor_cell("alice")
    assert cell is not None
    for code in codes:
        assert code.encode() not in cell
        assert code.replace("-", "").encode() not in cell
    state = rows.decode_two_factor(cell)
    assert state is not None and len(state.codes) == 10


def test_log_in_asks_for_a_code_after_the_right_password(alice: User, clock: list[float]) -> None:
    secret, _ = enrol()
    with pytest.raises(twofactor.CodeRequired) as err:
        services.issue_token("alice", PASSWORD, "203.0.113.9")
    assert err.value.status == 401 and err.value.field == "code"
    assert services.issue_token("alice", "wrong-password", "203.0.113.9", code="123456") is None
    clock[0] = T0 + 30
    issued = services.issue_token("alice", PASSWORD, "203.0.113.9", code=code_at(secret, T0 + 30))
    assert issued is not None and services.token_user(issued[0]) == services.get_user("alice")


def test_a_code_is_accepted_once_and_never_an_older_one(alice: User, clock: list[float]) -> None:
    secret, _ = enrol()  # used the code of T0
    assert not twofactor.use_code("alice", code_at(secret, T0))
    clock[0] = T0 + 30
    fresh = code_at(secret, T0 + 30)
    assert twofactor.use_code("alice", fresh)
    assert not twofactor.use_code("alice", fresh)
    clock[0] = T0 + 60
    # The code of the step before now is within the drift allowed, but used.
    assert not twofactor.use_code("alice", fresh)
    assert twofactor.use_code("alice", code_at(secret, T0 + 60))


def test_codes_drift_one_step_either_way_and_no_further(alice: User, clock: list[float]) -> None:
    secret, _ = enrol()
    clock[0] = T0 + 300
    assert not twofactor.use_code("alice", code_at(secret, T0 + 360))
    assert twofactor.use_code("alice", code_at(secret, T0 + 270))
    assert twofactor.use_code("alice", code_at(secret, T0 + 330))


def test_of_one_code_sent_twice_at_once_exactly_one_is_accepted(
    alice: User, clock: list[float]
) -> None:
    secret, _ = enrol()
    clock[0] = T0 + 30
    code = code_at(secret, T0 + 30)
    results: list[bool] = []
    start = threading.Barrier(4)

    def use() -> None:
        start.wait()
        results.append(twofactor.use_code("alice", code))

    threads = [threading.Thread(target=use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False, False, False, True]


def test_each_recovery_code_logs_in_once(alice: User, clock: list[float]) -> None:
    _, codes = enrol()
    issued = services.issue_token("alice", PASSWORD, "203.0.113.9", code=codes[0])
    assert issued is not None
    assert services.issue_token("alice", PASSWORD, "203.0.113.9", code=codes[0]) is None
    # Typed with spaces, capitals and no dash, it is the same code.
    assert twofactor.use_code("alice", " " + codes[1].replace("-", "").upper() + " ")
    assert twofactor.status("alice").recovery_codes_left == 8


def test_new_recovery_codes_replace_the_old_ones(alice: User, clock: list[float]) -> None:
    _, old = enrol()
    with pytest.raises(InvalidInput):
        twofactor.regenerate_codes("alice", "000000x")
    new = twofactor.regenerate_codes("alice", old[0])
    assert set(new).isdisjoint(old)
    assert not twofactor.use_code("alice", old[1])
    assert twofactor.use_code("alice", new[0])


def test_turning_off_needs_a_code_or_the_password(alice: User, clock: list[float]) -> None:
    _, codes = enrol()
    with pytest.raises(InvalidInput) as err:
        twofactor.disable("alice", "not-the-password", "session-1")
    assert err.value.field == "code"
    assert twofactor.enabled("alice")
    twofactor.disable("alice", PASSWORD, "session-1")
    assert not twofactor.enabled("alice")
    assert services.issue_token("alice", PASSWORD, "203.0.113.9") is not None
    twofactor.disable("alice", "anything", "session-1")  # off already: nothing to do
    _, codes = enrol()
    twofactor.disable("alice", codes[3], "session-1")
    assert twofactor.status("alice") == twofactor.Status(False, 0)


def test_wrong_codes_count_as_failed_log_ins(
    alice: User, clock: list[float], settings: Settings
) -> None:
    enrol()
    settings.TWITBASE_LOGIN_FAILS_PER_ACCOUNT = 3
    for _ in range(3):
        assert twofactor.second_step("alice", "000000", "203.0.113.9") is None
    with pytest.raises(services.RateLimited):
        twofactor.second_step("alice", "000000", "203.0.113.9")
