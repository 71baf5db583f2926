//! Every capture in `../shared/realdata/systrace/` opens, with every line
//! accounted for; line counts are checked against an independent count of
//! the file's trace lines, and event counts against `grep`-like counts.

mod common;

use common::{check_invariants, realdata};
use std::io::Read;
use std::path::Path;
use tracekit_ftrace::{read_bytes_with_outcome, read_path_with_outcome, Outcome};
use tracekit_model::{CallKind, Session};

const FILES: [&str; 7] = [
    "catapult_android_systrace.html",
    "catapult_android_systrace.txt",
    "catapult_atrace_data.txt",
    "catapult_compressed_atrace_data.bin",
    "catapult_decompressed_atrace_data.txt",
    "catapult_trivial_systrace.html",
    "petra_systrace_example.html",
];

fn open(dir: &Path, name: &str) -> (Session, Outcome) {
    let (s, o) = read_path_with_outcome(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    check_invariants(&s, &o);
    (s, o)
}

fn lines(text: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = text.split(|&c| c == b'\n').collect();
    if text.last() == Some(&b'\n') {
        v.pop();
    }
    v
}

/// Lines of the newer systrace HTML's trace-data blocks: after each line
/// that is exactly a trace-data tag, up to the `</script>` line.
fn html_block_lines(text: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in lines(text) {
        let t = String::from_utf8_lossy(l);
        if t.trim() == r#"<script class="trace-data" type="application/text">"# {
            inside = true;
        } else if inside && t.trim() == "</script>" {
            inside = false;
        } else if inside {
            out.push(l);
        }
    }
    out
}

/// Lines of the legacy `var linuxPerfData = "\` string.
fn legacy_string_lines(text: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in lines(text) {
        let t = String::from_utf8_lossy(l);
        if t.trim() == r#"var linuxPerfData = "\"# {
            inside = true;
        } else if inside {
            out.push(l);
            if t.trim_end().ends_with("\";") {
                inside = false;
            }
        }
    }
    out
}

fn count(lines: &[&[u8]], needle: &str) -> usize {
    lines
        .iter()
        .filter(|l| String::from_utf8_lossy(l).contains(needle))
        .count()
}

#[test]
fn every_capture_opens_with_every_line_accounted_for() {
    let Some(dir) = realdata() else { return };
    for name in FILES {
        let (s, o) = open(&dir, name);
        assert!(o.used > 0, "{name}: nothing used");
        assert!(s.source_clock.is_some(), "{name}");
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let expected = if name.ends_with(".bin") {
            let mut inflated = Vec::new();
            flate2::read::ZlibDecoder::new(&bytes[7..])
                .read_to_end(&mut inflated)
                .unwrap();
            lines(&inflated).len() + 1 // the `TRACE:` line
        } else if name == "petra_systrace_example.html" {
            html_block_lines(&bytes).len()
        } else if name.ends_with(".html") {
            legacy_string_lines(&bytes).len()
        } else {
            lines(&bytes).len()
        };
        assert_eq!(o.lines as usize, expected, "{name}: trace lines");
        // Reading from memory agrees with reading the file.
        let (m, mo) = read_bytes_with_outcome(&bytes, name).unwrap();
        assert_eq!(mo, o, "{name}");
        assert_eq!(m.call_event_count(), s.call_event_count(), "{name}");
    }
}

