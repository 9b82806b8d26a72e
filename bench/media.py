"""Image twits against plain ones: writes and reads through the services,
beside a raw put and a raw read of the same rows, in the same run.

An author posts ``twits`` plain twits and ``twits`` twits with one
generated 960 x 640 picture each (``bulk.demo_picture`` with film grain,
so that it encodes to about a photo's size; re-encoded to WebP by the
upload as a person's would be). Timed, p50 and p90 ms:

- writes: a plain post; an image upload (checking, decoding, resizing,
  encoding and the media row's put) and the post that attaches it; the raw
  put of a media row of the same size (the limit of the write itself);
- reads: a twit's page (``public_twit``) and a 20-twit timeline page, of
  plain twits and of image twits, each beside one raw multi-get / scan of
  the same twit rows; an image as served (``media.get_image``) beside one
  raw get of its row.

With a Thrift2 port the tables are created through Thrift2 (pre-split, the
``media`` images in a MOB family, as deployed); without, through Thrift1,
where a MOB family cannot be made and the images sit in a plain one.
"""

from __future__ import annotations

import io
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from feeds import jobs, services
from feeds.services import bulk, media
from storage import keys, rows
from storage.connection import connection, table_name

from .threads import _configured, _timed

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class MediaResult:
    operation: str
    p50_ms: float
    p90_ms: float


def _photo(rng: random.Random) -> bytes:
    """A generated landscape with film grain: about what a photo costs to
    encode and store (a flat drawing compresses to a few KB, a photo not)."""
    from PIL import Image

    landscape = Image.open(io.BytesIO(bulk.demo_picture(rng))).convert("RGB")
    grain = Image.effect_noise(landscape.size, 48).convert("RGB")
    out = io.BytesIO()
    Image.blend(landscape, grain, 0.25).save(out, "PNG")
    return out.getvalue()


def _result(label: str, times: list[float]) -> MediaResult:
    return MediaResult(label, statistics.median(times), statistics.quantiles(times, n=10)[-1])


def _writes(label: str, write: Callable[[int], object], n: int) -> MediaResult:
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        write(i)
        times.append((time.perf_counter() - t0) * 1000)
    return _result(label, times)


def run(
    host: str,
    port: int,
    twits_each: int = 100,
    reads: int = 100,
    *,
    thrift2_port: int = 0,
    progress: Progress | None = None,
) -> list[MediaResult]:
    report = progress or (lambda stage, done, total: None)
    rng = random.Random(7)
    pictures = [_photo(rng) for _ in range(8)]
    with _configured(host, port, thrift2_port):
        services.register("plain", "Plain", "plain@example.com", "bench-password-1")
        services.register("pics", "Pics", "pics@example.com", "bench-password-1")
        results: list[MediaResult] = []
        uploaded: list[str] = []
        # A post's fan-out is the workers' cost, not the request's.
        dispatcher = jobs.register(lambda job: None)
        try:
            report("writes", 0, 3)
            results.append(
                _writes(
                    "post a plain twit", lambda i: services.post_twit("plain", f"t{i}"), twits_each
                )
            )
            report("writes", 1, 3)
            results.append(
                _writes(
                    "upload an image (960 x 640 PNG in)",
                    lambda i: uploaded.append(
                        media.upload("pics", pictures[i % len(pictures)], f"picture {i}").id
                    ),
                    twits_each,
                )
            )
            report("writes", 2, 3)
            results.append(
                _writes(
                    "post a twit naming it",
                    lambda i: services.post_twit("pics", f"t{i}", images=[uploaded[i]]),
                    twits_each,
                )
            )
        finally:
            jobs.register(dispatcher)
        stored = media.get_image(uploaded[0]).image
        raw_row = b"bench-raw-media-row"

        def raw_put(i: int) -> None:
            with connection() as conn:
                conn.table(table_name("media")).put(
                    raw_row, rows.encode_media("pics", f"picture {i}", 960, 640, stored)
                )

        results.append(
            _writes(f"raw put of a media row ({len(stored) // 1024} KB image)", raw_put, twits_each)
        )
        report("writes", 3, 3)

        for who in ("plain", "pics"):
            page = services.timeline(who, limit=20).items
            one = page[0].id
            key = keys.twit_key_from_id(one)
            prefix = keys.user_hash(who)

            def raw_get(key: bytes = key) -> int:
                with connection() as conn:
                    return len(conn.table(table_name("twits")).row(key, columns=[rows.TWIT]))

            def raw_scan(prefix: bytes = prefix) -> int:
                with connection() as conn:
                    table = conn.table(table_name("twits"))
                    return len(list(table.scan(row_prefix=prefix, columns=[rows.TWIT], limit=20)))

            kind = "plain" if who == "plain" else "image"
            for label, read in (
                (f"{kind} twit's page", lambda one=one: len(services.public_twit(one).text)),
                (f"raw get of its row ({kind})", raw_get),
                (f"{kind} timeline, 20 twits", lambda who=who: len(twits_timeline(who))),
                (f"raw scan of its 20 rows ({kind})", raw_scan),
            ):
                results.append(_result(label, _timed(read, reads)[1]))
        media_key = keys.media_key_from_id(uploaded[0])

        def raw_image() -> int:
            with connection() as conn:
                got = conn.table(table_name("media")).row(media_key, columns=[rows.MEDIA_IMAGE])
            return len(got[rows.MEDIA_IMAGE])

        results.append(
            _result(
                "an image as served",
                _timed(lambda: len(media.get_image(uploaded[0]).image), reads)[1],
            )
        )
        results.append(_result("raw get of its image cell", _timed(raw_image, reads)[1]))
        return results


def twits_timeline(userid: str) -> tuple[object, ...]:
    return services.timeline(userid, limit=20).items


def format_table(results: list[MediaResult]) -> str:
    lines = ["| operation | p50 ms | p90 ms |", "|---|---:|---:|"]
    for r in results:
        lines.append(f"| {r.operation} | {r.p50_ms:.2f} | {r.p90_ms:.2f} |")
    return "\n".join(lines)
