"""loaddemo's progress line: no rate until it means something; the demo
text reads like people."""

from __future__ import annotations

import io
import random
import re
from collections import Counter

from feeds.management.commands.loaddemo import ProgressBar
from feeds.services import demotext, textparse


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _rates(text: str) -> list[str]:
    return re.findall(r"(\S+)/s", text)


def test_no_rate_is_shown_before_a_second_has_passed() -> None:
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(out, clock)
    bar("follows", 0, 100_000)
    clock.now += 0.25
    # One batch of 5,000 sent in 0.25 s: "20,000/s" would be a guess, not a rate.
    bar("follows", 5_000, 100_000)
    assert _rates(out.getvalue()) == ["--", "--"]
    clock.now += 1.75
    bar("follows", 20_000, 100_000)
    assert _rates(out.getvalue())[-1] == "10,000"
    assert "eta    8s" in out.getvalue()


def test_each_stage_is_timed_from_its_own_start() -> None:
    out, clock = io.StringIO(), Clock()
    bar = ProgressBar(out, clock)
    bar("users", 0, 1_000)
    clock.now += 5.0
    bar("users", 1_000, 1_000)
    # The next stage's first report comes with work already done: its rate
    # must not be that work over a few microseconds.
    bar("follows", 0, 10_000)
    clock.now += 0.3
    bar("follows", 5_000, 10_000)
    clock.now += 1.7
    bar("follows", 10_000, 10_000)
    rates = _rates(out.getvalue())
    assert rates == ["--", "200", "--", "--", "5,000"], rates


def test_demo_names_and_twits_read_like_people() -> None:
    names = {demotext.demo_name(i) for i in range(500)}
    assert len(names) > 400, "neighbouring users should rarely share a name"
    assert all(re.fullmatch(r"[A-Z][a-z]+ [A-Z][a-z]+", n) for n in names)
    assert demotext.demo_name(7) == demotext.demo_name(7)
    rng = random.Random(1)
    texts = [demotext.twit_text(rng) for _ in range(2_000)]
    assert max(len(t) for t in texts) <= 140 + 60  # hashtags can add a few words
    assert len(set(texts)) > 1_500
    assert all(t[0].isupper() for t in texts)


def test_demo_hashtags_have_a_long_tail_and_mentions_and_replies_parse() -> None:
    rng = random.Random(2)
    texts = [demotext.twit_text(rng) for _ in range(5_000)]
    tags = Counter(tag for t in texts for tag in textparse.hashtags(t))
    assert 0.25 < sum(1 for t in texts if textparse.hashtags(t)) / len(texts) < 0.45
    top, *_, last = [n for _, n in tags.most_common()]
    assert top > 5 * last, "a few tags trend, the rest are a long tail"
    mentioning = [demotext.twit_text(rng, mention="user000042") for _ in range(200)]
    assert all(textparse.mentions(t) == ["user000042"] for t in mentioning)
    assert max(len(t) for t in mentioning) <= 280
    replies = [demotext.reply_text(rng, "user000007") for _ in range(200)]
    assert all(textparse.mentions(t) == ["user000007"] for t in replies)
    assert len(set(replies)) > 50
    assert all(len(demotext.reply_text(rng)) <= 100 for _ in range(200))
