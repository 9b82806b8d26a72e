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


def twit_text(rng: random.Random) -> str:
    """One twit's text (at most 140 characters), drawn from ``rng``."""
    text = f"{rng.choice(OPENINGS)} {rng.choice(ACTIONS)} {rng.choice(THINGS)}{rng.choice(ENDINGS)}"
    if rng.random() < 0.3:
        text += " " + rng.choice(ASIDES)
    return text
