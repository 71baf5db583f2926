//! Golden values from seed 002's own capture (its §5.2 test B), rebuilt as
//! fixtures in `tests/data/` from the lines the report prints.

mod common;

use common::{check_invariants, data};
use tracekit_ftrace::{read_path, read_path_with_outcome};
use tracekit_model::{power, CounterKind, CounterTrack, Session};

/// The 28 `write_power_ringbuffer` samples as the seed prints them:
/// (seconds, v µV, c µA, e). Independent of the reader: copied from the report.
const SEED_SAMPLES: [(&str, i64, i64, i64); 28] = [
    ("574.487676", 4380937, 530056, -203095456),
    ("574.594506", 4380937, 530056, -203067248),
    ("574.700566", 4382031, 545376, -203039200),
    ("574.807029", 4382031, 545376, -203039200),
    ("574.913756", 4380937, 543816, -203011392),
    ("575.020337", 4380156, 546624, -203011392),
    ("575.126791", 4380156, 546624, -202983360),
    ("575.233815", 4381875, 546312, -202955344),
    ("575.345531", 4381875, 546312, -202955344),
    ("575.450141", 4375625, 482976, -202930576),
    ("575.557144", 4379218, 544128, -202902672),
    ("575.663817", 4379218, 544128, -202902672),
    ("575.779414", 4382187, 543192, -202874816),
    ("575.877074", 4380781, 541008, -202874816),
    ("575.983821", 4380781, 541008, -202847872),
    ("576.090914", 4379531, 537204, -202819520),
    ("576.196437", 4379531, 537204, -202819520),
    ("576.302807", 4372343, 486400, -202794576),
    ("576.413236", 4374531, 538168, -202794576),
    ("576.520822", 4374531, 538168, -202765952),
    ("576.626417", 4380312, 540096, -202738224),
    ("576.733312", 4380312, 540096, -202738224),
    ("576.839971", 4376675, 533488, -202709848),
    ("576.946055", 4378437, 526344, -202709848),
    ("577.053359", 4378437, 526344, -202682048),
    ("577.160053", 4384375, 579072, -202653152),
    ("577.266630", 4384375, 579072, -202653152),
    ("577.373293", 4381500, 541944, -202625360),
];

fn ns(secs: &str) -> i64 {
    let (s, f) = secs.split_once('.').unwrap();
    s.parse::<i64>().unwrap() * 1_000_000_000 + format!("{f:0<9}").parse::<i64>().unwrap()
}

fn track<'a>(s: &'a Session, name: &str, pid: u32) -> &'a CounterTrack {
    let found: Vec<_> = s
        .counters
        .iter()
        .filter(|c| c.name == name && c.pid == Some(pid))
        .collect();
    assert_eq!(found.len(), 1, "{name} of {pid}");
    found[0]
}

#[test]
fn the_seed_capture_yields_its_28_samples_exactly() {
    let (s, o) = read_path_with_outcome(&data("seed002_power.txt")).unwrap();
    check_invariants(&s, &o);
    let v = track(&s, power::BATTERY_VOLTAGE, 3003);
    let i = track(&s, power::BATTERY_CURRENT, 3003);
    let q = track(&s, power::BATTERY_CHARGE, 3003);
    assert_eq!((v.len(), i.len(), q.len()), (28, 28, 28));
    assert_eq!(s.counters.len(), 3, "only the power tracks");
    assert_eq!(
        (v.unit.as_deref(), i.unit.as_deref(), q.unit.as_deref()),
        (Some("V"), Some("A"), Some("µAh"))
    );
    assert_eq!(
        (v.kind, i.kind, q.kind),
        (CounterKind::Sampled, CounterKind::Sampled, CounterKind::Cumulative)
    );

    // Times: the timeline starts at the first sample; each sample sits at its
    // own trace timestamp minus that.
    let t0 = ns(SEED_SAMPLES[0].0);
    for (k, &(secs, uv, ua, e)) in SEED_SAMPLES.iter().enumerate() {
        let t = ns(secs) - t0;
        assert_eq!((v.times[k], i.times[k], q.times[k]), (t, t, t), "sample {k}");
        assert_eq!(v.values[k], uv as f64 * 1e-6, "V of sample {k}");
        assert_eq!(i.values[k], ua as f64 * 1e-6, "I of sample {k}");
        assert_eq!(q.values[k], e as f64 * 1e-3, "charge of sample {k}");
    }
    assert_eq!(*v.times.last().unwrap(), 2_885_617_000, "574.487676 s to 577.373293 s");
    assert_eq!(s.duration_ns, Some(2_885_617_000));

    // The gauge's behaviour the golden values describe.
    let same_vc = (1..28)
        .filter(|&k| v.values[k] == v.values[k - 1] && i.values[k] == i.values[k - 1])
        .count();
    let e_changes = (1..28).filter(|&k| q.values[k] != q.values[k - 1]).count();
    assert_eq!((same_vc, e_changes), (11, 17));
}

