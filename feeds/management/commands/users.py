"""``manage.py users add|get|list|staff|disable|reindex``."""

from __future__ import annotations

import argparse
import getpass
from typing import Any

from feeds import services
from feeds.services import userindex
from feeds.types import User

from ._base import ServiceCommand, paged, positionals, userid_and_switch


def _show(user: User) -> str:
    flags = ", ".join(f for f, on in (("staff", user.staff), ("disabled", user.disabled)) if on)
    return (
        f"{user.userid}  {user.name} <{user.email}>  twits={user.twits} "
        f"followers={user.followers} following={user.following}" + (f"  [{flags}]" if flags else "")
    )


class Command(ServiceCommand):
    help = "Add, show, list users; grant or revoke staff; disable or enable an account."

    def subcommands(self) -> dict[str, Any]:
        def add(p: argparse.ArgumentParser) -> None:
            p.add_argument("userid")
            p.add_argument("--name", required=True)
            p.add_argument("--email", required=True)
            p.add_argument("--password", help="prompted for when not given")

        flag = userid_and_switch("--revoke", "turn the flag off")
        return {
            "add": ("register a user", add),
            "get": ("show a user's profile and counts", positionals("userid")),
            "list": ("list users (key order), a page at a time", paged),
            "staff": ("grant (or --revoke) the staff flag", flag),
            "disable": ("disable (or --revoke: enable) an account", flag),
            "reindex": (
                "write every user's search and email index rows (idempotent): for "
                "accounts made before the email rows, or rows a crash cost",
                lambda p: None,
            ),
        }

    def do_add(self, o: dict[str, Any]) -> None:
        password = o["password"] or getpass.getpass(f"Password for {o['userid']}: ")
        self.say("added " + _show(services.register(o["userid"], o["name"], o["email"], password)))

    def do_get(self, o: dict[str, Any]) -> None:
        self.say(_show(services.get_user(o["userid"])))

    def do_list(self, o: dict[str, Any]) -> None:
        self.say_page(services.list_users(o["cursor"], o["limit"]), _show)

    def do_staff(self, o: dict[str, Any]) -> None:
        self.say(_show(services.set_staff(o["userid"], not o["revoke"])))

    def do_disable(self, o: dict[str, Any]) -> None:
        self.say(_show(services.set_disabled(o["userid"], not o["revoke"])))

    def do_reindex(self, o: dict[str, Any]) -> None:
        cursor: str | None = None
        count = 0
        while True:
            page = services.list_users(cursor, 100)
            count += userindex.reindex(page.items)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        self.say(f"indexed {count} users")
