"""``manage.py twits post|list|delete``."""

from __future__ import annotations

from typing import Any

from feeds import services
from feeds.types import Twit

from ._base import ServiceCommand, positionals, userid_and_switch


def _show(t: Twit) -> str:
    return f"{t.created:%Y-%m-%d %H:%M:%S}  @{t.userid}: {t.text}  [{t.id}]"


class Command(ServiceCommand):
    help = "Post twits and list a user's timeline or home stream."

    def subcommands(self) -> dict[str, Any]:
        lst = userid_and_switch(
            "--stream", "the home stream instead of the user's own twits", listing=True
        )
        return {
            "post": ("post a twit as USERID", positionals("userid", "text")),
            "list": ("a user's twits (or --stream: home stream), newest first", lst),
            "delete": ("delete one of USERID's twits", positionals("userid", "twit_id")),
        }

    def do_post(self, o: dict[str, Any]) -> None:
        self.say("posted " + _show(services.post_twit(o["userid"], o["text"])))

    def do_list(self, o: dict[str, Any]) -> None:
        fetch = services.home_stream if o["stream"] else services.timeline
        self.say_page(fetch(o["userid"], o["cursor"], o["limit"]), _show)

    def do_delete(self, o: dict[str, Any]) -> None:
        services.delete_twit(o["userid"], o["twit_id"])
        self.say(f"deleted {o['twit_id']}")
