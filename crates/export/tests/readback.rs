//! Every export read back (serde_json for the JSON formats, a line parser
//! for folded stacks) and compared with the session: the same call paths,
//! call counts where the format keeps them, and times to the format's
//! resolution (ns for speedscope and the Firefox profile, µs for folded).
//! Sessions: the bundled example, a handmade one with recursion, deep
//! stacks, markers and two clocks, and random sessions (proptest).

mod common;

use common::{call_tree_named, exclusive, threads_with_calls, Node, SEP};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use tracekit_analysis::{Profile, ProfileOptions};
use tracekit_export::*;
use tracekit_model::*;

fn speedscope(s: &Session) -> Value {
    let mut out = Vec::new();
    write_speedscope(s, &mut out).unwrap();
    serde_json::from_slice(&out).expect("speedscope export is JSON")
}

fn firefox(s: &Session) -> Value {
    let mut out = Vec::new();
    write_firefox(s, &mut out).unwrap();
    serde_json::from_slice(&out).expect("Firefox export is JSON")
}

fn folded(s: &Session, clock: Clock, thread_roots: bool) -> String {
    let mut out = Vec::new();
    write_folded(s, &FoldedOptions { clock, thread_roots }, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn title(s: &Session, t: ThreadId) -> String {
    format!("{} (tid {})", s.thread(t).label(), s.thread(t).tid)
}

/// Reads a speedscope file back into one call tree per profile and checks
/// it is the session's, to the ns.
fn check_speedscope(s: &Session) {
    let v = speedscope(s);
    assert_eq!(v["$schema"], "https://www.speedscope.app/file-format-schema.json");
    let frames = v["shared"]["frames"].as_array().unwrap();
    let names = frame_names(&s.methods);
    assert_eq!(frames.len(), s.methods.len());
    for ((id, m), f) in s.methods.iter().zip(frames) {
        assert_eq!(f["name"], names[id.0 as usize].as_str());
        assert_eq!(f["file"].as_str(), m.source_file.as_deref());
        assert_eq!(f["line"].as_u64(), m.line.map(u64::from));
    }
    let threads = threads_with_calls(s);
    let profiles = v["profiles"].as_array().unwrap();
    assert_eq!(profiles.len(), threads.len());
    for (p, &t) in profiles.iter().zip(&threads) {
        assert_eq!(p["type"], "evented");
        assert_eq!(p["unit"], "nanoseconds");
        assert_eq!(p["name"], title(s, t).as_str());
        let (start, end) = (p["startValue"].as_u64().unwrap(), p["endValue"].as_u64().unwrap());
        // Distinct paths as (parent, frame) nodes; strings made once per node.
        let mut index: std::collections::HashMap<(usize, u64), usize> = Default::default();
        let mut nodes: Vec<(usize, u64, Node)> = Vec::new();
        let mut stack: Vec<(u64, usize, u64)> = Vec::new();
        let mut last = start;
        for e in p["events"].as_array().unwrap() {
            let (frame, at) = (e["frame"].as_u64().unwrap(), e["at"].as_u64().unwrap());
            assert!(at >= last && at <= end, "events in order inside [startValue, endValue]");
            last = at;
            match e["type"].as_str().unwrap() {
                "O" => {
                    let parent = stack.last().map_or(usize::MAX, |f| f.1);
                    let next = nodes.len();
                    let id = *index.entry((parent, frame)).or_insert(next);
                    if id == next {
                        nodes.push((parent, frame, Node::default()));
                    }
                    stack.push((frame, id, at));
                }
                "C" => {
                    let (open, id, t0) = stack.pop().expect("close without open");
                    assert_eq!(open, frame, "closes the innermost open frame");
                    nodes[id].2.calls += 1;
                    nodes[id].2.wall_ns += at - t0;
                }
                other => panic!("event type {other}"),
            }
        }
        assert!(stack.is_empty(), "every open frame is closed");
        let mut paths: Vec<String> = Vec::new();
        let mut tree: BTreeMap<String, Node> = BTreeMap::new();
        for (parent, frame, node) in nodes {
            let name = frames[frame as usize]["name"].as_str().unwrap();
            let path = match paths.get(parent) {
                Some(p) => format!("{p}{SEP}{name}"),
                None => name.to_owned(),
            };
            paths.push(path.clone());
            tree.insert(path, node);
        }
        let want: BTreeMap<String, Node> = call_tree_named(s, t, &names)
            .into_iter()
            .map(|(k, n)| (k, Node { cpu_ns: 0, ..n }))
            .collect();
        assert_eq!(tree, want, "{}", title(s, t));
    }
}

/// Reads a Firefox processed profile back: per thread, the call tree of its
/// samples (each sample's weight added to its stack and every prefix) must
/// be the session's inclusive wall time per path, to the ns, and the CPU
/// deltas (each belonging to the stretch before its sample) its CPU time.
fn check_firefox(s: &Session) {
    let names = frame_names(&s.methods);
    let v = firefox(s);
    let meta = &v["meta"];
    assert_eq!(meta["preprocessedProfileVersion"], 55);
    assert_eq!(meta["sampleUnits"]["threadCPUDelta"], "ns");
    let ns = |x: &Value| (x.as_f64().unwrap() * 1e6).round() as u64;
    let threads: Vec<ThreadId> = (0..s.threads.len() as u32)
        .map(ThreadId)
        .filter(|&t| !s.calls(t).is_empty() || s.markers.iter().any(|m| m.thread == t))
        .collect();
    let out = v["threads"].as_array().unwrap();
    assert_eq!(out.len(), threads.len());
    for (th, &t) in out.iter().zip(&threads) {
        assert_eq!(th["name"], title(s, t).as_str());
        assert_eq!(th["tid"], s.thread(t).tid.to_string());
        let strings: Vec<&str> = th["stringArray"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        let col = |table: &str, c: &str| th[table][c].as_array().unwrap().clone();
        for (table, cols) in [
            (
                "funcTable",
                &[
                    "name",
                    "isJS",
                    "relevantForJS",
                    "resource",
                    "fileName",
                    "lineNumber",
                    "columnNumber",
                ][..],
            ),
            (
                "frameTable",
                &[
                    "address",
                    "inlineDepth",
                    "category",
                    "subcategory",
                    "func",
                    "nativeSymbol",
                    "innerWindowID",
                    "line",
                    "column",
                ][..],
            ),
            ("stackTable", &["prefix", "frame"][..]),
            ("samples", &["stack", "timeDeltas", "weight"][..]),
            (
                "markers",
                &["category", "data", "name", "phase", "startTime", "endTime"][..],
            ),
        ] {
            let len = th[table]["length"].as_u64().unwrap() as usize;
            for c in cols {
                assert_eq!(col(table, c).len(), len, "{table}.{c} has `length` entries");
            }
        }
        let func_name: Vec<&str> = col("funcTable", "name")
            .iter()
            .map(|i| strings[i.as_u64().unwrap() as usize])
            .collect();
        let frame_func = col("frameTable", "func");
        let (prefix, frame) = (col("stackTable", "prefix"), col("stackTable", "frame"));
        let mut path_of: Vec<String> = Vec::new();
        for (p, f) in prefix.iter().zip(&frame) {
            let name = func_name[frame_func[f.as_u64().unwrap() as usize].as_u64().unwrap() as usize];
            path_of.push(match p.as_u64() {
                Some(p) => {
                    assert!((p as usize) < path_of.len(), "a prefix comes before its stack");
                    format!("{}{SEP}{name}", path_of[p as usize])
                }
                None => name.to_owned(),
            });
        }
        let stacks = col("samples", "stack");
        let times: Vec<u64> = col("samples", "timeDeltas")
            .iter()
            .scan(0u64, |t, d| {
                *t += ns(d);
                Some(*t)
            })
            .collect();
        let weights: Vec<u64> = col("samples", "weight").iter().map(ns).collect();
        let cpu: Vec<u64> = th["samples"]["threadCPUDelta"]
            .as_array()
            .map_or(vec![0; stacks.len()], |a| {
                a.iter().map(|x| x.as_u64().unwrap()).collect()
            });
        assert_eq!(th["samples"]["weightType"], "tracing-ms");
        // Weight and CPU per stack node, then added up into every prefix
        // (parents come before children, so one backward pass does it).
        let mut per_node = vec![(0u64, 0u64); path_of.len()];
        for i in 0..stacks.len() {
            if i + 1 < stacks.len() {
                assert_eq!(
                    weights[i],
                    times[i + 1] - times[i],
                    "a sample weighs the time to the next"
                );
            } else {
                assert_eq!(weights[i], 0);
            }
            let Some(st) = stacks[i].as_u64() else { continue };
            per_node[st as usize].0 += weights[i];
            per_node[st as usize].1 += cpu.get(i + 1).copied().unwrap_or(0);
        }
        for node in (0..per_node.len()).rev() {
            if let Some(p) = prefix[node].as_u64() {
                let (w, c) = per_node[node];
                per_node[p as usize].0 += w;
                per_node[p as usize].1 += c;
            }
        }
        let mut tree: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for (path, v) in path_of.iter().zip(per_node) {
            let e = tree.entry(path.clone()).or_default();
            e.0 += v.0;
            e.1 += v.1;
        }
        let want: BTreeMap<String, (u64, u64)> = call_tree_named(s, t, &names)
            .into_iter()
            .filter(|(_, n)| n.wall_ns > 0)
            .map(|(k, n)| (k, (n.wall_ns, if s.calls(t).has_cpu() { n.cpu_ns } else { 0 })))
            .collect();
        tree.retain(|_, v| v.0 > 0);
        assert_eq!(tree, want, "{}", title(s, t));
        let markers: Vec<(String, u64)> = s
            .markers
            .iter()
            .filter(|m| m.thread == t)
            .map(|m| (m.name.clone(), m.ts_ns))
            .collect();
        let shown: Vec<(String, u64)> = col("markers", "name")
            .iter()
            .zip(col("markers", "startTime"))
            .map(|(n, ts)| (strings[n.as_u64().unwrap() as usize].to_owned(), ns(&ts)))
            .collect();
        assert_eq!(shown, markers);
    }
}

/// Reads folded stacks back: per thread, every path's weight within 1 µs
/// of its exclusive time and the thread's weights adding up to its total
/// time rounded to the µs (also checked against `tracekit-analysis`).
fn check_folded(s: &Session, clock: Clock) {
    let names = frame_names(&s.methods);
    let text = folded(s, clock, true);
    let mut got: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for line in text.lines() {
        let (stack, weight) = line.rsplit_once(' ').expect("stack, space, weight");
        let weight: u64 = weight.parse().expect("integer weight");
        assert!(weight > 0);
        let (thread, path) = stack.split_once(';').expect("thread root, then frames");
        let prev = got
            .entry(thread.to_owned())
            .or_default()
            .insert(path.to_owned(), weight);
        assert!(prev.is_none(), "one line per stack");
    }
    for t in threads_with_calls(s) {
        let lines = got.remove(&title(s, t)).unwrap_or_default();
        let pick = |(w, c): (u64, u64)| if clock == Clock::Wall { w } else { c };
        // Folded frame names have `;` turned into `:`.
        let mut excl: BTreeMap<String, u64> = BTreeMap::new();
        for (path, v) in exclusive(&call_tree_named(s, t, &names)) {
            let folded_path: Vec<String> = path.split(SEP).map(|n| n.replace(';', ":")).collect();
            *excl.entry(folded_path.join(";")).or_default() += pick(v);
        }
        let total_ns: u64 = excl.values().sum();
        let total_us: u64 = lines.values().sum();
        assert_eq!(total_us, (total_ns + 500) / 1000, "{}: total", title(s, t));
        let p = Profile::of(
            s,
            &ProfileOptions {
                threads: Some(vec![t]),
                ..ProfileOptions::default()
            },
        );
        let analysis_total = if clock == Clock::Wall {
            p.total_real_ns
        } else {
            p.total_cpu_ns
        };
        assert_eq!(
            total_ns, analysis_total,
            "reference total agrees with tracekit-analysis"
        );
        for (path, &want) in &excl {
            let have = lines.get(path).copied().unwrap_or(0) * 1000;
            assert!(
                have.abs_diff(want) < 1000,
                "{}: {path}: {have} ns vs {want} ns",
                title(s, t)
            );
        }
        for path in lines.keys() {
            assert!(excl.contains_key(path), "{path} is a stack of the thread");
        }
    }
    assert!(got.is_empty(), "lines of unknown threads: {got:?}");
}

fn check_all(s: &Session) {
    check_speedscope(s);
    check_firefox(s);
    if s.clocks.wall {
        check_folded(s, Clock::Wall);
    }
    if s.clocks.thread_cpu {
        check_folded(s, Clock::ThreadCpu);
    }
}

#[test]
fn the_example_reads_back() {
    check_all(&common::example());
}

#[test]
fn the_handmade_session_reads_back() {
    let s = common::handmade();
    check_all(&s);
    // The recursion stays a path per depth in every format.
    let text = folded(&s, Clock::Wall, false);
    assert!(
        text.contains("com.ex.App.run;com.ex.Math.fib;com.ex.Math.fib;com.ex.Math.fib 7000\n"),
        "{text}"
    );
    assert!(text.contains("com.ex.App.run;com.ex.Io.parse 11250\n"), "{text}");
    let deepest = text.lines().map(|l| l.matches(';').count()).max().unwrap();
    assert_eq!(deepest, 39, "the 40-deep stack");
}

#[test]
fn a_wall_only_session_has_no_cpu_columns() {
    let mut s = common::handmade();
    s.clocks = Clocks::WALL;
    for (id, _, c) in s.clone().thread_calls() {
        let mut w = CallColumns::new();
        for e in c.iter() {
            w.push(CallEvent { cpu_ns: None, ..e });
        }
        s.set_calls(id, w);
    }
    check_all(&s);
    assert!(firefox(&s)["threads"][0]["samples"].get("threadCPUDelta").is_none());
    let err = write_folded(
        &s,
        &FoldedOptions {
            clock: Clock::ThreadCpu,
            thread_roots: false,
        },
        &mut Vec::new(),
    );
    assert!(matches!(err, Err(Error::MissingClock(Clock::ThreadCpu, "wall"))));
}

#[test]
fn an_empty_session_is_refused_where_a_viewer_could_not_open_it() {
    let mut s = Session::new("empty", Clocks::DUAL);
    s.add_thread(Thread::new(1, "idle"));
    assert!(matches!(write_speedscope(&s, &mut Vec::new()), Err(Error::NoCalls)));
    assert!(matches!(write_firefox(&s, &mut Vec::new()), Err(Error::NoCalls)));
    assert_eq!(folded(&s, Clock::Wall, true), "");
}

#[test]
fn unbalanced_input_still_gives_files_that_nest() {
    // Exit without entry, a mismatched exit, a call left open, time going back.
    let mut s = Session::new("unbalanced", Clocks::WALL);
    let t = s.add_thread(Thread::new(1, "main"));
    let a = s.methods.intern(Method::new("", "a", ""));
    let b = s.methods.intern(Method::new("", "b", ""));
    for e in [
        CallEvent::exit(b, 1, None),
        CallEvent::enter(a, 2, None),
        CallEvent::enter(b, 9, None),
        CallEvent::enter(a, 5, None),
        CallEvent::exit(b, 12, None),
        CallEvent::enter(b, 20, None),
    ] {
        s.calls_mut(t).push(e);
    }
    let v = speedscope(&s);
    let events: Vec<(String, u64, u64)> = v["profiles"][0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["frame"].as_u64().unwrap(),
                e["at"].as_u64().unwrap(),
            )
        })
        .collect();
    let ev = |k: &str, f: u64, at: u64| (k.to_owned(), f, at);
    assert_eq!(
        events,
        vec![
            ev("O", 0, 2),
            ev("O", 1, 9),
            ev("O", 0, 9),
            ev("C", 0, 12),
            ev("C", 1, 12),
            ev("O", 1, 20),
            ev("C", 1, 20),
            ev("C", 0, 20)
        ]
    );
    assert_eq!(folded(&s, Clock::Wall, false), "");
    let f = firefox(&s);
    assert_eq!(
        f["threads"][0]["samples"]["weight"],
        serde_json::json!([0.000007, 0.000003, 0.000008, 0])
    );
}

/// A random balanced session: up to three threads, nested calls of up to
/// five methods (recursion included), gaps and zero-length calls.
fn random_session() -> impl Strategy<Value = Session> {
    let thread = prop::collection::vec((0u32..5, 0u64..3_000, 0u64..2_000, any::<bool>()), 0..60);
    prop::collection::vec(thread, 1..4).prop_map(|threads| {
        let mut s = Session::new("random", Clocks::DUAL);
        for i in 0..5 {
            s.methods.intern(Method::new("p/C", format!("m{i}"), "()V"));
        }
        for (k, ops) in threads.into_iter().enumerate() {
            let t = s.add_thread(Thread::new(k as u32 + 1, format!("t{k}")));
            let (mut ts, mut cpu, mut open) = (0u64, 0u64, Vec::new());
            for (m, dt, dc, enter) in ops {
                ts += dt;
                cpu += dc.min(dt);
                if enter || open.is_empty() {
                    open.push(MethodId(m));
                    s.calls_mut(t).push(CallEvent::enter(MethodId(m), ts, Some(cpu)));
                } else {
                    let m = open.pop().unwrap();
                    s.calls_mut(t).push(CallEvent::exit(m, ts, Some(cpu)));
                }
            }
            while let Some(m) = open.pop() {
                ts += 1_000;
                s.calls_mut(t).push(CallEvent::exit(m, ts, Some(cpu)));
            }
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_sessions_read_back(s in random_session()) {
        if threads_with_calls(&s).is_empty() {
            prop_assert!(write_speedscope(&s, &mut Vec::new()).is_err());
        } else {
            check_all(&s);
        }
    }
}

/// A writer with room for `.0` bytes, then "disk full".
struct Full(usize);

impl std::io::Write for Full {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.0 < b.len() {
            return Err(std::io::Error::other("disk full"));
        }
        self.0 -= b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_output_is_an_error_not_a_panic() {
    let s = common::example();
    for room in [0, 100, 200_000] {
        let e = write_speedscope(&s, &mut Full(room)).unwrap_err();
        assert!(matches!(e, Error::Io(_)), "{e}");
        assert!(matches!(write_firefox(&s, &mut Full(room)), Err(Error::Io(_))));
    }
    assert!(matches!(
        write_folded(&s, &FoldedOptions::default(), &mut Full(10)),
        Err(Error::Io(_))
    ));
    assert_eq!(
        write_speedscope(&s, &mut Full(0)).unwrap_err().to_string(),
        "writing the export: disk full"
    );
}

#[test]
fn a_thread_with_only_markers_is_kept_in_the_firefox_profile() {
    let mut s = common::handmade();
    let quiet = s.add_thread(Thread::new(9, "quiet"));
    s.markers.push(Marker {
        ts_ns: 12_345_678,
        thread: quiet,
        name: "tick".into(),
    });
    check_firefox(&s);
    let v = firefox(&s);
    let t = &v["threads"][2];
    assert_eq!(t["name"], "quiet (tid 9)");
    assert_eq!(t["samples"]["length"], 0);
    assert_eq!(t["markers"]["startTime"], serde_json::json!([12.345678]));
    // speedscope and folded stacks have nothing to show for it.
    assert_eq!(speedscope(&s)["profiles"].as_array().unwrap().len(), 2);
}

#[test]
fn real_android_traces_read_back() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realdata/dmtrace");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: realdata folder absent ({})", dir.display());
        return;
    };
    let mut checked = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "trace") {
            continue;
        }
        let Ok(s) = tracekit_dmtrace::read_path(&path) else {
            continue; // a capture the reader refuses (one is cut inside its header)
        };
        if threads_with_calls(&s).is_empty() {
            continue;
        }
        eprintln!("{}: {} call events", path.display(), s.call_event_count());
        check_all(&s);
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} real traces exported");
}
