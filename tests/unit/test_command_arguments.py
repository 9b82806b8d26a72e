"""Commands take the arguments their help promises: the sub-commands of
``manage.py follows``, ``twits`` and ``users`` (which share the helpers of
feeds/management/commands/_base.py), and the benchmarks' ``--targets``
(devtools/management/options.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management.base import BaseCommand, CommandError

from devtools.management.commands import benchfanout, benchstorage
from feeds.management.commands import follows, twits, users


def parse(command: type[BaseCommand], *argv: str) -> dict[str, Any]:
    parser = command().create_parser("manage.py", command.__module__.rsplit(".", 1)[-1])
    return vars(parser.parse_args(argv))


@pytest.mark.parametrize(
    ("command", "argv", "expected"),
    [
        (follows.Command, ["add", "alice", "bob"], {"follower": "alice", "followed": "bob"}),
        (follows.Command, ["remove", "alice", "bob"], {"follower": "alice", "followed": "bob"}),
        (
            follows.Command,
            ["list", "alice"],
            {"userid": "alice", "followers": False, "limit": 20, "cursor": None},
        ),
        (
            follows.Command,
            ["list", "alice", "--followers", "--limit", "5", "--cursor", "c1"],
            {"userid": "alice", "followers": True, "limit": 5, "cursor": "c1"},
        ),
        (twits.Command, ["post", "alice", "hello"], {"userid": "alice", "text": "hello"}),
        (
            twits.Command,
            ["list", "alice", "--stream"],
            {"userid": "alice", "stream": True, "limit": 20, "cursor": None},
        ),
        (twits.Command, ["delete", "alice", "t1"], {"userid": "alice", "twit_id": "t1"}),
        (users.Command, ["get", "alice"], {"userid": "alice"}),
        (users.Command, ["list", "--limit", "3"], {"limit": 3, "cursor": None}),
        (users.Command, ["staff", "alice"], {"userid": "alice", "revoke": False}),
        (users.Command, ["disable", "alice", "--revoke"], {"userid": "alice", "revoke": True}),
    ],
)
def test_subcommand_takes_its_arguments(
    command: type[BaseCommand], argv: list[str], expected: dict[str, Any]
) -> None:
    parsed = parse(command, *argv)
    assert parsed["action"] == argv[0]
    assert {name: parsed[name] for name in expected} == expected


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        (follows.Command, ["add", "alice"]),
        (twits.Command, ["list"]),
        (users.Command, ["get", "alice", "--revoke"]),
    ],
)
def test_subcommand_refuses_missing_or_unknown_arguments(
    command: type[BaseCommand], argv: list[str]
) -> None:
    with pytest.raises(CommandError):
        parse(command, *argv)


def test_benchmarks_take_a_subset_of_their_targets_and_refuse_others() -> None:
    assert parse(benchstorage.Command)["targets"] == ("raw", "local", "hbase")
    assert parse(benchstorage.Command, "--targets", " hbase,raw ")["targets"] == ("hbase", "raw")
    assert parse(benchstorage.Command, "--rows", "500")["rows"] == 500
    assert parse(benchfanout.Command)["targets"] == ("local", "hbase")
    for command, bad in [(benchfanout.Command, "raw"), (benchstorage.Command, ",")]:
        with pytest.raises(CommandError, match="--targets"):
            parse(command, "--targets", bad)
