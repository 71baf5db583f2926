//! End-to-end tests of the native recorder: C and C++ programs built with
//! `-finstrument-functions` are recorded by `tracekit record`, and the
//! function sequence and nesting `tracekit replay --json` reports must equal
//! what uftrace records for the same binary — per task, the functions the
//! program defines, each with its depth counted in such functions.
//!
//! Nesting rule shared by both tools: a process created by `fork` continues
//! inside the frames open in its parent (its first calls are as deep as the
//! `fork` call was; tracekit lists those inherited frames, marked
//! `inherited`, uftrace shows only their exits), and a `longjmp` returns to
//! the depth at which `setjmp` was called on the same buffer.

mod native_common;

use native_common::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Names of the functions a module defines (demangled, without parameters;
/// C++ names reduced to their [`skeleton`]).
fn defined_functions(module: &Path, cpp: bool) -> BTreeSet<String> {
    let text = run(Command::new("nm").args(["-C", "--defined-only"]).arg(module));
    text.lines()
        .filter_map(|l| {
            let mut f = l.splitn(3, ' ');
            let (_, kind, name) = (f.next()?, f.next()?, f.next()?);
            let name = if cpp {
                skeleton(name)
            } else {
                name.split('(').next().unwrap_or(name).to_owned()
            };
            matches!(kind, "t" | "T" | "W").then_some(name)
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
            if e.get("inherited") == Some(&Value::Bool(true)) {
                continue; // a frame the forked child inherited: uftrace shows no entry
            }
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
fn uftrace_sequences(dir: &Path, cmd: &[&str], cwd: &Path, defined: &BTreeSet<String>, cpp: bool) -> Sequences {
    let data = dir.join("uftrace.data");
    // C++: library calls (`operator new` in libstdc++) would share a
    // skeleton name with the program's own inline placement `new`.
    run(Command::new("uftrace")
        .arg("record")
        .args(if cpp { &["--no-libcall"][..] } else { &[] })
        .arg("-d")
        .arg(&data)
        .args(cmd)
        .current_dir(cwd));
    let text = run(Command::new("uftrace")
        .arg("replay")
        .arg("-d")
        .arg(&data)
        .args(["--no-pager", "--no-event", "-f", "tid"])
        .args(if cpp { &["--demangle=full"][..] } else { &[] }));
    let mut frames: BTreeMap<u64, Vec<Option<String>>> = BTreeMap::new();
    let mut by_task: BTreeMap<u64, Vec<(usize, String)>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((tid, rest)) = line.split_once("] | ") else {
            continue;
        };
        let tid: u64 = tid.trim().trim_start_matches('[').trim().parse().unwrap();
        let depth = (rest.len() - rest.trim_start().len()) / 2;
        let body = rest.trim();
        let first_line_of_task = !frames.contains_key(&tid);
        let st = frames.entry(tid).or_default();
        if first_line_of_task && depth > 0 {
            // A forked child: it starts inside the frames open in its parent
            // when it forked (uftrace shows only their exits).
            st.resize(depth, Some("<inherited>".to_owned()));
        }
        if body.starts_with('}') || body.starts_with("/*") {
            st.truncate(depth);
            continue;
        }
        let name = if cpp {
            skeleton(body.trim_end_matches(" {").trim_end_matches(';'))
        } else {
            body.split('(').next().unwrap().to_owned()
        };
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

/// A C++ name reduced to what every demangler prints alike: template
/// arguments, parameters and return type removed (binutils writes
/// `0ul` where cpp_demangle writes `(unsigned long)0`, for instance).
fn skeleton(name: &str) -> String {
    let name = name.replace("operator()", "operator@@");
    let mut out = String::new();
    let mut depth = 0usize;
    for c in name.chars() {
        match c {
            '<' => depth += 1,
            '>' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let out = out.split('(').next().unwrap_or("").trim().to_owned();
    let out = out.rsplit(' ').next().unwrap_or("").to_owned();
    out.replace("operator@@", "operator()")
}

/// One program of the peer comparison.
struct Peer<'a> {
    tag: &'a str,
    source: &'a str,
    /// Shared libraries built from these sources, passed as arguments.
    libraries: &'a [&'a str],
    args: &'a [&'a str],
}

fn compare_with_uftrace(p: Peer<'_>) {
    assert!(
        Command::new("uftrace").arg("--version").output().is_ok(),
        "uftrace is required (scripts/setup installs it from scripts/deps/native.apt)"
    );
    let dir = work_dir(p.tag);
    let exe = build(&dir, p.source, &[]);
    let cpp = p.source.ends_with(".cpp");
    let mut defined = defined_functions(&exe, cpp);
    let mut cmd: Vec<String> = vec![exe.display().to_string()];
    for lib in p.libraries {
        let built = build(&dir, lib, &["-shared", "-fPIC"]);
        defined.extend(defined_functions(&built, cpp));
        cmd.push(built.display().to_string());
    }
    cmd.extend(p.args.iter().map(|s| s.to_string()));
    let cmd: Vec<&str> = cmd.iter().map(String::as_str).collect();
    let mut ours = tracekit_sequences(&dir, &cmd, &dir);
    if cpp {
        for seq in &mut ours {
            for (_, name) in seq.iter_mut() {
                assert!(!name.starts_with("_Z"), "{}: a name left mangled: {name}", p.tag);
                *name = skeleton(name);
            }
        }
        ours.sort();
    }
    let theirs = uftrace_sequences(&dir, &cmd, &dir, &defined, cpp);
    assert!(!theirs.is_empty(), "uftrace recorded nothing for {}", p.tag);
    if ours != theirs {
        panic!(
            "{}: tracekit and uftrace disagree: {}",
            p.tag,
            first_difference(&ours, &theirs)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where two sets of sequences first differ, with a little context.
fn first_difference(ours: &Sequences, theirs: &Sequences) -> String {
    if ours.len() != theirs.len() {
        return format!(
            "{} tasks against uftrace's {}: {ours:?} / {theirs:?}",
            ours.len(),
            theirs.len()
        );
    }
    for (t, (a, b)) in ours.iter().zip(theirs).enumerate() {
        if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
            let from = i.saturating_sub(3);
            return format!(
                "task {t}, entry {i}: tracekit {:?} / uftrace {:?}",
                &a[from.min(a.len())..(i + 3).min(a.len())],
                &b[from.min(b.len())..(i + 3).min(b.len())]
            );
        }
    }
    String::new()
}

fn peer(tag: &str, source: &str, args: &[&str]) {
    compare_with_uftrace(Peer {
        tag,
        source,
        libraries: &[],
        args,
    });
}

#[test]
fn recursion_matches_uftrace() {
    peer("recursion", "recursion.c", &[]);
}

#[test]
fn threads_match_uftrace() {
    peer("threads", "threads.c", &[]);
}

#[test]
fn fork_matches_uftrace() {
    peer("fork", "fork.c", &[]);
}

#[test]
fn fork_children_nest_under_the_inherited_frames_like_uftrace() {
    peer("fork-nest", "fork_nest.c", &[]);
}

#[test]
fn signals_match_uftrace() {
    peer("signals", "signals.c", &[]);
}

#[test]
fn longjmp_matches_uftrace() {
    peer("longjmp", "longjmp.c", &[]);
}

#[test]
fn repeated_longjmp_out_of_several_frames_matches_uftrace() {
    peer("longjmp-deep", "longjmp_deep.c", &[]);
}

#[test]
fn cpp_exceptions_match_uftrace() {
    peer("exceptions", "exceptions.cpp", &[]);
}

#[test]
fn cpp_standard_library_templates_match_uftrace() {
    peer("stl", "stl.cpp", &[]);
}

#[test]
fn dlopen_matches_uftrace() {
    compare_with_uftrace(Peer {
        tag: "dlopen",
        source: "dlopen.c",
        libraries: &["plugin.c"],
        args: &[],
    });
}

#[test]
fn libraries_unloaded_before_exit_match_uftrace() {
    compare_with_uftrace(Peer {
        tag: "dlopen-unload",
        source: "dlopen_unload.c",
        libraries: &["plugin.c", "other_plugin.c"],
        args: &[],
    });
}

#[test]
fn a_program_with_its_own_malloc_matches_uftrace() {
    peer("own-malloc", "own_malloc.c", &[]);
    peer("own-malloc-fork", "own_malloc.c", &["fork"]);
}

#[test]
fn posix_spawn_with_a_replaced_environment_matches_uftrace() {
    peer("spawn-env", "spawn_env.c", &[]);
}

#[test]
fn a_daemon_matches_uftrace() {
    peer("daemon", "daemon.c", &[]);
}

#[test]
fn system_and_popen_children_match_uftrace() {
    peer("system-popen", "system_popen.c", &[]);
}

#[test]
fn vfork_and_execve_children_match_uftrace() {
    peer("vfork-exec", "vfork_exec.c", &[]);
}
