//! The real captures in `../shared/realdata/battery/` (see its SOURCES.md)
//! open, with every line accounted for.

use std::path::PathBuf;
use tracekit_model::power;

fn realdata(name: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata/battery");
    if !dir.is_dir() {
        eprintln!("skipped: realdata folder absent ({})", dir.display());
        return None;
    }
    Some(dir.join(name))
}

#[test]
fn battor_real_file_opens() {
    let Some(path) = realdata("catapult_battor_test_data.txt") else {
        return;
    };
    let s = tracekit_power::read_path(&path).unwrap();
    assert_eq!(s.name, "catapult_battor_test_data.txt");
    let i = s.counters.iter().find(|c| c.name == power::BATTERY_CURRENT).unwrap();
    let v = s.counters.iter().find(|c| c.name == power::BATTERY_VOLTAGE).unwrap();
    assert_eq!((i.len(), v.len()), (12, 12));
    assert_eq!(i.times[11], 1_100_000, "1.10 ms");
    assert!((i.values[0] - 0.0065).abs() < 1e-12 && (v.values[0] - 4.3077).abs() < 1e-12);
    assert!(s.repairs.is_empty());
    assert!(s
        .properties
        .iter()
        .any(|(k, v)| k == "battor sample_rate" && v.starts_with("10000 Hz")));
    assert!(s
        .properties
        .iter()
        .any(|(k, v)| k == power::CURRENT_SIGN_PROPERTY && v == power::SIGN_POSITIVE_IS_DISCHARGE));
}

#[test]
fn batterystats_real_file_history_is_read() {
    let Some(path) = realdata("petra_batterystats_example.txt") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        tracekit_power::detect(&bytes),
        Some(tracekit_power::Format::Batterystats)
    );
    let s = tracekit_power::read_bytes(&bytes, "petra").unwrap();
    let v = s.counters.iter().find(|c| c.name == power::BATTERY_VOLTAGE).unwrap();
    assert_eq!((v.times.clone(), v.values.clone()), (vec![0], vec![4.317]));
    let t = s
        .counters
        .iter()
        .find(|c| c.name == power::BATTERY_TEMPERATURE)
        .unwrap();
    assert!((t.values[0] - 37.0).abs() < 1e-9);
    let cap = s.counters.iter().find(|c| c.name == power::BATTERY_CAPACITY).unwrap();
    assert_eq!(cap.values, vec![100.0]);
    assert_eq!(
        s.context_track(power::BATTERY_STATUS)
            .unwrap()
            .samples
            .get(0)
            .to_string(),
        "Full"
    );
    assert_eq!(s.duration_ns, Some(7_432_000_000));
    // Every non-blank line is an entry or counted as not read.
    let nonblank = String::from_utf8_lossy(&bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count() as u64;
    let outside = s
        .skipped
        .iter()
        .find(|(k, _)| k.contains("outside the battery history"))
        .unwrap()
        .1;
    assert_eq!(outside + 1 + 7, nonblank, "header + 7 entries + the rest");
}
