"""Storage benchmark: the local HBase server against real HBase and raw RocksDB.

One run measures, for each target and for 1 and N concurrent clients:

- ``batch_put``: mutateRows of ``batch`` rows, one 100-byte cell each (rows/s);
- ``get``: a point get of one random row (gets/s);
- ``scan50``: a prefix scan returning 50 rows (scans/s);
- ``increment``: atomicIncrement of one of 100 hot counters (increments/s).

Targets:

- ``raw``: rocksdict in this process, no server, the same key layout the
  local server writes: the limit of RocksDB-from-Python on this machine;
- ``local``: the local HBase server, a child process, through happybase;
- ``hbase``: Apache HBase (standalone) through its Thrift server and happybase.

Clients of a server are separate processes (a Python client is CPU-bound and
would otherwise share one GIL); raw's clients are threads of one process.
Every figure is the median of ``repeats`` runs. Progress goes to stderr; the
table to stdout.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from localhbase.server import Handler
    from localhbase.store import Store

OPS = ("batch_put", "get", "scan50", "increment")
UNITS = {"batch_put": "rows/s", "get": "gets/s", "scan50": "scans/s", "increment": "incr/s"}
VALUE = b"v" * 100
# The benchmark's own table, not a TwitBase table (whose cells are named in
# storage/rows.py): one family, a value cell and a counter cell. The raw
# RocksDB comparison below needs the family and qualifier apart.
FAMILY = b"cf"
VALUE_QUALIFIER = b"v"
VALUE_COLUMN = FAMILY + b":" + VALUE_QUALIFIER
COUNTER_COLUMN = FAMILY + b":n"
GROUP = 50  # rows per prefix, so a prefix scan returns 50 rows
COUNTERS = 100


@dataclass(frozen=True)
class Workload:
    rows: int = 20_000
    batch: int = 1_000
    gets: int = 2_000
    scans: int = 200
    increments: int = 2_000
    repeats: int = 3

    def ops_for(self, op: str) -> int:
        return {
            "batch_put": self.rows // self.batch,
            "get": self.gets,
            "scan50": self.scans,
            "increment": self.increments,
        }[op]


@dataclass(frozen=True)
class Result:
    target: str
    clients: int
    op: str
    rate: float  # median over repeats, in UNITS[op]
    p50_ms: float  # median per-call latency
    p99_ms: float
    runs: tuple[float, ...]


def row_key(i: int) -> bytes:
    return b"u%06d:%04d" % (i // GROUP, i % GROUP)


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- one client's work, against any happybase-compatible table ------------------


def _client_ops(
    table: Any, op: str, client: int, clients: int, w: Workload, seed: int
) -> list[float]:
    """Run this client's share of ``op``; return per-call latencies (seconds)."""
    rng = random.Random(seed * 1000 + client)
    lat: list[float] = []
    per_client = max(1, w.ops_for(op) // clients)
    if op == "batch_put":
        batches = [range(b * w.batch, (b + 1) * w.batch) for b in range(w.rows // w.batch)]
        for rows in batches[client::clients]:
            t0 = time.perf_counter()
            with table.batch() as b:
                for i in rows:
                    b.put(row_key(i), {VALUE_COLUMN: VALUE})
            lat.append(time.perf_counter() - t0)
    elif op == "get":
        for _ in range(per_client):
            key = row_key(rng.randrange(w.rows))
            t0 = time.perf_counter()
            table.row(key)
            lat.append(time.perf_counter() - t0)
    elif op == "scan50":
        for _ in range(per_client):
            prefix = row_key(rng.randrange(w.rows // GROUP) * GROUP)[:8]
            t0 = time.perf_counter()
            n = sum(1 for _ in table.scan(row_prefix=prefix, batch_size=GROUP + 1))
            lat.append(time.perf_counter() - t0)
            assert n == GROUP, f"prefix scan returned {n} rows"
    elif op == "increment":
        for _ in range(per_client):
            key = b"counter%03d" % rng.randrange(COUNTERS)
            t0 = time.perf_counter()
            table.counter_inc(key, COUNTER_COLUMN)
            lat.append(time.perf_counter() - t0)
    return lat


def _server_client(
    host: str,
    port: int,
    table: str,
    op: str,
    client: int,
    clients: int,
    w: Workload,
    seed: int,
    barrier: Any,
    out: Any,
) -> None:
    import happybase

    conn = happybase.Connection(host, port, timeout=120_000)
    t = conn.table(table)
    barrier.wait()
    out.put(_client_ops(t, op, client, clients, w, seed))
    conn.close()


# -- raw RocksDB with the local server's key layout ------------------------------


class RawTable:
    """The four operations straight on rocksdict, as the local server lays cells out."""

    def __init__(self, path: Path) -> None:
        from rocksdict import DBCompressionType, Options, Rdict

        from localhbase import encoding as enc

        self._enc = enc
        opts = Options(raw_mode=True)
        opts.create_if_missing(True)
        opts.set_compression_type(DBCompressionType.lz4())
        self.db = Rdict(str(path), opts)
        self._lock = threading.Lock()

    def _cell(self, row: bytes, ts: int) -> bytes:
        enc = self._enc  # a module held as an attribute: mypy sees ModuleType, so name the type
        key: bytes = enc.cell_key(enc.row_prefix(1, row), FAMILY, VALUE_QUALIFIER, ts, enc.TYPE_PUT)
        return key

    @contextmanager
    def batch(self) -> Iterator[Any]:
        from rocksdict import WriteBatch

        wb = WriteBatch(raw_mode=True)
        ts = time.time_ns() // 1_000_000
        table = self

        class _Batch:
            def put(self, row: bytes, data: dict[bytes, bytes]) -> None:
                wb.put(table._cell(row, ts), data[VALUE_COLUMN])

        yield _Batch()
        self.db.write(wb)

    def row(self, row: bytes) -> dict[bytes, bytes]:
        pre = self._enc.row_prefix(1, row)
        it = self.db.iter()
        it.seek(pre)
        out = {}
        while it.valid() and it.key().startswith(pre):
            out[VALUE_COLUMN] = it.value()
            it.next()
        return out

    def scan(self, row_prefix: bytes, batch_size: int) -> Iterator[bytes]:
        pre = self._enc.row_prefix(1, row_prefix)[:-2]  # row prefix, unterminated
        it = self.db.iter()
        it.seek(pre)
        while it.valid() and it.key().startswith(pre):
            yield it.key()
            it.next()

    def counter_inc(self, row: bytes, column: bytes) -> int:
        key = self._cell(row, 0)
        with self._lock:
            old = self.db.get(key)
            new = (int.from_bytes(old, "big") if old else 0) + 1
            self.db.put(key, new.to_bytes(8, "big"))
        return new

    def close(self) -> None:
        self.db.close()


# -- running a target ------------------------------------------------------------


def _measure_raw(table: RawTable, op: str, clients: int, w: Workload, seed: int) -> list[float]:
    results: list[list[float]] = [[] for _ in range(clients)]
    barrier = threading.Barrier(clients + 1)

    def run(c: int) -> None:
        barrier.wait()
        results[c] = _client_ops(table, op, c, clients, w, seed)

    threads = [threading.Thread(target=run, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    for t in threads:
        t.join()
    return [x for r in results for x in r]


def _measure_server(
    host: str, port: int, table: str, op: str, clients: int, w: Workload, seed: int
) -> list[float]:
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(clients + 1)
    out = ctx.Queue()
    procs = [
        ctx.Process(
            target=_server_client,
            args=(host, port, table, op, c, clients, w, seed, barrier, out),
        )
        for c in range(clients)
    ]
    for p in procs:
        p.start()
    barrier.wait()
    lat = [x for _ in procs for x in out.get(timeout=600)]
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise RuntimeError(f"benchmark client exited with {p.exitcode}")
    return lat


def _summarise(
    target: str, clients: int, op: str, w: Workload, runs: list[tuple[float, list[float]]]
) -> Result:
    per_call = w.batch if op == "batch_put" else 1
    rates = [len(lat) * per_call / wall for wall, lat in runs]
    lat_all = sorted(x for _, lat in runs for x in lat)

    def pct(p: float) -> float:
        return lat_all[min(len(lat_all) - 1, int(p * len(lat_all)))] * 1000

    return Result(target, clients, op, statistics.median(rates), pct(0.5), pct(0.99), tuple(rates))


def run_target(
    target: str,
    measure: Callable[[str, int, int], list[float]],
    reset: Callable[[], None],
    client_counts: tuple[int, ...],
    w: Workload,
) -> list[Result]:
    results = []
    for clients in client_counts:
        for op in OPS:
            runs = []
            for rep in range(w.repeats):
                if op == "batch_put":
                    reset()
                t0 = time.perf_counter()
                lat = measure(op, clients, rep)
                wall = time.perf_counter() - t0
                runs.append((wall, lat))
            r = _summarise(target, clients, op, w, runs)
            _progress(
                f"  {target:6} clients={clients} {op:10} {r.rate:12,.0f} {UNITS[op]:8} "
                f"p50={r.p50_ms:.2f}ms"
            )
            results.append(r)
    return results


def bench_raw(client_counts: tuple[int, ...], w: Workload, workdir: Path) -> list[Result]:
    _progress("raw: rocksdict in-process")
    state: dict[str, RawTable] = {}
    counter = iter(range(1_000_000))

    def reset() -> None:
        if "t" in state:
            state["t"].close()
        state["t"] = RawTable(workdir / f"raw-{next(counter)}")

    reset()
    try:
        return run_target(
            "raw",
            lambda op, c, rep: _measure_raw(state["t"], op, c, w, rep),
            reset,
            client_counts,
            w,
        )
    finally:
        state["t"].close()


def bench_server(
    target: str, host: str, port: int, client_counts: tuple[int, ...], w: Workload
) -> list[Result]:
    import happybase

    conn = happybase.Connection(host, port, timeout=120_000)
    counter = iter(range(1_000_000))
    state = {"table": ""}

    def reset() -> None:
        if state["table"]:
            conn.delete_table(state["table"], disable=True)
        state["table"] = f"bench_{next(counter)}"
        conn.create_table(state["table"], {FAMILY.decode(): dict(max_versions=1)})

    reset()
    # Warm up (JIT, caches, connections) with one untimed pass of each operation.
    _progress(f"  {target}: warming up")
    for op in OPS:
        _measure_server(host, port, state["table"], op, 1, w, seed=99)
    try:
        return run_target(
            target,
            lambda op, c, rep: _measure_server(host, port, state["table"], op, c, w, rep),
            reset,
            client_counts,
            w,
        )
    finally:
        conn.delete_table(state["table"], disable=True)
        conn.close()


def format_table(results: list[Result]) -> str:
    raw = {(r.clients, r.op): r.rate for r in results if r.target == "raw"}
    hbase = {(r.clients, r.op): r.rate for r in results if r.target == "hbase"}
    lines = [
        "| target | clients | operation | median rate | unit | p50 ms | p99 ms "
        "| % of raw | local ÷ HBase |",
        "|---|---:|---|---:|---|---:|---:|---:|---:|",
    ]
    for r in results:
        vs_raw = f"{100 * r.rate / raw[(r.clients, r.op)]:.1f}%" if (r.clients, r.op) in raw else ""
        vs_hb = (
            f"{r.rate / hbase[(r.clients, r.op)]:.2f}"
            if r.target == "local" and (r.clients, r.op) in hbase
            else ""
        )
        lines.append(
            f"| {r.target} | {r.clients} | {r.op} | {r.rate:,.0f} | {UNITS[r.op]} "
            f"| {r.p50_ms:.2f} | {r.p99_ms:.2f} | {vs_raw} | {vs_hb} |"
        )
    return "\n".join(lines)


def run(
    targets: tuple[str, ...],
    client_counts: tuple[int, ...],
    w: Workload,
    workdir: Path | None = None,
) -> list[Result]:
    from devtools.localhbase_process import LocalHBaseProcess

    tmp = Path(workdir or tempfile.mkdtemp(prefix="twitbase-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    results: list[Result] = []
    try:
        for target in targets:
            if target == "raw":
                results += bench_raw(client_counts, w, tmp)
            elif target == "local":
                _progress("local: starting the local HBase server")
                with LocalHBaseProcess(tmp / "local") as server:
                    results += bench_server("local", server.host, server.port, client_counts, w)
            elif target == "hbase":
                from devtools.realhbase import for_benchmarks

                _progress("hbase: fetching and starting Apache HBase (standalone)")
                with for_benchmarks(tmp / "hbase") as hbase:
                    results += bench_server(
                        "hbase", "127.0.0.1", hbase.thrift_port, client_counts, w
                    )
            else:
                raise ValueError(f"unknown target {target!r}; use raw, local or hbase")
    finally:
        if workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    return results


def svg_chart(results: list[Result], title: str) -> str:
    """A grouped bar chart, log scale: one group per operation and client count,
    one bar per target. Self-contained SVG, no external assets."""
    import math

    colors = {"raw": "#9aa5b1", "local": "#2f6fde", "hbase": "#e07b39"}
    targets = [t for t in ("raw", "local", "hbase") if any(r.target == t for r in results)]
    groups = sorted({(r.op, r.clients) for r in results}, key=lambda g: (OPS.index(g[0]), g[1]))
    rate = {(r.target, r.op, r.clients): r.rate for r in results}
    lo = 10 ** math.floor(math.log10(min(rate.values())))
    hi = 10 ** math.ceil(math.log10(max(rate.values())))
    width, height, left, top, bottom = 900, 420, 70, 50, 70
    plot_h = height - top - bottom
    group_w = (width - left - 20) / len(groups)
    bar_w = group_w * 0.8 / len(targets)

    def y(value: float) -> float:
        frac = (math.log10(value) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        return top + plot_h * (1 - frac)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">{title}</text>',
    ]
    decade = lo
    while decade <= hi:
        out.append(
            f'<line x1="{left}" x2="{width - 20}" y1="{y(decade):.1f}" '
            f'y2="{y(decade):.1f}" stroke="#e3e7eb"/>'
        )
        out.append(
            f'<text x="{left - 6}" y="{y(decade) + 4:.1f}" text-anchor="end">{decade:,.0f}</text>'
        )
        decade *= 10
    for gi, (op, clients) in enumerate(groups):
        x0 = left + gi * group_w + group_w * 0.1
        for ti, target in enumerate(targets):
            value = rate.get((target, op, clients))
            if value is None:
                continue
            x = x0 + ti * bar_w
            out.append(
                f'<rect x="{x:.1f}" y="{y(value):.1f}" width="{bar_w - 2:.1f}" '
                f'height="{top + plot_h - y(value):.1f}" fill="{colors[target]}">'
                f"<title>{target} {op} x{clients}: {value:,.0f} {UNITS[op]}</title></rect>"
            )
        cx = left + gi * group_w + group_w / 2
        out.append(f'<text x="{cx:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{op}</text>')
        out.append(
            f'<text x="{cx:.1f}" y="{top + plot_h + 30}" text-anchor="middle" '
            f'fill="#555">{clients} client{"s" if clients > 1 else ""}</text>'
        )
    for ti, target in enumerate(targets):
        lx = left + ti * 110
        out.append(
            f'<rect x="{lx}" y="{height - 22}" width="12" height="12" fill="{colors[target]}"/>'
        )
        out.append(f'<text x="{lx + 16}" y="{height - 12}">{target}</text>')
    out.append(
        f'<text x="14" y="{top + plot_h / 2}" transform="rotate(-90 14 '
        f'{top + plot_h / 2})" text-anchor="middle">operations per second (log)</text>'
    )
    out.append("</svg>")
    return "\n".join(out)


def write_path_breakdown(rows: int = 20_000, repeats: int = 3) -> list[tuple[str, float]]:
    """Where a batch put's time goes, per cell, measured in this process.

    1. rocksdict WriteBatch.put of keys built beforehand: RocksDB itself;
    2. the same with the cell key built per cell: the ``raw`` target;
    3. the local server's Store.mutate_rows (no network, no Thrift);
    4. its Thrift handler given decoded Thrift objects;
    5. the compiled path the server takes for such a batch
       (``localhbase._wire``), from the request's bytes, where it is built.
    The full path through happybase and the socket is the ``local`` target.
    """
    from localhbase.server import Handler
    from localhbase.store import FamilyDescriptor, Store

    with tempfile.TemporaryDirectory() as tmp:
        raw = RawTable(Path(tmp) / "raw")
        steps = _rocksdict_puts(raw, rows)
        store = Store(Path(tmp) / "store")
        store.create_table(b"t", [FamilyDescriptor(FAMILY, max_versions=1)])
        steps += _server_puts(store, Handler(store), rows)
        out = [(label, _per_cell_us(fn, rows, repeats)) for label, fn in steps]
        raw.close()
        store.close()
    return out


Step = tuple[str, Callable[[], None]]


def _rocksdict_puts(raw: RawTable, rows: int) -> list[Step]:
    """Steps 1 and 2 of ``write_path_breakdown``: ``rows`` cells in batches
    of 1000, straight into RocksDB."""
    from rocksdict import WriteBatch

    ts = time.time_ns() // 1_000_000
    prebuilt = [raw._cell(row_key(i), ts) for i in range(rows)]

    def prebuilt_puts() -> None:
        for start in range(0, rows, 1000):
            wb = WriteBatch(raw_mode=True)
            for key in prebuilt[start : start + 1000]:
                wb.put(key, VALUE)
            raw.db.write(wb)

    def built_puts() -> None:
        for start in range(0, rows, 1000):
            with raw.batch() as b:
                for i in range(start, start + 1000):
                    b.put(row_key(i), {VALUE_COLUMN: VALUE})

    return [
        ("rocksdict put, keys prebuilt", prebuilt_puts),
        ("rocksdict put, cell key built per cell (raw)", built_puts),
    ]


def _server_puts(store: Store, handler: Handler, rows: int) -> list[Step]:
    """Steps 3 to 5 of ``write_path_breakdown``: the same batches into the
    local server's table ``t``, entering at the store, the Thrift handler
    and (when built) the compiled path."""
    import happybase  # noqa: F401  (loads Hbase_thrift)
    import Hbase_thrift as T
    from thriftpy2.protocol import TCyBinaryProtocolFactory
    from thriftpy2.thrift import TClient
    from thriftpy2.transport import TCyMemoryBuffer

    from localhbase import server
    from localhbase.store import Mutation

    plain = [
        [(row_key(i), [Mutation(VALUE_COLUMN, VALUE)]) for i in range(s, s + 1000)]
        for s in range(0, rows, 1000)
    ]
    thrift = [
        [
            T.BatchMutation(
                row=row_key(i), mutations=[T.Mutation(column=VALUE_COLUMN, value=VALUE)]
            )
            for i in range(s, s + 1000)
        ]
        for s in range(0, rows, 1000)
    ]

    def store_puts() -> None:
        for batch in plain:
            store.mutate_rows(b"t", batch)

    def handler_puts() -> None:
        for tbatch in thrift:
            handler.mutateRows(b"t", tbatch, {})

    requests = []  # each batch's mutateRows as happybase sends it
    for tbatch in thrift:
        buf = TCyMemoryBuffer()
        TClient(server.T.Hbase, TCyBinaryProtocolFactory().get_protocol(buf))._send(
            "mutateRows", tableName=b"t", rowBatches=tbatch, attributes={}
        )
        requests.append(bytearray(buf.getvalue()))

    def compiled_puts() -> None:
        path = server._FastCalls(store, handler)
        for request in requests:
            assert isinstance(path(request), tuple)

    steps: list[Step] = [
        ("local server store, no Thrift", store_puts),
        ("local server Thrift handler, no socket", handler_puts),
    ]
    if server.COMPILED:
        steps.append(("local server compiled path, request bytes in, no socket", compiled_puts))
    return steps


def _per_cell_us(fn: Callable[[], None], rows: int, repeats: int) -> float:
    """The median of ``repeats`` runs of ``fn``, which writes ``rows`` cells,
    in microseconds per cell."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) / rows * 1e6


def format_breakdown(rows: list[tuple[str, float]]) -> str:
    lines = ["| batch put, per cell | µs | cells/s |", "|---|---:|---:|"]
    lines += [f"| {label} | {us:.2f} | {1e6 / us:,.0f} |" for label, us in rows]
    return "\n".join(lines)
