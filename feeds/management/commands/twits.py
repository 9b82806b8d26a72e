"""``manage.py twits post|list|delete``."""

from __future__ import annotations

import argparse
from typing import Any

from feeds import services
from feeds.types import Twit

from ._base import ServiceCommand, paged


def _show(t: Twit) -> str:
    return f"{t.created:%Y-%m-%d %H:%M:%S}  @{t.userid}: {t.text}  [{t.id}]"


class Command(ServiceCommand):
    help = "Post twits and list a user's timeline or home stream."

    def subcommands(self) -> dict[str, Any]:
        def post(p: argparse.ArgumentParser) -> None:
            p.add_argument("userid")
            p.add_argument("text")

        def lst(p: argparse.ArgumentParser) -> None:
            p.add_argument("userid")
            p.add_argument(
                "--stream",
                action="store_true",
                help="the home stream instead of the user's own twits",
            )
            paged(p)

        def delete(p: argparse.ArgumentParser) -> None:
            p.add_argument("userid")
            p.add_argument("twit_id")

        return {
            "post": ("post a twit as USERID", post),
            "list": ("a user's twits (or --stream: home stream), newest first", lst),
            "delete": ("delete one of USERID's twits", delete),
        }

    def do_post(self, o: dict[str, Any]) -> None:
        self.say("posted " + _show(services.post_twit(o["userid"], o["text"])))

    def do_list(self, o: dict[str, Any]) -> None:
        fetch = services.home_stream if o["stream"] else services.timeline
        self.say_page(fetch(o["userid"], o["cursor"], o["limit"]), _show)

    def do_delete(self, o: dict[str, Any]) -> None:
        services.delete_twit(o["userid"], o["twit_id"])
        self.say(f"deleted {o['twit_id']}")
