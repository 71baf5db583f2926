"""Context items and what a hint compares, ported from tracekit's Rust code.

Mirrors ``crates/analysis/src/hints/series.rs`` together with the pieces of
the model it relies on: ``ContextTrack`` / ``CounterTrack::to_context`` and
``Session::context_items`` (``crates/model``), ``context::value_at`` and the
declared counter kinds.

All arithmetic keeps the Rust operation order so that results are the same
IEEE doubles. Helpers for Rust's numeric semantics (``as i64`` casts, ``f32``
rounding, ``f64::max``/``min``, sequential sums, ``total_cmp`` sorting) live
here too and are shared by the other hint modules.
"""

from __future__ import annotations

import math
import struct
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Callable, NamedTuple, Optional

I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1

#: Evenly spaced samples per session of an interpolated item or a rate.
BASELINE_SAMPLES = 4096
#: A numeric item that never decreases and grows this often is a counter.
MIN_COUNTER_STEPS = 8

CONTINUOUS_TYPES = ("float", "double")
TYPES = ("int", "long", "float", "double", "string")


# ---------------------------------------------------------------- Rust numerics


def to_f32(x: float) -> float:
    """``x as f32`` (round to nearest; out of range becomes infinite)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def as_i64(x: float) -> int:
    """``x as i64``: truncation toward zero, saturating, NaN to 0."""
    if x != x:
        return 0
    if x >= 9.223372036854775807e18:
        return I64_MAX
    if x <= -9.223372036854775808e18:
        return I64_MIN
    return int(x)


def div_i64(a: int, b: int) -> int:
    """Rust integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def sat_add(a: int, b: int) -> int:
    """``i64::saturating_add``."""
    return min(max(a + b, I64_MIN), I64_MAX)


def sat_sub(a: int, b: int) -> int:
    """``i64::saturating_sub``."""
    return min(max(a - b, I64_MIN), I64_MAX)


def fmax(a: float, b: float) -> float:
    """``f64::max``: a NaN operand is ignored."""
    if a != a:
        return b
    if b != b:
        return a
    return a if a > b else b


def fmin(a: float, b: float) -> float:
    """``f64::min``: a NaN operand is ignored."""
    if a != a:
        return b
    if b != b:
        return a
    return a if a < b else b


def fclamp(x: float, lo: float, hi: float) -> float:
    """``f64::clamp`` (NaN stays NaN)."""
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def fsum(values) -> float:
    """``Iterator::<f64>::sum``: plain left-to-right additions from -0.0.

    (Python 3.12's ``sum`` compensates rounding errors, which Rust does not.)
    """
    acc = -0.0
    for v in values:
        acc += v
    return acc


def total_key(x: float) -> int:
    """A sort key ordering floats like ``f64::total_cmp``."""
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    return bits ^ ((bits >> 63) & 0x7FFFFFFFFFFFFFFF)


def _plain_order_ok(xs) -> bool:
    """True when ``<`` on these floats agrees with ``total_cmp``."""
    return not any(x != x or (x == 0.0 and math.copysign(1.0, x) < 0.0) for x in xs)


def sort_total(items: list, key: Callable = lambda x: x) -> None:
    """Stable in-place sort by a float key in ``total_cmp`` order."""
    if _plain_order_ok(key(i) for i in items):
        items.sort(key=key)
    else:
        items.sort(key=lambda i: total_key(key(i)))


def f64_bits(x: float) -> int:
    """``f64::to_bits`` as an unsigned integer."""
    return struct.unpack("<Q", struct.pack("<d", x))[0]


# ---------------------------------------------------------------- tracks


@dataclass
class Track:
    """A context item over time (``ContextTrack``): one typed column.

    ``values`` hold ints for ``int``/``long``, floats for ``double``, floats
    already rounded to f32 for ``float`` and str for ``string``.
    """

    label: str
    kind: str
    unit: Optional[str]
    times: list
    values: list

    def __len__(self) -> int:
        return len(self.times)

    def continuous(self) -> bool:
        """Float and double items are interpolated; others hold."""
        return self.kind in CONTINUOUS_TYPES

    def get_f64(self, i: int) -> Optional[float]:
        """The numeric value at ``i`` as a double (None for strings)."""
        if self.kind == "string":
            return None
        return float(self.values[i])


def _float_in(v) -> float:
    """A float from the input format (numbers, 'NaN'/'inf' strings, or None
    for a number JSON could not hold, read as NaN)."""
    if v is None:
        return math.nan
    if isinstance(v, str):
        return float(v.replace("Infinity", "inf"))
    return float(v)


