"""The ports file: where a running ``manage.py devstack`` can be reached.

devstack writes ``ports.json`` into its data directory once its parts are
up (the HBase Thrift address, the broker URL, the web URL and its own pid)
and removes it when it stops. The settings read it when no environment
variable names the server, so a ``manage.py`` command in a second terminal
finds the running stack with nothing exported. A file left behind by a
devstack that was killed (its pid is gone, or is now some other program)
is stale and ignored.

The file is JSON written whole (a temporary file renamed over it), so a
reader never sees half of it. This module imports nothing of Django: the
settings read it before Django is set up.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

FILENAME = "ports.json"


@dataclass(frozen=True)
class StackPorts:
    """Where one devstack's parts listen."""

    pid: int
    hbase_host: str
    hbase_port: int
    broker_url: str
    web_url: str
    hbase_thrift2_port: int = 0  # 0: no Thrift2 server (an older file, or --hbase)


def path_in(data_dir: Path) -> Path:
    return Path(data_dir) / FILENAME


def _is_devstack(pid: int) -> bool:
    """Whether ``pid`` is a running devstack (not a pid reused by another program)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, someone else's
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc here: the pid check has to do
    return b"devstack" in cmdline


def read(data_dir: Path) -> StackPorts | None:
    """The ports of the devstack running on ``data_dir``, or None if there is
    none (no file, a stale file, or one this version cannot read)."""
    try:
        raw = json.loads(path_in(data_dir).read_text())
        ports = StackPorts(
            pid=int(raw["pid"]),
            hbase_host=str(raw["hbase_host"]),
            hbase_port=int(raw["hbase_port"]),
            broker_url=str(raw["broker_url"]),
            web_url=str(raw["web_url"]),
            hbase_thrift2_port=int(raw.get("hbase_thrift2_port", 0)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return ports if _is_devstack(ports.pid) else None


def write(data_dir: Path, ports: StackPorts) -> Path:
    """Write (replace) the ports file of ``data_dir``; returns its path."""
    path = path_in(data_dir)
    tmp = path.with_name(f".{FILENAME}.{os.getpid()}")
    tmp.write_text(json.dumps(asdict(ports), indent=2) + "\n")
    os.replace(tmp, path)
    return path


def remove(data_dir: Path, pid: int) -> None:
    """Remove the ports file of ``data_dir`` if it is the one ``pid`` wrote."""
    path = path_in(data_dir)
    try:
        if int(json.loads(path.read_text())["pid"]) == pid:
            path.unlink()
    except (OSError, ValueError, KeyError, TypeError):
        pass
