"""Ranked context hints, a pure-Python port of tracekit's Rust hints.

This is seed 000's "which context goes with the bug", as computed by
``tracekit_analysis::hints::hints_with`` (``crates/analysis/src/hints/``),
so that a Spark job can compute the same pooled hints over many sessions.
It uses the Python standard library only and keeps Rust's operation order,
so the numbers are the same IEEE doubles (see ``hints_series`` for the
numeric helpers and ``hints_score`` for the distances).

Entry point::

    hints(sessions, occurrences, rate_window_s=5.0, time_window_s=None)

``sessions`` is the pooled list of sessions, one dict each::

    {"horizon_ns": int,              # tracekit's problems::horizon(session)
     "properties": [(key, value), ...],  # accepted; the hints do not read them
     "context": [{"label": str,
                  "type": "int" | "long" | "float" | "double" | "string",
                  "unit": str | None,
                  "times": [int ns, ...], "values": [...]}, ...],
     "counters": [{"name": str, "unit": str | None,
                   "kind": "level" | "sampled" | "cumulative",
                   "wraps_at": float | None, "pid": int | None,
                   "cpu": int | None,
                   "times": [int ns, ...], "values": [float, ...]}, ...]}

``float`` context values are rounded to f32 on input, as Rust stores them.
Non-finite numbers may be given as floats or as the strings ``"NaN"``,
``"inf"``, ``"-inf"``; a float given as None (JSON null, which is how serde
writes a non-finite number) is read as NaN.

``occurrences`` is a list of ``(session_index, ts_ns)`` pairs in the order
``problems::find`` gives them (by session, then time).

The result is a list of dicts, ranked as Rust ranks them, each with exactly
the fields of the serde JSON of Rust's ``Hint``, in order: ``label``,
``type``, then ``top_values`` (``[{"value", "share"}]``, for int, long and
string items) or ``p5`` and ``p95`` (floats, rates, the session time; None
when undefined everywhere), then ``score``, ``defined``, ``raw_score``,
``kind`` (``value``/``rate``/``time``), ``confounded_with_time``,
``expected_from_time``, ``unit`` and ``note``.

How it works (see the Rust module docs for the method): every context item
(and every counter, as ``Session::context_items`` turns it into one) is
looked up at each occurrence; running totals are compared by their rate;
``raw_score`` compares the occurrences with the whole sessions, ``score``
with the item at nearby session times, ``expected_from_time`` nearby times
with the whole; the ``Session time`` pseudo-item says how the occurrences
cluster in time and what of that no item explains.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Optional

from .hints_score import CATEGORICAL, ORDERED, Scores, percentile, scores, time_beyond, time_clustering
from .hints_series import (
    as_f64,
    as_i64,
    context_items,
    declared_counters,
    div_i64,
    fclamp,
    fmax,
    fmin,
    is_cumulative,
    rate_series,
    sort_total,
    to_f32,
    total_key,
    unwrapped,
    value_series,
)

__all__ = ["hints", "TIME_LABEL", "CONFOUND_MIN"]

#: Label of the session-time pseudo-item.
TIME_LABEL = "Session time"
#: Raw score and time-explained score must both reach this for an item to be
#: called confounded with time; an item explains time only from this score.
CONFOUND_MIN = 0.25


def hints(
    sessions: list,
    occurrences: list,
    rate_window_s: float = 5.0,
    time_window_s: Optional[float] = None,
) -> list:
    """Ranked hints for every context item of the pooled sessions (by label)
    and the session time; see the module docstring for the formats."""
    occurrences = [(int(s), int(t)) for s, t in occurrences]
    items = [context_items(s) for s in sessions]
    labels = _labels(items)
    ends = [int(s["horizon_ns"]) for s in sessions]
    settings = window_settings(ends, rate_window_s, time_window_s)
    by_key = [_first_by_label_and_type(s) for s in items]
    declared_by_session = [declared_counters(s) for s in sessions]
    computed = [
        item_hint(
            label,
            kind,
            [k.get((label, kind)) for k in by_key],
            [d.get(label) for d in declared_by_session],
            occurrences,
            ends,
            settings,
        )
        for label, kind in labels
    ]
    return rank(computed, occurrences, ends)


# ---------------------------------------------------------------- one item at a time
#
# The same computation split for a distributed job (spark/tracekit_fleet/jobs.py):
# each item's hint and its time-beyond distance can be computed where the
# item's data is (``item_hint``), and ``rank`` finishes on the driver.


def window_settings(ends: list, rate_window_s: float = 5.0, time_window_s: Optional[float] = None) -> dict:
    """The settings every item shares: half the nearby-times window, the rate
    window (ns) and the explanation share."""
    half = max(div_i64(time_window_ns(ends, time_window_s), 2), 1)
    return {
        "half": half,
        "rate_ns": as_i64(fmax(rate_window_s, 1e-6) * 1e9),
        "rate_window_s": rate_window_s,
        "share": explanation_share(ends, half),
    }


def explanation_share(ends: list, half: int) -> float:
    """The nearby-times window as a share of the median session."""
    return fclamp(float(half) / float(_median_end(ends)), 0.01, 0.5)


def item_hint(label, kind, tracks, declared, occurrences, ends, settings):
    """One item's hint and its time-beyond distance (None when it cannot
    explain time): ``tracks`` is the item's ``Track`` (or None) per session,
    ``declared`` the ``(kind, wraps_at)`` of the counter behind it per
    session, ``occurrences`` ``(session, ts)`` pairs of ints."""
    kinds = [d[0] if d is not None else None for d in declared]
    half = settings["half"]
    if is_cumulative(tracks, kinds):
        h, series, scale = _rate_hint(
            label, kind, tracks, declared, occurrences, settings["rate_ns"], half, settings["rate_window_s"]
        )
    else:
        h, series, scale = _value_hint(label, kind, tracks, occurrences, ends, half)
    return h, item_beyond(h, series, scale, settings["share"])


def item_beyond(h: dict, series, scale, share: float):
    """How associated time stays beyond this item, for items that may explain it."""
    if h["confounded_with_time"] or not h["score"] >= CONFOUND_MIN:
        return None
    return time_beyond(series, scale, share)


def rank(items: list, occurrences: list, ends: list) -> list:
    """The ranked hints from ``(hint, beyond)`` per item, in the items' order
    of sight: the time item added, everything sorted as tracekit sorts."""
    occurrences = [(int(s), int(t)) for s, t in occurrences]
    found = [(d, h["label"]) for h, d in items if d is not None]
    explained = min(found, key=lambda x: (total_key(x[0]), x[1])) if found else None
    out = [h for h, _ in items]
    if out:
        out.append(_time_hint(occurrences, ends, explained))
    out.sort(key=lambda h: (h["confounded_with_time"], -total_key(h["score"]), h["label"]))
    return out


def _labels(items: list) -> list:
    """Each label once, with the type of its first track, in order of sight."""
    labels, seen = [], set()
    for s in items:
        for t in s:
            if t.label not in seen:
                seen.add(t.label)
                labels.append((t.label, t.kind))
    return labels


def _first_by_label_and_type(items: list) -> dict:
    """A session's first item of each (label, type)."""
    out: dict = {}
    for t in items:
        out.setdefault((t.label, t.kind), t)
    return out


