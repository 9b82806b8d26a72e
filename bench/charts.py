"""Charts of benchmark results, as SVG files for docs/benchmarks.md.

Drawn with matplotlib (a dev dependency), without a display, and with a
fixed hash salt so that the same figures give the same file.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any


def table_cells(text: str) -> Iterator[list[str]]:
    """The cells of each line of a table a benchmark printed (any line, split
    on its bars): what the chart commands read their saved runs from."""
    for line in text.splitlines():
        yield [c.strip() for c in line.strip().strip("|").split("|")]


def bar_chart(
    path: str | Path,
    title: str,
    groups: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    ylabel: str,
    *,
    log: bool = False,
    line: tuple[str, float] | None = None,
) -> None:
    """Grouped bars: one group per entry of ``groups``, one bar per series
    (its values in the groups' order; None: no bar). ``line`` draws a
    labelled horizontal line (a goal or a limit) at its value."""
    fig, ax = _axes()
    width = 0.8 / max(1, len(series))
    for i, (name, values) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        shown = [(x, v) for x, v in zip(xs, values, strict=True) if v is not None]
        bars = ax.bar([x for x, _ in shown], [v for _, v in shown], width * 0.95, label=name)
        ax.bar_label(bars, labels=[_short(v) for _, v in shown], fontsize=7, padding=1)
    if line is not None:
        label, value = line
        ax.axhline(value, color="#c0392b", linestyle="--", linewidth=1)
        ax.annotate(
            label,
            (len(groups) - 0.5, value),
            ha="right",
            va="bottom",
            fontsize=8,
            color="#c0392b",
            annotation_clip=False,  # past the last bar when there is one series
        )
    ax.set_xticks(range(len(groups)), list(groups), fontsize=8)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    _save(fig, ax, path, title)


def line_chart(
    path: str | Path,
    title: str,
    series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    xlabel: str,
    ylabel: str,
) -> None:
    """One line with markers per series of (xs, ys): a cost against a count."""
    fig, ax = _axes()
    for name, (xs, ys) in series.items():
        ax.plot(xs, ys, marker="o", markersize=3, linewidth=1.2, label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    _save(fig, ax, path, title)


def _axes() -> tuple[Any, Any]:
    """A figure of the docs' size, drawn without a display."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "twitbase"
    matplotlib.rcParams["svg.fonttype"] = "none"
    from matplotlib import pyplot as plt

    return plt.subplots(figsize=(9, 4.2), dpi=100)


def _save(fig: Any, ax: Any, path: str | Path, title: str) -> None:
    """Title, key and the docs' style, then the SVG (no date in it: the same
    figures give the same file)."""
    from matplotlib import pyplot as plt

    ax.set_title(title, fontsize=11)
    ax.legend(fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def _short(v: float) -> str:
    if v >= 10_000:
        return f"{v / 1000:,.0f}k"
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:.1f}"


def panels_chart(
    path: str | Path,
    title: str,
    panels: Sequence[tuple[str, Mapping[str, tuple[Sequence[float], Sequence[float]]]]],
    xlabel: str,
) -> None:
    """Panels stacked over one shared x axis (time), each (ylabel, series of
    (xs, ys)): several figures of one run read against the same clock."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "twitbase"
    matplotlib.rcParams["svg.fonttype"] = "none"
    from matplotlib import pyplot as plt

    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 2.1 * len(panels)), dpi=100, sharex=True)
    for ax, (ylabel, series) in zip(axes, panels, strict=True):
        for name, (xs, ys) in series.items():
            ax.plot(xs, ys, linewidth=1.1, label=name)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7, frameon=False, loc="upper left")
        ax.spines[["top", "right"]].set_visible(False)
    axes[-1].set_xlabel(xlabel)
    axes[0].set_title(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
