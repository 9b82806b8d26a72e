"""Key-spread charts as inline SVG, drawn on the server: no script, no assets.

A chart has one bar per first byte of the row key (256 buckets, 0x00 on the
left), each as tall as the keys in it, scaled to the busiest bucket. A dashed
line marks the height every bar would have if the keys were spread evenly.
Colours come from the page's stylesheet, so the charts follow its dark mode.
"""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from feeds.services.console import BUCKETS, Histogram

# Plot geometry in SVG user units: 2 units per bucket.
LEFT = 8
TOP = 24
BAR = 2
PLOT_W = BUCKETS * BAR
PLOT_H = 110
WIDTH = LEFT + PLOT_W + 8
HEIGHT = TOP + PLOT_H + 24
AXIS_TICKS = (0x00, 0x40, 0x80, 0xC0, 0xFF)


def _even(level: float) -> str:
    return f"{level:.2g}" if level < 10 else f"{level:,.0f}"


def bar_path(counts: tuple[int, ...]) -> str:
    """One path for all bars: a rectangle per non-empty bucket, at least one
    unit tall so that a bucket with a single key still shows."""
    top = max(counts, default=0)
    if top == 0:
        return ""
    base = TOP + PLOT_H
    steps = []
    for i, count in enumerate(counts):
        if count:
            h = max(1.0, round(count / top * PLOT_H, 1))
            steps.append(f"M{LEFT + i * BAR} {base}v-{h:g}h{BAR}v{h:g}z")
    return "".join(steps)


def bucket_chart(hist: Histogram, title: str, tone: str = "actual") -> SafeString:
    """The SVG of ``hist``; ``tone`` is "actual" or "alternative" (its colour)."""
    base = TOP + PLOT_H
    total = hist.total
    summary = (
        f"{total:,} keys in {hist.used} of {BUCKETS} first-byte buckets; the busiest, "
        f"0x{hist.busiest_bucket:02x}, holds {hist.busiest:,} ({hist.busiest_share:.1%})."
        if total
        else "No keys."
    )
    parts = [
        f'<svg class="chart chart-{escape(tone)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title><desc>{escape(summary)}</desc>",
        f'<rect class="chart-plot" x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}"/>',
    ]
    if total:
        parts.append(f'<path class="chart-bars" d="{bar_path(hist.counts)}"/>')
        even = total / BUCKETS
        y = base - even / hist.busiest * PLOT_H
        parts.append(
            f'<line class="chart-even" x1="{LEFT}" x2="{LEFT + PLOT_W}" y1="{y:.1f}" y2="{y:.1f}"/>'
        )
        parts.append(
            f'<text class="chart-label" x="{LEFT}" y="{TOP - 8}">'
            f"busiest bucket: {hist.busiest:,} key{'s' if hist.busiest != 1 else ''}</text>"
        )
        parts.append(
            f'<text class="chart-label chart-label-even" x="{LEFT + PLOT_W}" y="{TOP - 8}" '
            f'text-anchor="end">- - even spread: {_even(even)}</text>'
        )
    else:
        parts.append(
            f'<text class="chart-label" x="{LEFT + PLOT_W / 2}" y="{TOP + PLOT_H / 2}" '
            f'text-anchor="middle">no rows</text>'
        )
    parts.append(
        f'<line class="chart-axis" x1="{LEFT}" x2="{LEFT + PLOT_W}" y1="{base}" y2="{base}"/>'
    )
    for tick in AXIS_TICKS:
        x = LEFT + tick * BAR + (BAR if tick == 0xFF else 0)
        anchor = "start" if tick == 0 else "end" if tick == 0xFF else "middle"
        parts.append(
            f'<text class="chart-tick" x="{x}" y="{base + 16}" text-anchor="{anchor}">'
            f"0x{tick:02x}</text>"
        )
    parts.append("</svg>")
    # Safe: numbers, and texts passed through escape().
    return mark_safe("".join(parts))
