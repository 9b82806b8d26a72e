"""Backup and restore (storage/backup.py; ``manage.py exportdata`` and
``importdata``): an export imported into fresh tables gives back every
cell, version and timestamp, on both servers, read back through Thrift2 (not
the Thrift1 path the export reads by); an export or import cut short
resumes without redoing what it finished; bad input is one line and loses
nothing."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import happybase
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from pytest_django.fixtures import Settings

from hbasethrift.thrift2 import T2
from storage import backup
from storage.connection import reset_pool
from storage.ops import put_rows
from storage.schema import SCHEMA
from tests.deploy.clone import ROOT, bare_env
from tests.helpers import ServerAddr

# The audit family keeps three versions here, as an operator might alter
# it in the HBase shell: the export must carry all three.
VERSIONED: dict[str, dict[str, dict[str, int]]] = {**SCHEMA, "audit": {"a": {"max_versions": 3}}}
BINARY = bytes(range(256))
OLD = 1_000_000_000_000  # September 2001, in ms
NOW = int(time.time() * 1000)

# The tables an export or import finishes before it reaches streams.
BEFORE_STREAMS = list(SCHEMA)[: list(SCHEMA).index("streams")]

Cells = dict[str, list[tuple[bytes, bytes, int, bytes]]]


def _on(server: ServerAddr, job: Any) -> None:
    conn = server.connect(timeout=120_000)
    try:
        job(conn)
    finally:
        conn.close()


@contextmanager
def table_sets(
    server: ServerAddr, count: int, schema: dict[str, dict[str, dict[str, int]]] = VERSIONED
) -> Iterator[list[str]]:
    """``count`` sets of the tables of ``schema``, each under a new prefix,
    made in parallel (real HBase takes a second or so per table) and dropped after."""
    prefixes = ["bk" + uuid.uuid4().hex[:10] for _ in range(count)]
    names = [(p, name) for p in prefixes for name in schema]
    with ThreadPoolExecutor(12) as pool:
        list(
            pool.map(
                lambda pn: _on(server, lambda c: c.create_table(f"{pn[0]}_{pn[1]}", schema[pn[1]])),
                names,
            )
        )
    try:
        yield prefixes
    finally:

        def drop(conn: happybase.Connection, prefix: str) -> None:
            for table in conn.tables():
                if table.decode().startswith(prefix + "_"):
                    conn.delete_table(table, disable=True)

        with ThreadPoolExecutor(len(prefixes)) as pool:
            list(pool.map(lambda p: _on(server, lambda c: drop(c, p)), prefixes))


def point_at(settings: Settings, server: ServerAddr, prefix: str) -> None:
    settings.TWITBASE_HBASE_HOST = server.host
    settings.TWITBASE_HBASE_PORT = server.port
    settings.TWITBASE_HBASE_THRIFT2_PORT = 0
    settings.TWITBASE_TABLE_PREFIX = prefix
    reset_pool()


def every_cell(server: ServerAddr, prefix: str) -> Cells:
    """Every cell of every table of ``prefix``, every version kept, read
    through Thrift2: (row, column, timestamp, value) in HBase's order."""
    client = server.thrift2()
    found: Cells = {}
    try:
        for name in SCHEMA:
            sid = client.openScanner(f"{prefix}_{name}".encode(), T2.TScan(maxVersions=10))
            cells = found.setdefault(name, [])
            while rows := client.getScannerRows(sid, 1000):
                for r in rows:
                    cells += [
                        (r.row, c.family + b":" + c.qualifier, c.timestamp, c.value)
                        for c in r.columnValues
                    ]
            client.closeScanner(sid)
    finally:
        client.close()
    return found


def md5(text: str) -> bytes:
    return hashlib.md5(text.encode()).digest()