#[test]
fn the_seed_capture_sets_its_clocks_from_the_sync_markers() {
    let s = read_path(&data("seed002_power.txt")).unwrap();
    // parent_ts=574.384408 (CLOCK_MONOTONIC) was written at 574.413003 on the
    // trace clock; timeline 0 is the first sample at 574.487676.
    let clock = s.source_clock.as_ref().unwrap();
    assert_eq!(clock.name, "monotonic");
    assert_eq!(clock.origin_ns, ns("574.487676") + ns("574.384408") - ns("574.413003"));
    // realtime_ts=408128190 ms was written at 574.413912.
    assert_eq!(
        s.anchor_unix_ns,
        Some(408_128_190 * 1_000_000 + (ns("574.487676") - ns("574.413912")))
    );
    assert!(s.repairs.is_empty());
    assert!(s.skipped.is_empty());
}

#[test]
fn two_samplers_writing_half_a_millisecond_apart_stay_apart() {
    let (s, o) = read_path_with_outcome(&data("seed002_two_samplers.txt")).unwrap();
    check_invariants(&s, &o);
    let a = track(&s, power::BATTERY_VOLTAGE, 15464);
    let b = track(&s, power::BATTERY_VOLTAGE, 12268);
    assert_eq!(
        (a.times.as_slice(), b.times.as_slice()),
        (&[0i64][..], &[565_000i64][..])
    );
    assert_eq!((a.values[0], b.values[0]), (3.214687, 3.214687));
    for pid in [15464, 12268] {
        assert_eq!(track(&s, power::BATTERY_CURRENT, pid).values, vec![-1_340_040.0 * 1e-6]);
        assert_eq!(track(&s, power::BATTERY_CHARGE, pid).values, vec![32_347.638]);
    }
    let names: Vec<_> = s.threads.iter().map(|t| (t.tid, t.name.as_str())).collect();
    assert_eq!(names, vec![(15464, "periodic_power_"), (12268, "periodic_power_")]);
}

#[test]
fn surfaceflinger_slices_are_repaired_into_balanced_calls() {
    let (s, o) = read_path_with_outcome(&data("seed002_surfaceflinger.txt")).unwrap();
    check_invariants(&s, &o);
    // The excerpt starts with two `E` whose `B` came before it, and ends
    // inside `hwc_prepare_primary`.
    let codes: Vec<_> = s.repairs.iter().map(|r| (r.code.as_str(), r.count)).collect();
    assert_eq!(codes, vec![("end-without-begin", 2), ("open-at-end", 1)]);
    let sf = s.threads.iter().position(|t| t.tid == 303).unwrap();
    assert_eq!(s.threads[sf].name, "surfaceflinger");
    assert_eq!(s.threads[sf].pid, Some(303));
    let calls = s.calls(tracekit_model::ThreadId(sf as u32));
    let begins = calls
        .iter()
        .filter(|e| e.kind == tracekit_model::CallKind::Enter)
        .count();
    assert_eq!(begins, 18);
    let first = calls.get(0);
    assert_eq!(s.methods.get(first.method).name, "hwc_set_external");
    // The sampler's one line in between is a power sample, 4.796 ms after the first B.
    let v = track(&s, power::BATTERY_VOLTAGE, 2844);
    assert_eq!(v.times, vec![ns("457.203075") - ns("457.198279")]);
    assert_eq!(v.values, vec![4.286562]);
    assert_eq!(o.used, 38);
}
