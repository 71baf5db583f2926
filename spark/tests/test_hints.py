"""Tests of the Python port of tracekit's ranked context hints.

Runs with the standard library only (no Spark, no Rust):
``python3 -m unittest discover -s spark/tests`` from the repository root.

The expected hints below were computed by the Rust implementation
(``tracekit_analysis::hints::hints_with``) on the same hand-made sessions:
a scratch program outside the repository built ``Session``s from these dicts
(horizon kept through ``duration_ns``), ran ``hints_with`` with the options
shown, and printed ``serde_json::to_string`` of the ``Vec<Hint>``, which is
pasted verbatim. The port matched it bit for bit.
"""

import json
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tracekit_fleet.hints import hints  # noqa: E402
from tracekit_fleet.hints import display  # noqa: E402
from tracekit_fleet.hints_series import as_i64, div_i64, to_f32  # noqa: E402

S = 1_000_000_000  # ns per second


def case_a():
    """One 20 s session: every item type, counters of every kind."""
    cpu = [0.12, 0.5, 0.93, 0.33, 0.71, 0.05, 0.66, 0.8, 0.2, 0.45,
           0.9, 0.15, 0.6, 0.35, 0.77, 0.1, 0.55, 0.95, 0.25, 0.4]
    energy = [10, 40, 75, 95, 20, 60, 90, 15, 50, 85]  # wraps at 100
    session = {
        "horizon_ns": 20 * S,
        "properties": [("energy wraps at", "100")],
        "context": [
            {"label": "Screen orientation", "type": "int", "unit": None,
             "times": [0, 4 * S, 9 * S, 15 * S], "values": [0, 1, 0, 1]},
            {"label": "CPU", "type": "float", "unit": "%",
             "times": [k * S for k in range(20)], "values": cpu},
            {"label": "Network", "type": "string", "unit": None,
             "times": [-2 * S, 6 * S, 12 * S], "values": ["wifi", "3g", "wifi"]},
            {"label": "Temperature", "type": "double", "unit": "C",
             "times": [0, 5 * S, 10 * S, 15 * S, 19 * S], "values": [30.5, 31.25, float("nan"), 33.0, 32.5]},
        ],
        "counters": [
            {"name": "energy", "unit": "J", "kind": "cumulative", "wraps_at": 100.0, "pid": None, "cpu": None,
             "times": [2 * k * S for k in range(10)], "values": [float(v) for v in energy]},
            {"name": "cpu0 freq", "unit": "kHz", "kind": "level", "wraps_at": None, "pid": None, "cpu": 0,
             "times": [0, 3 * S, 7 * S, 11 * S, 16 * S], "values": [300000.0, 1200000.0, 300000.0, 1800000.0, 300000.0]},
            {"name": "Network", "unit": None, "kind": "level", "wraps_at": None, "pid": None, "cpu": None,
             "times": [0], "values": [1.0]},
            {"name": "bytes", "unit": None, "kind": "level", "wraps_at": None, "pid": 42, "cpu": None,
             "times": [k * S for k in range(0, 20, 2)], "values": [float(1000 * k * k) for k in range(10)]},
            {"name": "volts", "unit": "V", "kind": "sampled", "wraps_at": None, "pid": None, "cpu": None,
             "times": [k * 4 * S for k in range(5)], "values": [4.2, 4.1, 4.15, 3.9, 3.8]},
        ],
    }
    occurrences = [(0, t) for t in (1_500_000_000, 4 * S, 6_250_000_000, 6_900_000_000,
                                    12 * S, 12_400_000_000, 13_100_000_000, 18_750_000_000)]
    return [session], occurrences


def case_b():
    """Two pooled sessions whose items differ in type, with a clustered problem."""
    s0 = {
        "horizon_ns": 31 * S,
        "properties": [],
        "context": [
            {"label": "CPU", "type": "double", "unit": None,
             "times": [k * 3 * S for k in range(11)], "values": [0.1 * (k % 4) for k in range(11)]},
            {"label": "Mode", "type": "string", "unit": None,
             "times": [0, 10 * S, 20 * S], "values": ["a", "b", "a"]},
            {"label": "Ünits", "type": "long", "unit": "u",
             "times": [k * S for k in range(30)], "values": [k * 7 for k in range(30)]},
        ],
        "counters": [],
    }
    s1 = {
        "horizon_ns": 24 * S,
        "properties": [],
        "context": [
            {"label": "CPU", "type": "int", "unit": None,
             "times": [0, 12 * S], "values": [1, 2]},
            {"label": "Mode", "type": "string", "unit": None,
             "times": [0, 8 * S, 16 * S], "values": ["b", "a", "b"]},
        ],
        "counters": [
            {"name": "Ünits", "unit": "u", "kind": "level", "wraps_at": None, "pid": None, "cpu": None,
             "times": [k * 2 * S for k in range(12)], "values": [float(k * 20) for k in range(12)]},
        ],
    }
    occurrences = [(0, 11 * S), (0, 13 * S), (0, 17 * S), (1, 2 * S), (1, 5 * S), (1, 18 * S), (1, 20 * S)]
    return [s0, s1], occurrences


