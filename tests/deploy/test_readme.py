"""The README's commands, run as written in a second terminal next to a
running devstack, in a fresh checkout with nothing exported.

devstack is started as `make run` starts it (`python manage.py devstack`,
no flags) while the test holds its default ports (9090, 6379, 8000), so it
must say so and pick others, and every command must still find it through
the ports file. Each README line of "The first five minutes" and of
"Command-line tools", and the JSON API's curl lines, is run and its exit
code and output checked. A README line this test does not know fails it:
README and test stay in step.

Not run here, each for a reason: the benchmarks and locust start servers of
their own or run for minutes (docs/benchmarks.md, docs/reliability.md);
`realhbase fetch`/`run` and `devstack --hbase` are the real-HBase test's
(test_devstack_runs_against_real_hbase, whose fixture runs the same
launcher).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import happybase
import pytest

from storage.schema import SCHEMA
from tests.deploy.clone import ROOT, Devstack, hold_port, make_clone, sh
from tests.helpers import ServerAddr
from twitbase import portsfile

# Starts a devstack, gunicorn or Redis: not in the fast tier.
pytestmark = pytest.mark.servers

README = (ROOT / "README.md").read_text()
ACTIVATE = ". .venv/bin/activate"
ALICE_PASSWORD = "correct-horse-7\n"
DEFAULT_PORTS = {"web": 8000, "Redis": 6379, "HBase Thrift": 9090}
ELSEWHERE = {
    "python manage.py benchfanout": "starts its own servers; minutes",
    "python manage.py benchstorage": "starts its own servers; minutes",
    "python manage.py benchschema": "starts its own servers",
    "python manage.py benchconsole": "starts its own server; minutes",
    "python -m bench.cpushare -- make test": "the whole suite; test_cpushare runs a small one",
    "python -m bench.callcost": "starts its own servers; minutes",
    "python -m bench.hotcounter": "starts its own servers",
    "locust -f loadtest/locustfile.py --headless -u 50 -r 10 -t 60s --host http://127.0.0.1:8000": (
        "a 60 s load test (docs/reliability.md)"
    ),
    "python -m devtools.realhbase fetch": "the real-HBase test's fixture",
    "python -m devtools.realhbase run --workdir /tmp/hb": "the real-HBase test's fixture",
    "python manage.py devstack --hbase 127.0.0.1:PORT": "the real-HBase test",
}


def section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def sh_lines(text: str) -> list[str]:
    """The commands of the ```sh blocks in ``text``, without their comments."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for raw in block.splitlines():
            line = re.sub(r"\s+#\s.*$", "", raw).strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


# Each README line -> what is run for it, in order: (command, stdin, what
# stdout must match). A line with alternatives (a | b) or an optional flag
# ([--x]) runs each form.
Run = tuple[str, str | None, str]
EXPECTED: dict[str, list[Run]] = {
    "python manage.py loaddemo --users 2000 --twits 20000": [
        (
            "python manage.py loaddemo --users 2000 --twits 20000",
            None,
            r"\Ademo password: twitbase-demo .*\n(?s:.*)loaded 2,000 users",
        )
    ],
    "python manage.py users staff user000000": [
        ("python manage.py users staff user000000", None, r"\Auser000000  .*\[staff\]\n\Z")
    ],
    "python manage.py users get user000000": [
        (
            "python manage.py users get user000000",
            None,
            r"\Auser000000  [A-Z][a-z]+ [A-Z][a-z]+ <user000000@example.com>  twits=\d+ "
            r"followers=\d+ following=\d+  \[staff\]\n\Z",
        )
    ],
    "python manage.py createtables [--apply]": [
        (
            "python manage.py createtables",
            None,
            rf"\Athe tables match the schema: {len(SCHEMA)} tables \(prefix 'twitbase', ",
        ),
        (
            "python manage.py createtables --apply",
            None,
            rf"\Athe tables match the schema: {len(SCHEMA)} tables \(prefix 'twitbase', ",
        ),
    ],
    'python manage.py users add alice --name "Alice" --email alice@example.com': [
        (
            'python manage.py users add alice --name "Alice" --email alice@example.com',
            ALICE_PASSWORD,
            r"\Aadded alice  Alice <alice@example.com>  twits=0 followers=0 following=0\n\Z",
        )
    ],
    (
        'python manage.py users add bob --name "Bob" --email bob@example.com '
        "--password correct-horse-42"
    ): [
        (
            'python manage.py users add bob --name "Bob" --email bob@example.com '
            "--password correct-horse-42",
            None,
            r"\Aadded bob  Bob <bob@example.com>",
        )
    ],
    "python manage.py users get alice | users list | users staff alice [--revoke]": [
        ("python manage.py users get alice", None, r"\Aalice  Alice <alice@example.com>"),
        ("python manage.py users list", None, r"\A(.+\n){20}more: --cursor \S+\n\Z"),
        ("python manage.py users staff alice", None, r"\Aalice  Alice .*  \[staff\]\n\Z"),
        ("python manage.py users staff alice --revoke", None, r"\Aalice  Alice [^\[]*\n\Z"),
    ],
    "python manage.py users reindex": [
        ("python manage.py users reindex", None, r"\Aindexed [1-9]\d* users\n\Z")
    ],
    (
        "python manage.py follows add alice bob | follows remove alice bob "
        "| follows list bob --followers"
    ): [
        ("python manage.py follows add alice bob", None, r"\Aalice now follows bob\n\Z"),
        ("python manage.py follows list bob --followers", None, r"\Aalice  Alice\n\Z"),
        ("python manage.py follows remove alice bob", None, r"\Aalice unfollowed bob\n\Z"),
        ("python manage.py follows list bob --followers", None, r"\A\Z"),
    ],
    'python manage.py twits post alice "hello" | twits list alice [--stream]': [
        ('python manage.py twits post alice "hello"', None, r"\Aposted \S+ \S+  @alice: hello  \["),
        ("python manage.py twits list alice", None, r"\A\S+ \S+  @alice: hello  \[\S+\]\n\Z"),
        ("python manage.py twits list alice --stream", None, r"\A\S+ \S+  @alice: hello  \["),
    ],
    "python manage.py sweepfanout": [
        ("python manage.py sweepfanout", None, r"queued \d+ pending fan-out\(s\)\n\Z")
    ],
    # After the demo: every table of it out to files, then back into the same
    # tables, which an import at the cells' own timestamps leaves as they were.
    "python manage.py exportdata var/backup": [
        (
            "python manage.py exportdata var/backup",
            None,
            r"\Ausers +[\d,]+ rows +[\d,]+ cells .* rows/s\)\n(?:.*\n)*"
            r"streams +[1-9][\d,]+ rows (?:.*\n)*"
            rf"exported {len(SCHEMA)} table\(s\), [\d,]+ rows, [\d,]+ cells to var/backup in ",
        )
    ],
    "python manage.py importdata var/backup": [
        (
            "python manage.py importdata var/backup",
            None,
            rf"\A(?:.*\n)*imported {len(SCHEMA)} table\(s\), [\d,]+ rows, [\d,]+ cells from "
            r"var/backup in ",
        )
    ],
    "python manage.py tablestats": [
        (
            "python manage.py tablestats",
            None,
            r"\Ausers: [\d,]+ rows in [\d,]+ ms; key spread from [\d,]+ keys in [\d,]+ ms\n"
            rf"(?:.*\n)*measured {len(SCHEMA)} table\(s\)\n\Z",
        )
    ],
}


def json_documents(text: str) -> list[dict[str, Any]]:
    """The JSON documents curl printed one after another (no newline between)."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while (at := len(text) - len(text[at:].lstrip())) < len(text):
        doc, at = decoder.raw_decode(text, at)
        found.append(doc)
    return found


@pytest.fixture
def default_ports_taken() -> Iterator[dict[str, bool]]:
    """Hold 9090, 6379 and 8000 (those someone else holds are taken anyway)."""
    held = {what: hold_port(port) for what, port in DEFAULT_PORTS.items()}
    yield {what: s is not None for what, s in held.items()}
    for s in held.values():
        if s is not None:
            s.close()


def test_the_readme_lists_only_commands_this_test_knows() -> None:
    five = sh_lines(section("The first five minutes"))
    tools = sh_lines(section("Command-line tools"))
    assert five[0] == ACTIVATE
    unknown = [line for line in five[1:] + tools if line not in EXPECTED and line not in ELSEWHERE]
    assert not unknown, f"README commands this test does not run: {unknown}"


def test_every_readme_command_works_next_to_devstack(
    tmp_path: Path, default_ports_taken: dict[str, bool]
) -> None:
    clone = make_clone(tmp_path / "twitbase")
    with Devstack(clone) as stack:
        ports = stack.wait_up()
        for what, port in DEFAULT_PORTS.items():
            assert re.search(
                rf"^devstack: the {what} port {port} is taken; using \d+ instead$",
                stack.output,
                re.M,
            ), stack.output
        web = stack.web_address()
        assert ports.web_url == f"http://{web}"
        assert ports.hbase_port != 9090 and ":6379/" not in ports.broker_url

        lines = sh_lines(section("The first five minutes"))[1:]
        lines += sh_lines(section("Command-line tools"))
        done: set[str] = set()
        for line in lines:
            if line in ELSEWHERE or line in done:
                continue
            done.add(line)
            for command, stdin, expected in EXPECTED[line]:
                result = sh(clone, command, stdin)
                shown = f"{command}\n--- stdout\n{result.stdout}--- stderr\n{result.stderr}"
                assert result.returncode == 0, shown
                assert "Traceback" not in result.stderr, shown
                assert re.search(expected, result.stdout), shown

        # The JSON API's lines, in one shell (TOKEN carries over), at the web
        # address devstack printed in place of the taken 8000.
        api = [
            line.strip()
            for line in section("JSON API").splitlines()
            if line.startswith("    curl ") or line.startswith("    TOKEN=")
        ]
        assert len(api) == 4
        script = "\n".join(line.replace("localhost:8000", web) for line in api)
        result = sh(clone, "set -e\n" + script)
        assert result.returncode == 0, result.stderr
        replies = json_documents(result.stdout)
        assert len(replies) == 3, result.stdout
        assert replies[0]["userid"] == "carol", result.stdout
        assert replies[1]["text"] == "hello", result.stdout
        assert [t["text"] for t in replies[2]["items"]] == ["hello"], result.stdout

        assert stack.stop() == 0, stack.output
    assert not (clone / "var" / "data" / "ports.json").exists(), "the ports file outlived devstack"

    # Nothing running now: the README's commands say so in one line.
    if default_ports_taken["HBase Thrift"]:  # held here: nothing answers on 9090
        result = sh(clone, "python manage.py users list")
        assert result.returncode == 1
        assert "Traceback" not in result.stderr
        [line] = result.stderr.splitlines()
        assert "cannot reach HBase at 127.0.0.1:9090 (the default" in line, line
        assert "`make run`" in line and "devstack" in line, line


@pytest.mark.hbase
def test_devstack_runs_against_real_hbase(real_hbase: ServerAddr, tmp_path: Path) -> None:
    line = "python manage.py devstack --hbase 127.0.0.1:PORT"
    assert line in sh_lines(section("The first five minutes"))
    args = line.split("devstack ", 1)[1].replace("PORT", str(real_hbase.port))
    clone = make_clone(tmp_path / "twitbase")
    with Devstack(clone, args) as stack:
        ports = stack.wait_up()
        assert (ports.hbase_host, ports.hbase_port) == ("127.0.0.1", real_hbase.port)
        assert "local HBase server" not in stack.output, stack.output
        assert re.search(
            rf"the tables match the schema(: \d+ tables)? \(prefix 'twitbase', "
            rf"127.0.0.1:{real_hbase.port}\)",
            stack.output,
        ), stack.output

        for command in (
            'python manage.py users add bob --name "Bob" --email bob@example.com '
            "--password correct-horse-42",
            'python manage.py users add alice --name "Alice" --email alice@example.com '
            "--password correct-horse-7",
            "python manage.py follows add alice bob",
            'python manage.py twits post bob "hello from Apache HBase"',
        ):
            result = sh(clone, command)
            assert result.returncode == 0, f"{command}\n{result.stdout}{result.stderr}"
        # The worker (started by devstack, talking to the same HBase) fans it out.
        deadline = time.monotonic() + 90
        while "hello from Apache HBase" not in (
            seen := sh(clone, "python manage.py twits list alice --stream").stdout
        ):
            assert time.monotonic() < deadline, f"not fanned out to alice:\n{seen}"
            time.sleep(1)

        conn = happybase.Connection(real_hbase.host, real_hbase.port)
        try:
            twits = list(conn.table("twitbase_twits").scan())
        finally:
            conn.close()
        assert [data[b"t:text"] for _, data in twits] == [b"hello from Apache HBase"]

        import urllib.request

        with urllib.request.urlopen(ports.web_url + "/healthz", timeout=10) as reply:
            assert reply.status == 200
        assert stack.stop() == 0, stack.output


def test_a_devstack_killed_with_sigkill_leaves_no_ports_to_follow(tmp_path: Path) -> None:
    """Its ports file stays behind (nothing runs to remove it) but is stale:
    commands fall back to the defaults, and the next devstack starts."""
    clone = make_clone(tmp_path / "twitbase")
    free = "--port 0 --hbase-port 0 --redis-port 0"
    with Devstack(clone, free) as stack:
        ports = stack.wait_up()
        os.kill(stack.proc.pid, signal.SIGKILL)  # bash exec'd python: this is devstack
        stack.proc.wait()
    assert (clone / "var" / "data" / "ports.json").exists()
    assert portsfile.read(clone / "var" / "data") is None

    seen = sh(
        clone,
        "DJANGO_SETTINGS_MODULE=twitbase.settings python -c 'import django; django.setup(); "
        "from django.conf import settings as s; "
        "print(s.TWITBASE_HBASE_PORT, s.CELERY_BROKER_URL, s.TWITBASE_HBASE_SOURCE)'",
    )
    assert seen.stdout.startswith("9090 redis://127.0.0.1:6379/0 the default"), seen
    # Its parts died with it (they are told to on Linux): nothing serves its HBase port.
    deadline = time.monotonic() + 30
    while socket_answers(ports.hbase_port):
        assert time.monotonic() < deadline, "the local HBase server outlived devstack"
        time.sleep(0.5)

    with Devstack(clone, free) as again:
        assert again.wait_up().pid == again.proc.pid
        assert again.stop() == 0, again.output


def socket_answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True
