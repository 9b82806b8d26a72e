"""Moderation: find a user or a twit as staff name them, disable or enable an
account, clear an account's two-factor sign-in, delete anyone's twit. Each
change is recorded in the audit log."""

from __future__ import annotations

import re

from feeds.errors import Conflict, InvalidInput
from feeds.types import Twit, User
from storage import keys

from .. import accounts, twitdeletion, twofactor
from .. import twits as twits_service
from .audit import record

_TWIT_ID = re.compile(f"[0-9a-f]{{{2 * keys.TWIT_KEY_LEN}}}")


def twit_id_from(text: str) -> str:
    """The twit id in ``text``: an id, or a permalink that ends with one."""
    found = _TWIT_ID.findall(text.strip().lower())
    if not found:
        raise InvalidInput(
            "twit_id", "Give a twit's id (56 hex digits) or its permalink, /u/USER/t/ID."
        )
    return str(found[-1])


def find_user(userid: str) -> User:
    """The user ``userid`` (in any case): InvalidInput if it cannot be a userid,
    NotFound if there is none. Exact only: users are keyed by md5(userid)."""
    return accounts.get_user(accounts.check_userid(userid.strip().lstrip("@"), "q"))


def check_disable(actor: str, userid: str) -> User:
    """The user ``actor`` may disable, found (NotFound if none): what the
    console's confirmation page shows before anything changes."""
    if actor.lower() == userid.lower():
        raise InvalidInput(None, "You cannot disable your own account.")
    return accounts.get_user(userid)


def set_disabled(actor: str, userid: str, disabled: bool) -> User:
    """Disable (or enable) an account. Disabling ends its sessions and API
    tokens for good (enabling does not revive them); it cannot log in or be
    followed, and its profile and twits show as suspended. Staff cannot
    disable themselves: the console would lock them out at once."""
    if disabled:
        check_disable(actor, userid)
    user = accounts.set_disabled(userid, disabled)
    record(actor, "user.disable" if disabled else "user.enable", user.userid)
    return user


def two_factor_on(userid: str) -> bool:
    """Whether ``userid`` has two-factor sign-in on, or an enrolment begun:
    what the console's clear button is shown for."""
    return twofactor.status(userid).enabled or twofactor.pending(userid) is not None


def clear_two_factor(actor: str, userid: str) -> User:
    """Clear ``userid``'s two-factor sign-in, for a user who lost the app and
    the recovery codes, and end every session and API token of the account
    (twofactor.clear): the password alone logs in afterwards. Conflict when
    there is none to clear (nothing is recorded then); NotFound for an
    unknown userid."""
    user = accounts.get_user(userid)
    if not twofactor.clear(user.userid):
        raise Conflict(f"@{user.userid} has no two-factor sign-in to clear.")
    record(actor, "user.2fa.clear", user.userid)
    return user


def find_twit(twit_id: str) -> Twit:
    """The twit given by id or permalink (to confirm its deletion, or queue its
    fan-out again); nothing changes."""
    return twits_service.get_twit(twit_id_from(twit_id))


def delete_twit(actor: str, twit_id: str) -> Twit:
    """Delete anyone's twit (given by id or permalink): from the twits table,
    and from every stream."""
    twit = find_twit(twit_id)
    twitdeletion.delete_twit(twit.userid, twit.id)
    record(actor, "twit.delete", twit.id, f"by @{twit.userid}: {twit.text[:80]}")
    return twit
