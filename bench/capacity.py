"""Capacity of the whole stack on this machine (issue 39): signed-in home
pages a second at a p99, while 10,000-follower accounts post and their
fan-out runs, and whether latency, memory and disk per stored row stay flat.

The stack is started as deployed (docker-compose.yml's services, without
the containers): the HBase server (the local one, or Apache HBase), Redis,
gunicorn with two workers, and a Celery worker with beat (so the sweep,
trims and table statistics run as they do in production), with the
production settings that matter here: DEBUG off and the real rate limits
and password hashing. The load is locust (loadtest/capacity.py, whose
docstring gives the scenario and its ratios).

Seeding is not measured: ``stars`` accounts with ``star_followers`` fans
each (the bulk loader; the watcher, one of the first star's fans, follows
the others, so each has exactly ``star_followers``), a signed session
cookie for each reader (minted here, as a sign-in would, so the run
measures reading rather than password hashing), and 20 twits per star,
fanned out before the load starts.

Every ``window_s`` the run samples each part's memory (RSS of the process
and its children) and CPU (the same processes'), the server's disk, and
the rows stored (counted once before the load, then that count plus the
stream rows the fan-out has written and the twits posted since; the run
ends with an exact count to check the estimate). The table compares
5-minute blocks, the first against the last; the chart draws every
window. The CPU is reported as ms a page, beside the budget the goal's
rate leaves a page on the run's cores (1,000 ms a second each, over its
pages; ``machine.json`` keeps how many the machine had).

Written here because no library starts this stack; locust does the load.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import psutil
from django.conf import settings
from django.core import signing

from devtools.processes import CeleryWorkerProcess, GunicornProcess, RedisProcess
from feeds import auth, services
from feeds.services import accounts, bulk, metrics
from storage.connection import connection, table_name
from storage.schema import SCHEMA

from . import cpushare
from .charts import panels_chart
from .fanout import _configured, _progress, _wait

ROOT = Path(__file__).resolve().parent.parent
LOCUSTFILE = ROOT / "loadtest" / "capacity.py"
# The parts whose CPU is sampled (% of one core), and the machine's busy share.
CPU_PARTS = ("web", "worker", "server", "redis", "locust", "machine")
BLOCK_S = 300  # the table's blocks: the goal compares the first 5 minutes with the last 5
# The cores of a run saved before machine.json: all were on this project's 2-core machines.
SAVED_CORES = 2


@dataclass(frozen=True)
class Goal:
    pages_s: float = 200.0
    p99_ms: float = 150.0
    drift: float = 1.2  # last block within this factor of the first


def _session_cookie(sid: str, userid: str, secret: str) -> str:
    """The signed cookie Django's signed_cookies backend sets for a session
    of ``userid`` holding ``sid``, as feeds.auth.login fills it."""
    return signing.dumps(
        {auth.SESSION_KEY: sid, auth.USERID_KEY: userid},
        key=secret,
        salt="django.contrib.sessions.backends.signed_cookies",
        serializer=signing.JSONSerializer,
        compress=True,
    )


def _count_rows() -> int:
    """Every row of every table, by a keys-only scan."""
    total = 0
    with connection() as conn:
        for table in SCHEMA:
            t = conn.table(table_name(table))
            for _ in t.scan(filter="FirstKeyOnlyFilter() AND KeyOnlyFilter()", batch_size=5000):
                total += 1
    return total


def _rss_mb(pids: list[int]) -> float:
    total = 0
    for proc in _tree(pids):
        try:
            total += proc.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return total / 2**20


class _CpuShares:
    """Each part's CPU between two samples, in % of one core (100 times the
    machine's cores is all of it), and the whole machine's busy share: a part
    is the processes of ``parts``' pids and their children
    (bench.cpushare.PartsMeter counts them)."""

    def __init__(self, parts: dict[str, list[int]]) -> None:
        self._roots = parts
        self._part: dict[int, str] = {}  # pid -> part, as of the last sample
        self._meter = cpushare.PartsMeter(lambda pid, _: self._part.get(pid))
        self._at = time.monotonic()
        self._last: dict[str, float] = {}
        self._busy = 0.0
        self.sample()

    def sample(self) -> dict[str, float]:
        self._part = {proc.pid: part for part, pids in self._roots.items() for proc in _tree(pids)}
        now, used = time.monotonic(), self._meter.read()
        busy, _ = self._meter.machine()
        elapsed = max(now - self._at, 1e-9)
        shares = {
            f"{part}_cpu": round(
                100 * (used.get(part, 0.0) - self._last.get(part, 0.0)) / elapsed, 1
            )
            for part in self._roots
        }
        shares["machine_cpu"] = round(100 * (busy - self._busy) / elapsed, 1)
        self._at, self._last, self._busy = now, dict(used), busy
        return shares


def _tree(pids: list[int]) -> list[psutil.Process]:
    """The processes of ``pids`` and their children, those still running."""
    procs = []
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            procs += [proc, *proc.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
    return procs


def _server_pids(port: int, data: Path) -> list[int]:
    """The server's processes: whatever listens on its port, and (Apache
    HBase's master and Thrift servers) whatever names its directory."""
    pids = {
        c.pid for c in psutil.net_connections("tcp") if c.laddr and c.laddr.port == port and c.pid
    }
    for proc in psutil.process_iter(["pid", "cmdline"]):
        if str(data) in " ".join(proc.info["cmdline"] or ()):
            pids.add(proc.info["pid"])
    return sorted(pids)


