"""The reports queue: the subjects users reported, and what staff do about
them. Each action is recorded in the audit log once it has succeeded; a
twit's delete and an account's suspension go through :mod:`.moderation`
(which records them too), then close the subject's open reports."""

from __future__ import annotations

import contextlib

from feeds.errors import InvalidInput, NotFound
from feeds.types import Page

from .. import reports
from ..reports import ORDERS, Report, Subject
from . import moderation
from .audit import record

ACTIONS = ("dismiss", "delete", "suspend")

__all__ = ["ACTIONS", "ORDERS", "Report", "Subject", "act", "check_action", "queue", "subject"]


def queue(order: str, cursor: str | None = None, limit: int = 50) -> Page[Subject]:
    """The open subjects, newest first or most reported first (``order``)."""
    return reports.queue(order, cursor, limit)


def subject(subject_id: str) -> tuple[Subject, tuple[Report, ...]]:
    """A reported subject and its reports, newest first."""
    return reports.get_subject(subject_id), reports.subject_reports(subject_id)


def _target(found: Subject) -> str:
    return found.twit_id if found.twit_id else f"@{found.userid}"


def check_action(subject_id: str, action: str) -> Subject:
    """The subject ``action`` would apply to, if it may: what a confirmation
    page shows before anything changes."""
    if action not in ACTIONS:
        raise InvalidInput("action", f"Pick one of: {', '.join(ACTIONS)}.")
    found = reports.get_subject(subject_id)
    if action == "delete" and found.twit_id is None:
        raise InvalidInput("action", "Only a reported twit can be deleted.")
    if action == "dismiss" and not found.open:
        raise NotFound("It has no open reports.")
    return found


def act(actor: str, subject_id: str, action: str) -> Subject:
    """Dismiss a subject's open reports, delete the reported twit, or
    suspend the reported account (a twit's author, for a twit); a delete or
    a suspension closes the subject's open reports too. Returns the subject
    as it was before."""
    found = check_action(subject_id, action)
    if action == "delete":
        assert found.twit_id is not None
        moderation.delete_twit(actor, found.twit_id)
    elif action == "suspend":
        moderation.set_disabled(actor, found.userid, True)
    closed = 0
    if found.open:
        # NotFound: another staff member closed them meanwhile.
        with contextlib.suppress(NotFound):
            closed = reports.close(subject_id).count
    detail = f"{closed} open report{'s' if closed != 1 else ''} closed"
    record(actor, f"reports.{action}", _target(found), detail)
    return found
