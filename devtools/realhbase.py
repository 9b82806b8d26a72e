"""Run a real Apache HBase (standalone HMaster + Thrift1 and Thrift2 servers) for tests.

The jars come from Maven Central through ``hbase/pom.xml`` (``fetch()``);
``RealHBase`` starts, on loopback only and on free ports:

* one ``HMaster`` JVM in standalone mode, which embeds ZooKeeper and
  ``region_servers`` RegionServers (3 by default, HMaster's
  ``--localRegionServers``, so a pre-split table's regions spread over
  servers as on a cluster) and keeps its data under ``<workdir>/data`` on
  the local file system;
* one ``ThriftServer`` JVM (Thrift1, thread-pool server, binary protocol,
  buffered transport: what happybase speaks by default);
* unless ``thrift2=False``, one ``thrift2.ThriftServer`` JVM (HBase's
  Thrift2 API, THBaseService, with the same protocol and transport), on a
  port of its own: HBase serves each API from its own server.

Usage::

    with RealHBase(Path("/tmp/hb")) as hb:
        conn = happybase.Connection("127.0.0.1", hb.thrift_port)

Command line::

    python -m devtools.realhbase fetch
    python -m devtools.realhbase run --workdir DIR [--thrift-port N]

Needs ``java`` (11+, tested with 17) and, for ``fetch``, ``mvn``.  Apart from
happybase (used to check that the server is really up) this module only uses
the standard library.
"""

from __future__ import annotations

import argparse
import atexit
import ctypes
import fcntl
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any
from xml.sax.saxutils import escape

from hbasethrift import HBASE2_IDL

REPO_ROOT = Path(__file__).resolve().parent.parent
HBASE_DIR = REPO_ROOT / "hbase"
POM = HBASE_DIR / "pom.xml"
TARGET_DIR = HBASE_DIR / "target"
LIB_DIR = TARGET_DIR / "lib"
FETCH_STAMP = TARGET_DIR / "fetched.stamp"
FETCH_LOCK = TARGET_DIR / ".fetch.lock"
LOG4J2_CONFIG = HBASE_DIR / "conf" / "log4j2.properties"

MASTER_CLASS = "org.apache.hadoop.hbase.master.HMaster"
THRIFT_CLASS = "org.apache.hadoop.hbase.thrift.ThriftServer"
THRIFT2_CLASS = "org.apache.hadoop.hbase.thrift2.ThriftServer"
THRIFT2_IDL = HBASE2_IDL
THRIFT_JVMS = ("thrift", "thrift2")

# What HBase 2.6's bin/hbase adds on JDK 11+ (its add_jdk11_jvm_flags).
JDK11_FLAGS: tuple[str, ...] = (
    "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true",
    "--add-modules=jdk.unsupported",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
    "--add-exports=java.base/sun.net.dns=ALL-UNNAMED",
    "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
)

# Small, fast-starting JVMs: a 2-core machine runs two of these plus tests.
# C1 only (TieredStopAtLevel=1) saves a lot of start-up CPU; test workloads
# are far too small for C2 to pay off.
COMMON_JVM_FLAGS: tuple[str, ...] = (
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:-UsePerfData",
    "-XX:OnOutOfMemoryError=kill -9 %p",
    "-Djava.net.preferIPv4Stack=true",
    "-Djava.awt.headless=true",
    "-Dfile.encoding=UTF-8",
    "-Dzookeeper.admin.enableServer=false",
)
# The master's JVM holds every RegionServer too (3 by default). 768 MB ran out
# (OutOfMemoryError) 30 minutes into a CI run that made and dropped ~4,400
# tables with 3 RegionServers: each sizes its block cache and memstores as a
# share of the one heap, as if it were alone, and the master keeps finished
# procedures in memory for a while. So: more heap, smaller shares, and
# finished procedures dropped after a minute (see _site).
MASTER_HEAP: tuple[str, ...] = ("-Xms512m", "-Xmx2g")
THRIFT_HEAP: tuple[str, ...] = ("-Xms64m", "-Xmx256m")
STOPPER_HEAP: tuple[str, ...] = ("-Xmx128m",)

PROBE_FAMILY = "f"
STOP_GRACE_SECONDS = 20.0
SHUTDOWN_REQUEST_TIMEOUT = 30.0
LOG_TAIL_LINES = 60


class RealHBaseError(RuntimeError):
    """Fetching, starting or talking to the real HBase failed."""


def _say(msg: str = "", end: str = "\n") -> None:
    sys.stderr.write(msg + end)
    sys.stderr.flush()


# --------------------------------------------------------------------------
# fetch: Maven -> hbase/target/lib
# --------------------------------------------------------------------------


