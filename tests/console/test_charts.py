"""The key-spread chart and the raw byte format, on their own."""

from __future__ import annotations

from feeds.console.charts import PLOT_H, bar_path, bucket_chart
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