def context_track(d: dict) -> Track:
    """A ``Track`` from the input dict of a context track."""
    kind = d["type"]
    if kind not in TYPES:
        raise ValueError(f"unknown context type {kind!r}")
    values = list(d["values"])
    if kind in ("int", "long"):
        values = [int(v) for v in values]
    elif kind == "float":
        values = [to_f32(_float_in(v)) for v in values]
    elif kind == "double":
        values = [_float_in(v) for v in values]
    else:
        values = [str(v) for v in values]
    if len(values) != len(d["times"]):
        raise ValueError(f"context {d['label']!r}: times and values differ in length")
    return Track(d["label"], kind, d.get("unit"), [int(t) for t in d["times"]], values)


def counter_values(c: dict) -> list:
    """A counter's values as floats."""
    return [_float_in(v) for v in c["values"]]


def counter_to_context(c: dict) -> Track:
    """``CounterTrack::to_context``: a level of whole numbers becomes a held
    ``long``, anything else an interpolated ``double``."""
    values = counter_values(c)
    whole = all(v.is_integer() and abs(v) < 9.0e15 for v in values)
    if c.get("kind", "level") == "level" and whole:
        return Track(c["name"], "long", c.get("unit"), [int(t) for t in c["times"]], [as_i64(v) for v in values])
    return Track(c["name"], "double", c.get("unit"), [int(t) for t in c["times"]], values)


def context_items(session: dict) -> list:
    """``Session::context_items``: context tracks, then each non-empty counter
    whose name no context track uses."""
    context = session.get("context", [])
    out = [context_track(t) for t in context]
    labels = {t["label"] for t in context}
    for c in session.get("counters", []):
        if c["times"] and c["name"] not in labels:
            out.append(counter_to_context(c))
    return out


def declared_counters(session: dict) -> dict:
    """For one session, ``label -> (kind, wraps_at)`` of the first non-empty
    counter of that name, for names no context track uses."""
    context_labels = {t["label"] for t in session.get("context", [])}
    out: dict = {}
    for c in session.get("counters", []):
        if c["times"] and c["name"] not in context_labels and c["name"] not in out:
            w = c.get("wraps_at")
            out[c["name"]] = (c.get("kind", "level"), None if w is None else _float_in(w))
    return out


def declared_kinds(sessions: list, label: str) -> list:
    """``declared_kinds``: per session, how its reader declared the counter
    behind ``label`` (None for a context track's label or no counter)."""
    return [declared_counters(s).get(label) for s in sessions]


# ---------------------------------------------------------------- value at an instant


def value_at(track: Track, t: int):
    """``context::value_at``: the held value (int, long, string) or the
    linear interpolation (float, double) at ``t``; None where undefined."""
    times = track.times
    after = bisect_right(times, t)
    if after == 0:
        return None
    i = after - 1
    if not track.continuous() or times[i] == t:
        return track.values[i]
    j = after
    if j >= len(times):
        return None
    t0, t1 = float(times[i]), float(times[j])
    v0, v1 = track.get_f64(i), track.get_f64(j)
    v = v0 + (float(t) - t0) / (t1 - t0) * (v1 - v0)
    return to_f32(v) if track.kind == "float" else v


def as_f64(value) -> Optional[float]:
    """``ContextValue::as_f64`` (None for strings)."""
    if value is None or isinstance(value, str):
        return None
    return float(value)


# ---------------------------------------------------------------- series


class Piece(NamedTuple):
    """A stretch ``[start, end)`` of one session during which an item held
    ``value``; ``raw_weight`` is its weight in the whole-session baseline."""

    start: int
    end: int
    raw_weight: float
    value: float


@dataclass
class Series:
    """An item's values at the occurrences and its course per session."""

    at: list = field(default_factory=list)  # (session, ts_ns) per defined occurrence
    values: list = field(default_factory=list)  # value (category number) at each
    pieces: list = field(default_factory=list)  # per session, pieces in time order

    def domain(self, s: int):
        """``(first start, last end)`` of session ``s``'s pieces, or None."""
        if s >= len(self.pieces) or not self.pieces[s]:
            return None
        p = self.pieces[s]
        return (p[0].start, p[-1].end)


class Categories:
    """Numbers for strings, in order of first sight."""

    def __init__(self) -> None:
        self._ids: dict = {}

    def id(self, s: str) -> float:
        return self._ids.setdefault(s, float(len(self._ids)))


def _key_value(v, cats: Categories) -> Optional[float]:
    """A value as a comparable number: a category for strings, else the
    finite number."""
    if isinstance(v, str):
        return cats.id(v)
    x = float(v)
    return x if math.isfinite(x) else None


def _occ_session_track(tracks: list, session: int):
    """``tracks.get(session)`` flattened."""
    return tracks[session] if 0 <= session < len(tracks) else None