def _lib_is_fresh() -> bool:
    if not LIB_DIR.is_dir() or not FETCH_STAMP.is_file():
        return False
    if not any(LIB_DIR.glob("hbase-server-*.jar")):
        return False
    return FETCH_STAMP.stat().st_mtime >= POM.stat().st_mtime


def find_java() -> str:
    """Path of the ``java`` to use: $JAVA_HOME/bin/java, else the one on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("java")
    if not found:
        raise RealHBaseError(
            "java not found (neither $JAVA_HOME/bin/java nor java on PATH); "
            "install a JDK 11+ (e.g. apt-get install openjdk-17-jdk-headless)"
        )
    return found


_java_major_cache: dict[str, int] = {}


def java_major_version(java: str) -> int:
    if java not in _java_major_cache:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, check=False).stderr
        match = re.search(r'version "(\d+)(?:\.(\d+))?', out)
        if not match:
            raise RealHBaseError(f"cannot parse `{java} -version` output:\n{out}")
        major = int(match.group(1))
        if major == 1 and match.group(2):  # "1.8.0_x"
            major = int(match.group(2))
        _java_major_cache[java] = major
    return _java_major_cache[java]


_ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_DOWNLOADED_RE = re.compile(r"^\[INFO\] Downloaded from [^:]+: (\S+) \(([^)]*)\)")


class _MavenOutput:
    """Condense ``mvn -B`` output: one line per downloaded jar, none per pom,
    checksum or copied jar; everything else (build steps, warnings, errors)
    is passed through."""

    def __init__(self) -> None:
        self.downloads = 0
        self.copied = 0

    def filter(self, line: str) -> str | None:
        if line.startswith("[INFO] Downloading from "):
            return None
        match = _DOWNLOADED_RE.match(line)
        if match:
            self.downloads += 1
            url, detail = match.groups()
            if url.endswith(".jar"):
                size = detail.split(" at ")[0]
                return f"  mvn: downloaded {url.rsplit('/', 1)[-1]} ({size})"
            return None
        if line.startswith("[INFO] Copying "):
            self.copied += 1
            return None
        return "  mvn: " + line if line.strip() not in ("", "[INFO]") else None

    def summary(self) -> str:
        return f"  mvn: {self.downloads} files downloaded, {self.copied} jars copied to {LIB_DIR}"


@contextmanager
def _fetch_lock() -> Iterator[None]:
    """Serialise fetches between processes (e.g. parallel test workers)."""
    TARGET_DIR.mkdir(parents=True, exist_ok=True)
    with open(FETCH_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def fetch(force: bool = False) -> Path:
    """Make sure ``hbase/target/lib`` holds the HBase runtime class path.

    Runs ``mvn -B -f hbase/pom.xml package`` when the directory is missing,
    incomplete or older than the pom (or when ``force``), showing Maven's
    progress on stderr (condensed: one line per downloaded jar).  Returns
    the lib directory.
    """
    if not force and _lib_is_fresh():
        return LIB_DIR
    with _fetch_lock():
        if not force and _lib_is_fresh():  # another process just did it
            return LIB_DIR
        mvn = shutil.which("mvn")
        if not mvn:
            raise RealHBaseError(
                "mvn (Apache Maven) not found on PATH; it is needed once to "
                "download HBase from Maven Central (apt-get install maven)"
            )
        java = find_java()
        if java_major_version(java) < 11:
            raise RealHBaseError(f"{java} is older than Java 11")
        if LIB_DIR.exists():  # drop jars of an older pom
            shutil.rmtree(LIB_DIR)
        FETCH_STAMP.unlink(missing_ok=True)
        env = dict(os.environ)
        env.setdefault("JAVA_HOME", str(Path(java).resolve().parent.parent))
        cmd = [mvn, "-B", "-Dstyle.color=never", "-f", str(POM), "package"]
        _say(f"realhbase: fetching HBase jars: {' '.join(cmd)}")
        started = time.monotonic()
        proc = subprocess.Popen(
            cmd,
            cwd=str(HBASE_DIR),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        assert proc.stdout is not None
        tail: list[str] = []
        condenser = _MavenOutput()
        try:
            for raw in proc.stdout:
                line = _ANSI_RE.sub("", raw.rstrip("\n"))
                tail.append(line)
                del tail[:-LOG_TAIL_LINES]
                shown = condenser.filter(line)
                if shown is not None:
                    _say(shown)
            rc = proc.wait()
        finally:
            if proc.poll() is None:  # interrupted: do not leave Maven behind
                proc.kill()
                proc.wait()
        _say(condenser.summary())
        if rc != 0:
            raise RealHBaseError(
                f"Maven failed (exit {rc}) fetching HBase; last lines:\n" + "\n".join(tail)
            )
        if not any(LIB_DIR.glob("hbase-server-*.jar")):
            raise RealHBaseError(f"Maven succeeded but {LIB_DIR} has no hbase-server jar")
        FETCH_STAMP.write_text(f"fetched by devtools/realhbase.py from {POM}\n")
        _say(
            f"realhbase: fetched {len(list(LIB_DIR.glob('*.jar')))} jars "
            f"in {time.monotonic() - started:.1f}s"
        )
        return LIB_DIR


def classpath(conf_dir: Path) -> str:
    """``conf_dir`` (for hbase-site.xml) followed by every fetched jar."""
    jars = sorted(str(p) for p in LIB_DIR.glob("*.jar"))
    return os.pathsep.join([str(conf_dir), *jars])


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def free_ports(host: str, count: int) -> list[int]:
    """``count`` distinct ports that are free on ``host`` right now."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def tail_file(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 256 * 1024))
            data = fh.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return f"({path} does not exist)"
    return "\n".join(data.splitlines()[-lines:])


