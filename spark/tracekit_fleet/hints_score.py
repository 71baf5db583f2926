"""The distances hints are ranked by, ported from tracekit's
``crates/analysis/src/hints/score.rs``: Kolmogorov-Smirnov and total
variation distances, the nearby-times window density, the raw /
time-adjusted / time-explained scores, the session time's clustering and
what of it is left beyond an item.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from typing import NamedTuple, Optional

from .hints_series import (
    Series,
    f64_bits,
    fclamp,
    fmax,
    fmin,
    fsum,
    sat_add,
    sat_sub,
    sort_total,
)

ORDERED = "ordered"  # numbers: KS distance
CATEGORICAL = "categorical"  # strings as category numbers: total variation


class Scores(NamedTuple):
    """An item's scores: against the whole sessions (``raw``), against nearby
    times (``adjusted``), and nearby times against the whole (``from_time``)."""

    raw: float
    adjusted: float
    from_time: float


def distance(scale: str, a: list, b: list) -> float:
    """Distance between two weighted samples ``[(value, weight)]``; sorts them."""
    if scale == ORDERED:
        return weighted_ks(a, b)
    return total_variation(a, b)


def weighted_ks(a: list, b: list) -> float:
    """Kolmogorov-Smirnov distance of two weighted samples (0 if either is
    weightless)."""
    wa = fsum(x[1] for x in a)
    wb = fsum(x[1] for x in b)
    if wa <= 0.0 or wb <= 0.0:
        return 0.0
    sort_total(a, key=lambda x: x[0])
    sort_total(b, key=lambda x: x[0])
    i = j = 0
    ca = cb = d = 0.0
    na, nb = len(a), len(b)
    while i < na or j < nb:
        if i < na and j < nb:
            x = fmin(a[i][0], b[j][0])
        elif i < na:
            x = a[i][0]
        else:
            x = b[j][0]
        while i < na and a[i][0] <= x:
            ca += a[i][1]
            i += 1
        while j < nb and b[j][0] <= x:
            cb += b[j][1]
            j += 1
        d = fmax(d, abs(ca / wa - cb / wb))
        if x != x:
            break  # only reachable with NaN values; Rust would loop forever
    return fclamp(d, 0.0, 1.0)


def total_variation(a: list, b: list) -> float:
    """Total variation distance of two weighted samples of categories."""
    wa = fsum(x[1] for x in a)
    wb = fsum(x[1] for x in b)
    if wa <= 0.0 or wb <= 0.0:
        return 0.0
    shares: dict = {}
    for v, w in a:
        s = shares.setdefault(f64_bits(v), [0.0, 0.0])
        s[0] += w
    for v, w in b:
        s = shares.setdefault(f64_bits(v), [0.0, 0.0])
        s[1] += w
    tv = fsum(abs(shares[k][0] / wa - shares[k][1] / wb) for k in sorted(shares))
    return fclamp(tv / 2.0, 0.0, 1.0)


class WindowDensity:
    """A piecewise-constant density over session time, stored as its
    breakpoints, the integral up to each and the density right after it."""

    def __init__(self, at: list, integral: list, slope: list) -> None:
        self.at = at
        self.integral = integral
        self.slope = slope

    @classmethod
    def nearby(cls, series: Series, half: int) -> "WindowDensity":
        """Each occurrence spreads ``1/n`` evenly over the part of
        ``[t - half, t + half]`` where the item has a value in any session."""
        domains = [d for d in (series.domain(s) for s in range(len(series.pieces))) if d is not None]
        n = float(len(series.at))
        steps = []
        for _, t in series.at:
            a, b = sat_sub(t, half), sat_add(t, half)
            cover = 0
            for x, y in domains:
                cover += max(min(b, y) - max(a, x), 0)
            if cover <= 0:
                continue
            c = 1.0 / (n * float(cover))
            steps.append((float(a), c))
            steps.append((float(b), -c))
        return cls.from_steps(steps)

    @classmethod
    def from_steps(cls, steps: list) -> "WindowDensity":
        """The density from ``(time, change of density)`` steps in any order."""
        sort_total(steps, key=lambda s: s[0])
        at, integral, slope = [], [], []
        acc, s, last = 0.0, 0.0, -math.inf
        for x, dc in steps:
            if x > last and math.isfinite(last):
                acc += s * (x - last)
            s += dc
            last = x
            at.append(x)
            integral.append(acc)
            slope.append(fmax(s, 0.0))
        return cls(at, integral, slope)

    def up_to(self, t: float) -> float:
        """The integral of the density from minus infinity to ``t``."""
        k = bisect_right(self.at, t)
        if k == 0:
            return 0.0
        return self.integral[k - 1] + self.slope[k - 1] * (t - self.at[k - 1])

    def weight(self, p) -> float:
        """The density's weight over a piece's time."""
        return fmax(self.up_to(float(p.end)) - self.up_to(float(p.start)), 0.0)


def scores(series: Series, scale: str, half: int) -> Scores:
    """Raw, time-adjusted and time-explained scores of a series, the nearby
    times being ``half`` ns on either side of each occurrence."""
    occ = [(v, 1.0) for v in series.values]
    whole = [(p.value, p.raw_weight) for ps in series.pieces for p in ps]
    raw = distance(scale, list(occ), list(whole))
    if not occ:
        return Scores(raw, 0.0, 0.0)
    density = WindowDensity.nearby(series, half)
    near = []
    for ps in series.pieces:
        for p in ps:
            w = density.weight(p)
            if w > 0.0:
                near.append((p.value, w))
    adjusted = distance(scale, list(occ), list(near))
    from_time = distance(scale, near, list(whole))
    return Scores(raw, adjusted, from_time)


def time_clustering(times_s: list, ends: list) -> float:
    """KS distance of the occurrences' session times (s) from times spread
    evenly over the sessions (``ends`` ns each, from 0)."""
    spans = [float(max(e, 1)) / 1e9 for e in ends]
    total = fsum(spans)
    if not times_s or total <= 0.0:
        return 0.0

    def cdf(t: float) -> float:
        return fsum(fclamp(t, 0.0, e) for e in spans) / total

    v = list(times_s)
    sort_total(v)
    return fclamp(_ks_against(v, cdf), 0.0, 1.0)


def _ks_against(v: list, cdf) -> float:
    """Largest gap between the empirical distribution of sorted ``v`` and
    ``cdf``, checked on both sides of each run of equal values."""
    n = float(len(v))
    d = 0.0
    i = 0
    while i < len(v):
        j = i
        while j < len(v) and v[j] == v[i]:
            j += 1
        f = cdf(v[i])
        d = fmax(fmax(d, abs(float(i) / n - f)), abs(float(j) / n - f))
        if j == i:
            j = i + 1  # a NaN never equals itself; Rust would loop forever
        i = j
    return d


def _distinct_values(pieces: list):
    """Distinct piece values in ``total_cmp`` order, with the time each held."""
    by_value = [(p.value, float(p.end - p.start)) for p in pieces]
    sort_total(by_value, key=lambda x: x[0])
    values, held = [], []
    for v, d in by_value:
        if values and values[-1] == v:
            held[-1] += d
        else:
            values.append(v)
            held.append(d)
    return values, held


def _neighbourhood(x: float, values: list, below: list, scale: str, q: float):
    """The range of distinct values ``(first, last)`` an occurrence's value
    ``x`` looks at, or None."""
    at = bisect_left(values, x)
    exact = at < len(values) and values[at] == x
    if scale == CATEGORICAL:
        return (at, at) if exact else None
    lo_f = below[at] - q
    hi_f = (below[at + 1] if exact else below[at]) + q
    a = bisect_right(below, lo_f, 1, len(below)) - 1
    b = bisect_left(below, hi_f, 0, len(values))
    a, b = min(a, at), max(b, at + (1 if exact else 0))
    return (a, b - 1) if b > a else None


def time_beyond(series: Series, scale: str, q: float) -> Optional[float]:
    """KS distance of the occurrences' times from the times when the item had
    values like its value at each occurrence (the same category, or within
    ``q`` of its share of time on either side): time's association beyond
    the item. None when nothing can be compared."""
    pieces = [p for ps in series.pieces for p in ps if p.end > p.start]
    if not pieces or not series.values:
        return None
    values, held = _distinct_values(pieces)
    total = fsum(held)
    below = []
    acc = 0.0
    for d in held:
        below.append(acc / total)
        acc += d
    below.append(1.0)
    ranges = [_neighbourhood(x, values, below, scale, q) for x in series.values]
    prefix = [0.0] * (len(values) + 1)
    for k in range(len(values)):
        prefix[k + 1] = prefix[k] + held[k]
    used = []
    for r in ranges:
        if r is not None:
            a, b = r
            d = prefix[b + 1] - prefix[a]
            if d > 0.0:
                used.append((a, b, d))
    if not used:
        return None
    n = float(len(used))
    diff = [0.0] * (len(values) + 1)
    for a, b, d in used:
        diff[a] += 1.0 / (n * d)
        diff[b + 1] -= 1.0 / (n * d)
    rate = []
    r = 0.0
    for d in diff[: len(values)]:
        r += d
        rate.append(fmax(r, 0.0))
    steps = []
    for p in pieces:
        k = bisect_left(values, p.value)
        if rate[k] > 0.0:
            steps.append((float(p.start), rate[k]))
            steps.append((float(p.end), -rate[k]))
    density = WindowDensity.from_steps(steps)
    times = [float(t) for (_, t), r in zip(series.at, ranges) if r is not None]
    sort_total(times)
    return fclamp(_ks_against(times, density.up_to), 0.0, 1.0)


def percentile(sorted_values: list, p: float) -> Optional[float]:
    """Percentile with linear interpolation between closest ranks."""
    if not sorted_values:
        return None
    pos = p * float(len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - float(lo))