def write_sample(server: ServerAddr, prefix: str, streams: int = 2_500) -> None:
    """Rows of several tables: several columns and families, binary keys
    and values, cells of one row at different timestamps, explicit old
    timestamps, a counter, and (in audit) several versions of one cell."""
    conn = server.connect()
    try:
        users = conn.table(f"{prefix}_users")
        for i, userid in enumerate(["alice", "bob", "charlie"]):
            users.put(md5(userid), {b"info:account": f'{{"userid": "{userid}"}}'.encode()})
            users.put(md5(userid), {b"info:bio": BINARY, b"c:twits": b""}, timestamp=OLD + i)
            users.put(md5(userid), {b"info:staff": b"\x00\xff"}, timestamp=1)
            users.counter_inc(md5(userid), b"c:followers", 5 + i)
        audit = conn.table(f"{prefix}_audit")
        for ts, what in [(50, b"first"), (100, b"second"), (200, b"third"), (300, b"fourth")]:
            audit.put(b"\xff\xff\x00entry", {b"a:what": what}, timestamp=ts)
        audit.put(b"\x00", {b"a:what": b"newest only", b"a:who": b"staff"})
        put_rows(
            conn,
            f"{prefix}_streams",
            [
                (md5(f"reader{i % 50}") + i.to_bytes(4, "big"), {b"s:t": f"twit {i}".encode()})
                for i in range(streams)
            ],
            timestamp=OLD + 7,
        )
        twits = conn.table(f"{prefix}_twits")
        for i in range(40):
            twits.put(
                md5("alice") + i.to_bytes(8, "big"), {b"t:text": b"t%d" % i}, timestamp=OLD + i
            )
    finally:
        conn.close()


def test_an_export_imported_into_fresh_tables_gives_back_every_cell(
    server: ServerAddr, settings: Settings, tmp_path: Path
) -> None:
    with table_sets(server, 2) as (source, target):
        write_sample(server, source)
        written = every_cell(server, source)
        # What was written is there to be copied: three of audit's four versions.
        assert [c[2:] for c in written["audit"] if c[0] == b"\xff\xff\x00entry"] == [
            (300, b"fourth"),
            (200, b"third"),
            (100, b"second"),
        ]
        assert (md5("bob"), b"info:bio", OLD + 1, BINARY) in written["users"]
        assert (md5("bob"), b"info:staff", 1, b"\x00\xff") in written["users"]
        assert len(written["streams"]) == 2_500

        out = io.StringIO()
        point_at(settings, server, source)
        call_command("exportdata", str(tmp_path / "dump"), "--chunk-rows", "1000", stdout=out)
        lines = out.getvalue().splitlines()
        assert any(line.split()[:3] == ["streams", "2,500", "rows"] for line in lines), lines
        assert lines[-1].startswith(f"exported {len(SCHEMA)} table(s), "), lines
        manifest = json.loads((tmp_path / "dump" / backup.MANIFEST).read_text())
        assert [c["rows"] for c in manifest["tables"]["streams"]["chunks"]] == [1000, 1000, 500]
        assert manifest["version"] == backup.VERSION and manifest["prefix"] == source

        point_at(settings, server, target)
        out = io.StringIO()
        call_command("importdata", str(tmp_path / "dump"), stdout=out)
        assert out.getvalue().splitlines()[-1].startswith(f"imported {len(SCHEMA)} table(s)")
        assert every_cell(server, target) == written
        # A second import writes the same cells again: nothing changes.
        call_command("importdata", str(tmp_path / "dump"), stdout=io.StringIO())
        assert every_cell(server, target) == written
        assert not (tmp_path / "dump" / backup.IMPORT_PROGRESS).exists()


def test_an_export_cut_short_goes_on_from_its_last_chunk(
    local_hbase: ServerAddr, settings: Settings, tmp_path: Path
) -> None:
    dump = tmp_path / "dump"
    with table_sets(local_hbase, 2) as (source, target):
        write_sample(local_hbase, source)
        conn = local_hbase.connect()
        try:
            events = backup.export_tables(conn, dump, source, chunk_rows=400)
            seen = []
            for event in events:
                seen.append(event)
                if event.table == "streams" and event.rows == 1200:
                    break
            events.close()  # as a Ctrl-C between two chunks leaves it
        finally:
            conn.close()
        first_done = [e.table for e in seen if e.done]
        assert first_done == BEFORE_STREAMS
        files = {p.name: p.stat() for p in dump.glob("*" + backup.SUFFIX)}
        assert {f for f in files if f.startswith("streams.")} == {
            f"streams.00000{i}{backup.SUFFIX}" for i in range(3)
        }

        point_at(settings, local_hbase, source)
        out = io.StringIO()
        call_command("exportdata", str(dump), "--chunk-rows", "400", stdout=out)
        lines = out.getvalue().splitlines()
        assert done_earlier(out.getvalue()) == set(first_done), lines
        # The finished tables' files and the three chunks of streams were not written again.
        for name, stat in files.items():
            again = (dump / name).stat()
            assert (again.st_ino, again.st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns), name
        manifest = json.loads((dump / backup.MANIFEST).read_text())
        assert [c["rows"] for c in manifest["tables"]["streams"]["chunks"]] == [400] * 6 + [100]
        assert lines[-1].startswith(
            f"exported {len(SCHEMA) - len(first_done)} table(s), "
        ) and lines[-1].endswith(f"; {len(first_done)} done by an earlier run"), lines

        # A finished export run again writes nothing.
        out = io.StringIO()
        call_command("exportdata", str(dump), stdout=out)
        assert out.getvalue().splitlines()[-1].startswith("exported 0 table(s), 0 rows")

        point_at(settings, local_hbase, target)
        call_command("importdata", str(dump), stdout=io.StringIO())
        assert every_cell(local_hbase, target) == every_cell(local_hbase, source)


