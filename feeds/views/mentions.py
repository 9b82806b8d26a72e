"""Which @mentions on a page link to a profile: those with one to show.

A mention of a userid with no account (or a suspended one) would link to a
404; the page shows it as text instead. One question for the whole page
(services.profiles_among), asked by each view that lists twits, and handed
to the ``twit_text`` filter as ``profiles``.
"""

from __future__ import annotations

from collections.abc import Iterable

from feeds import services
from feeds.services import textparse


def profiles_for(texts: Iterable[str]) -> frozenset[str]:
    """The lower-cased userids mentioned in ``texts`` that have a profile."""
    mentioned = {userid for text in texts for userid in textparse.mentions(text)}
    return services.profiles_among(mentioned)