def value_series(tracks: list, occurrences: list, ends: list):
    """``value_series``: values at the occurrences (and the raw values), and
    per session the held records up to the session end, or 4,096 samples of
    the interpolated line between first and last record."""
    cats = Categories()
    out = Series()
    raw_values = []
    for session, ts in occurrences:
        t = _occ_session_track(tracks, session)
        v = None if t is None else value_at(t, ts)
        if v is None:
            continue
        raw_values.append(v)
        x = _key_value(v, cats)
        if x is not None:
            out.at.append((session, ts))
            out.values.append(x)
    for t, end in zip(tracks, ends):
        pieces: list = []
        if t is not None:
            if t.continuous():
                first = t.times[0] if t.times else None
                last = t.times[-1] if t.times else None
                sampled(pieces, first, last, lambda at, t=t: as_f64(value_at(t, at)))
            else:
                _held_pieces(pieces, t, end, cats)
        out.pieces.append(pieces)
    return out, raw_values


def _held_pieces(pieces: list, t: Track, end: int, cats: Categories) -> None:
    """One piece per record of a held item, until the next record or ``end``."""
    n = len(t)
    for i in range(n):
        stop = t.times[i + 1] if i + 1 < n else end
        if t.kind == "string":
            value = cats.id(t.values[i])
        else:
            value = t.get_f64(i)
            if not math.isfinite(value):
                value = None
        if value is not None:
            start = t.times[i]
            pieces.append(Piece(start, max(stop, start), float(max(stop - start, 0)), value))


def sampled(pieces: list, a: Optional[int], b: Optional[int], f: Callable) -> None:
    """``sampled``: ``f`` at the middles of 4,096 equal parts of ``[a, b]``,
    one piece per part; a single instant gives one piece of no duration."""
    if a is None or b is None:
        return
    if b <= a:
        value = f(a)
        if value is not None and math.isfinite(value):
            pieces.append(Piece(a, a, 1.0, value))
        return
    span = float(b - a)
    k = float(BASELINE_SAMPLES)
    for i in range(BASELINE_SAMPLES):
        fi = float(i)
        at = a + as_i64(span * (fi + 0.5) / k)
        value = f(at)
        if value is not None and math.isfinite(value):
            start = a + as_i64(span * fi / k)
            stop = a + as_i64(span * (fi + 1.0) / k)
            pieces.append(Piece(start, stop, 1.0, value))


def is_cumulative(tracks: list, declared: list) -> bool:
    """``is_cumulative``: declared cumulative in some session, or numeric,
    never decreasing, finite and growing at least eight times in all."""
    if "cumulative" in declared:
        return True
    steps = 0
    for t in tracks:
        if t is None:
            continue
        if t.kind == "string":
            return False
        for i in range(1, len(t)):
            a, b = t.get_f64(i - 1), t.get_f64(i)
            if b < a or not math.isfinite(b):
                return False
            if b > a:
                steps += 1
    return steps >= MIN_COUNTER_STEPS


def unwrapped(t: Track, wraps_at: Optional[float]) -> Track:
    """``unwrapped``: the running total with each decrease undone, as a wrap
    at ``wraps_at`` when known (and above the last value), else a reset."""
    total = 0.0
    prev = None
    values = []
    for i in range(len(t)):
        v = t.get_f64(i)
        if v is None:
            v = 0.0
        if prev is None:
            total += v
        elif v >= prev:
            total += v - prev
        elif wraps_at is not None and wraps_at > prev:
            total += wraps_at - prev + v
        else:
            total += v
        prev = v
        values.append(total)
    if not t.continuous():
        return Track(t.label, "long", t.unit, list(t.times), [as_i64(v) for v in values])
    return Track(t.label, "double", t.unit, list(t.times), values)


def _rate(t: Track, at: int, half: int) -> Optional[float]:
    """Growth of the total over ``[at - half, at + half]`` cut to the records,
    per second; None when less than ``half`` of the window remains."""
    if not t.times:
        return None
    a = max(at - half, t.times[0])
    b = min(at + half, t.times[-1])
    if b - a < half:
        return None
    va = as_f64(value_at(t, a))
    if va is None:
        return None
    vb = as_f64(value_at(t, b))
    if vb is None:
        return None
    return (vb - va) * 1e9 / float(b - a)


def rate_series(totals: list, occurrences: list, window_ns: int) -> Series:
    """``rate_series``: the rate at the occurrences and 4,096 samples of it
    per session (where the records span at least half a window)."""
    half = max(div_i64(window_ns, 2), 1)
    out = Series()
    for session, ts in occurrences:
        t = _occ_session_track(totals, session)
        if t is None:
            continue
        r = _rate(t, ts, half)
        if r is not None and math.isfinite(r):
            out.at.append((session, ts))
            out.values.append(r)
    for t in totals:
        pieces: list = []
        if t is not None and t.times:
            a, b = t.times[0], t.times[-1]
            if b - a >= half:
                sampled(pieces, a, b, lambda at, t=t: _rate(t, at, half))
        out.pieces.append(pieces)
    return out