def manage(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """``manage.py args`` started in the background, Ctrl-C reaching it as it
    would from a terminal (see :func:`_interruptible`)."""
    return subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**bare_env(), **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_interruptible,
    )


def _interruptible() -> None:
    """SIGINT's default action in the child, whatever the suite inherited. A
    suite started as a background job of a shell without job control (``make
    test &`` in a script) runs with SIGINT ignored; Python then installs no
    KeyboardInterrupt handler, and an export sent Ctrl-C ran on to its end
    (seen on 2026-11-29, a CI run started so)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def chunks_of(dump: Path, table: str) -> list[dict[str, Any]]:
    """The chunks the manifest in ``dump`` lists for ``table`` (none yet: [])."""
    try:
        manifest = json.loads((dump / backup.MANIFEST).read_text())
    except FileNotFoundError:
        return []
    chunks: list[dict[str, Any]] = manifest["tables"].get(table, {}).get("chunks", [])
    return chunks


def done_earlier(output: str) -> set[str]:
    """The tables a command's output reports done by an earlier run."""
    return {
        line.split()[0]
        for line in output.splitlines()
        if line.endswith(" cells  done by an earlier run")
    }


def stop_when(proc: subprocess.Popen[str], ready: Any, sig: int) -> None:
    """Send ``sig`` to ``proc`` as soon as ``ready()``, which must come
    while it runs. The deadline only guards against a hang: two test runs
    at once once took over 60 s to reach the third chunk of streams."""
    deadline = time.monotonic() + 600
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.kill(proc.pid, sig)


