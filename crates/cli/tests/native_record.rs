//! End-to-end tests of `tracekit record`, `replay`, `convert` and `seqdiag`
//! on native programs: explicit object/proxy/marker events, crash safety,
//! exact lost-event counts, selection, the context sampler, conversions and
//! deadlock reports.

mod native_common;

use native_common::*;
use serde_json::Value;
use std::process::Command;

fn events(v: &Value) -> &Vec<Value> {
    v["events"].as_array().unwrap()
}

fn names_of(v: &Value, kind: &str) -> Vec<String> {
    events(v)
        .iter()
        .filter(|e| e["kind"] == kind)
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn explicit_object_proxy_stub_and_marker_events() {
    let dir = work_dir("ipc");
    let exe = build(&dir, "ipc.c", &[]);
    let v = record_and_replay(&dir.join("rec"), &[], &[exe.to_str().unwrap(), "ok"]);
    assert_eq!(names_of(&v, "create"), vec!["CallManager", "RadioProxy"]);
    assert_eq!(names_of(&v, "destroy"), vec!["RadioProxy", "CallManager"]);
    assert_eq!(names_of(&v, "proxy_sync"), vec!["RadioProxy.Connect"]);
    assert_eq!(names_of(&v, "stub"), vec!["RadioStub.Connect"]);
    assert_eq!(names_of(&v, "marker"), vec!["brb"]);
    assert!(names_of(&v, "enter").contains(&"CallManager.Dial".to_string()));
    // The proxy call nests inside Dial, which nests inside main.
    let proxy = events(&v).iter().find(|e| e["kind"] == "proxy_sync").unwrap();
    assert_eq!(proxy["depth"], 2);
    let stub = events(&v).iter().find(|e| e["kind"] == "stub").unwrap();
    assert_ne!(stub["pid"], proxy["pid"], "the stub runs in the child process");

    // Object trace conversion, and the diagram drawn from it and from the recording agree.
    let otr = dir.join("ipc.otr");
    run(Command::new(TRACEKIT)
        .arg("convert")
        .arg(dir.join("rec"))
        .args(["--to", "objtrace", "-o"])
        .arg(&otr));
    let text = std::fs::read_to_string(&otr).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("P ") && l.ends_with("RadioProxy IRadio Connect")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("S ") && l.ends_with("RadioStub IRadio Connect")),
        "{text}"
    );
    let from_rec = run(Command::new(TRACEKIT).arg("seqdiag").arg(dir.join("rec")));
    let from_otr = run(Command::new(TRACEKIT).arg("seqdiag").arg(&otr));
    assert_eq!(from_rec, from_otr);
    assert!(from_otr.contains("p2 -> p3 : IRadio.Connect"), "{from_otr}");
    let svg = run(Command::new(TRACEKIT)
        .arg("seqdiag")
        .arg(&otr)
        .args(["--format", "svg"]));
    assert!(svg.starts_with("<svg") && svg.contains("RadioStub"));
    // The typed context sample recorded through the C API is a context track.
    let ctx: Value = serde_json::from_str(&run(Command::new(TRACEKIT)
        .arg("context")
        .arg(dir.join("rec"))
        .args(["--at", "1000000", "--json"])))
    .unwrap();
    let item = ctx["context"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == "Signal strength")
        .cloned();
    assert_eq!(item.map(|c| c["value"].clone()), Some(serde_json::json!(3)), "{ctx}");
    // The big-red-button marker is a problem occurrence for the foundation's analysis.
    let problems = run(Command::new(TRACEKIT).arg("problems").arg(dir.join("rec")).arg("--brb"));
    assert!(problems.contains("1 occurrence"), "{problems}");
    // Selection by class keeps only the matching objects' events.
    let v = record_and_replay(
        &dir.join("cls"),
        &["--filter", "class:Radio*"],
        &[exe.to_str().unwrap(), "ok"],
    );
    assert_eq!(names_of(&v, "create"), vec!["RadioProxy"]);
    assert_eq!(names_of(&v, "stub"), vec!["RadioStub.Connect"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn seqdiag_reports_a_deadlock_between_processes() {
    let dir = work_dir("deadlock");
    let exe = build(&dir, "ipc.c", &[]);
    record_and_replay(&dir.join("rec"), &[], &[exe.to_str().unwrap(), "deadlock"]);
    let out = Command::new(TRACEKIT)
        .arg("seqdiag")
        .arg(dir.join("rec"))
        .args(["--format", "mermaid"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("deadlock at"), "{err}");
    assert!(
        err.contains("RadioProxy.IRadio.Connect") && err.contains("UiProxy.IUi.Show"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("deadlock: blocked in"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn events_written_before_a_crash_survive() {
    let dir = work_dir("crash");
    let exe = build(&dir, "crash.c", &[]);
    // `record` ends as the program did (128 + signal) and says how it died.
    for (how, signal) in [("segv", "SIGSEGV"), ("abort", "SIGABRT"), ("kill", "SIGKILL")] {
        let code = 128
            + match how {
                "segv" => 11,
                "abort" => 6,
                _ => 9,
            };
        let (err, v) = record_ending(&dir.join(how), &[], &[exe.to_str().unwrap(), how, "5"], code);
        assert!(
            err.contains(&format!("tracekit: warning: the program was killed by {signal}")),
            "{how}: {err}"
        );
        let calls = names_of(&v, "enter").iter().filter(|n| *n == "before_crash").count();
        assert_eq!(calls, 5, "{how}: {v}");
        assert!(names_of(&v, "enter").contains(&"die".to_string()), "{how}");
        let meta: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(how).join("recording.json")).unwrap()).unwrap();
        assert!(meta["signal"].is_number(), "{how}: {meta}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// (records written, events lost) from `tracekit replay --stats`.
fn stats(rec: &std::path::Path) -> (u64, u64) {
    let text = run(Command::new(TRACEKIT).arg("replay").arg(rec).arg("--stats"));
    let last = text.lines().last().unwrap().to_owned();
    let f: Vec<&str> = last.split_whitespace().collect();
    (f[1].parse().unwrap(), f[4].parse().unwrap())
}

#[test]
fn a_full_buffer_counts_every_lost_event() {
    let dir = work_dir("lost");
    let exe = build(&dir, "crash.c", &[]);
    // 200 000 calls = 400 000 events, plus main's and die's entries and exits.
    let expected = 2 * 200_000 + 4;
    // Direct mode, 1 MiB = 65 536 records per thread: the rest is dropped and counted.
    let rec = dir.join("direct");
    record_and_replay(
        &rec,
        &["--direct", "--buffer-mb", "1"],
        &[exe.to_str().unwrap(), "none", "200000"],
    );
    let (recorded, lost) = stats(&rec);
    assert_eq!(recorded, 65_536);
    assert_eq!(recorded + lost, expected, "recorded {recorded} + lost {lost}");
    // Through a tiny ring: whatever the drainer misses is counted too.
    for overflow in ["drop", "wait"] {
        let rec = dir.join(overflow);
        let (record_err, v) = record_ending(
            &rec,
            &["--ring-kb", "64", "--overflow", overflow],
            &[exe.to_str().unwrap(), "none", "200000"],
            0,
        );
        let (recorded, lost) = stats(&rec);
        // `record` itself says so at the end.
        assert_eq!(
            record_err.contains(&format!("{lost} events were lost")),
            lost > 0,
            "{overflow}: {record_err}"
        );
        assert_eq!(
            recorded + lost,
            expected,
            "{overflow}: recorded {recorded} + lost {lost}"
        );
        assert_eq!(v["lost_events"].as_u64().unwrap(), lost);
        // Every report says how many events were lost.
        let profile: Value =
            serde_json::from_str(&run(Command::new(TRACEKIT).arg("profile").arg(&rec).arg("--json"))).unwrap();
        assert_eq!(profile["lost_events"].as_u64(), Some(lost), "{overflow}");
        let tree: Value =
            serde_json::from_str(&run(Command::new(TRACEKIT).arg("calltree").arg(&rec).arg("--json"))).unwrap();
        assert_eq!(tree["lost_events"].as_u64().unwrap_or(0), lost, "{overflow}");
        for cmd in ["profile", "calltree", "replay"] {
            let text = run(Command::new(TRACEKIT).arg(cmd).arg(&rec));
            assert_eq!(
                text.contains(&format!("LOST EVENTS: {lost} events were dropped")),
                lost > 0,
                "{overflow} {cmd}: {}",
                text.lines().next().unwrap_or("")
            );
        }
        if overflow == "wait" {
            assert_eq!(lost, 0, "waiting loses nothing");
            assert_eq!(events(&v).len() as u64, expected);
            // `replay` streams the recording in two passes: main encloses far
            // more events than the second pass holds, and still shows its
            // duration (kept by the first pass).
            let text = run(Command::new(TRACEKIT).arg("replay").arg(&rec));
            let main = text.lines().find(|l| l.contains("| main() {")).expect("main's line");
            let unit = main.split_whitespace().nth(1).unwrap_or("");
            assert!(["us", "ms", "s"].contains(&unit), "main's duration: {main}");
            assert_eq!(text.lines().filter(|l| l.contains("before_crash();")).count(), 200_000);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_busy_thread_moves_to_a_larger_ring_and_nothing_is_lost() {
    let dir = work_dir("grow");
    let exe = build(&dir, "crash.c", &[]);
    // 2 000 004 events are 32 MB: 488 laps of a 64 KiB ring. After 128 the
    // recorder offers a ring of `max_kb` and the thread moves to it.
    let calls = 1_000_000u64;
    let record = |name: &str, max_kb: &str| {
        let rec = dir.join(name);
        let out = Command::new(TRACEKIT)
            .args([
                "record",
                "--context",
                "none",
                "--ring-kb",
                "64",
                "--ring-max-kb",
                max_kb,
                "-o",
            ])
            .arg(&rec)
            .arg("--")
            .arg(&exe)
            .args(["none", &calls.to_string()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        assert_eq!(stats(&rec), (2 * calls + 4, 0));
        (rec, err)
    };
    let (rec, err) = record("rec", "256");
    assert!(err.contains("1 busy thread moved to a larger ring buffer"), "{err}");
    let profile: Value =
        serde_json::from_str(&run(Command::new(TRACEKIT).arg("profile").arg(&rec).arg("--json"))).unwrap();
    assert_eq!(calls_of(&profile, "before_crash"), calls);
    // With --ring-max-kb at --ring-kb, rings keep their size.
    let (_, err) = record("fixed", "64");
    assert!(!err.contains("moved"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Calls of the function `name` in a `profile --json` (0 when absent).
fn calls_of(profile: &Value, name: &str) -> u64 {
    profile["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .map_or(0, |m| m["calls"].as_u64().unwrap())
}

#[test]
fn selection_by_function_name_and_module() {
    let dir = work_dir("filter");
    let exe = build(&dir, "recursion.c", &[]);
    let v = record_and_replay(&dir.join("fib"), &["--filter", "fib"], &[exe.to_str().unwrap()]);
    let names: std::collections::BTreeSet<String> = names_of(&v, "enter").into_iter().collect();
    assert_eq!(names.into_iter().collect::<Vec<_>>(), vec!["fib"]);
    let v = record_and_replay(&dir.join("odd"), &["--filter", "is_*"], &[exe.to_str().unwrap()]);
    assert_eq!(names_of(&v, "enter").len(), 6);
    let v = record_and_replay(
        &dir.join("mod"),
        &["--filter", "module:recursion"],
        &[exe.to_str().unwrap()],
    );
    assert!(names_of(&v, "enter").contains(&"main".to_string()));
    let v = record_and_replay(
        &dir.join("none"),
        &["--filter", "module:libnothing*"],
        &[exe.to_str().unwrap()],
    );
    assert!(events(&v).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn context_sampler_reads_a_fixture_tree_beside_the_program() {
    let dir = work_dir("context");
    let exe = build(&dir, "recursion.c", &[]);
    let root = dir.join("root");
    let w = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w("proc/stat", "cpu  1 0 1 8 0 0 0 0 0 0\n");
    w("proc/meminfo", "MemTotal: 2000 kB\nMemAvailable: 500 kB\n");
    w("sys/class/power_supply/BAT0/capacity", "64\n");
    w("sys/class/backlight/panel/brightness", "120\n");
    let rec = dir.join("rec");
    run(Command::new(TRACEKIT)
        .args(["record", "--context", "all", "--context-period-ms", "10", "--proc-root"])
        .arg(root.join("proc"))
        .arg("--sys-root")
        .arg(root.join("sys"))
        .arg("-o")
        .arg(&rec)
        .arg("--")
        .arg(&exe));
    let ctx = std::fs::read_to_string(rec.join("context.jsonl")).unwrap();
    let first: Value = serde_json::from_str(ctx.lines().next().unwrap()).unwrap();
    assert_eq!(first["absent"], serde_json::json!(["network", "thermal", "cpufreq"]));
    assert!(
        ctx.contains("\"label\":\"Memory used\"") && ctx.contains("{\"long\":1500}"),
        "{ctx}"
    );
    assert!(
        ctx.contains("Battery BAT0 capacity") && ctx.contains("Backlight panel brightness"),
        "{ctx}"
    );
    // The recording opens in the foundation's analysis, context included.
    let info = run(Command::new(TRACEKIT)
        .arg("context")
        .arg(&rec)
        .args(["--at", "1000000"]));
    assert!(info.contains("Memory used"), "{info}");
    // And converts to Android .trace + .clog, which open again.
    let base = dir.join("android");
    run(Command::new(TRACEKIT)
        .arg("convert")
        .arg(&rec)
        .args(["--to", "android", "-o"])
        .arg(&base));
    assert!(dir.join("android.trace").is_file() && dir.join("android.clog").is_file());
    let prof = run(Command::new(TRACEKIT).arg("profile").arg(&base));
    assert!(prof.contains("fib"), "{prof}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_object_trace_names_file_and_line() {
    let dir = work_dir("badotr");
    let p = dir.join("bad.otr");
    std::fs::write(&p, "C 1 0xa 1 Foo\nE 1 0xa 2 Foo\n").unwrap();
    let out = Command::new(TRACEKIT).arg("seqdiag").arg(&p).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.otr: line 2:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The runtime library cargo built last, beside the binary or in `deps/`.
fn runtime_library() -> std::path::PathBuf {
    let bin = std::path::Path::new(TRACEKIT).parent().unwrap();
    [bin.join("libtracekit_rt.so"), bin.join("deps/libtracekit_rt.so")]
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .unwrap()
        .1
}

#[test]
fn runtime_without_the_recorder_writes_a_readable_directory() {
    let dir = work_dir("norecorder");
    let exe = build(&dir, "recursion.c", &[]);
    let rt = runtime_library();
    let out = dir.join("direct");
    run(Command::new(&exe).env("LD_PRELOAD", &rt).env("TRACEKIT_DIR", &out));
    assert!(!out.join("recording.json").exists());
    let v: Value = serde_json::from_str(&run(Command::new(TRACEKIT).arg("replay").arg(&out).arg("--json"))).unwrap();
    let fibs = names_of(&v, "enter").iter().filter(|n| *n == "fib").count();
    assert_eq!(fibs, 25, "fib(6) makes 25 calls");
    // Ticks were converted with the runtime's own clock pairs: durations are sane.
    let last = events(&v).last().unwrap()["ts_ns"].as_u64().unwrap();
    assert!(last < 10_000_000_000, "{last} ns");
    // Without recording.json (no recorder, or a recorder that was killed)
    // replay says the recording is incomplete.
    let out = Command::new(TRACEKIT).arg("replay").arg(&out).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tracekit: note:") && err.contains("no recording.json here") && err.contains("killed?"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn setting_a_threads_buffer_up_is_not_charged_to_its_first_function() {
    // A 256 MiB ring takes tens of milliseconds to fault in, on the first
    // event of main's thread: main's entry is stamped after that, so the
    // first call it makes follows its entry closely.
    let dir = work_dir("setup");
    let exe = build(&dir, "crash.c", &[]);
    let v = record_and_replay(
        &dir.join("rec"),
        &["--ring-kb", "262144"],
        &[exe.to_str().unwrap(), "none", "3"],
    );
    let ev = events(&v);
    assert_eq!(ev[0]["name"], "main");
    assert_eq!(ev[1]["name"], "before_crash");
    let gap = ev[1]["ts_ns"].as_u64().unwrap() - ev[0]["ts_ns"].as_u64().unwrap();
    assert!(gap < 20_000_000, "{gap} ns between main's entry and its first call");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ring_nobody_drains_stops_the_waiting_instead_of_hanging_the_program() {
    // The recorder is gone (killed, or failed to read the rings): a writer
    // waits once on the full ring, then every thread drops and counts.
    let dir = work_dir("undrained");
    let exe = build(&dir, "crash.c", &[]);
    let rt = runtime_library();
    let rings = dir.join("rings");
    std::fs::create_dir_all(&rings).unwrap();
    let started = std::time::Instant::now();
    let mut child = Command::new(&exe)
        .args(["none", "200000"])
        .env("LD_PRELOAD", &rt)
        .env("TRACEKIT_DIR", dir.join("out"))
        .env("TRACEKIT_RING_DIR", &rings)
        .env("TRACEKIT_RING_KB", "64")
        .env("TRACEKIT_OVERFLOW", "wait")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            panic!("the program still waits on its undrained ring after 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{status}: {err}");
    assert!(err.contains("took nothing from a full ring"), "{err}");
    assert_eq!(err.matches("took nothing").count(), 1, "said once: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exec_keeps_both_program_images_of_one_process() {
    let dir = work_dir("exec");
    let exe = build(&dir, "exec.c", &[]);
    let target = build(&dir, "recursion.c", &[]);
    let v = record_and_replay(
        &dir.join("rec"),
        &[],
        &[exe.to_str().unwrap(), target.to_str().unwrap()],
    );
    let enters: Vec<&Value> = events(&v).iter().filter(|e| e["kind"] == "enter").collect();
    let pid_of = |name: &str| enters.iter().find(|e| e["name"] == name).map(|e| e["pid"].clone());
    assert!(pid_of("before_exec").is_some() && pid_of("fib").is_some(), "{v}");
    assert_eq!(pid_of("before_exec"), pid_of("fib"), "exec keeps the pid");
    // Both images' functions are symbolized from their own process maps.
    assert_eq!(enters.iter().filter(|e| e["name"] == "main").count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn replay_lists_an_object_trace_written_by_another_tool() {
    let otr = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../objtrace/tests/corpus/sample.otr");
    let v: Value = serde_json::from_str(&run(Command::new(TRACEKIT).arg("replay").arg(&otr).arg("--json"))).unwrap();
    let line = |kind: &str, name: &str| {
        events(&v)
            .iter()
            .find(|e| e["kind"] == kind && e["name"] == name)
            .map(|e| (e["pid"].as_u64().unwrap(), e["depth"].as_u64().unwrap()))
    };
    assert_eq!(line("proxy_sync", "RadioProxy.Connect"), Some((210, 1)));
    assert_eq!(line("stub", "RadioStub.Connect"), Some((305, 0)));
    assert_eq!(line("enter", "Modem.Open"), Some((305, 1)));
    // The async proxy never left closes with the stub that called it.
    assert_eq!(line("proxy_async", "UiProxy.ShowCalling"), Some((305, 1)));
    assert_eq!(line("exit", "RadioStub.Connect"), Some((305, 0)));
    assert_eq!(line("create", "CallManager"), Some((210, 0)));
}

#[test]
fn record_passes_the_program_status_through_and_never_replaces_a_recording_silently() {
    let dir = work_dir("status");
    let exe = build(&dir, "recursion.c", &[]);
    let rec = dir.join("rec");
    record_and_replay(&rec, &[], &[exe.to_str().unwrap()]);
    let meta = std::fs::read(rec.join("recording.json")).unwrap();
    // Recording again into it is refused: the first recording is intact.
    let again = |extra: &[&str]| {
        Command::new(TRACEKIT)
            .args(["record", "--context", "none", "-o"])
            .arg(&rec)
            .args(extra)
            .arg("--")
            .args(["sh", "-c", "exit 3"])
            .output()
            .unwrap()
    };
    let out = again(&[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("already holds a recording") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read(rec.join("recording.json")).unwrap(), meta);
    // With --force it is replaced, and said so; record ends with the
    // program's own status.
    let out = again(&["--force"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("tracekit: note: replacing the recording in"), "{err}");
    assert!(err.contains("the program exited with status 3"), "{err}");
    let meta: Value = serde_json::from_str(&std::fs::read_to_string(rec.join("recording.json")).unwrap()).unwrap();
    assert_eq!(meta["exit_code"], 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_runtime_never_calls_the_programs_own_allocator() {
    let dir = work_dir("own-malloc");
    let exe = build(&dir, "own_malloc.c", &[]);
    for args in [&[][..], &["fork"][..]] {
        let mut cmd = vec![exe.to_str().unwrap()];
        cmd.extend_from_slice(args);
        let v = record_and_replay(&dir.join(format!("rec{}", args.len())), &[], &cmd);
        assert_eq!(v["lost_events"], 0, "{args:?}: {v}");
        // Every call belongs to the program: nothing at depth 0 but main
        // (the runtime allocated nothing through malloc after main), and
        // main calls free exactly once (its own).
        for e in events(&v) {
            if e["kind"] == "enter" && e["depth"] == 0 {
                assert_eq!(e["name"], "main", "{args:?}: {e}");
            }
        }
        let parent = events(&v)[0]["pid"].clone();
        let frees = events(&v)
            .iter()
            .filter(|e| e["kind"] == "enter" && e["name"] == "free" && e["pid"] == parent)
            .count();
        assert_eq!(frees, 1, "{args:?}: {v}");
        if !args.is_empty() {
            let child_work = events(&v)
                .iter()
                .find(|e| e["kind"] == "enter" && e["name"] == "work" && e["pid"] != parent);
            assert_eq!(
                child_work.map(|e| e["depth"].clone()),
                Some(serde_json::json!(1)),
                "{v}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn functions_of_unloaded_libraries_keep_their_names() {
    let dir = work_dir("dlunload");
    let exe = build(&dir, "dlopen_unload.c", &[]);
    let a = build(&dir, "plugin.c", &["-shared", "-fPIC"]);
    let b = build(&dir, "other_plugin.c", &["-shared", "-fPIC"]);
    let v = record_and_replay(
        &dir.join("rec"),
        &[],
        &[exe.to_str().unwrap(), a.to_str().unwrap(), b.to_str().unwrap()],
    );
    let names = names_of(&v, "enter");
    assert_eq!(
        names,
        vec![
            "main",
            "call_library",
            "plugin_entry",
            "plugin_helper",
            "call_library",
            "other_entry",
            "other_helper"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Twelve at once: a daemon's child not yet scheduled when its parent exits
/// must still be waited for (it was missing in 4 of 40 such runs before
/// `record` also looked at the children it adopted).
#[test]
fn daemons_recorded_side_by_side_are_complete() {
    let dir = work_dir("daemons");
    let exe = build(&dir, "daemon.c", &[]);
    let runs: Vec<_> = (0..12)
        .map(|i| {
            let rec = dir.join(format!("rec{i}"));
            let child = Command::new(TRACEKIT)
                .args(["record", "--context", "none", "-o"])
                .arg(&rec)
                .arg("--")
                .arg(&exe)
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            (rec, child)
        })
        .collect();
    for (rec, mut child) in runs {
        assert!(child.wait().unwrap().success());
        let v: Value =
            serde_json::from_str(&run(Command::new(TRACEKIT).arg("replay").arg(&rec).arg("--json"))).unwrap();
        let work = events(&v)
            .iter()
            .find(|e| e["kind"] == "enter" && e["name"] == "daemon_work")
            .unwrap_or_else(|| panic!("{}: the daemon's calls are missing: {v}", rec.display()));
        // The daemon returned from daemon() inside main: its work is at depth 1.
        assert_eq!(work["depth"], 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_forked_child_nests_under_its_inherited_frames_and_jumps_land_where_setjmp_was() {
    let dir = work_dir("nesting");
    let exe = build(&dir, "fork_nest.c", &[]);
    let v = record_and_replay(&dir.join("fork"), &[], &[exe.to_str().unwrap()]);
    let parent = events(&v)[0]["pid"].clone();
    let child: Vec<&Value> = events(&v).iter().filter(|e| e["pid"] != parent).collect();
    let line = |e: &Value| {
        (
            e["kind"].as_str().unwrap().to_owned(),
            e["name"].as_str().unwrap().to_owned(),
            e["depth"].as_u64().unwrap(),
            e.get("inherited").is_some(),
        )
    };
    let got: Vec<_> = child.iter().map(|e| line(e)).collect();
    let want: Vec<(String, String, u64, bool)> = [
        ("enter", "main", 0, true),
        ("enter", "outer", 1, true),
        ("enter", "spawn", 2, true),
        ("enter", "child_work", 3, false),
        ("exit", "child_work", 3, false),
        ("exit", "spawn", 2, false),
        ("exit", "outer", 1, false),
        ("enter", "child_work", 1, false),
        ("exit", "child_work", 1, false),
        ("exit", "main", 0, false),
    ]
    .iter()
    .map(|&(k, n, d, i)| (k.to_owned(), n.to_owned(), d, i))
    .collect();
    assert_eq!(got, want);
    let text = run(Command::new(TRACEKIT).arg("replay").arg(dir.join("fork")));
    assert!(text.contains("spawn() { /* inherited at fork */"), "{text}");

    let exe = build(&dir, "longjmp_deep.c", &[]);
    let v = record_and_replay(&dir.join("jump"), &[], &[exe.to_str().unwrap()]);
    let after = events(&v).iter().find(|e| e["name"] == "after").unwrap();
    assert_eq!(after["depth"], 1, "after seven jumps out of three frames: {v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The run of `main` in the recording `rec`: its entry and exit, in µs.
fn main_span_us(rec: &std::path::Path) -> (f64, f64) {
    let outer: Value = serde_json::from_str(&run(Command::new(TRACEKIT)
        .arg("replay")
        .arg(rec)
        .args(["--json", "--depth", "1"])))
    .unwrap();
    (
        outer["events"][0]["ts_ns"].as_u64().unwrap() as f64 / 1e3,
        outer["events"][1]["ts_ns"].as_u64().unwrap() as f64 / 1e3,
    )
}

/// `tracekit CMD REC --json --from-us FROM --to-us TO EXTRA`, streamed, or
/// with `whole` from the recording loaded whole (`TRACEKIT_LOAD_WHOLE`).
/// Streamed, the skim before the window keeps a checkpoint after every
/// block, so the reads after the first start from one.
fn windowed(rec: &std::path::Path, cmd: &str, from: f64, to: f64, extra: &[&str], whole: bool) -> String {
    let mut c = Command::new(TRACEKIT);
    c.arg(cmd).arg(rec).arg("--json");
    c.args(["--from-us", &from.to_string(), "--to-us", &to.to_string()])
        .args(extra);
    if whole {
        c.env("TRACEKIT_LOAD_WHOLE", "1");
    } else {
        c.env_remove("TRACEKIT_LOAD_WHOLE");
        c.env("TRACEKIT_CHECKPOINT_EVENTS", "1");
    }
    run(&mut c)
}

/// The skim checkpoints saved beside the thread files of `rec`.
fn checkpoint_files(rec: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(rec)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".tkt.frames"))
        .collect();
    v.sort();
    v
}

/// The boxes `tracekit ui REC ARGS` serves for the whole timeline at 200
/// pixels, as (start ns, calls merged), and what it wrote on stderr.
fn viewer_boxes(rec: &std::path::Path, args: &[&str]) -> (Vec<(f64, u64)>, String) {
    let mut ui = Command::new(TRACEKIT)
        .arg("ui")
        .arg(rec)
        .args(["--port", "0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(ui.stdout.take().unwrap()), &mut line).unwrap();
    let addr = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://"))
        .map(|w| w.trim_end_matches('/').to_owned());
    let body = addr.map(|addr| {
        use std::io::{Read, Write};
        let mut c = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            c,
            "GET /api/slices?t0=0&t1=1000000000000&px=200 HTTP/1.0\r\nHost: {addr}\r\n\r\n"
        )
        .unwrap();
        let mut r = String::new();
        c.read_to_string(&mut r).unwrap();
        r
    });
    let _ = ui.kill();
    let out = ui.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let body = body.unwrap_or_else(|| panic!("no address in {line:?}: {err}"));
    let json: Value = serde_json::from_str(body.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    // Boxes are [start, end, method, calls merged, index].
    let boxes = json["threads"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["levels"].as_array().unwrap().iter())
        .flat_map(|l| l.as_array().unwrap().iter())
        .map(|b| (b[0].as_f64().unwrap(), b[3].as_u64().unwrap()))
        .collect();
    (boxes, err)
}

#[test]
fn a_time_window_is_profiled_from_the_recording_read_up_to_its_end() {
    let dir = work_dir("window");
    let exe = build(&dir, "crash.c", &[]);
    let rec = dir.join("rec");
    // 400 004 events: about fifty blocks.
    record_and_replay(&rec, &[], &[exe.to_str().unwrap(), "none", "200000"]);
    let (start, end) = main_span_us(&rec);
    let profile = |from: f64, to: f64, extra: &[&str], whole: bool| -> Value {
        serde_json::from_str(&windowed(&rec, "profile", from, to, extra, whole)).unwrap()
    };
    let span = end - start;
    let calls_in = |v: &Value| calls_of(v, "before_crash");
    // A window a `width` of the run wide, from `at` of it on, that holds at
    // least `min` calls: on a loaded machine the program may be descheduled
    // for a fair part of its short run, so later windows are tried too.
    let busy_window = |at: f64, width: f64, min: u64| -> (f64, f64) {
        (0..12)
            .map(|k| at + 0.04 * k as f64)
            .map(|f| (start + span * f.min(1.0 - width), start + span * (f + width).min(1.0)))
            .find(|&(from, to)| calls_in(&profile(from, to, &[], false)) >= min)
            .unwrap_or_else(|| panic!("no {width} of the run from {at} on holds {min} calls"))
    };
    let (inside_from, inside_to) = busy_window(0.6, 0.2, 1);
    // Windows at the start (where the calls may not have begun yet), inside
    // the run and over its end.
    for (from, to, calls_inside) in [
        (start - 5.0, start + span * 0.05, false),
        (inside_from, inside_to, true),
        (start + span * 0.9, end + 5.0, false),
    ] {
        // Read up to the window's end, the streamed profile equals the one
        // of the recording loaded whole and clipped to the window.
        let streamed = profile(from, to, &[], false);
        let loaded = profile(from, to, &["--per-thread"], true);
        assert_eq!(streamed["methods"], loaded["methods"], "{from}..{to}");
        assert_eq!(streamed["window_us"], loaded["window_us"]);
        assert_eq!(streamed["total_real_us"], loaded["total_real_us"]);
        let calls = calls_in(&streamed);
        assert!(calls < 200_000, "{from}..{to}: {calls} calls");
        assert!(calls > 0 || !calls_inside, "{from}..{to}: no calls");
        // main runs through the whole window.
        let main = &streamed["methods"].as_array().unwrap()[0];
        assert_eq!(main["name"], "main");
        assert_eq!(main["incl_real_us"], streamed["total_real_us"]);
    }
    let windowed = |cmd: &str, from: f64, to: f64, whole: bool| windowed(&rec, cmd, from, to, &[], whole);
    // The calltree takes the same window, and reads the same way.
    let (from, to) = busy_window(0.6, 0.25, 1);
    let streamed = windowed("calltree", from, to, false);
    assert!(streamed.contains("before_crash"), "{streamed}");
    assert_eq!(streamed, windowed("calltree", from, to, true));
    // replay lists the window's events only, at their depths in the run
    // (main stays open around them), reading the same way.
    let (from, to) = busy_window(0.6, 0.2, 1);
    let streamed = windowed("replay", from, to, false);
    assert_eq!(streamed, windowed("replay", from, to, true));
    let listed: Value = serde_json::from_str(&streamed).unwrap();
    let listed = events(&listed);
    assert!(!listed.is_empty(), "no event listed in {from}..{to} µs");
    let (a, b) = (from * 1e3, to * 1e3);
    for e in listed {
        let t = e["ts_ns"].as_u64().unwrap() as f64;
        assert!(t >= a.round() - 1.0 && t <= b.round() + 1.0, "{e} outside {a}..{b}");
        assert_eq!(e["name"], "before_crash", "{e}");
        assert_eq!(e["depth"], 1, "{e}");
    }
    // The viewer loads the window only: its calls start at the window's
    // start (the frames open there just before it).
    let (from, to) = busy_window(0.75, 0.1, 2000);
    let (boxes, _) = viewer_boxes(&rec, &["--from-us", &from.to_string(), "--to-us", &to.to_string()]);
    let calls: u64 = boxes.iter().map(|b| b.1).sum();
    assert!(calls > 1000 && calls < 200_000, "{boxes:?}");
    let first = boxes.iter().map(|b| b.0).fold(f64::MAX, f64::min);
    assert!(
        (first - (from * 1e3 - 1.0)).abs() < 2.0,
        "first box at {first} ns, window from {from} µs"
    );
    // Without a window, a recording longer than --max-events opens on its
    // first stretch of about that many events (to a block of 8192), and
    // says which; 0 shows it whole.
    let (boxes, err) = viewer_boxes(&rec, &["--max-events", "100000"]);
    assert!(
        err.contains("holds 400004 events, more than --max-events 100000"),
        "{err}"
    );
    let calls: u64 = boxes.iter().map(|b| b.1).sum();
    assert!(
        (40_000..=60_000).contains(&calls),
        "{calls} calls in the first 100000 events"
    );
    let last = boxes.iter().map(|b| b.0).fold(0.0, f64::max);
    assert!(last < (start + span * 0.5) * 1e3, "a box starts at {last} ns");
    let (boxes, err) = viewer_boxes(&rec, &["--max-events", "0"]);
    assert!(!err.contains("--max-events"), "{err}");
    let whole: u64 = boxes.iter().map(|b| b.1).sum();
    assert!(whole > 200_000, "{whole} calls in the whole recording");
    // A range whose start is after its end is refused.
    let out = Command::new(TRACEKIT)
        .arg("profile")
        .arg(&rec)
        .args(["--from-us", "10", "--to-us", "5"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a time range"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_recording_is_profiled_as_it_is_read_with_the_same_result() {
    let dir = work_dir("streamed");
    let exe = build(&dir, "threads.c", &[]);
    let rec = dir.join("rec");
    record_and_replay(&rec, &[], &[exe.to_str().unwrap()]);
    // The recording is streamed; TRACEKIT_LOAD_WHOLE loads it whole, the
    // reference every streamed result must equal.
    let profile = |extra: &[&str], whole: bool| -> Value {
        let mut c = Command::new(TRACEKIT);
        c.arg("profile").arg(&rec).arg("--json").args(extra);
        if whole {
            c.env("TRACEKIT_LOAD_WHOLE", "1");
        } else {
            c.env_remove("TRACEKIT_LOAD_WHOLE");
        }
        serde_json::from_str(&run(&mut c)).unwrap()
    };
    let json = |extra: &[&str]| profile(extra, false);
    let streamed = json(&[]);
    let loaded = profile(&["--per-thread"], true);
    assert_eq!(streamed["methods"], loaded["methods"]);
    assert!(streamed["methods"].as_array().unwrap().len() >= 4, "{streamed}");
    // --per-thread streams too, one profile per thread as it is read.
    let per_thread = json(&["--per-thread"]);
    assert_eq!(per_thread["methods"], loaded["methods"]);
    assert_eq!(per_thread["threads"], loaded["threads"]);
    // --thread streams too, reading only that thread's calls: each one's
    // rows equal its rows in the loaded --per-thread profile.
    let threads = loaded["threads"].as_array().unwrap();
    assert!(threads.len() >= 2, "{loaded}");
    for t in threads {
        let one = json(&["--thread", &t["tid"].to_string()]);
        assert_eq!(one["methods"], t["methods"], "thread {}", t["tid"]);
        let one_per_thread = json(&["--thread", &t["tid"].to_string(), "--per-thread"]);
        assert_eq!(one_per_thread["threads"].as_array().unwrap(), &vec![t.clone()]);
    }
    // A selection that names nothing fails, saying why on stderr.
    let refused = |extra: &[&str]| -> String {
        let out = Command::new(TRACEKIT)
            .arg("profile")
            .arg(&rec)
            .args(extra)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{extra:?} was accepted");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = refused(&["--thread", "no-such-thread"]);
    assert!(err.contains("no thread \"no-such-thread\""), "{err}");
    // --when streams too, its condition evaluated on the context before
    // the calls: a context whose "Phase" turns 2 halfway through the calls.
    let replayed: Value =
        serde_json::from_str(&run(Command::new(TRACEKIT).arg("replay").arg(&rec).arg("--json"))).unwrap();
    let times: Vec<u64> = replayed["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["ts_ns"].as_u64().unwrap())
        .collect();
    let (first, last) = (times.iter().min().unwrap(), times.iter().max().unwrap());
    let meta: Value = serde_json::from_str(&std::fs::read_to_string(rec.join("recording.json")).unwrap()).unwrap();
    let anchor = meta["anchor_mono_ns"].as_u64().unwrap();
    let sample = |t: u64, v: u64| format!(r#"{{"mono_ns":{},"label":"Phase","value":{{"long":{v}}}}}"#, anchor + t);
    std::fs::write(
        rec.join("context.jsonl"),
        format!("{}\n{}\n", sample(*first, 1), sample(first + (last - first) / 2, 2)),
    )
    .unwrap();
    let when = json(&["--when", "Phase == 2"]);
    let loaded = profile(&["--when", "Phase == 2", "--per-thread"], true);
    assert_eq!(when["methods"], loaded["methods"]);
    assert_eq!(when["window_us"], loaded["window_us"]);
    let when_per_thread = json(&["--when", "Phase == 2", "--per-thread"]);
    assert_eq!(when_per_thread["threads"], loaded["threads"]);
    assert_ne!(
        when["methods"], streamed["methods"],
        "the window selects part of the run"
    );
    assert!(refused(&["--when", "Phase >"]).contains("--when"));
    let tree = run(Command::new(TRACEKIT).arg("calltree").arg(&rec));
    assert!(tree.contains("worker") && tree.contains("leaf"), "{tree}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn blocks_before_a_window_are_skimmed_with_the_same_result_across_setjmp_and_longjmp() {
    let dir = work_dir("skim");
    let exe = build(&dir, "window_jumps.c", &[]);
    let rec = dir.join("rec");
    // Five rounds of 20 000 calls (about 25 blocks); the first four end in
    // a longjmp to the setjmp main made at the start.
    record_and_replay(&rec, &[], &[exe.to_str().unwrap(), "20000"]);
    let (start, end) = main_span_us(&rec);
    let span = end - start;
    let windowed = |cmd: &str, from: f64, to: f64, whole: bool| windowed(&rec, cmd, from, to, &[], whole);
    // Windows across the first jump, between two, and over the end: the
    // blocks before each are skimmed (the setjmp in the first of them), and
    // what is read from the window on equals the recording loaded whole.
    for (a, b) in [(0.1, 0.3), (0.5, 0.55), (0.85, 1.05)] {
        let (from, to) = (start + span * a, start + span * b);
        for cmd in ["calltree", "replay"] {
            assert_eq!(
                windowed(cmd, from, to, false),
                windowed(cmd, from, to, true),
                "{cmd} {a}..{b} of the run"
            );
        }
        // The first read saved checkpoints; the others started from one.
        assert!(
            !checkpoint_files(&rec).is_empty(),
            "no checkpoints saved in {}",
            rec.display()
        );
        let listed: Value = serde_json::from_str(&windowed("replay", from, to, false)).unwrap();
        // The jumps land in main: leaf runs under four frames of deep and
        // work (depth 6), or in the last round under work alone (depth 2).
        for e in events(&listed) {
            if e["name"] == "leaf" {
                let d = e["depth"].as_u64().unwrap();
                assert!(d == 2 || d == 6, "{e}");
            }
        }
    }
    // An index that does not hold together is ignored (and made again).
    for f in checkpoint_files(&rec) {
        std::fs::write(&f, b"{\"version\": 1, \"points\": [").unwrap();
    }
    let (from, to) = (start + span * 0.5, start + span * 0.55);
    assert_eq!(windowed("replay", from, to, false), windowed("replay", from, to, true));
    assert!(checkpoint_files(&rec)
        .iter()
        .all(|f| std::fs::read(f).unwrap().starts_with(b"{\"version\":1")));
    let _ = std::fs::remove_dir_all(&dir);
}
