"""Running the server as a child process: its command line, and its ready file.

A launcher (a test harness, a supervisor, ``devtools.localhbase_process``)
runs :func:`command` and waits for the ready file to appear; the server
writes it once both ports listen (:func:`write_ready`), and
:func:`read_ready` says where they are. This module owns that file's format,
and imports nothing but the standard library, so a launcher pays nothing
for it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple


class Address(NamedTuple):
    """Where a running server listens; ``thrift2_port`` is None where the
    Thrift2 API is not served."""

    host: str
    port: int
    thrift2_port: int | None


def command(
    data: Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    thrift2_port: int | None = None,
    ready_file: Path | None = None,
    idle_timeout: float | None = None,
    python: str = sys.executable,
) -> list[str]:
    """The command line of ``python -m localhbase`` serving ``data``.

    Port 0 lets the server pick a free one (:func:`read_ready` tells which);
    ``thrift2_port`` None serves no Thrift2 API; ``idle_timeout`` None keeps
    the server's default (60 s), 0 never closes an idle connection.
    """
    return [
        python,
        "-m",
        "localhbase",
        "--data",
        str(data),
        "--host",
        host,
        "--port",
        str(port),
        *(["--thrift2-port", str(thrift2_port)] if thrift2_port is not None else []),
        *(["--ready-file", str(ready_file)] if ready_file is not None else []),
        *(["--idle-timeout", str(idle_timeout)] if idle_timeout is not None else []),
    ]


def write_ready(ready_file: Path, address: Address) -> None:
    """Write ``host:port``, and `` thrift2=PORT`` where served, to ``ready_file``.

    Written aside and renamed, so a launcher polling for the file never
    reads it half written."""
    thrift2 = f" thrift2={address.thrift2_port}" if address.thrift2_port is not None else ""
    partial = ready_file.with_name(ready_file.name + ".partial")
    partial.write_text(f"{address.host}:{address.port}{thrift2}\n")
    partial.rename(ready_file)


def read_ready(ready_file: Path) -> Address:
    """The address a server wrote to ``ready_file`` (:func:`write_ready`)."""
    hostport, _, thrift2 = ready_file.read_text().strip().partition(" thrift2=")
    # rpartition: an IPv6 host has colons of its own.
    host, _, port = hostport.rpartition(":")
    return Address(host, int(port), int(thrift2) if thrift2 else None)