def test_commands_killed_or_interrupted_go_on_where_they_stopped(
    local_hbase: ServerAddr, tmp_path: Path
) -> None:
    dump = tmp_path / "dump"
    with table_sets(local_hbase, 2, SCHEMA) as (source, target):
        write_sample(local_hbase, source, streams=20_000)
        env = {
            "TWITBASE_DATA_DIR": str(tmp_path),
            "TWITBASE_HBASE_PORT": str(local_hbase.port),
            "TWITBASE_TABLE_PREFIX": source,
        }
        # 200 chunks of streams: the kill and the Ctrl-C land mid-way; every
        # chunk costs its file's and the manifest's fsyncs, so no more.
        export = ["exportdata", str(dump), "--chunk-rows", "100"]
        # kill -9 in the middle of streams: no chance to tidy up.
        proc = manage(export, env)
        stop_when(proc, lambda: len(chunks_of(dump, "streams")) >= 3, signal.SIGKILL)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        # Ctrl-C in the rerun, as soon as it has written a chunk of its own
        # (a loaded machine can starve this process while the export runs
        # on: stopping it at chunk 100 let it finish first once, in a CI
        # run): one line that says how to go on.
        found = len(chunks_of(dump, "streams"))
        proc = manage(export, env)
        stop_when(proc, lambda: len(chunks_of(dump, "streams")) > found, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 1, err
        assert err.splitlines() == [
            f"CommandError: interrupted; run `python manage.py exportdata {dump}` again to go "
            "on from the last chunk written"
        ], err
        kept = (dump / f"streams.000000{backup.SUFFIX}").stat()
        proc = manage(export, env)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert done_earlier(out) == set(BEFORE_STREAMS), out
        assert (dump / f"streams.000000{backup.SUFFIX}").stat().st_mtime_ns == kept.st_mtime_ns
        assert not list(dump.glob("*.tmp"))
        assert sum(c["rows"] for c in chunks_of(dump, "streams")) == 20_000

        env["TWITBASE_TABLE_PREFIX"] = target
        proc = manage(["importdata", str(dump)], env)
        stop_when(proc, lambda: b"streams" in _progress(dump), signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 1 and "interrupted; run `python manage.py importdata" in err, err
        done_before = json.loads(_progress(dump))["targets"][
            f"127.0.0.1:{local_hbase.port} {target}"
        ]
        proc = manage(["importdata", str(dump)], env)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "streams" in done_before
        assert done_earlier(out) == set(done_before) - {"streams"}, out
        assert every_cell(local_hbase, target) == every_cell(local_hbase, source)


def _progress(dump: Path) -> bytes:
    try:
        return (dump / backup.IMPORT_PROGRESS).read_bytes()
    except FileNotFoundError:
        return b""


def test_bad_directories_are_one_line_and_lose_nothing(
    local_hbase: ServerAddr, settings: Settings, tmp_path: Path
) -> None:
    with table_sets(local_hbase, 1, SCHEMA) as (source,):
        write_sample(local_hbase, source, streams=10)
        point_at(settings, local_hbase, source)

        with pytest.raises(CommandError, match=r"^.*/nowhere does not exist$"):
            call_command("importdata", str(tmp_path / "nowhere"))
        with pytest.raises(CommandError, match=r"holds no TwitBase export \(no manifest.json\)"):
            call_command("importdata", str(tmp_path))

        busy = tmp_path / "busy"
        busy.mkdir()
        (busy / "notes.txt").write_text("mine")
        with pytest.raises(CommandError, match="is not empty and holds no TwitBase export"):
            call_command("exportdata", str(busy))
        assert [p.name for p in busy.iterdir()] == ["notes.txt"]

        dump = tmp_path / "dump"
        call_command("exportdata", str(dump), stdout=io.StringIO())
        before = {p.name: p.read_bytes() for p in dump.iterdir()}
        settings.TWITBASE_TABLE_PREFIX = "other"
        with pytest.raises(
            CommandError, match=f"holds an export of prefix '{source}', not 'other'"
        ):
            call_command("exportdata", str(dump))
        # No tables under this prefix: createtables first, and nothing is written.
        with pytest.raises(
            CommandError,
            match=r"table\(s\) missing .*run `python manage.py createtables --apply` first",
        ):
            call_command("importdata", str(dump))
        assert {p.name: p.read_bytes() for p in dump.iterdir()} == before

        # A damaged chunk is refused before any of it is put.
        with table_sets(local_hbase, 1, SCHEMA) as (target,):
            settings.TWITBASE_TABLE_PREFIX = target
            streams = dump / f"streams.000000{backup.SUFFIX}"
            streams.write_bytes(streams.read_bytes()[:-3] + b"xyz")
            with pytest.raises(CommandError, match=r"streams.000000.twb.gz is damaged"):
                call_command("importdata", str(dump), stdout=io.StringIO())
            assert every_cell(local_hbase, target)["streams"] == []
            assert (
                every_cell(local_hbase, target)["users"] == every_cell(local_hbase, source)["users"]
            )


def test_records_round_trip_and_a_cut_record_is_refused() -> None:
    rows = [
        (b"", [(b"f:", 0, b"")]),
        (BINARY, [(b"f:a", 2**63 - 1, BINARY), (b"f:a", 1, b"x"), (b"g:\xff", -1, b"")]),
    ]
    data = backup.encode_rows(rows)
    assert list(backup.decode_rows(data)) == rows
    for cut in (1, 5, len(data) - 1):
        with pytest.raises(ValueError, match="cut short"):
            list(backup.decode_rows(data[:cut]))


def test_progress_lines_come_at_most_every_two_seconds_of_a_table() -> None:
    def at(table: str, seconds: float, done: bool = False) -> backup.Progress:
        return backup.Progress(table, 10, 20, 30, 10, seconds, done)

    events = [
        at("a", 0.5),
        at("a", 1.9),
        at("a", 2.1),
        at("a", 3.0),
        at("a", 4.2),
        at("a", 4.3, True),
    ]
    events += [at("b", 0.1), at("b", 0.2, True)]
    shown = [(e.table, e.seconds) for e in backup.throttled(events)]
    assert shown == [("a", 2.1), ("a", 4.2), ("a", 4.3), ("b", 0.2)]