def case_c():
    """Items but no occurrences."""
    sessions, _ = case_a()
    return sessions, []


def case_d():
    """A battery draining with the clock and late occurrences: confounded."""
    session = {
        "horizon_ns": 60 * S,
        "properties": [],
        "context": [
            {"label": "Battery level", "type": "int", "unit": "%",
             "times": [k * S for k in range(60)], "values": [100 - (5 * k) // 3 for k in range(60)]},
            {"label": "Audio route", "type": "string", "unit": None,
             "times": [0, 25 * S], "values": ["speaker", "headset"]},
            {"label": "Light", "type": "float", "unit": "lx",
             "times": [k * 2 * S for k in range(30)], "values": [float((k * 37) % 11) for k in range(30)]},
        ],
        "counters": [],
    }
    occurrences = [(0, t * 100_000_000) for t in (455, 480, 502, 515, 533, 551, 570, 588)]
    return [session], occurrences

# Rust: hints_with(case_a(), HintOptions { rate_window_s: 5.0, time_window_s: None })
EXPECTED_A = (
    '[{"label":"energy","type":"double","p5":13.1375,"p95":15.815,"score":0.4091755022214285,"defined'
    '":7,"raw_score":0.5292619977678571,"kind":"rate","confounded_with_time":false,"expected_from_tim'
    'e":0.19172781815357098,"unit":"J/s","note":"a running total, compared by its rate (J/s over 5 s '
    'windows), not its value"},{"label":"Temperature","type":"double","p5":30.762500000000003,"p95":3'
    '2.388125,"score":0.3366223995317138,"defined":8,"raw_score":0.4164948453608247,"kind":"value","c'
    'onfounded_with_time":false,"expected_from_time":0.13865979381443294,"unit":"C","note":null},{"la'
    'bel":"CPU","type":"float","p5":0.3728250041604042,"p95":0.7611500203609466,"score":0.29713856100'
    '96571,"defined":8,"raw_score":0.29296875,"kind":"value","confounded_with_time":false,"expected_f'
    'rom_time":0.010119573406247251,"unit":"%","note":null},{"label":"cpu0 freq","type":"long","top_v'
    'alues":[{"value":1200000,"share":0.375},{"value":1800000,"share":0.375},{"value":300000,"share":'
    '0.25}],"score":0.18499999999999994,"defined":8,"raw_score":0.30000000000000004,"kind":"value","c'
    'onfounded_with_time":false,"expected_from_time":0.1150000000000001,"unit":"kHz","note":null},{"l'
    'abel":"bytes","type":"long","p5":1240.0,"p95":6600.0,"score":0.1820172991071426,"defined":7,"raw'
    '_score":0.194580078125,"kind":"rate","confounded_with_time":false,"expected_from_time":0.1360449'
    '2185357164,"unit":"per s","note":"a running total, compared by its rate (per s over 5 s windows)'
    ', not its value"},{"label":"Session time","type":"double","p5":2.375,"p95":16.772499999999997,"s'
    'core":0.17715478517332295,"defined":8,"raw_score":0.21999999999999997,"kind":"time","confounded_'
    'with_time":false,"expected_from_time":0.21999999999999997,"unit":"s","note":"s since the session'
    "'s start: the occurrences fall at 1.5–18.8 s of a 20.0 s session; beyond CPU, the item that best"
    ' explains when they happen, time scores 0.18"},{"label":"volts","type":"double","p5":3.87775,"p9'
    '5":4.154625,"score":0.17142857142857132,"defined":7,"raw_score":0.18115234375,"kind":"value","co'
    'nfounded_with_time":false,"expected_from_time":0.05089285714285707,"unit":"V","note":null},{"lab'
    'el":"Network","type":"string","top_values":[{"value":"wifi","share":0.75},{"value":"3g","share":'
    '0.25}],"score":0.06624999999999995,"defined":8,"raw_score":0.022727272727272707,"kind":"value","'
    'confounded_with_time":false,"expected_from_time":0.04352272727272724,"unit":null,"note":null},{"'
    'label":"Screen orientation","type":"int","top_values":[{"value":0,"share":0.5},{"value":1,"share'
    '":0.5}],"score":0.06375000000000008,"defined":8,"raw_score":0.0,"kind":"value","confounded_with_'
    'time":false,"expected_from_time":0.06375000000000008,"unit":null,"note":null}]'
)

# Rust: hints_with(case_b(), HintOptions { rate_window_s: 2.0, time_window_s: 3.0 })
EXPECTED_B = (
    '[{"label":"Mode","type":"string","top_values":[{"value":"b","share":1.0}],"score":0.345238095238'
    '09523,"defined":7,"raw_score":0.5272727272727273,"kind":"value","confounded_with_time":false,"ex'
    'pected_from_time":0.18203463203463202,"unit":null,"note":null},{"label":"CPU","type":"double","p'
    '5":0.04000000000000001,"p95":0.16000000000000003,"score":0.25944010422221997,"defined":3,"raw_sc'
    'ore":0.388916015625,"kind":"value","confounded_with_time":false,"expected_from_time":0.185356987'
    '90278266,"unit":null,"note":null},{"label":"Session time","type":"double","p5":2.900000000000000'
    '4,"p95":19.4,"score":0.1648351648351647,"defined":7,"raw_score":0.2727272727272727,"kind":"time"'
    ',"confounded_with_time":false,"expected_from_time":0.2727272727272727,"unit":"s","note":"s since'
    " the session's start: the occurrences fall at 2.0–20.0 s of 2 sessions 24.0–31.0 s long; beyond "
    'Mode, the item that best explains when they happen, time scores 0.16"},{"label":"Ünits","type":"'
    'long","p5":7.0,"p95":10.0,"score":0.08331008183333583,"defined":7,"raw_score":0.0872977120535714'
    '5,"kind":"rate","confounded_with_time":false,"expected_from_time":0.017671130952381375,"unit":"u'
    '/s","note":"a running total, compared by its rate (u/s over 2 s windows), not its value"}]'
)

# Rust: hints_with(case_c(), HintOptions { rate_window_s: 5.0, time_window_s: None })
EXPECTED_C = (
    '[{"label":"CPU","type":"float","p5":null,"p95":null,"score":0.0,"defined":0,"raw_score":0.0,"kin'
    'd":"value","confounded_with_time":false,"expected_from_time":0.0,"unit":"%","note":null},{"label'
    '":"Network","type":"string","top_values":[],"score":0.0,"defined":0,"raw_score":0.0,"kind":"valu'
    'e","confounded_with_time":false,"expected_from_time":0.0,"unit":null,"note":null},{"label":"Scre'
    'en orientation","type":"int","top_values":[],"score":0.0,"defined":0,"raw_score":0.0,"kind":"val'
    'ue","confounded_with_time":false,"expected_from_time":0.0,"unit":null,"note":null},{"label":"Ses'
    'sion time","type":"double","p5":null,"p95":null,"score":0.0,"defined":0,"raw_score":0.0,"kind":"'
    'time","confounded_with_time":false,"expected_from_time":0.0,"unit":"s","note":"s since the sessi'
    'on\'s start"},{"label":"Temperature","type":"double","p5":null,"p95":null,"score":0.0,"defined":0'
    ',"raw_score":0.0,"kind":"value","confounded_with_time":false,"expected_from_time":0.0,"unit":"C"'
    ',"note":null},{"label":"bytes","type":"long","p5":null,"p95":null,"score":0.0,"defined":0,"raw_s'
    'core":0.0,"kind":"rate","confounded_with_time":false,"expected_from_time":0.0,"unit":"per s","no'
    'te":"a running total, compared by its rate (per s over 5 s windows), not its value"},{"label":"c'
    'pu0 freq","type":"long","top_values":[],"score":0.0,"defined":0,"raw_score":0.0,"kind":"value","'
    'confounded_with_time":false,"expected_from_time":0.0,"unit":"kHz","note":null},{"label":"energy"'
    ',"type":"double","p5":null,"p95":null,"score":0.0,"defined":0,"raw_score":0.0,"kind":"rate","con'
    'founded_with_time":false,"expected_from_time":0.0,"unit":"J/s","note":"a running total, compared'
    ' by its rate (J/s over 5 s windows), not its value"},{"label":"volts","type":"double","p5":null,'
    '"p95":null,"score":0.0,"defined":0,"raw_score":0.0,"kind":"value","confounded_with_time":false,"'
    'expected_from_time":0.0,"unit":"V","note":null}]'
)

# Rust: hints_with(case_d(), HintOptions { rate_window_s: 5.0, time_window_s: None })
EXPECTED_D = (
    '[{"label":"Session time","type":"double","p5":46.375,"p95":58.169999999999995,"score":0.75833333'
    '33333333,"defined":8,"raw_score":0.7583333333333333,"kind":"time","confounded_with_time":false,"'
    'expected_from_time":0.7583333333333333,"unit":"s","note":"s since the session\'s start: the occur'
    'rences fall at 45.5–58.8 s of a 60.0 s session"},{"label":"Light","type":"float","p5":1.87999998'
    '33106995,"p95":7.87999997138977,"score":0.1802028756202788,"defined":7,"raw_score":0.19862583705'
    '35714,"kind":"value","confounded_with_time":false,"expected_from_time":0.047895795183316436,"uni'
    't":"lx","note":null},{"label":"Battery level","type":"int","top_values":[{"value":25,"share":0.1'
    '25},{"value":20,"share":0.125},{"value":17,"share":0.125},{"value":15,"share":0.125},{"value":12'
    ',"share":0.125}],"score":0.12333333333333318,"defined":8,"raw_score":0.75,"kind":"value","confou'
    'nded_with_time":true,"expected_from_time":0.6541666666666669,"unit":"%","note":"confounded with '
    'time: its values at the occurrences are what their times alone predict (raw 0.75, time alone 0.6'
    '5)"},{"label":"Audio route","type":"string","top_values":[{"value":"headset","share":1.0}],"scor'
    'e":0.0,"defined":8,"raw_score":0.41666666666666663,"kind":"value","confounded_with_time":true,"e'
    'xpected_from_time":0.41666666666666663,"unit":null,"note":"confounded with time: its values at t'
    'he occurrences are what their times alone predict (raw 0.42, time alone 0.42)"}]'
)


def close(a, b) -> bool:
    """Floats equal to 1e-12 (absolute or relative); the rest exactly."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(close(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


class RankedHintsMatchRust(unittest.TestCase):
    def check(self, case, expected, rate_window_s=5.0, time_window_s=None):
        sessions, occurrences = case()
        got = hints(sessions, occurrences, rate_window_s=rate_window_s, time_window_s=time_window_s)
        want = json.loads(expected)
        self.assertEqual([h["label"] for h in got], [h["label"] for h in want])
        for g, w in zip(got, want):
            self.assertTrue(close(g, w), f"\n got  {g}\n want {w}")

    def test_every_item_type_and_counter_kind(self):
        self.check(case_a, EXPECTED_A)

    def test_pooled_sessions_with_differing_types_and_options(self):
        self.check(case_b, EXPECTED_B, rate_window_s=2.0, time_window_s=3.0)

    def test_no_occurrences(self):
        self.check(case_c, EXPECTED_C)

    def test_confounded_with_time(self):
        self.check(case_d, EXPECTED_D)
        got = hints(*case_d())
        self.assertEqual([h["label"] for h in got if h["confounded_with_time"]], ["Battery level", "Audio route"])

    def test_no_items_no_hints(self):
        self.assertEqual(hints([{"horizon_ns": 10, "properties": [], "context": [], "counters": []}], [(0, 5)]), [])
        self.assertEqual(hints([], []), [])


class RustSemantics(unittest.TestCase):
    def test_casts_and_division(self):
        self.assertEqual(as_i64(-2.7), -2)
        self.assertEqual(as_i64(float("nan")), 0)
        self.assertEqual(as_i64(1e300), 2**63 - 1)
        self.assertEqual(as_i64(-1e300), -(2**63))
        self.assertEqual(div_i64(-7, 2), -3)
        self.assertEqual(div_i64(7, -2), -3)
        self.assertEqual(to_f32(1e39), math.inf)

    def test_display_like_rust(self):
        # Rust's format!("{}", ...) of the same values.
        self.assertEqual(display(to_f32(0.1), "float"), "0.1")
        self.assertEqual(display(to_f32(1 / 3), "float"), "0.33333334")
        self.assertEqual(display(to_f32(1e20), "float"), "100000000000000000000")
        self.assertEqual(display(1e-7, "double"), "0.0000001")
        self.assertEqual(display(2.0, "double"), "2")
        self.assertEqual(display(-0.0, "double"), "-0")
        self.assertEqual(display(-5, "int"), "-5")


if __name__ == "__main__":
    unittest.main()
