#!/usr/bin/python3
"""Writes mix.txt: 10,000 plain log lines for the redaction benchmark.

About 99 % are ordinary lines from generate_negatives.py (another seed than negatives.txt);
exactly 100 lines (1 %), at random places, hold one secret of a random non-personal rule,
drawn from generate_positives.py's templates with fresh fake secrets. No brackets.

    /usr/bin/python3 generate_mix.py            # writes mix.txt next to this file

Standard library only.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import generate_negatives  # noqa: E402
import generate_positives  # noqa: E402

SEED = 10000
TOTAL = 10000
SECRETS = 100


def main():
    rng = random.Random(SEED)
    lines = generate_negatives.make_lines(rng, TOTAL - SECRETS)
    rules = [r for r in generate_positives.RULES if r not in generate_positives.PERSONAL]
    for _ in range(SECRETS):
        pre, secret, post = generate_positives.case(rng, rng.choice(rules))
        lines.insert(rng.randrange(len(lines) + 1), pre + secret + post)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "mix.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    print("mix.txt: %d lines, %d with a secret" % (len(lines), SECRETS), file=sys.stderr)


if __name__ == "__main__":
    main()
