# SPDX-License-Identifier: GPL-2.0-only
"""A ratio against upstream and its 95% interval, by bootstrap over rounds.

make bench alternates boots: round i is a flushpol boot and an upstream
boot run back to back, so a slow spell of the shared host falls on both
sides of a round.  One resample draws as many rounds as were run, with
replacement, keeping each round's two sides together, and recomputes the
ratio of the two sides' medians over the drawn rounds (every sample of a
drawn round counts, once per draw).  The interval is the 2.5th and 97.5th
percentiles of RESAMPLES such ratios, from a fixed seed, so that the same
logs always print the same table.

Medians, not means: under TCG on a shared host a few samples are hundreds
of times the typical one (p99 against median in the unmap tables), and a
mean goes wherever they fall.  With 5 rounds there are only 126 distinct
resamples and the percentile interval is, if anything, too narrow: read
it as the least uncertainty there is, not the most.
"""
import random
import statistics

RESAMPLES = 2000
SEED = 21
MIN_ROUNDS = 5


def ratio(num, den):
    """median(num) / median(den), each pooled over its rounds' samples."""
    return (statistics.median(x for r in num for x in r) /
            statistics.median(x for r in den for x in r))


def interval(num, den):
    """(ratio, low, high) of two paired lists of rounds, each round a list
    of samples; low and high None with fewer than MIN_ROUNDS pairs."""
    n = min(len(num), len(den))
    num, den = num[:n], den[:n]
    r = ratio(num, den)
    if n < MIN_ROUNDS:
        return r, None, None
    rng = random.Random(SEED)
    boot = []
    for _ in range(RESAMPLES):
        idx = [rng.randrange(n) for _ in range(n)]
        boot.append(ratio([num[i] for i in idx], [den[i] for i in idx]))
    boot.sort()
    return r, boot[int(0.025 * RESAMPLES)], boot[int(0.975 * RESAMPLES) - 1]


def text(r, lo, hi, rounds=None):
    """A cell: the ratio and its interval, or "no difference measured"
    when the interval holds 1.0."""
    if lo is None:
        return f"{r:.2f}x ({rounds or 'too few'} rounds: no interval)"
    # A bound within rounding of 1.0 gets a third decimal: on which side
    # of 1.0 it lies is the point.
    digits = 3 if f"{lo:.2f}" == "1.00" or f"{hi:.2f}" == "1.00" else 2
    span = f"95% {lo:.{digits}f}-{hi:.{digits}f}"
    if lo <= 1.0 <= hi:
        return f"no difference measured ({r:.2f}x, {span})"
    return f"{r:.2f}x ({span})"


def verdict(lo, hi):
    """"faster", "slower" or "same" for a ratio >1 = flushpol faster;
    None without an interval."""
    if lo is None:
        return None
    return "faster" if lo > 1.0 else "slower" if hi < 1.0 else "same"
