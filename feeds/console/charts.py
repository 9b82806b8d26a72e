"""Key-spread charts as inline SVG, drawn on the server: no script, no assets.

A chart has one bar per first byte of the row key (256 buckets, 0x00 on the
left), each as tall as the share of the table's keys in it. The y-axis is in
percent of keys, and a pair of charts (a table's keys and their sequential
alternative) is drawn to ONE scale, so their bars compare at a glance; the
busiest bucket carries its share as a label. A dashed line marks the height
every bar would have if the keys were spread evenly (1/256, about 0.4 %).
Colours come from the page's stylesheet, so the charts follow its dark mode.
"""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from feeds.services.console import BUCKETS, Histogram

# Plot geometry in SVG user units: 2 units per bucket, room on the left for
# the y-axis labels.
LEFT = 48
TOP = 24
BAR = 2
PLOT_W = BUCKETS * BAR
PLOT_H = 110
WIDTH = LEFT + PLOT_W + 8
HEIGHT = TOP + PLOT_H + 24
AXIS_TICKS = (0x00, 0x40, 0x80, 0xC0, 0xFF)
# The tops a y-axis may have, in percent: the smallest that holds the busiest
# bucket is used, so a bar never leaves the plot and the ticks are round.
SCALE_TOPS = (0.5, 1, 2, 5, 10, 20, 25, 50, 100)


def percent_scale(*hists: Histogram | None) -> float:
    """The y-axis top, in percent of keys, shared by ``hists``: the smallest
    of SCALE_TOPS at or above the busiest bucket's share of any of them."""
    busiest = max((h.busiest_percent for h in hists if h is not None), default=0.0)
    return next(top for top in SCALE_TOPS if busiest <= top + 1e-9)


def _percent(value: float) -> str:
    """A share for a label, to one decimal as the stats under a chart give it."""
    return f"{value:.1f}%"


def bar_path(counts: tuple[int, ...], top: float | None = None) -> str:
    """One path for all bars: a rectangle per non-empty bucket, ``top`` keys
    (the busiest bucket's count by default) as tall as the plot, and at least
    one unit tall so that a bucket with a single key still shows."""
    top = top if top is not None else max(counts, default=0)
    if top <= 0:
        return ""
    base = TOP + PLOT_H
    steps = []
    for i, count in enumerate(counts):
        if count:
            h = max(1.0, round(min(count / top, 1.0) * PLOT_H, 1))
            steps.append(f"M{LEFT + i * BAR} {base}v-{h:g}h{BAR}v{h:g}z")
    return "".join(steps)


def _y(percent: float, scale: float) -> float:
    return TOP + PLOT_H - percent / scale * PLOT_H


def bucket_chart(
    hist: Histogram,
    title: str,
    tone: str = "actual",
    scale: float | None = None,
    boundaries: tuple[float, ...] = (),
) -> SafeString:
    """The SVG of ``hist``; ``tone`` is "actual" or "alternative" (its colour);
    ``scale`` the y-axis top in percent (percent_scale(hist) by default);
    ``boundaries`` where the table's regions start, on the first-byte axis
    (0 to 256), each drawn as a vertical line."""
    scale = scale if scale is not None else percent_scale(hist)
    base = TOP + PLOT_H
    total = hist.total
    summary = (
        f"{total:,} keys in {hist.used} of {BUCKETS} first-byte buckets; the busiest, "
        f"0x{hist.busiest_bucket:02x}, holds {hist.busiest:,} ({hist.busiest_share:.1%}). "
        f"Y-axis: percent of keys, 0 to {scale:g}%."
        if total
        else "No keys."
    )
    parts = [
        f'<svg class="chart chart-{escape(tone)}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title><desc>{escape(summary)}</desc>",
        f'<rect class="chart-plot" x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}"/>',
    ]
    # The y-axis: 0, half and the top of the scale, with grid lines.
    parts.append('<g class="chart-y-axis">')
    for value in (0.0, scale / 2, scale):
        y = _y(value, scale)
        parts.append(
            f'<line class="chart-grid" x1="{LEFT}" x2="{LEFT + PLOT_W}" y1="{y:g}" y2="{y:g}"/>'
            f'<text class="chart-tick chart-y-tick" x="{LEFT - 4}" y="{y + 4:g}" '
            f'text-anchor="end">{value:g}%</text>'
        )
    parts.append("</g>")
    parts.append(f'<text class="chart-label" x="{LEFT}" y="{TOP - 8}">% of keys</text>')
    inner = [b for b in boundaries if 0 < b < BUCKETS]
    if inner:
        parts.append('<g class="chart-regions">')
        for b in inner:
            x = LEFT + b * BAR
            parts.append(
                f'<line class="chart-region" x1="{x:g}" x2="{x:g}" y1="{TOP}" '
                f'y2="{TOP + PLOT_H}"><title>region boundary</title></line>'
            )
        parts.append("</g>")
    if total:
        parts.append(f'<path class="chart-bars" d="{bar_path(hist.counts, total * scale / 100)}"/>')
        even = 100 / BUCKETS
        y = _y(even, scale)
        parts.append(
            f'<line class="chart-even" x1="{LEFT}" x2="{LEFT + PLOT_W}" y1="{y:.1f}" y2="{y:.1f}"/>'
        )
        parts.append(
            f'<text class="chart-label chart-label-even" x="{LEFT + PLOT_W}" y="{TOP - 8}" '
            f'text-anchor="end">- - even spread: {even:.2f}%</text>'
        )
        # The busiest bucket's share, beside the top of its bar, on the side
        # with room for the text.
        bucket = hist.busiest_bucket
        bar_top = _y(hist.busiest_percent, scale)
        left_half = bucket < BUCKETS // 2
        x = LEFT + bucket * BAR + (BAR + 3 if left_half else -3)
        parts.append(
            f'<text class="chart-label chart-busiest" x="{x}" '
            f'y="{max(bar_top + 4, TOP + 11):.1f}" text-anchor="{"start" if left_half else "end"}">'
            f"0x{bucket:02x}: {_percent(hist.busiest_percent)}</text>"
        )
    else:
        parts.append(
            f'<text class="chart-label" x="{LEFT + PLOT_W / 2}" y="{TOP + PLOT_H / 2}" '
            f'text-anchor="middle">no rows</text>'
        )
    parts.append(
        f'<line class="chart-axis" x1="{LEFT}" x2="{LEFT + PLOT_W}" y1="{base}" y2="{base}"/>'
        f'<line class="chart-axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{base}"/>'
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
