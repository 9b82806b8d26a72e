"""The Java clients in ``java/``: compiled once with javac against the jars
Maven fetched into ``hbase/target/lib``, each run against one server, its
lines held to what HBase 2.6.1 printed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REQUIRE_REAL_HBASE

SOURCES = Path(__file__).with_name("java")


def compile_clients(out: Path) -> str:
    """Compile every client into ``out``; the class path to run them with.
    Skips the test (fails it where CI requires real HBase) without javac or
    the hbase-thrift jar."""
    from devtools.realhbase import LIB_DIR

    if shutil.which("javac") is None or not list(LIB_DIR.glob("hbase-thrift-*.jar")):
        reason = "javac or the hbase-thrift jar is missing (python -m devtools.realhbase fetch)"
        if REQUIRE_REAL_HBASE:
            pytest.fail(reason + " (CI requires real HBase)")
        pytest.skip(reason)
    subprocess.run(
        ["javac", "-d", str(out), "-cp", f"{LIB_DIR}/*", *map(str, sorted(SOURCES.glob("*.java")))],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return f"{out}:{LIB_DIR}/*"


def run_client(classpath: str, main: str, *args: str) -> list[str]:
    """The lines client ``main`` printed."""
    done = subprocess.run(
        ["java", "-Xmx128m", "-cp", classpath, main, *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


def differences(expected: list[str], lines: list[str], kind: str) -> str:
    """Where ``lines`` (printed against server ``kind``) differ from HBase's."""
    return (
        "\n".join(
            f"line {i}: HBase printed {a!r}, {kind} printed {b!r}"
            for i, (a, b) in enumerate(zip(expected, lines, strict=False))
            if a != b
        )
        or f"{len(lines)} lines, HBase printed {len(expected)}"
    )