def time_window_ns(ends: list, time_window_s: Optional[float]) -> int:
    """``HintOptions::time_window_ns``: the given width, else a quarter of
    the median session end."""
    w = time_window_s
    if w is not None and math.isfinite(w) and w > 0.0:
        return as_i64(w * 1e9)
    e = sorted(ends)
    if not e:
        return 1
    return max(div_i64(e[len(e) // 2], 4), 1)


def _median_end(ends: list) -> int:
    """The median session end (at least 1; 1 with no session)."""
    e = sorted(ends)
    return max(e[len(e) // 2], 1) if e else 1


def _hint(label, kind, stats, defined, basis, unit, note) -> dict:
    """A hint dict with the serde field order of Rust's ``Hint``."""
    h = {"label": label, "type": kind}
    h.update(stats)
    h.update(
        score=0.0,
        defined=defined,
        raw_score=0.0,
        kind=basis,
        confounded_with_time=False,
        expected_from_time=0.0,
        unit=unit,
        note=note,
    )
    return h


def _finish(h: dict, s: Scores) -> dict:
    """Fills in the scores and, when confounded with time, says why."""
    h["score"] = s.adjusted
    h["raw_score"] = s.raw
    h["expected_from_time"] = s.from_time
    h["confounded_with_time"] = s.raw >= CONFOUND_MIN and s.from_time >= CONFOUND_MIN and s.from_time > s.adjusted
    if h["confounded_with_time"]:
        why = (
            "confounded with time: its values at the occurrences are what their times alone predict "
            f"(raw {fmt_fixed(s.raw, 2)}, time alone {fmt_fixed(s.from_time, 2)})"
        )
        h["note"] = why if h["note"] is None else f"{why}; {h['note']}"
    return h


def _first_unit(tracks: list) -> Optional[str]:
    """The first known unit among the sessions' tracks."""
    return next((t.unit for t in tracks if t is not None and t.unit is not None), None)


def _value_hint(label, kind, tracks, occurrences, ends, half):
    """A hint comparing the item's values."""
    series, values = value_series(tracks, occurrences, ends)
    scale = CATEGORICAL if kind == "string" else ORDERED
    if kind in ("float", "double"):
        stats = continuous_stats(x for x in (as_f64(v) for v in values) if x is not None)
    else:
        stats = discrete_stats(values, kind)
    h = _hint(label, kind, stats, len(values), "value", _first_unit(tracks), None)
    return _finish(h, scores(series, scale, half)), series, scale


def _rate_hint(label, kind, tracks, declared, occurrences, rate_ns, half, rate_window_s):
    """A hint comparing a running total's rate."""
    totals = [
        None if t is None else unwrapped(t, d[1] if d is not None else None) for t, d in zip(tracks, declared)
    ]
    series = rate_series(totals, occurrences, rate_ns)
    unit = _first_unit(tracks)
    per_s = "per s" if unit is None else f"{unit}/s"
    note = f"a running total, compared by its rate ({per_s} over {fmt_s(rate_window_s)} s windows), not its value"
    h = _hint(label, kind, continuous_stats(series.values), len(series.values), "rate", per_s, note)
    return _finish(h, scores(series, ORDERED, half)), series, ORDERED


def _time_hint(occurrences: list, ends: list, explained) -> dict:
    """The session-time pseudo-item: raw score how the occurrences cluster in
    time, score what of that the best-explaining item leaves."""
    times = [float(ts) / 1e9 for _, ts in occurrences]
    raw = time_clustering(times, ends)
    beyond = explained if explained is not None and explained[0] < raw else None
    lo, hi = math.inf, -math.inf
    for t in times:
        lo, hi = fmin(lo, t), fmax(hi, t)
    emin, emax = math.inf, 0.0
    for e in ends:
        e = float(e) / 1e9
        emin, emax = fmin(emin, e), fmax(emax, e)
    if len(ends) > 1 and emax - emin > 0.05:
        span = f"{len(ends)} sessions {fmt_fixed(emin, 1)}–{fmt_fixed(emax, 1)} s long"
    elif len(ends) > 1:
        span = f"{len(ends)} sessions {fmt_fixed(emax, 1)} s long"
    else:
        span = f"a {fmt_fixed(emax, 1)} s session"
    if not times:
        note = "s since the session's start"
    else:
        note = (
            "s since the session's start: the occurrences fall at "
            f"{fmt_fixed(lo, 1)}–{fmt_fixed(hi, 1)} s of {span}"
        )
    if beyond is not None:
        note += (
            f"; beyond {beyond[1]}, the item that best explains when they happen, "
            f"time scores {fmt_fixed(beyond[0], 2)}"
        )
    h = _hint(TIME_LABEL, "double", continuous_stats(times), len(times), "time", "s", note)
    h.update(score=raw if beyond is None else beyond[0], raw_score=raw, expected_from_time=raw)
    return h


# ---------------------------------------------------------------- statistics


def continuous_stats(values) -> dict:
    """5th and 95th percentiles of the finite values."""
    v = [x for x in values if math.isfinite(x)]
    sort_total(v)
    return {"p5": percentile(v, 0.05), "p95": percentile(v, 0.95)}


def discrete_stats(values: list, kind: str) -> dict:
    """Up to five most frequent values with their shares (first seen first on
    ties), values grouped by their Rust ``Display`` text."""
    counts: dict = {}
    for i, v in enumerate(values):
        entry = counts.setdefault(display(v, kind), [0, v, i])
        entry[0] += 1
    n = float(max(len(values), 1))
    top = sorted(counts.values(), key=lambda e: (-e[0], e[2]))[:5]
    return {"top_values": [{"value": _json_value(v, kind), "share": float(c) / n} for c, v, _ in top]}


def _json_value(v, kind: str):
    """A context value as serde writes it: ints, floats or strings."""
    if kind in ("int", "long"):
        return int(v)
    if kind in ("float", "double"):
        return float(v)
    return v


# ---------------------------------------------------------------- text like Rust's


def fmt_fixed(x: float, digits: int) -> str:
    """Rust's ``{:.N}`` for f64 (ties to even on the exact value, like
    Python; only NaN is spelled differently)."""
    if x != x:
        return "NaN"
    return f"{x:.{digits}f}"


def fmt_s(s: float) -> str:
    """Seconds as short text (``5``, ``2.5``): three decimals, trailing
    zeros and point removed."""
    return fmt_fixed(s, 3).rstrip("0").rstrip(".")


def display(v, kind: str) -> str:
    """Rust's ``Display`` of a context value of this type."""
    if kind in ("int", "long"):
        return str(int(v))
    if kind == "string":
        return v
    return _display_float(float(v), f32=(kind == "float"))


def _display_float(x: float, f32: bool) -> str:
    """Shortest round-trip digits (of the f32 when ``f32``), written out
    without an exponent, as Rust's ``Display`` of a float does."""
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    digits = _shortest_f32(x) if f32 else repr(x)
    text = format(Decimal(digits), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _shortest_f32(x: float) -> str:
    """The shortest decimal that reads back as the f32 ``x``, the closest to
    it among equally short ones."""
    exact = Decimal(x)
    for p in range(1, 10):
        base = Decimal(f"{x:.{p - 1}e}")
        ulp = Decimal(1).scaleb(base.adjusted() - (p - 1))
        best = None
        for c in (base - ulp, base, base + ulp):
            if c != 0 and to_f32(float(c)) == x:
                if best is None or abs(c - exact) < abs(best - exact):
                    best = c
        if best is not None:
            return str(best)
    return repr(x)
