#!/usr/bin/env python3
"""flip_parity_check.py [TRIALS] - the look-back table of a chunked sort in
pending/08_multi_gpu/onesweep_lib.cu, simulated: random plans (passes, skipped
passes, chunks, a shorter last chunk), each pass's plan as 07's digit_starts makes
it, each launch's as chunk_plans makes it, every launch writing a prefix with its
flip into its tiles' words, flip_tail after a pass that ran.  Checks that every
launch that runs finds every word of its tiles not ready.  Prints the failures
(none expected) and, as its controls, how many it finds without flip_tail and
without the odd chunk count's parity (some expected)."""
import random
import sys

FLIP, PREFIX, COUNT = 1 << 31, 2 << 30, (1 << 30) - 1
SKIP, FLIPPED = 2, 16


def trial(rng, tail=True, odd_parity=True):
    passes = rng.randint(1, 5)
    tiles_a_chunk, chunks = rng.randint(1, 6), rng.randint(2, 7)
    last_tiles = rng.randint(1, tiles_a_chunk)
    tiles = [tiles_a_chunk] * (chunks - 1) + [last_tiles]
    plan, runs, source = [], 0, 0  # digit_starts: a skipped pass, or its buffer and parity
    for _ in range(passes):
        if rng.random() < 0.3:
            plan.append(SKIP)
        else:
            plan.append(source | (FLIPPED if runs % 2 else 0))
            runs, source = runs + 1, source ^ 1
    table = [0] * tiles_a_chunk  # zeroed before the first launch
    for p, own in enumerate(plan):
        for c in range(chunks):
            for source in (0, 1):
                if own == SKIP or (own & 1) != source:
                    continue  # the twin that returns at once
                flip = c % 2
                if odd_parity and chunks % 2:
                    flip ^= 1 if own & FLIPPED else 0
                mask = FLIP if flip else 0
                for t in range(tiles[c]):
                    if (table[t] ^ mask) & ~COUNT:
                        return f"pass {p} chunk {c} tile {t}: plan {plan}, {chunks} chunks of {tiles}"
                for t in range(tiles[c]):
                    table[t] = (PREFIX | 7) ^ mask
        if tail and own != SKIP:
            for t in range(last_tiles, tiles_a_chunk):
                table[t] ^= FLIP
    return None


def failures(n, **kw):
    rng = random.Random(2026)
    return [f for f in (trial(rng, **kw) for _ in range(n)) if f]


n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
bad = failures(n)
print(f"{n} plans: {len(bad)} launches read a stale word" + (f", first: {bad[0]}" if bad else ""))
print(f"control, without flip_tail: {len(failures(n, tail=False))} plans fail")
print(f"control, without the odd chunk count's parity: {len(failures(n, odd_parity=False))} plans fail")
sys.exit(1 if bad else 0)