def _site_xml(props: Mapping[str, str]) -> str:
    out = [
        '<?xml version="1.0"?>',
        "<!-- written by devtools/realhbase.py; rewritten on every start -->",
        "<configuration>",
    ]
    for name, value in props.items():
        out.append(
            f"  <property><name>{escape(name)}</name><value>{escape(str(value))}</value></property>"
        )
    out.append("</configuration>")
    return "\n".join(out) + "\n"


_PR_SET_PDEATHSIG = 1


def _make_preexec(parent_pid: int) -> Callable[[], None]:
    """In the child (after setsid): get SIGKILL when the parent dies.

    SIGKILL rather than SIGTERM: a standalone HMaster that gets SIGTERM can
    hang for a long time in its shutdown hook (its embedded ZooKeeper goes
    away before the region server has deregistered), and nobody would be
    left to kill it.  Acknowledged edits are already in the WAL on the local
    file system, so they survive.
    """
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return lambda: None

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent_pid:  # parent already gone
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def _killpg(pgid: int, sig: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


_running: weakref.WeakSet[RealHBase] = weakref.WeakSet()


@atexit.register
def _stop_all_at_exit() -> None:
    for hb in list(_running):
        with suppress(Exception):
            hb.stop()


# --------------------------------------------------------------------------
# RealHBase
# --------------------------------------------------------------------------


class _Jvm:
    def __init__(self, name: str, proc: subprocess.Popen[bytes], log: Path, out: Path) -> None:
        self.name = name
        self.proc = proc
        self.log = log
        self.out = out

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def describe_death(self) -> str:
        return (
            f"{self.name} JVM (pid {self.proc.pid}) exited with code {self.proc.returncode}\n"
            f"--- tail of {self.log} ---\n{tail_file(self.log)}\n"
            f"--- tail of {self.out} ---\n{tail_file(self.out, 20)}"
        )


class RealHBase:
    """A standalone HBase + Thrift1 server on loopback, living in ``workdir``.

    ``workdir`` gets ``conf/hbase-site.xml``, ``data/`` (hbase.rootdir),
    ``zookeeper/``, ``tmp/`` and ``logs/`` (``master.log``, ``thrift.log``
    and the JVMs' stdout/stderr in ``*.out``).  Tables left by a previous
    run in the same workdir are still there after a restart.

    ``site`` adds or overrides hbase-site.xml properties.  The JVMs run in
    their own process groups (a Ctrl-C in the terminal does not reach them;
    ``stop()``, the context manager and an ``atexit`` hook do) and, on Linux,
    are SIGKILLed if the *thread* that started them dies, so start it from
    a long-lived thread (the main one, normally).
    """

    def __init__(
        self,
        workdir: Path | str,
        host: str = "127.0.0.1",
        *,
        thrift_port: int | None = None,
        thrift2: bool = True,
        thrift2_port: int | None = None,
        region_servers: int = 3,
        site: Mapping[str, str] | None = None,
        master_heap: Sequence[str] = MASTER_HEAP,
        thrift_heap: Sequence[str] = THRIFT_HEAP,
        jvm_flags: Sequence[str] = (),
        verbose: bool = True,
    ) -> None:
        self.workdir = Path(workdir).resolve()
        self.host = host
        self._requested_thrift_port = thrift_port
        self._requested_thrift2_port = thrift2_port
        self._with_thrift2 = thrift2
        self.region_servers = region_servers
        self._site_overrides = dict(site or {})
        self._master_heap = tuple(master_heap)
        self._thrift_heap = tuple(thrift_heap)
        # Appended last, so they override COMMON_JVM_FLAGS (benchmarks turn
        # the full JIT back on with -XX:TieredStopAtLevel=4).
        self._jvm_flags = tuple(jvm_flags)
        self.verbose = verbose
        self._jvms: list[_Jvm] = []
        self._out_files: list[IO[bytes]] = []
        self._thrift_port: int | None = None
        self._thrift2_port: int | None = None
        self.ports: dict[str, int] = {}
        self._lock = threading.RLock()

    # -- public API --------------------------------------------------------

    @property
    def thrift_port(self) -> int:
        if self._thrift_port is None:
            raise RealHBaseError("RealHBase is not started")
        return self._thrift_port

    @property
    def thrift2_port(self) -> int:
        """The Thrift2 server's port; 0 when started with ``thrift2=False``."""
        if self._thrift_port is None:
            raise RealHBaseError("RealHBase is not started")
        return self._thrift2_port or 0

    @property
    def running(self) -> bool:
        return bool(self._jvms) and all(j.alive for j in self._jvms)

    @property
    def conf_dir(self) -> Path:
        return self.workdir / "conf"

    @property
    def log_dir(self) -> Path:
        return self.workdir / "logs"

    def dead_jvms(self) -> list[str]:
        """Descriptions (with log tails) of JVMs that exited on their own."""
        return [j.describe_death() for j in self._jvms if not j.alive]

    def start(self, timeout: float = 180.0) -> RealHBase:
        """Start HBase and block until a table can be created through Thrift.

        Raises RealHBaseError (with the tail of the relevant log) if a JVM
        dies or ``timeout`` seconds pass; nothing is left running then.
        """
        with self._lock:
            if self._jvms:
                raise RealHBaseError("RealHBase already started")
            started = time.monotonic()
            fetch()
            java = find_java()
            for attempt in (1, 2):
                try:
                    self._launch(java, deadline=started + timeout)
                except RealHBaseError as exc:
                    self._stop_locked(graceful=False)
                    # The free ports we picked can be taken before the JVMs
                    # bind them (parallel test runs): try once more.
                    if attempt == 1 and any(m in str(exc) for m in _PORT_CLASH_MARKERS):
                        self._log("realhbase: a port was taken meanwhile; retrying")
                        continue
                    raise
                except BaseException as exc:
                    if isinstance(exc, KeyboardInterrupt):
                        self._log(" interrupted")
                    self._stop_locked(graceful=False)
                    raise
                break
            self._log(
                f"realhbase: HBase ready on thrift={self.host}:{self.thrift_port} "
                f"thrift2={self.host}:{self.thrift2_port} "
                f"in {time.monotonic() - started:.1f}s (logs in {self.log_dir})"
            )
            return self

    def _launch(self, java: str, deadline: float) -> None:
        self._prepare_workdir()
        self._pick_ports()
        self.conf_dir.joinpath("hbase-site.xml").write_text(_site_xml(self._site()))
        cp = classpath(self.conf_dir)
        _running.add(self)
        master = [MASTER_CLASS, "start", f"--localRegionServers={self.region_servers}"]
        self._spawn(java, "master", cp, self._master_heap, master)
        self._spawn(java, "thrift", cp, self._thrift_heap, self._thrift_main())
        if self._thrift2_port:
            main = self._thrift_main(THRIFT2_CLASS, self._thrift2_port)
            self._spawn(java, "thrift2", cp, self._thrift_heap, main)
        self._wait_ready(deadline)
        if self._thrift2_port:
            self._wait_thrift2(deadline)

    def _thrift_main(self, main_class: str = THRIFT_CLASS, port: int | None = None) -> list[str]:
        return [
            main_class,
            "-threadpool",
            "-b",
            self.host,
            "-p",
            str(port or self.thrift_port),
            "--infoport",
            "-1",
            "start",
        ]

    def stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        """Stop the Thrift server, then HBase; idempotent.

        Thrift gets SIGTERM.  HBase is asked for an orderly cluster shutdown
        (``HMaster stop --shutDownCluster``, as stop-hbase.sh does; a plain
        SIGTERM makes a standalone HMaster stop its embedded ZooKeeper before
        its region server has deregistered, and then hang on it).  Whatever
        is still alive after ``grace`` seconds gets SIGTERM, then SIGKILL.
        """
        with self._lock:
            self._stop_locked(graceful=True, grace=grace)

    def describe(self) -> dict[str, Any]:
        """What another process needs to use this HBase, as JSON-able data:
        its host and ports (:meth:`attached` makes an object of it)."""
        return {
            "host": self.host,
            "ports": dict(self.ports),
            "thrift": self.thrift_port,
            "thrift2": self.thrift2_port,
        }

    @classmethod
    def attached(cls, workdir: Path | str, described: Mapping[str, Any]) -> RealHBase:
        """An HBase another process started in ``workdir`` and will stop, as
        its :meth:`describe` gave it: its ports, for clients and tools
        (:mod:`devtools.regions`). It owns no JVM: :meth:`stop` leaves the
        HBase alone."""
        hbase = cls(workdir, host=str(described["host"]), verbose=False)
        hbase.ports = {name: int(port) for name, port in described["ports"].items()}
        hbase._thrift_port = int(described["thrift"])
        hbase._thrift2_port = int(described["thrift2"]) or None
        return hbase

    def kill(self) -> None:
        """SIGKILL every JVM at once, as a crash would: for an HBase whose
        data is thrown away after (a test run's), where :meth:`stop`'s
        orderly shutdown takes seconds. Acknowledged edits are in the WAL."""
        with self._lock:
            self._stop_locked(graceful=False, grace=0.0)

    def kill_thrift(self) -> None:
        """SIGKILL the Thrift server's JVM, as a crash would; HBase runs on."""
        with self._lock:
            for jvm in [j for j in self._jvms if j.name == "thrift"]:
                _killpg(jvm.proc.pid, signal.SIGKILL)
                jvm.proc.wait(timeout=10)
                self._jvms.remove(jvm)
            self._log("realhbase: killed the thrift JVM")

    def start_thrift(self, timeout: float = 120.0) -> None:
        """Start the Thrift server again, on the same port, after
        :meth:`kill_thrift`; block until it answers."""
        with self._lock:
            if any(j.name == "thrift" for j in self._jvms):
                raise RealHBaseError("the Thrift server is running")
            out = self.log_dir / "thrift.out"
            if out.exists():  # keep what the killed JVM printed
                out.replace(out.with_name("thrift.out.prev"))
            cp = classpath(self.conf_dir)
            self._spawn(find_java(), "thrift", cp, self._thrift_heap, self._thrift_main())
            self._wait_ready(time.monotonic() + timeout)

    def __enter__(self) -> RealHBase:
        if not self._jvms:
            self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = f"thrift={self.host}:{self._thrift_port}" if self._jvms else "stopped"
        return f"<RealHBase {self.workdir} {state}>"

    # -- start-up ----------------------------------------------------------

    def _log(self, msg: str, end: str = "\n") -> None:
        if self.verbose:
            _say(msg, end=end)

    def _prepare_workdir(self) -> None:
        for sub in ("conf", "data", "tmp", "logs"):
            (self.workdir / sub).mkdir(parents=True, exist_ok=True)
        # Standalone HBase starts a new embedded ZooKeeper every time; stale
        # ZK state (dead servers, old znodes) would only slow start-up down.
        shutil.rmtree(self.workdir / "zookeeper", ignore_errors=True)
        for name in ("master", *THRIFT_JVMS, "stopper"):
            for suffix in (".log", ".out"):
                path = self.log_dir / f"{name}{suffix}"
                if path.exists():
                    path.replace(path.with_name(path.name + ".prev"))

    def _pick_ports(self) -> None:
        zk, master, regionserver, thrift, thrift2 = free_ports(self.host, 5)
        if self._requested_thrift_port:
            thrift = self._requested_thrift_port
            if not port_is_free(self.host, thrift):
                raise RealHBaseError(f"thrift port {self.host}:{thrift} is already in use")
        if self._requested_thrift2_port:
            thrift2 = self._requested_thrift2_port
            if not port_is_free(self.host, thrift2):
                raise RealHBaseError(f"thrift2 port {self.host}:{thrift2} is already in use")
        self.ports = {
            "zookeeper": zk,
            "master": master,
            "regionserver": regionserver,
            "thrift": thrift,
        }
        self._thrift_port = thrift
        if self._with_thrift2:
            self.ports["thrift2"] = thrift2
            self._thrift2_port = thrift2

    def _site(self) -> dict[str, str]:
        w = self.workdir
        props: dict[str, str] = {
            # standalone, on the local file system
            "hbase.cluster.distributed": "false",
            "hbase.rootdir": (w / "data").as_uri(),
            "hbase.tmp.dir": str(w / "tmp"),
            "hbase.local.dir": str(w / "tmp" / "local"),
            "hbase.unsafe.stream.capability.enforce": "false",
            "hbase.defaults.for.version.skip": "true",
            # embedded ZooKeeper
            "hbase.zookeeper.quorum": self.host,
            "hbase.zookeeper.property.clientPort": str(self.ports["zookeeper"]),
            "hbase.zookeeper.property.dataDir": str(w / "zookeeper"),
            "hbase.zookeeper.property.maxClientCnxns": "0",
            # Standalone HBase gives its servers' ZooKeeper sessions 10 s
            # (HMasterCommandLine), so a 6.7 s stall of a loaded machine (two
            # test runs at once: the JVM paused 6 s) expired them, the master
            # took the RegionServer for dead, and it aborted, failing every
            # test after. 40 s is what the embedded ZooKeeper allows at most
            # (20 ticks of 2 s); nothing here ever kills a RegionServer.
            "zookeeper.session.timeout.localHBaseCluster": "40000",
            # RPC endpoints, loopback only
            "hbase.master.port": str(self.ports["master"]),
            "hbase.master.ipc.address": self.host,
            "hbase.master.hostname": "localhost",
            # Several RegionServers share the master's JVM: each binds a free port.
            "hbase.regionserver.port": "0"
            if self.region_servers > 1
            else str(self.ports["regionserver"]),
            "hbase.regionserver.ipc.address": self.host,
            "hbase.unsafe.regionserver.hostname": "localhost",
            # Thrift server (also given on its command line)
            "hbase.regionserver.thrift.ipaddress": self.host,
            "hbase.regionserver.thrift.port": str(self.ports["thrift"]),
            "hbase.regionserver.thrift.server.type": "threadpool",
            "hbase.regionserver.thrift.framed": "false",
            "hbase.regionserver.thrift.compact": "false",
            # no web UIs
            "hbase.master.info.port": "-1",
            "hbase.regionserver.info.port": "-1",
            "hbase.thrift.info.port": "-1",
            # fast start-up: wait for exactly the region servers started here
            "hbase.master.wait.on.regionservers.mintostart": str(self.region_servers),
            "hbase.master.wait.on.regionservers.maxtostart": str(self.region_servers),
            "hbase.master.wait.on.regionservers.timeout": "500",
            "hbase.master.wait.on.regionservers.interval": "100",
            "hbase.regionserver.msginterval": "300",
            "hbase.procedure.remote.dispatcher.delay.msec": "10",
            # The Thrift servers' admin calls wait for the master's procedures
            # by polling, first after hbase.client.pause and then after 2, 3,
            # 5, 10... times it, so at HBase's 100 ms a drop is mostly sleeps
            # (docs/benchmarks.md, "Table DDL on real HBase").
            "hbase.client.pause": "10",
            # small footprint
            "hbase.regionserver.handler.count": "10",
            "hbase.regionserver.metahandler.count": "5",
            "hbase.master.handler.count": "10",
            "hbase.regionserver.executor.openregion.threads": "2",
            "hbase.regionserver.executor.closeregion.threads": "2",
            "hbase.hstore.flusher.count": "1",
            "hbase.balancer.period": "3600000",
            "hbase.normalizer.period": "3600000",
            "hbase.master.cleaner.interval": "600000",
            # Several RegionServers share one heap: each takes a small share
            # for its block cache and its memstores (HBase's defaults, 0.4
            # each, assume one per JVM).
            "hfile.block.cache.size": "0.1",
            "hbase.regionserver.global.memstore.size": "0.1",
            # Tests create and drop thousands of tables: forget finished
            # procedures after a minute, not HBase's 15.
            "hbase.procedure.cleaner.evict.ttl": "60000",
        }
        props.update(self._site_overrides)
        return props

    def _jvm_command(
        self, java: str, name: str, cp: str, heap: Sequence[str], main: Sequence[str]
    ) -> list[str]:
        flags = [f"-Dproc_{name}", *heap, *COMMON_JVM_FLAGS, *self._jvm_flags]
        if java_major_version(java) >= 11:
            flags += JDK11_FLAGS
        flags += [
            f"-Dlog4j2.configurationFile={LOG4J2_CONFIG.as_uri()}",
            f"-Dhbase.log.dir={self.log_dir}",
            f"-Dhbase.log.file={name}.log",
            f"-Dhbase.home.dir={HBASE_DIR}",
            f"-Dhbase.id.str=realhbase-{name}",
            f"-Djava.io.tmpdir={self.workdir / 'tmp'}",
        ]
        return [java, *flags, "-cp", cp, *main]

    def _popen(self, cmd: list[str], name: str) -> subprocess.Popen[bytes]:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        out = self.log_dir / f"{name}.out"
        out_fh = open(out, "wb")  # noqa: SIM115 - closed in _stop_locked
        self._out_files.append(out_fh)
        # The exact command, runnable by hand: logs/<name>.cmd
        shown = " ".join(shlex.quote(a) for a in cmd)
        self.log_dir.joinpath(f"{name}.cmd").write_text(
            f"cd {shlex.quote(str(self.workdir))}\n{shown}\n"
        )
        env = {k: v for k, v in os.environ.items() if k not in _JVM_ENV_DROP}
        return subprocess.Popen(
            cmd,
            cwd=str(self.workdir),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out_fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group, see _terminate
            preexec_fn=_make_preexec(os.getpid()),
        )

    def _spawn(
        self, java: str, name: str, cp: str, heap: Sequence[str], main: Sequence[str]
    ) -> None:
        proc = self._popen(self._jvm_command(java, name, cp, heap, main), name)
        self._jvms.append(
            _Jvm(name, proc, self.log_dir / f"{name}.log", self.log_dir / f"{name}.out")
        )
        self._log(f"realhbase: started {name} JVM, pid {proc.pid}")

    def _wait_ready(self, deadline: float) -> None:
        import happybase  # imported late: fetch needs only the stdlib

        self._log("realhbase: waiting for HBase ", end="")
        stage = "connect"
        last_error: BaseException | None = None
        probe = f"realhbase_probe_{uuid.uuid4().hex[:12]}"
        created = False
        while True:
            dead = self.dead_jvms()
            if dead:
                self._log(" a JVM died")
                raise RealHBaseError("\n".join(dead))
            if time.monotonic() > deadline:
                self._log(" timed out")
                raise RealHBaseError(
                    f"HBase not ready before the timeout (stage {stage!r}, last error: "
                    f"{last_error!r})\n"
                    f"--- tail of {self.log_dir / 'master.log'} ---\n"
                    f"{tail_file(self.log_dir / 'master.log')}\n"
                    f"--- tail of {self.log_dir / 'thrift.log'} ---\n"
                    f"{tail_file(self.log_dir / 'thrift.log', 20)}"
                )
            # The Thrift server holds calls while HBase initialises: bound
            # each call by what is left of the timeout.
            left_ms = int((deadline - time.monotonic()) * 1000)
            conn = happybase.Connection(
                self.host,
                self.thrift_port,
                timeout=max(1000, min(20000, left_ms)),
                autoconnect=False,
            )
            try:
                stage = "connect"
                conn.open()
                stage = "tables"
                conn.tables()
                if not created:
                    stage = "create_table"
                    conn.create_table(probe, {PROBE_FAMILY: {}})
                    created = True
                stage = "delete_table"
                conn.delete_table(probe, disable=True)
                self._log(" ok")
                return
            except Exception as exc:
                last_error = exc
                if "TableExistsException" in repr(exc):
                    created = True  # an earlier attempt got through after all
                self._log(".", end="")
                time.sleep(0.3)
            finally:
                with suppress(Exception):
                    conn.close()

    def _wait_thrift2(self, deadline: float) -> None:
        """Block until the Thrift2 server answers ``tableExists`` (HBase is
        up by now: the Thrift1 probe created a table)."""
        import thriftpy2  # imported late: fetch needs only the stdlib
        from thriftpy2.rpc import make_client

        idl = thriftpy2.load(str(THRIFT2_IDL), module_name="realhbase_hbase2_thrift")
        self._log("realhbase: waiting for Thrift2 ", end="")
        last_error: BaseException | None = None
        while time.monotonic() < deadline:
            dead = self.dead_jvms()
            if dead:
                self._log(" a JVM died")
                raise RealHBaseError("\n".join(dead))
            try:
                client = make_client(
                    idl.THBaseService, self.host, self.thrift2_port, timeout=20_000
                )
                try:
                    client.tableExists(idl.TTableName(qualifier=b"realhbase_probe"))
                finally:
                    client.close()
                self._log(" ok")
                return
            except Exception as exc:
                last_error = exc
                self._log(".", end="")
                time.sleep(0.3)
        self._log(" timed out")
        raise RealHBaseError(
            f"the Thrift2 server did not answer before the timeout ({last_error!r})\n"
            f"--- tail of {self.log_dir / 'thrift2.log'} ---\n"
            f"{tail_file(self.log_dir / 'thrift2.log', 20)}"
        )

    # -- shutdown ----------------------------------------------------------

    def _stop_locked(self, graceful: bool, grace: float = STOP_GRACE_SECONDS) -> None:
        if not self._jvms:
            return
        started = time.monotonic()
        stopper: subprocess.Popen[bytes] | None = None
        try:
            thrift = [j for j in self._jvms if j.name in THRIFT_JVMS]
            others = [j for j in self._jvms if j.name not in THRIFT_JVMS]
            if graceful and any(j.alive and j.name == "master" for j in others):
                try:
                    stopper = self._start_cluster_shutdown()  # a JVM: let it boot meanwhile
                except OSError as exc:  # fall back to SIGTERM/SIGKILL below
                    self._log(f"realhbase: cannot request cluster shutdown: {exc}")
            for jvm in thrift:  # a client of the master: stop it first
                self._terminate(jvm, grace)
            if stopper is not None:
                self._finish_cluster_shutdown(stopper)
                deadline = time.monotonic() + grace
                for jvm in others:
                    try:
                        jvm.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
                    except subprocess.TimeoutExpired:
                        self._log(f"realhbase: {jvm.name} JVM still up {grace:.0f}s after shutdown")
            for jvm in others:
                self._terminate(jvm, grace if graceful else min(grace, 5.0))
        finally:
            # Whatever happened above (even KeyboardInterrupt): nothing survives.
            procs = [j.proc for j in self._jvms] + ([stopper] if stopper is not None else [])
            for proc in procs:
                _killpg(proc.pid, signal.SIGKILL)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self._log(f"realhbase: pid {proc.pid} survived SIGKILL")
            for fh in self._out_files:
                fh.close()
            self._out_files.clear()
            self._jvms.clear()
            self._thrift_port = None
            self._thrift2_port = None
            _running.discard(self)
        self._log(f"realhbase: stopped in {time.monotonic() - started:.1f}s")

    def _start_cluster_shutdown(self) -> subprocess.Popen[bytes]:
        """Start ``HMaster stop --shutDownCluster`` (an Admin.shutdown() call)."""
        java = find_java()
        cp = classpath(self.conf_dir)
        main = [MASTER_CLASS, "stop", "--shutDownCluster"]
        return self._popen(self._jvm_command(java, "stopper", cp, STOPPER_HEAP, main), "stopper")

    def _finish_cluster_shutdown(self, stopper: subprocess.Popen[bytes]) -> None:
        try:
            rc = stopper.wait(timeout=SHUTDOWN_REQUEST_TIMEOUT)
            if rc != 0:
                self._log(f"realhbase: cluster shutdown request failed (exit {rc}), see stopper.*")
        except subprocess.TimeoutExpired:
            self._log("realhbase: cluster shutdown request timed out")

    def _terminate(self, jvm: _Jvm, grace: float) -> None:
        """SIGTERM the JVM's process group, wait ``grace`` s, then SIGKILL it."""
        pgid = jvm.proc.pid  # start_new_session: the JVM leads its own group
        if jvm.alive:
            _killpg(pgid, signal.SIGTERM)
            try:
                jvm.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self._log(f"realhbase: {jvm.name} JVM ignored SIGTERM for {grace:.0f}s; killing")
        _killpg(pgid, signal.SIGKILL)  # also sweeps any helper processes
        with suppress(subprocess.TimeoutExpired):
            jvm.proc.wait(timeout=10)


_PORT_CLASH_MARKERS = ("Address already in use", "Could not start ZK at requested port")
_JVM_ENV_DROP = frozenset({"CLASSPATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"})


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------


def for_benchmarks(workdir: Path) -> RealHBase:
    """A real HBase (fetched first) set up for benchmarks: the full JIT and
    room to work, where the test defaults favour start-up time instead."""
    fetch()
    return RealHBase(
        workdir,
        region_servers=1,  # the figures in docs/benchmarks.md are one server's
        master_heap=("-Xms1g", "-Xmx3g"),
        thrift_heap=("-Xms256m", "-Xmx1g"),
        jvm_flags=("-XX:TieredStopAtLevel=4",),
    )


def _cmd_fetch(args: argparse.Namespace) -> int:
    print(fetch(force=args.force))
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    hb = RealHBase(
        Path(args.workdir),
        host=args.host,
        thrift_port=args.thrift_port,
        thrift2_port=args.thrift2_port,
        region_servers=args.region_servers,
    )
    stop_requested = threading.Event()

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop_requested.set()

    # SIGTERM/SIGHUP act like Ctrl-C, also during start-up.  SIGINT is set
    # explicitly too: a shell starts background jobs with SIGINT ignored.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)
    try:
        hb.start(timeout=args.timeout)
        print(f"thrift={hb.host}:{hb.thrift_port} thrift2={hb.host}:{hb.thrift2_port}", flush=True)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, request_stop)
        while not stop_requested.wait(1.0):
            dead = hb.dead_jvms()
            if dead:
                _say("realhbase: a JVM died:\n" + "\n".join(dead))
                return 1
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)  # let stop() finish
        hb.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.realhbase",
        description="Fetch and run a real standalone Apache HBase with its Thrift servers.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_fetch = sub.add_parser("fetch", help="download the HBase jars into hbase/target/lib")
    p_fetch.add_argument("--force", action="store_true", help="re-run Maven even if up to date")
    p_fetch.set_defaults(func=_cmd_fetch)
    p_run = sub.add_parser("run", help="start HBase + Thrift; block until Ctrl-C/SIGTERM")
    p_run.add_argument("--workdir", required=True, help="data, conf and logs go here")
    p_run.add_argument(
        "--thrift-port", type=int, default=None, help="Thrift port (default: a free one)"
    )
    p_run.add_argument(
        "--thrift2-port", type=int, default=None, help="Thrift2 port (default: a free one)"
    )
    p_run.add_argument(
        "--region-servers", type=int, default=3, help="RegionServers in the one JVM (default 3)"
    )
    p_run.add_argument("--host", default="127.0.0.1", help="address to bind (loopback here)")
    p_run.add_argument("--timeout", type=float, default=300.0, help="start-up timeout in seconds")
    p_run.set_defaults(func=_cmd_run)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except RealHBaseError as exc:
        _say(f"realhbase: error: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
