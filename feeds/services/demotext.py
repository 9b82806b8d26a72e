"""Names and twit text for the demo data (``manage.py loaddemo``).

Small lists kept in the repository, so a demo loads offline and the same
seed gives the same text. Written by hand rather than with Faker: the few
dozen names and sentence parts below are all a demo needs, and Faker (with
its locale data, some megabytes) would be a dependency for this alone.
"""

from __future__ import annotations

import random

FIRST_NAMES = (
    "Ada Alan Amara Ana Arjun Aiko Bea Ben Carlos Chen Chiara Dana David Diego "
    "Elena Emeka Emma Farah Felix Grace Hana Hugo Ines Ivan Jamal Jana Jonas "
    "Julia Kai Kenji Lara Leo Lina Luca Maya Mei Mateo Nadia Nils Noor Olga "
    "Omar Priya Rafael Rosa Sam Sara Sofia Tariq Tom Uma Viktor Wei Yara Yusuf Zoe"
).split()
LAST_NAMES = (
    "Adeyemi Almeida Andersen Bauer Becker Costa Dubois Eriksen Fischer Garcia "
    "Gonzalez Hansen Hoffmann Ibrahim Ito Jensen Kowalski Kumar Larsen Lee Lopez "
    "Martin Meyer Moreau Muller Nakamura Nguyen Novak Okafor Olsen Park Patel "
    "Petrov Rossi Santos Schmidt Silva Singh Sato Tanaka Torres Weber Wright Yilmaz Zhang"
).split()

# A twit is an opening, a subject and an ending, with the occasional
# question or aside: enough variety that a page of stream reads like people.
OPENINGS = (
    "Just",
    "Finally",
    "Today I",
    "This morning I",
    "Tonight we",
    "Somehow I",
    "Proud to say I",
    "Can't believe I",
    "Note to self: never",
    "Yesterday we",
)
ACTIONS = (
    "finished",
    "started",
    "tried",
    "fixed",
    "cooked",
    "read",
    "walked past",
    "rewrote",
    "found",
    "booked",
    "watched",
    "planted",
)
THINGS = (
    "a sourdough loaf",
    "the garden fence",
    "a book about bridges",
    "the bike's back wheel",
    "a new running route",
    "my grandmother's soup recipe",
    "the flaky test at work",
    "tickets to the coast",
    "a documentary on octopuses",
    "the kitchen shelves",
    "a puzzle with 2000 pieces",
    "the slowest query in our app",
    "a tiny bookshop downtown",
    "ten kilometres in the rain",
    "the balcony tomatoes",
    "a jazz record from 1961",
)
ENDINGS = (
    ".",
    "!",
    " and it was worth it.",
    " before breakfast.",
    " with the kids.",
    ", what a day.",
    ". Recommendations welcome.",
    ". Who else is up?",
    ". Photos later.",
    " for the first time in years.",
    ". Not bad for a Monday.",
    ", more on that tomorrow.",
)
ASIDES = (
    "Coffee first.",
    "The weather is perfect for it.",
    "Lesson learned.",
    "Small wins count.",
    "Anyone else?",
    "Back to work now.",
)


def demo_name(i: int) -> str:
    """The display name of demo user ``i``: the same for the same ``i``, and
    different for every ``i`` below len(FIRST_NAMES) * len(LAST_NAMES)."""
    # A stride co-prime to the number of pairs visits every pair once, and
    # gives neighbours unrelated names.
    pairs = len(FIRST_NAMES) * len(LAST_NAMES)
    k = (i * 1009) % pairs
    return f"{FIRST_NAMES[k % len(FIRST_NAMES)]} {LAST_NAMES[k // len(FIRST_NAMES)]}"


# Hashtags, most popular first: a twit's tag is drawn with P(rank r) ~ 1/r,
# so a few tags trend and the rest form a long tail.
HASHTAGS = (
    "weekend",
    "coffee",
    "running",
    "baking",
    "books",
    "gardening",
    "hbase",
    "travel",
    "jazz",
    "cycling",
    "photography",
    "mondays",
    "python",
    "rain",
    "octopuses",
    "sourdough",
    "bridges",
    "puzzles",
    "tomatoes",
    "bookshops",
)
_TAG_WEIGHTS = [1.0 / (rank + 1) for rank in range(len(HASHTAGS))]
# How a twit names someone it mentions (a userid goes in the braces).
MENTIONS = (
    " with @{}",
    " Thanks @{} for the tip.",
    " @{} you would love this.",
    " cc @{}",
)
# Replies: a reaction, sometimes a question after it.
REACTIONS = (
    "Congrats!",
    "So jealous.",
    "Love this.",
    "Ha, same here.",
    "Well done!",
    "Respect.",
    "This made my day.",
    "Good luck with it!",
    "Count me in next time.",
    "Classic.",
    "Oh nice.",
    "I tried that last year.",
)
QUESTIONS = (
    "How long did it take?",
    "Where was this?",
    "Was it worth it?",
    "Photos please!",
    "Need the recipe.",
    "Which one did you pick?",
    "Any tips for a beginner?",
    "Same time next week?",
)


def hashtags(rng: random.Random, k: int) -> list[str]:
    """``k`` different hashtags (without '#'), popular ones more often."""
    chosen: list[str] = []
    while len(chosen) < k:
        (tag,) = rng.choices(HASHTAGS, weights=_TAG_WEIGHTS)
        if tag not in chosen:
            chosen.append(tag)
    return chosen


def twit_text(rng: random.Random, mention: str | None = None) -> str:
    """One twit's text (at most 200 characters), drawn from ``rng``: a small
    story, now and then an aside, ``mention`` (a userid) named in it when
    given, and about one in three with a hashtag or two."""
    text = f"{rng.choice(OPENINGS)} {rng.choice(ACTIONS)} {rng.choice(THINGS)}{rng.choice(ENDINGS)}"
    if rng.random() < 0.3:
        text += " " + rng.choice(ASIDES)
    if mention is not None:
        text += rng.choice(MENTIONS).format(mention)
    roll = rng.random()
    if roll < 0.35:
        text += " " + " ".join("#" + t for t in hashtags(rng, 2 if roll < 0.08 else 1))
    return text


def reply_text(rng: random.Random, parent_author: str | None = None) -> str:
    """A reply's text (at most 100 characters): a reaction, often a question,
    addressed to ``parent_author`` (a userid) when given."""
    text = rng.choice(REACTIONS)
    if rng.random() < 0.5:
        text += " " + rng.choice(QUESTIONS)
    if parent_author is not None:
        text = f"@{parent_author} {text}"
    return text
