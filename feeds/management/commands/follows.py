"""``manage.py follows add|remove|list``."""

from __future__ import annotations

from typing import Any

from feeds import services

from ._base import ServiceCommand, positionals, userid_and_switch


class Command(ServiceCommand):
    help = "Follow, unfollow, and list followers or following."

    def subcommands(self) -> dict[str, Any]:
        pair = positionals("follower", "followed")
        lst = userid_and_switch(
            "--followers", "who follows USERID (default: whom USERID follows)", listing=True
        )
        return {
            "add": ("FOLLOWER follows FOLLOWED", pair),
            "remove": ("FOLLOWER unfollows FOLLOWED", pair),
            "list": ("whom USERID follows (or --followers)", lst),
        }

    def do_add(self, o: dict[str, Any]) -> None:
        new = services.follow(o["follower"], o["followed"])
        self.say(f"{o['follower']} {'now follows' if new else 'already follows'} {o['followed']}")

    def do_remove(self, o: dict[str, Any]) -> None:
        was = services.unfollow(o["follower"], o["followed"])
        self.say(f"{o['follower']} {'unfollowed' if was else 'did not follow'} {o['followed']}")

    def do_list(self, o: dict[str, Any]) -> None:
        fetch = services.followers if o["followers"] else services.following
        self.say_page(
            fetch(o["userid"], o["cursor"], o["limit"]), lambda ref: f"{ref.userid}  {ref.name}"
        )
