"""The key-spread chart and the raw byte format, on their own."""

from __future__ import annotations

import re

from feeds.console.charts import PLOT_H, bar_path, bucket_chart, percent_scale
from feeds.services.console import Histogram, string_binary


def test_string_binary_is_hbases_to_string_binary() -> None:
    assert string_binary(b"abc:1 ~") == "abc:1 ~"
    assert string_binary(b"\x00\xff\\\n\x7f") == "\\x00\\xFF\\x5C\\x0A\\x7F"


def test_one_bar_per_non_empty_bucket_scaled_to_the_busiest() -> None:
    counts = [0] * 256
    counts[0], counts[255] = 10, 1
    path = bar_path(tuple(counts))
    assert path.count("M") == 2
    assert f"v-{PLOT_H}" in path  # the busiest fills the plot
    assert "v-11h2" in path  # 1/10 of 110 units


def test_an_empty_chart_says_so_and_text_is_escaped() -> None:
    svg = bucket_chart(Histogram((0,) * 256), "<users>")
    assert "no rows" in svg and "&lt;users&gt;" in svg and "<users>" not in svg
    assert "No keys." in svg


def _hist(**buckets: int) -> Histogram:
    counts = [0] * 256
    for name, count in buckets.items():
        counts[int(name.removeprefix("b"), 16)] = count
    return Histogram(tuple(counts))


def _y_ticks(svg: str) -> list[str]:
    return re.findall(r'class="chart-tick chart-y-tick"[^>]*>([^<]+)<', svg)


def test_the_y_axis_is_in_percent_of_keys_with_round_ticks() -> None:
    # 3 of 4 keys in bucket 0x10: 75 %, drawn on a 0-100 % axis.
    svg = bucket_chart(_hist(b10=3, bff=1), "t")
    assert _y_ticks(svg) == ["0%", "50%", "100%"]
    assert "% of keys" in svg
    assert percent_scale(_hist(b00=1, b01=199)) == 100
    assert percent_scale(_hist(**{f"b{i:02x}": 1 for i in range(256)})) == 0.5


def test_the_busiest_bucket_is_labelled_with_its_share() -> None:
    svg = bucket_chart(_hist(b10=3, bff=1), "t")
    labels = re.findall(r'class="chart-label chart-busiest"[^>]*>([^<]+)<', svg)
    assert labels == ["0x10: 75.0%"]
    # On the right half the label sits left of the bar, so it stays in the plot.
    svg = bucket_chart(_hist(bf0=5, b01=1), "t")
    assert re.search(r'chart-busiest" x="(\d+)"[^>]*text-anchor="end">0xf0: 83.3%', svg)


def test_a_pair_of_charts_shares_one_scale() -> None:
    even = _hist(**{f"b{i:02x}": 4 for i in range(256)})  # 0.39 % each
    piled = _hist(b00=1000)  # 100 % in one bucket
    scale = percent_scale(even, piled)
    assert scale == 100
    flat, tall = bucket_chart(even, "a", scale=scale), bucket_chart(piled, "b", scale=scale)
    assert _y_ticks(flat) == _y_ticks(tall) == ["0%", "50%", "100%"]
    # The even spread's bars are as tall as 0.39 % of the plot (the 1-unit
    # minimum), the pile-up's as the whole plot: not both full height.
    assert "v-1h2" in flat and f"v-{PLOT_H}h2" not in flat
    assert f"v-{PLOT_H}h2" in tall
    # Alone, the even chart gets its own, finer scale.
    assert _y_ticks(bucket_chart(even, "a")) == ["0%", "0.25%", "0.5%"]
