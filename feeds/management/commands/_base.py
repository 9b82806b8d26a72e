"""What the TwitBase commands share: service errors become clean command errors."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from feeds.errors import InvalidInput, ServiceError


class ServiceCommand(BaseCommand):
    """A command with sub-commands, each calling services."""

    def subcommands(self) -> dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]]:
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
