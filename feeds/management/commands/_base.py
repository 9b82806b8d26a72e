"""What the TwitBase commands share: a start without Django's system checks,
and service errors as clean command errors."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.management.base import BaseCommand, CommandError

from feeds.errors import InvalidInput, ServiceError
from feeds.types import Page

T = TypeVar("T")
Configure = Callable[[argparse.ArgumentParser], None]


def paged(p: argparse.ArgumentParser) -> None:
    """The options of a sub-command that lists: how many, and from where."""
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--cursor")


def positionals(*names: str) -> Configure:
    """A sub-command that takes these arguments, in this order, and no option."""

    def configure(p: argparse.ArgumentParser) -> None:
        for name in names:
            p.add_argument(name)

    return configure


def userid_and_switch(switch: str, help_text: str, *, listing: bool = False) -> Configure:
    """A sub-command on one USERID with an on/off ``switch`` (off by default);
    ``listing``: it lists, so it also takes :func:`paged`'s options."""

    def configure(p: argparse.ArgumentParser) -> None:
        p.add_argument("userid")
        p.add_argument(switch, action="store_true", help=help_text)
        if listing:
            paged(p)

    return configure


class TwitBaseCommand(BaseCommand):
    """A TwitBase command: it starts without Django's system checks.

    Django runs every check before every command, and the URL checks import
    every view and the JSON API's schemas, a large part of a short
    command's time. The commands use none of what they check; the web
    server still checks at its start (runserver), and `manage.py check`
    checks on demand.
    """

    requires_system_checks: list[str] = []


class ServiceCommand(TwitBaseCommand):
    """A command with sub-commands, each calling services."""

    def subcommands(self) -> dict[str, tuple[str, Configure]]:
        raise NotImplementedError

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        for name, (help_text, configure) in self.subcommands().items():
            configure(sub.add_parser(name, help=help_text))

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            getattr(self, "do_" + opts["action"])(opts)
        except InvalidInput as exc:
            prefix = f"{exc.field}: " if exc.field else ""
            raise CommandError(prefix + exc.message) from None
        except ServiceError as exc:
            raise CommandError(exc.message) from None

    def say(self, text: str) -> None:
        self.stdout.write(text)

    def say_page(self, page: Page[T], show: Callable[[T], str]) -> None:
        """Each item of ``page`` on a line, then how to ask for the next page."""
        for item in page.items:
            self.say(show(item))
        if page.next_cursor:
            self.say(f"more: --cursor {page.next_cursor}")
