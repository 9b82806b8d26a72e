"""The ports file devstack writes, and the settings that read it when no
environment variable names the servers (twitbase/portsfile.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from twitbase import portsfile

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake_devstack() -> Iterator[int]:
    """A live process whose command line says devstack, as devstack's does."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "manage.py", "devstack"]
    )
    # Until the child has exec'd, its command line is still pytest's.
    cmdline = Path(f"/proc/{proc.pid}/cmdline")
    deadline = time.monotonic() + 10
    while b"devstack" not in cmdline.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)
    yield proc.pid
    proc.kill()
    proc.wait()


def _ports(pid: int) -> portsfile.StackPorts:
    return portsfile.StackPorts(
        pid=pid,
        hbase_host="127.0.0.2",
        hbase_port=19090,
        broker_url="redis://127.0.0.1:16379/0",
        web_url="http://127.0.0.1:18000",
    )


def test_a_running_devstacks_ports_are_read_back(tmp_path: Path, fake_devstack: int) -> None:
    portsfile.write(tmp_path, _ports(fake_devstack))
    assert portsfile.read(tmp_path) == _ports(fake_devstack)


def test_a_file_left_by_a_dead_devstack_is_ignored(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass", "devstack"])
    dead.wait()
    portsfile.write(tmp_path, _ports(dead.pid))
    assert portsfile.read(tmp_path) is None


def test_a_pid_reused_by_another_program_is_not_a_devstack(tmp_path: Path) -> None:
    other = subprocess.Popen(["sleep", "60"])
    try:
        portsfile.write(tmp_path, _ports(other.pid))
        assert portsfile.read(tmp_path) is None
    finally:
        other.kill()
        other.wait()


def test_a_damaged_file_is_ignored(tmp_path: Path) -> None:
    portsfile.path_in(tmp_path).write_text('{"pid": ')
    assert portsfile.read(tmp_path) is None
    portsfile.path_in(tmp_path).write_text(json.dumps({"pid": os.getpid()}))
    assert portsfile.read(tmp_path) is None


def test_only_the_devstack_that_wrote_it_removes_it(tmp_path: Path, fake_devstack: int) -> None:
    portsfile.write(tmp_path, _ports(fake_devstack))
    portsfile.remove(tmp_path, fake_devstack + 1)
    assert portsfile.path_in(tmp_path).exists()
    portsfile.remove(tmp_path, fake_devstack)
    assert not portsfile.path_in(tmp_path).exists()


def _settings(data: Path, **env: str) -> dict[str, object]:
    """The HBase and broker settings a fresh manage.py process would see."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TWITBASE_", "CELERY_", "DJANGO_SETTINGS"))
    }
    code = (
        "import json, django; from django.conf import settings as s; "
        "print(json.dumps([s.TWITBASE_HBASE_HOST, s.TWITBASE_HBASE_PORT, "
        "s.CELERY_BROKER_URL, s.TWITBASE_HBASE_SOURCE]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "twitbase.settings",
            "TWITBASE_DATA_DIR": str(data),
            **env,
        },
        capture_output=True,
        text=True,
        check=True,
    )
    host, port, broker, source = json.loads(out.stdout)
    return {"host": host, "port": port, "broker": broker, "source": source}


def test_settings_find_a_running_devstack_with_nothing_exported(
    tmp_path: Path, fake_devstack: int
) -> None:
    portsfile.write(tmp_path, _ports(fake_devstack))
    seen = _settings(tmp_path)
    assert (seen["host"], seen["port"], seen["broker"]) == (
        "127.0.0.2",
        19090,
        "redis://127.0.0.1:16379/0",
    )
    assert str(portsfile.path_in(tmp_path)) in str(seen["source"])


def test_environment_variables_win_over_the_ports_file(tmp_path: Path, fake_devstack: int) -> None:
    portsfile.write(tmp_path, _ports(fake_devstack))
    seen = _settings(
        tmp_path,
        TWITBASE_HBASE_HOST="10.0.0.1",
        TWITBASE_HBASE_PORT="9999",
        CELERY_BROKER_URL="redis://10.0.0.1:1/0",
    )
    assert (seen["host"], seen["port"], seen["broker"]) == (
        "10.0.0.1",
        9999,
        "redis://10.0.0.1:1/0",
    )
    assert seen["source"] == "from TWITBASE_HBASE_HOST and TWITBASE_HBASE_PORT"


def test_without_a_devstack_the_usual_ports_are_the_default(tmp_path: Path) -> None:
    seen = _settings(tmp_path)
    assert (seen["host"], seen["port"], seen["broker"]) == (
        "127.0.0.1",
        9090,
        "redis://127.0.0.1:6379/0",
    )
    assert str(seen["source"]).startswith("the default")
