//! Sessions and reference results shared by the export tests. The
//! reference call trees are computed here, directly from the call columns
//! with a plain stack, independently of the crate's own walk.
#![allow(dead_code)]

use std::collections::BTreeMap;
use tracekit_model::*;

/// Two threads on both clocks. `main` has recursion (fib → fib → fib),
/// siblings, an unwind and two markers; `worker` a 40-deep recursive stack.
/// Every total and self time is a distinct number of µs (some with ns).
pub fn handmade() -> Session {
    let mut s = Session::new("handmade", Clocks::DUAL);
    s.anchor_unix_ns = Some(1_700_000_000_000_000_000);
    let main = s.add_thread(Thread::new(1, "main"));
    let worker = s.add_thread(Thread::new(2, "worker"));
    let m = |s: &mut Session, c: &str, n: &str| s.methods.intern(Method::new(c, n, "()V"));
    let run = m(&mut s, "com/ex/App", "run");
    let fib = m(&mut s, "com/ex/Math", "fib");
    let parse = m(&mut s, "com/ex/Io", "parse");
    let work = m(&mut s, "com/ex/Pool", "work");
    let ms = 1_000_000u64;
    let ev = |k: CallKind, m, t: u64| CallEvent {
        kind: k,
        method: m,
        ts_ns: t,
        cpu_ns: Some(t / 3 + 7),
    };
    use CallKind::*;
    for e in [
        ev(Enter, run, 0),
        ev(Enter, fib, 2 * ms),
        ev(Enter, fib, 3 * ms),
        ev(Enter, fib, 5 * ms),
        ev(Exit, fib, 12 * ms),
        ev(Exit, fib, 13 * ms),
        ev(Exit, fib, 17 * ms),
        ev(Enter, parse, 20 * ms),
        ev(Unwind, parse, 31 * ms + 250_123),
        ev(Exit, run, 40 * ms),
    ] {
        s.calls_mut(main).push(e);
    }
    let depth = 40u64;
    for d in 0..depth {
        s.calls_mut(worker).push(ev(Enter, work, d * 100_000));
    }
    for d in 0..depth {
        s.calls_mut(worker)
            .push(ev(Exit, work, depth * 100_000 + 50 * ms + d * 300_000));
    }
    for (t, name) in [(4 * ms + 321, "brb"), (30 * ms, "frame; done\n")] {
        s.markers.push(Marker {
            ts_ns: t,
            thread: main,
            name: name.into(),
        });
    }
    s
}

/// The bundled example, shortened.
pub fn example() -> Session {
    tracekit_example::browser_session(&tracekit_example::Options {
        seed: 11,
        duration_s: 20.0,
    })
}

/// Joins frame names in the reference call paths: Java signatures contain
/// `;`, so the folded format's separator cannot be used here.
pub const SEP: char = '\u{1}';

/// One node of a reference call tree: calls, inclusive wall and CPU ns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    pub calls: u64,
    pub wall_ns: u64,
    pub cpu_ns: u64,
}

/// Every call path of a thread (frame names from the root, joined by [`SEP`])
/// with its calls and inclusive times. The session must be balanced.
pub fn call_tree(s: &Session, t: ThreadId) -> BTreeMap<String, Node> {
    call_tree_named(s, t, &tracekit_export::frame_names(&s.methods))
}

/// [`call_tree`] with the frame names already made.
pub fn call_tree_named(s: &Session, t: ThreadId, names: &[String]) -> BTreeMap<String, Node> {
    // Distinct paths as (parent, method) nodes; strings made once per node.
    let mut index: std::collections::HashMap<(usize, MethodId), usize> = Default::default();
    let mut nodes: Vec<(usize, MethodId, Node)> = Vec::new();
    let mut stack: Vec<(usize, u64, u64)> = Vec::new();
    for e in s.calls(t).iter() {
        let cpu = e.cpu_ns.unwrap_or(0);
        if e.kind == CallKind::Enter {
            let parent = stack.last().map_or(usize::MAX, |f| f.0);
            let next = nodes.len();
            let id = *index.entry((parent, e.method)).or_insert(next);
            if id == next {
                nodes.push((parent, e.method, Node::default()));
            }
            stack.push((id, e.ts_ns, cpu));
        } else {
            let (id, t0, c0) = stack.pop().expect("balanced session");
            let n = &mut nodes[id].2;
            n.calls += 1;
            n.wall_ns += e.ts_ns - t0;
            n.cpu_ns += cpu - c0;
        }
    }
    assert!(stack.is_empty(), "balanced session");
    let mut paths: Vec<String> = Vec::with_capacity(nodes.len());
    let mut out = BTreeMap::new();
    for (parent, m, node) in nodes {
        let name = &names[m.0 as usize];
        let path = match paths.get(parent) {
            Some(p) => format!("{p}{SEP}{name}"),
            None => name.clone(),
        };
        paths.push(path.clone());
        out.insert(path, node);
    }
    out
}

/// Exclusive (wall, CPU) times per path, from inclusive ones.
pub fn exclusive(tree: &BTreeMap<String, Node>) -> BTreeMap<String, (u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64)> = tree.iter().map(|(p, n)| (p.clone(), (n.wall_ns, n.cpu_ns))).collect();
    for (path, n) in tree {
        if let Some((parent, _)) = path.rsplit_once(SEP) {
            let e = out.get_mut(parent).expect("parent path");
            e.0 -= n.wall_ns;
            e.1 -= n.cpu_ns;
        }
    }
    out
}

/// Threads that have calls.
pub fn threads_with_calls(s: &Session) -> Vec<ThreadId> {
    s.thread_calls()
        .filter(|(_, _, c)| !c.is_empty())
        .map(|(id, _, _)| id)
        .collect()
}
