"""The two-factor secret is encrypted at rest (issue 36): the users row's
cell holds it sealed under a key derived from SECRET_KEY, so reading the
table is not enough to make codes; a cell written before, holding the
secret as is, still signs in and is sealed at its next write; the
SECRET_KEY can be rotated through SECRET_KEY_FALLBACKS."""

from __future__ import annotations

import base64

import pytest
from django.core.exceptions import ImproperlyConfigured
from pytest_django.fixtures import Settings

from feeds import services
from feeds.services import accounts, twofactor
from feeds.types import User
from storage import rows
from tests.helpers import PASSWORD

from .test_two_factor import T0, clock, code_at, enrol

__all__ = ["clock"]  # the fixture, used here by name

OLD_KEY = "an-older-secret-key-of-fifty-characters-or-so-0123456789"


def _forms_of(secret: str) -> list[bytes]:
    """The secret as a reader of the cell might find it written."""
    raw = base64.b32decode(secret)
    return [
        secret.encode(),
        secret.lower().encode(),
        raw,
        raw.hex().encode(),
        base64.b64encode(raw),
        base64.urlsafe_b64encode(raw),
    ]


def _cell() -> bytes:
    cell = accounts.two_factor_cell("alice")
    assert cell is not None
    return cell


def _sign_in(code: str) -> bool:
    return services.issue_token("alice", PASSWORD, "203.0.113.9", code=code) is not None


def test_the_stored_cell_does_not_hold_the_secret_and_a_code_signs_in(
    alice: User, clock: list[float]
) -> None:
    pending = twofactor.begin("alice")
    for form in _forms_of(pending.secret):
        assert form not in _cell()
    assert twofactor.pending("alice") == pending  # the app is shown the same key
    twofactor.confirm("alice", code_at(pending.secret, T0))
    for form in _forms_of(pending.secret):
        assert form not in _cell()
    clock[0] = T0 + 30
    assert _sign_in(code_at(pending.secret, T0 + 30))


def test_a_plain_cell_from_before_still_signs_in_and_is_sealed_at_its_next_write(
    alice: User, clock: list[float]
) -> None:
    secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
    plain = rows.encode_two_factor(rows.TwoFactorRow(secret, True, (), 0))
    assert accounts.swap_two_factor("alice", None, plain)
    assert secret.encode() in _cell()
    assert twofactor.enabled("alice")
    assert _sign_in(code_at(secret, T0))
    for form in _forms_of(secret):
        assert form not in _cell()
    clock[0] = T0 + 30
    assert _sign_in(code_at(secret, T0 + 30))


def test_the_key_comes_from_the_secret_key_and_rotates_through_its_fallbacks(
    alice: User, clock: list[float], settings: Settings
) -> None:
    settings.SECRET_KEY = OLD_KEY
    secret, _ = enrol()
    sealed_under_old = _cell()

    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "a-new-" + OLD_KEY, [OLD_KEY]
    clock[0] = T0 + 30
    assert _sign_in(code_at(secret, T0 + 30))  # opened by the fallback, sealed anew
    assert _cell() != sealed_under_old
    settings.SECRET_KEY_FALLBACKS = []
    clock[0] = T0 + 60
    assert _sign_in(code_at(secret, T0 + 60))  # the new key alone opens it now

    # A cell no configured key opens says what to do, rather than sign anyone in.
    settings.SECRET_KEY = "yet-another-" + OLD_KEY
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY_FALLBACKS"):
        twofactor.status("alice")