#[test]
fn petra_power_events_become_frequency_and_clock_tracks() {
    let Some(dir) = realdata() else { return };
    let (s, o) = open(&dir, "petra_systrace_example.html");
    let bytes = std::fs::read(dir.join("petra_systrace_example.html")).unwrap();
    let block = html_block_lines(&bytes);
    let freq: usize = s
        .counters
        .iter()
        .filter(|c| c.name.ends_with(" freq"))
        .map(|c| c.len())
        .sum();
    let clocks: usize = s
        .counters
        .iter()
        .filter(|c| c.name.starts_with("clock "))
        .map(|c| c.len())
        .sum();
    assert_eq!(freq, count(&block, ": cpu_frequency: "));
    assert_eq!(clocks, count(&block, ": clock_set_rate: "));
    assert_eq!((freq, clocks), (718, 1196), "SOURCES.md's counts");
    // `#P:1`, yet frequencies come from CPUs 0-3.
    let cpus: std::collections::BTreeSet<_> = s.counters.iter().filter_map(|c| c.cpu).collect();
    assert_eq!(cpus.into_iter().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert!(s.properties.contains(&("cpus".into(), "1".into())));
    assert_eq!(o.skipped, 0);
    let cpu0 = s.counters.iter().find(|c| c.name == "cpu0 freq").unwrap();
    assert_eq!((cpu0.unit.as_deref(), cpu0.values[0]), (Some("kHz"), 486000.0));
}

#[test]
fn compressed_capture_equals_its_decompressed_twin() {
    let Some(dir) = realdata() else { return };
    let (z, zo) = open(&dir, "catapult_compressed_atrace_data.bin");
    let (t, to) = open(&dir, "catapult_decompressed_atrace_data.txt");
    assert_eq!(zo.trailing_bytes, 17_600);
    assert_eq!((zo.lines, zo.comments), (to.lines + 1, to.comments + 1));
    assert_eq!((zo.used, zo.skipped), (to.used, to.skipped));
    assert_eq!(z.call_event_count(), t.call_event_count());
    assert_eq!(z.counters, t.counters);
    assert_eq!(z.async_slices, t.async_slices);
    assert_eq!(z.source_clock, t.source_clock);
    assert_eq!(z.anchor_unix_ns, t.anchor_unix_ns);
    let trailing = z
        .repairs
        .iter()
        .find(|r| r.code == "bytes-after-compressed-body")
        .unwrap();
    assert_eq!(trailing.count, 17_600);
    assert!(t.repairs.is_empty(), "{:?}", t.repairs);
}

#[test]
fn atrace_markers_become_calls_counters_and_async_slices() {
    let Some(dir) = realdata() else { return };
    let name = "catapult_decompressed_atrace_data.txt";
    let (s, o) = open(&dir, name);
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let all = lines(&bytes);
    let (b, e, c) = (count(&all, ": B|"), count(&all, "write: E"), count(&all, ": C|"));
    let enters: usize = s
        .thread_calls()
        .map(|(_, _, calls)| calls.iter().filter(|x| x.kind == CallKind::Enter).count())
        .sum();
    assert_eq!(enters, b);
    assert_eq!(s.call_event_count(), b + e, "every B closed by its E");
    assert_eq!(s.counters.iter().map(|t| t.len()).sum::<usize>(), c);
    assert!(s.counters.iter().all(|t| t.pid.is_some()));
    assert!(s.counters.iter().any(|t| t.name == "hwui_Texture_count"));
    let (starts, finishes) = (count(&all, ": S|"), count(&all, ": F|"));
    assert_eq!(s.async_slices.len(), starts);
    assert_eq!(s.async_slices.iter().filter(|a| !a.open).count(), finishes);
    // Two clock-sync markers: monotonic clock and wall-clock anchor.
    assert_eq!(s.source_clock.as_ref().unwrap().name, "monotonic");
    assert!(s.anchor_unix_ns.is_some());
    assert_eq!(o.used as usize, b + e + c + starts + finishes + 2);
    // `(-----)` TGIDs stay unknown until a marker names the process.
    let t = s.threads.iter().find(|t| t.tid == 18926).unwrap();
    assert_eq!(t.pid, Some(18926));
}

#[test]
fn legacy_html_keeps_old_markers_and_scheduling() {
    let Some(dir) = realdata() else { return };
    let name = "catapult_android_systrace.html";
    let (s, o) = open(&dir, name);
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let block = legacy_string_lines(&bytes);
    let switches = count(&block, ": sched_switch: ");
    let to_idle = count(&block, "next_pid=0 ");
    let wakeups = count(&block, ": sched_wakeup: ");
    assert_eq!(
        s.skipped.iter().find(|(k, _)| k == "sched_wakeup").map(|x| x.1),
        Some(wakeups as u64)
    );
    // Each switch ends one slice and starts another (not for the idle
    // task); the first switch on a CPU ends nothing we saw begin.
    let cpus: std::collections::BTreeSet<_> = s.sched.iter().map(|x| x.cpu).collect();
    assert!(s.sched.len() <= switches - to_idle && s.sched.len() + cpus.len() >= switches - to_idle);
    let b = count(&block, ": 0: B|");
    let enters: usize = s
        .thread_calls()
        .map(|(_, _, calls)| calls.iter().filter(|x| x.kind == CallKind::Enter).count())
        .sum();
    assert_eq!(enters, b);
    assert_eq!(
        s.counters.iter().map(|t| t.len()).sum::<usize>(),
        count(&block, ": 0: C|")
    );
    // The dummy `parent_ts=0.0` line at the end is not a clock.
    assert_eq!(s.source_clock.as_ref().unwrap().name, "trace");
    assert_eq!(o.skipped as usize, wakeups + 1);
    // Task names with dashes keep them: `irq/409-inv_irq-99`.
    assert!(s.threads.iter().any(|t| t.tid == 99 && t.name == "irq/409-inv_irq"));
}

#[test]
fn plain_atrace_text_without_tgid_column() {
    let Some(dir) = realdata() else { return };
    let name = "catapult_atrace_data.txt";
    let (s, o) = open(&dir, name);
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let all = lines(&bytes);
    assert_eq!(o.used as usize, count(&all, ": sched_switch: "));
    assert_eq!(o.skipped as usize, count(&all, ": sched_wakeup: "));
    assert!(
        s.threads.iter().all(|t| t.pid.is_none()),
        "no TGID column, no process ids"
    );
    // Slices carry the state their thread left the CPU in.
    assert!(s
        .sched
        .iter()
        .any(|x| x.end_state.map(|e| e.as_str() == "S").unwrap_or(false)));
    let adbd = s.threads.iter().position(|t| t.tid == 212).unwrap();
    assert_eq!(s.threads[adbd].name, "adbd");
}