def _disk_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def run(
    target: str,
    host: str,
    port: int,
    thrift2_port: int,
    data: Path,
    workdir: Path,
    *,
    minutes: float,
    readers: int,
    rate: float,
    stars: int,
    star_followers: int,
    posts_s: float,
    window_s: float,
    web_workers: int = 2,
    page: str = "/",
) -> Path:
    """One run against the server at host:port (``data``: its directory);
    returns the directory of its CSV files and chart. ``web_workers``:
    gunicorn's processes (docker-compose.yml runs two). ``page``: what the
    readers load, their home page unless told (loadtest/capacity.py)."""
    out = workdir / f"capacity-{target}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "machine.json").write_text(json.dumps({"cores": psutil.cpu_count()}))
    secret = secrets.token_urlsafe(40)
    with (
        RedisProcess(workdir / f"redis-{target}") as redis,
        _configured(host, port, thrift2_port, redis.url) as prefix,
    ):
        env = {
            "TWITBASE_HBASE_HOST": host,
            "TWITBASE_HBASE_PORT": str(port),
            "TWITBASE_HBASE_THRIFT2_PORT": str(thrift2_port),
            "TWITBASE_TABLE_PREFIX": prefix,
            "CELERY_BROKER_URL": redis.url,
            "TWITBASE_LOG_LEVEL": "WARNING",
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secret,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Plain HTTP on loopback, as behind the compose file's TLS proxy.
            "DJANGO_SECURE_COOKIES": "0",
            "DJANGO_SECURE_SSL_REDIRECT": "0",
        }
        _progress(f"{target}: {stars} stars with {star_followers:,} followers each (bulk)")
        fans: list[list[str]] = []
        for i in range(stars):
            # The watcher, star0's last fan, follows the others too: each ends
            # with star_followers, as large as an account still fanned out
            # may be (TWITBASE_CELEBRITY_THRESHOLD: more are merged at read).
            n = star_followers - (1 if i else 0)
            fans.append(bulk.add_star(f"star{i}", n, prefix=f"s{i}f"))
        watcher = fans[0][-1]
        reader_ids = [fans[i % stars][i // stars] for i in range(readers)]
        worker = CeleryWorkerProcess(
            env, workdir / f"worker-{target}.log", concurrency=2, name="capacity", beat=True
        ).start()
        web = GunicornProcess(env, workdir / f"web-{target}.log", workers=web_workers).start()
        try:
            for i in range(1, stars):
                services.follow(watcher, f"star{i}")
            for i in range(stars):
                for n in range(20):
                    services.post_twit(f"star{i}", f"earlier news {n} from star{i}")
            _wait(
                lambda: services.home_stream(watcher, None, 60).items.__len__() >= 20 * stars,
                600,
                "the seeded twits in the watcher's stream",
            )
            # The seeded twits count against the stars' posting limit (per
            # minute, counted in HBase): the load starts in a later window.
            seeded = time.monotonic()
            _progress(f"  minting {readers} readers' sessions")
            seed = {
                "password": bulk.DEMO_PASSWORD,
                "stars": [f"star{i}" for i in range(stars)],
                "watcher": watcher,
                "others": [f"star{i}" for i in range(stars)] + [f[-2] for f in fans],
                "readers": [
                    {
                        "cookie_name": settings.SESSION_COOKIE_NAME,
                        "cookie": _session_cookie(
                            services.start_session(accounts.get_user(u)), u, secret
                        ),
                    }
                    for u in reader_ids
                ],
            }
            (out / "seed.json").write_text(json.dumps(seed))
            _progress("  counting the rows stored before the load")
            rows_before = _count_rows()
            stream_before = metrics.fanout_stats().stream_rows
            while (left := 61 - (time.monotonic() - seeded)) > 0:
                _progress(f"  waiting {left:.0f} s for the stars' posting limit to reset")
                time.sleep(min(left, 10))
            _progress(f"  {rows_before:,} rows; starting locust for {minutes:g} min")
            samples = _load(
                web,
                worker,
                redis,
                _server_pids(port, data),
                data,
                out,
                minutes=minutes,
                readers=readers,
                rate=rate,
                posts_s=posts_s,
                window_s=window_s,
                page=page,
                rows_before=rows_before,
                stream_before=stream_before,
            )
            _progress("  counting the rows stored after the load")
            rows_after = _count_rows()
        finally:
            web.stop()
            worker.stop()
        estimated = samples[-1]["rows"] if samples else 0
        (out / "rows.json").write_text(
            json.dumps({"before": rows_before, "after": rows_after, "estimated": estimated})
        )
    return out


def _load(
    web: GunicornProcess,
    worker: CeleryWorkerProcess,
    redis: RedisProcess,
    server_pids: list[int],
    data: Path,
    out: Path,
    *,
    minutes: float,
    readers: int,
    rate: float,
    posts_s: float,
    window_s: float,
    page: str,
    rows_before: int,
    stream_before: int,
) -> list[dict[str, float]]:
    """locust for ``minutes``, sampling memory, disk and rows every window."""
    env = {
        **os.environ,
        "TWITBASE_CAPACITY_SEED": str(out / "seed.json"),
        "TWITBASE_CAPACITY_OUT": str(out / "windows.csv"),
        "TWITBASE_CAPACITY_RATE": str(rate),
        "TWITBASE_CAPACITY_POSTS_S": str(posts_s),
        "TWITBASE_CAPACITY_WINDOW_S": str(window_s),
        "TWITBASE_CAPACITY_PAGE": page,
    }
    cmd = [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(LOCUSTFILE),
        "--headless",
        "--host",
        web.url,
        "-u",
        str(readers + 1),
        "-r",
        str(max(1, readers // 10)),
        "-t",
        f"{int(minutes * 60)}s",
        "--only-summary",
        "--csv",
        str(out / "locust"),
        "--loglevel",
        "WARNING",
    ]
    samples: list[dict[str, float]] = []
    started = time.monotonic()
    with (out / "locust.log").open("w") as log:
        locust = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        cpu = _CpuShares(
            {
                "web": [web.pid] if web.pid else [],
                "worker": [worker.pid] if worker.pid else [],
                "server": server_pids,
                "redis": [redis.pid] if redis.pid else [],
                "locust": [locust.pid],
            }
        )
        try:
            while locust.poll() is None:
                time.sleep(window_s)
                t = time.monotonic() - started
                stream_rows = metrics.fanout_stats().stream_rows - stream_before
                sample = {
                    "t_s": round(t, 1),
                    "web_mb": _rss_mb([web.pid] if web.pid else []),
                    "worker_mb": _rss_mb([worker.pid] if worker.pid else []),
                    "server_mb": _rss_mb(server_pids),
                    "redis_mb": _rss_mb([redis.pid] if redis.pid else []),
                    "disk_bytes": _disk_bytes(data),
                    "rows": rows_before + stream_rows,
                    "queue": metrics.queue_depth() or 0,
                    **cpu.sample(),
                }
                samples.append(sample)
                _progress(
                    f"    {t / 60:5.1f} min  web {sample['web_mb']:.0f} MB  worker "
                    f"{sample['worker_mb']:.0f} MB  server {sample['server_mb']:.0f} MB  "
                    f"disk {sample['disk_bytes'] / sample['rows']:.1f} B/row  "
                    f"queue {sample['queue']:.0f}  CPU (% of a core) web {sample['web_cpu']:.0f} "
                    f"server {sample['server_cpu']:.0f} locust {sample['locust_cpu']:.0f} "
                    f"machine {sample['machine_cpu']:.0f}"
                )
        finally:
            if locust.poll() is None:
                locust.terminate()
            locust.wait()
    with (out / "samples.csv").open("w", newline="") as f:
        if samples:
            writer = csv.DictWriter(f, fieldnames=list(samples[0]))
            writer.writeheader()
            writer.writerows(samples)
    return samples


def _windows(out: Path) -> dict[str, list[dict[str, float]]]:
    by_name: dict[str, list[dict[str, float]]] = defaultdict(list)
    with (out / "windows.csv").open() as f:
        for row in csv.DictReader(f):
            by_name[row["name"]].append({k: float(v) for k, v in row.items() if k != "name"})
    return by_name


def _block(values: list[tuple[float, float]], start: float, end: float) -> list[float]:
    return [v for t, v in values if start < t <= end]


def report(out: Path, target: str, window_s: float, goal: Goal = Goal(), page: str = "/") -> str:
    """The table of 5-minute blocks (and the chart beside the CSV files).
    Its "home" columns are the page the readers loaded (``page``)."""
    windows = _windows(out)
    samples = list(csv.DictReader((out / "samples.csv").open()))
    home = windows.get("home page", [])
    lag = windows.get("post-to-visible", [])
    errors = sum(w["errors"] for ws in windows.values() for w in ws)
    requests = sum(w["count"] for ws in windows.values() for w in ws)
    end = max([w["t_s"] for w in home] + [0.0])
    blocks = [(s, min(s + BLOCK_S, end)) for s in range(0, int(end), BLOCK_S)]

    def per(series: list[dict[str, float]], key: str, a: float, b: float) -> float:
        got = _block([(w["t_s"], w[key]) for w in series], a, b)
        return statistics.median(got) if got else float("nan")

    def rate(a: float, b: float) -> float:
        got = _block([(w["t_s"], w["count"]) for w in home], a, b)
        return sum(got) / (len(got) * window_s) if got else float("nan")

    def sampled(key: str, a: float, b: float, per_row: bool = False) -> float:
        got = [
            float(s[key]) / (float(s["rows"]) if per_row else 1)
            for s in samples
            if a < float(s["t_s"]) <= b
        ]
        return statistics.median(got) if got else float("nan")

    lines = [
        f"capacity, {target}: {requests:,.0f} requests, {errors:,.0f} errors; "
        f"medians of {window_s:g} s windows in each block"
        + ("" if page == "/" else f"; the readers loaded {page}, not their home page"),
        "| minutes | home pages/s | home p50 ms | home p99 ms | post-to-visible p50/p99 ms "
        "| web MB | worker MB | server MB | disk B/row |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for a, b in blocks:
        lines.append(
            f"| {a / 60:.0f}-{b / 60:.0f} | {rate(a, b):.1f} | {per(home, 'p50_ms', a, b):.1f} "
            f"| {per(home, 'p99_ms', a, b):.1f} | {per(lag, 'p50_ms', a, b):.0f}/"
            f"{per(lag, 'p99_ms', a, b):.0f} | {sampled('web_mb', a, b):.0f} "
            f"| {sampled('worker_mb', a, b):.0f} | {sampled('server_mb', a, b):.0f} "
            f"| {sampled('disk_bytes', a, b, per_row=True):.1f} |"
        )
    if len(blocks) >= 2:
        (a0, b0), (a1, b1) = blocks[0], blocks[-1]
        drifts = {
            "home p99": per(home, "p99_ms", a1, b1) / per(home, "p99_ms", a0, b0),
            "web MB": sampled("web_mb", a1, b1) / sampled("web_mb", a0, b0),
            "worker MB": sampled("worker_mb", a1, b1) / sampled("worker_mb", a0, b0),
            "server MB": sampled("server_mb", a1, b1) / sampled("server_mb", a0, b0),
            "disk B/row": sampled("disk_bytes", a1, b1, True) / sampled("disk_bytes", a0, b0, True),
        }
        lines.append(
            "last block / first: "
            + ", ".join(f"{k} {v:.2f}x" for k, v in drifts.items())
            + f" (goal: each within {goal.drift}x)"
        )
    cpu_parts = [p for p in CPU_PARTS if samples and f"{p}_cpu" in samples[0]]
    if cpu_parts:  # runs from before 2026-11-30 did not sample CPU
        share = {p: sampled(f"{p}_cpu", 0, end + window_s) for p in cpu_parts}
        pages_s = rate(0, end + window_s)
        machine = out / "machine.json"
        cores = json.loads(machine.read_text())["cores"] if machine.exists() else SAVED_CORES
        lines.append(
            f"CPU in % of one core (the machine's {cores}: {100 * cores}), median of the windows: "
            + ", ".join(f"{p} {v:.0f}" for p, v in share.items())
        )
        # The budget a page is held to: at goal.pages_s the cores give 1000
        # ms of CPU a second each, 1000 * cores / goal.pages_s ms a page for every part.
        lines.append(
            f"CPU ms a page at {pages_s:.1f} pages/s (all of it: "
            f"{1000 * cores / goal.pages_s:.1f} ms at the goal's rate): "
            + ", ".join(f"{p} {10 * v / pages_s:.2f}" for p, v in share.items())
        )
    rows = json.loads((out / "rows.json").read_text())
    lines.append(
        f"rows stored: {rows['before']:,} before, {rows['after']:,} after "
        f"(the samples' estimate at the end: {rows['estimated']:,})"
    )
    _chart(out, target, home, lag, samples, windows, window_s)
    return "\n".join(lines)


def _chart(
    out: Path,
    target: str,
    home: list[dict[str, float]],
    lag: list[dict[str, float]],
    samples: list[dict[str, str]],
    windows: dict[str, list[dict[str, float]]],
    window_s: float,
) -> None:
    minutes = [w["t_s"] / 60 for w in home]
    st = [float(s["t_s"]) / 60 for s in samples]
    other = {
        name: ([w["t_s"] / 60 for w in ws], [w["count"] / window_s for w in ws])
        for name, ws in windows.items()
        if name not in ("home page", "post-to-visible") and "watcher" not in name
    }
    panels_chart(
        out / f"capacity-{target}.svg",
        f"Capacity, whole stack on {target}, {window_s:g} s windows",
        [
            (
                "requests/s",
                {"home pages": (minutes, [w["count"] / window_s for w in home]), **other},
            ),
            (
                "ms",
                {
                    "home p50": (minutes, [w["p50_ms"] for w in home]),
                    "home p99": (minutes, [w["p99_ms"] for w in home]),
                },
            ),
            (
                "post-to-visible ms",
                {
                    "p50": ([w["t_s"] / 60 for w in lag], [w["p50_ms"] for w in lag]),
                    "p99": ([w["t_s"] / 60 for w in lag], [w["p99_ms"] for w in lag]),
                },
            ),
            (
                "RSS MB",
                {
                    part: (st, [float(s[f"{part}_mb"]) for s in samples])
                    for part in ("web", "worker", "server", "redis")
                },
            ),
            (
                "disk bytes/row",
                {"disk / rows": (st, [float(s["disk_bytes"]) / float(s["rows"]) for s in samples])},
            ),
            *(
                [
                    (
                        "CPU, % of a core",
                        {
                            part: (st, [float(s[f"{part}_cpu"]) for s in samples])
                            for part in CPU_PARTS
                        },
                    )
                ]
                if samples and "web_cpu" in samples[0]
                else []
            ),
        ],
        "minutes",
    )
