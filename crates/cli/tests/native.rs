//! End-to-end tests of the native recorder: C and C++ programs built with
//! `-finstrument-functions` are recorded by `tracekit record`, and the
//! function sequence and nesting `tracekit replay --json` reports must equal
//! what uftrace records for the same binary.

mod native_common;

use native_common::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Names of the functions a module defines (demangled, without parameters).
fn defined_functions(module: &Path) -> BTreeSet<String> {
    let text = run(Command::new("nm").args(["-C", "--defined-only"]).arg(module));
    text.lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, ' ');
            let (_, kind, name) = (f.next()?, f.next()?, f.next()?);
            matches!(kind, "t" | "T" | "W").then(|| name.split('(').next().unwrap_or(name).to_owned())
        })
        .collect()
}

type Sequences = Vec<Vec<(usize, String)>>;

/// tracekit: per thread, the entered functions with their depth.
fn tracekit_sequences(dir: &Path, cmd: &[&str], cwd: &Path) -> Sequences {
    let rec = dir.join("rec");
    run(Command::new(TRACEKIT)
        .args(["record", "--context", "none", "-o"])
        .arg(&rec)
        .arg("--")
        .args(cmd)
        .current_dir(cwd));
    let json: Value = serde_json::from_str(&run(Command::new(TRACEKIT).arg("replay").arg(&rec).arg("--json"))).unwrap();
    let mut by_task: BTreeMap<(u64, u64), Vec<(usize, String)>> = BTreeMap::new();
    for e in json["events"].as_array().unwrap() {
        for key in ["pid", "tid", "ts_ns", "kind", "name", "depth"] {
            assert!(e.get(key).is_some(), "event without {key}: {e}");
        }
        if e["kind"] == "enter" {
            let task = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
            by_task.entry(task).or_default().push((
                e["depth"].as_u64().unwrap() as usize,
                e["name"].as_str().unwrap().to_owned(),
            ));
        }
    }
    let mut v: Sequences = by_task.into_values().collect();
    v.sort();
    v
}

/// uftrace: per task, the entered functions the program defines, with their
/// depth counted in such functions only (uftrace also shows library calls).
fn uftrace_sequences(dir: &Path, cmd: &[&str], cwd: &Path, defined: &BTreeSet<String>) -> Sequences {
    let data = dir.join("uftrace.data");
    run(Command::new("uftrace")
        .arg("record")
        .arg("-d")
        .arg(&data)
        .args(cmd)
        .current_dir(cwd));
    let text =
        run(Command::new("uftrace")
            .arg("replay")
            .arg("-d")
            .arg(&data)
            .args(["--no-pager", "--no-event", "-f", "tid"]));
    let mut frames: BTreeMap<u64, Vec<Option<String>>> = BTreeMap::new();
    let mut by_task: BTreeMap<u64, Vec<(usize, String)>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((tid, rest)) = line.split_once("] | ") else {
            continue;
        };
        let tid: u64 = tid.trim().trim_start_matches('[').trim().parse().unwrap();
        let depth = (rest.len() - rest.trim_start().len()) / 2;
        let body = rest.trim();
        let st = frames.entry(tid).or_default();
        if body.starts_with('}') || body.starts_with("/*") {
            st.truncate(depth);
            continue;
        }
        let name = body.split('(').next().unwrap().to_owned();
        st.resize(depth, None);
        let kept_depth = st.iter().filter(|f| f.is_some()).count();
        let keep = defined.contains(&name);
        if keep {
            by_task.entry(tid).or_default().push((kept_depth, name.clone()));
        }
        if body.ends_with('{') {
            st.push(keep.then_some(name));
        }
    }
    let mut v: Sequences = by_task.into_values().collect();
    v.sort();
    v
}

fn compare_with_uftrace(tag: &str, source: &str, args: &[&str]) {
    assert!(
        Command::new("uftrace").arg("--version").output().is_ok(),
        "uftrace is required (scripts/setup installs it from scripts/deps/native.apt)"
    );
    let dir = work_dir(tag);
    let exe = build(&dir, source, &[]);
    let mut defined = defined_functions(&exe);
    let mut cmd: Vec<String> = vec![exe.display().to_string()];
    if tag == "dlopen" {
        let plugin = build(&dir, "plugin.c", &["-shared", "-fPIC"]);
        defined.extend(defined_functions(&plugin));
        cmd.push(plugin.display().to_string());
    }
    cmd.extend(args.iter().map(|s| s.to_string()));
    let cmd: Vec<&str> = cmd.iter().map(String::as_str).collect();
    let ours = tracekit_sequences(&dir, &cmd, &dir);
    let theirs = uftrace_sequences(&dir, &cmd, &dir, &defined);
    assert!(!theirs.is_empty(), "uftrace recorded nothing for {tag}");
    assert_eq!(ours, theirs, "{tag}: tracekit (left) and uftrace (right) disagree");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn recursion_matches_uftrace() {
    compare_with_uftrace("recursion", "recursion.c", &[]);
}

#[test]
fn threads_match_uftrace() {
    compare_with_uftrace("threads", "threads.c", &[]);
}

#[test]
fn fork_matches_uftrace() {
    compare_with_uftrace("fork", "fork.c", &[]);
}

#[test]
fn signals_match_uftrace() {
    compare_with_uftrace("signals", "signals.c", &[]);
}

#[test]
fn longjmp_matches_uftrace() {
    compare_with_uftrace("longjmp", "longjmp.c", &[]);
}

#[test]
fn cpp_exceptions_match_uftrace() {
    compare_with_uftrace("exceptions", "exceptions.cpp", &[]);
}

#[test]
fn dlopen_matches_uftrace() {
    compare_with_uftrace("dlopen", "dlopen.c", &[]);
}
