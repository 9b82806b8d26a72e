"""A command that cannot reach HBase prints one line (where it looked, where
that address came from, how to start the app) and exits 1: no traceback.

Each command runs as a real `manage.py` process pointed at a loopback port
this test holds without listening, so every connection is refused. The
commands also start without Django's system checks, which load the web app.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

from devtools.processes import free_port
from tests.deploy.clone import ROOT, bare_env, hold_port
from tests.helpers import ServerAddr
from twitbase import portsfile

COMMANDS = [
    "users list",
    "users get alice",
    "users add alice --name Alice --email a@example.com --password correct-horse-7",
    "follows list bob --followers",
    "twits post alice hello",
    "twits list alice --stream",
    "createtables",
    "loaddemo --users 10 --twits 10",
    "sweepfanout",
]


@pytest.fixture
def dead_port() -> Iterator[int]:
    while (held := hold_port(port := free_port())) is None:
        pass
    yield port
    held.close()


def manage(args: str, env: dict[str, str], *last: str) -> subprocess.CompletedProcess[str]:
    """``manage.py ARGS LAST``: ARGS split on spaces, each of LAST one argument."""
    return subprocess.run(
        [sys.executable, "manage.py", *args.split(), *last],
        cwd=ROOT,
        env={**bare_env(), **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_one_line(result: subprocess.CompletedProcess[str]) -> str:
    shown = f"--- stdout\n{result.stdout}--- stderr\n{result.stderr}"
    assert result.returncode == 1, shown
    assert "Traceback" not in result.stderr + result.stdout, shown
    lines = result.stderr.splitlines()
    assert len(lines) == 1, shown
    assert "`make run`" in lines[0] and "manage.py devstack" in lines[0], shown
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_command_with_no_hbase_says_where_it_looked_in_one_line(
    command: str, dead_port: int, tmp_path: Path
) -> None:
    line = assert_one_line(
        manage(command, {"TWITBASE_DATA_DIR": str(tmp_path), "TWITBASE_HBASE_PORT": str(dead_port)})
    )
    name = command.split()[0]
    assert line.startswith(f"manage.py {name}: cannot reach HBase at 127.0.0.1:{dead_port} "), line
    assert "(from TWITBASE_HBASE_PORT)" in line, line


def test_the_line_names_the_ports_file_it_followed(dead_port: int, tmp_path: Path) -> None:
    # A devstack whose HBase is gone: the file is current, the server is not.
    stand_in = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "manage.py", "devstack"]
    )
    try:
        portsfile.write(
            tmp_path,
            portsfile.StackPorts(
                pid=stand_in.pid,
                hbase_host="127.0.0.1",
                hbase_port=dead_port,
                broker_url=f"redis://127.0.0.1:{dead_port}/0",
                web_url="http://127.0.0.1:1",
            ),
        )
        line = assert_one_line(manage("users list", {"TWITBASE_DATA_DIR": str(tmp_path)}))
    finally:
        stand_in.kill()
        stand_in.wait()
    assert f"at 127.0.0.1:{dead_port} (from devstack's ports file {tmp_path}" in line, line


def test_a_bad_setting_is_one_line_naming_it(tmp_path: Path) -> None:
    env = {"TWITBASE_DATA_DIR": str(tmp_path), "TWITBASE_HBASE_PORT": "not-a-port"}
    result = manage("users list", env)
    assert result.returncode == 2
    assert result.stderr == (
        "manage.py: configuration error: TWITBASE_HBASE_PORT='not-a-port' is not an integer\n"
    )


def test_other_errors_keep_their_traceback(tmp_path: Path) -> None:
    """Only an unreachable HBase and a bad setting are shortened: a bug
    still shows where it is."""
    result = manage("shell -c", {"TWITBASE_DATA_DIR": str(tmp_path)}, "raise ValueError('a bug')")
    assert result.returncode != 0
    assert "ValueError: a bug" in result.stderr
    assert "Traceback" in result.stderr


def test_a_command_starts_without_importing_the_web_app(dead_port: int, tmp_path: Path) -> None:
    """Django's system checks, run before every command by default, import
    every view and the JSON API's schemas; the commands skip them."""
    result = manage(
        "users get alice",
        {
            "TWITBASE_DATA_DIR": str(tmp_path),
            "TWITBASE_HBASE_PORT": str(dead_port),
            "PYTHONPROFILEIMPORTTIME": "1",
        },
    )
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "feeds.services.accounts" in imported, result.stderr[-2000:]  # the trace is there
    assert not {"twitbase.urls", "feeds.api.views", "ninja"} & imported


def test_every_command_of_ours_but_the_web_server_skips_the_checks() -> None:
    ours = {
        name: app
        for name, app in get_commands().items()
        if app in ("feeds", "devtools") and not name.startswith("_")
    }
    assert {"users", "devstack", "loaddemo", "runserver"} <= set(ours)
    checking = {
        name
        for name, app in ours.items()
        if load_command_class(app, name).requires_system_checks != []
    }
    assert checking == {"runserver"}


def test_output_cut_short_by_its_reader_is_not_called_an_unreachable_hbase(
    local_hbase: ServerAddr, tmp_path: Path
) -> None:
    """`manage.py users list | head -1`: the pipe breaks because its reader
    is done, not because HBase went away."""
    env = {
        "TWITBASE_DATA_DIR": str(tmp_path),
        "TWITBASE_HBASE_PORT": str(local_hbase.port),
        "TWITBASE_TABLE_PREFIX": "bp" + uuid.uuid4().hex[:8],
    }
    try:
        assert manage("createtables --apply", env).returncode == 0
        add = "users add ada --name Ada --email a@example.com --password correct-horse-7"
        assert manage(add, env).returncode == 0
        listing = subprocess.Popen(
            [sys.executable, "manage.py", "users", "list"],
            cwd=ROOT,
            env={**bare_env(), **env},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert listing.stdout is not None and listing.stderr is not None
        listing.stdout.close()  # the reader is gone before the first line
        errors = listing.stderr.read().decode()
        assert listing.wait(timeout=60) == 1
        assert errors == "", errors
    finally:
        conn = local_hbase.connect(table_prefix=env["TWITBASE_TABLE_PREFIX"])
        for name in conn.tables():
            conn.delete_table(name, disable=True)
        conn.close()
