//! Profile and call-tree semantics on hand-built sessions, plus properties
//! on random balanced call sequences.

use proptest::prelude::*;
use tracekit_analysis::*;
use tracekit_model::*;

fn session(clocks: Clocks, events: &[(u8, u32, u64, u64)]) -> (Session, Vec<MethodId>) {
    let mut s = Session::new("t", clocks);
    let t = s.add_thread(Thread::new(1, "main"));
    let ids: Vec<MethodId> = (0..4)
        .map(|i| s.methods.intern(Method::new("C", format!("m{i}"), "()V")))
        .collect();
    for &(k, m, ts, cpu) in events {
        let cpu = clocks.thread_cpu.then_some(cpu);
        let e = match k {
            0 => CallEvent::enter(ids[m as usize], ts, cpu),
            1 => CallEvent::exit(ids[m as usize], ts, cpu),
            _ => CallEvent::unwind(ids[m as usize], ts, cpu),
        };
        s.calls_mut(t).push(e);
    }
    (s, ids)
}

#[test]
fn recursion_counts_outermost_inclusive_once() {
    // m0 -> m1 -> m1 (recursive) -> m2
    let (s, ids) = session(
        Clocks::DUAL,
        &[
            (0, 0, 0, 0),
            (0, 1, 10, 5),
            (0, 1, 20, 10),
            (0, 2, 30, 15),
            (1, 2, 60, 30),
            (1, 1, 70, 35),
            (2, 1, 90, 45),
            (1, 0, 100, 50),
        ],
    );
    let p = Profile::of(&s, &ProfileOptions::default());
    let m1 = p.method(ids[1]).unwrap();
    assert_eq!((m1.calls, m1.recursive_calls), (2, 1));
    assert_eq!(m1.incl_real_ns, 80, "outer invocation only");
    assert_eq!(m1.excl_real_ns, 80 - 30);
    assert_eq!((m1.incl_cpu_ns, m1.excl_cpu_ns), (40, 25));
    let m0 = p.method(ids[0]).unwrap();
    assert_eq!((m0.incl_real_ns, m0.excl_real_ns), (100, 20));
    assert_eq!(p.total_real_ns, 100);
    assert_eq!(p.methods[0].method, ids[0], "sorted by inclusive time");
    let parents: Vec<_> = p.parents(ids[1]).iter().map(|e| (e.parent, e.calls)).collect();
    assert!(parents.contains(&(Some(ids[0]), 1)) && parents.contains(&(Some(ids[1]), 1)));
    assert_eq!(p.children(ids[1]).len(), 2);

    let tree = CallTree::of(&s, None, None);
    let order: Vec<String> = tree
        .depth_first(None)
        .iter()
        .map(|&(n, d)| format!("{d}:{}", s.methods.get(tree.nodes[n].method.unwrap()).name))
        .collect();
    assert_eq!(order, ["0:m0", "1:m1", "2:m1", "3:m2"]);
    assert_eq!(tree.root().incl_real_ns, 100);
}

#[test]
fn wall_only_has_no_cpu_and_windows_clip() {
    let (s, ids) = session(
        Clocks::WALL,
        &[(0, 0, 0, 0), (0, 1, 40, 0), (1, 1, 60, 0), (1, 0, 100, 0)],
    );
    let p = Profile::of(&s, &ProfileOptions::default());
    assert_eq!(p.method(ids[0]).unwrap().incl_cpu_ns, 0);
    let w = ProfileOptions {
        threads: None,
        window: Some(IntervalSet::single(50, 80)),
    };
    let p = Profile::of(&s, &w);
    let m0 = p.method(ids[0]).unwrap();
    let m1 = p.method(ids[1]).unwrap();
    assert_eq!((m0.incl_real_ns, m0.excl_real_ns, m0.calls), (30, 20, 0));
    assert_eq!((m1.incl_real_ns, m1.calls), (10, 0), "m1 started before the window");
    let w = ProfileOptions {
        threads: None,
        window: Some(IntervalSet::single(30, 80)),
    };
    assert_eq!(Profile::of(&s, &w).method(ids[1]).unwrap().calls, 1);
}

#[test]
fn cpu_is_apportioned_inside_a_window() {
    let (s, ids) = session(Clocks::DUAL, &[(0, 0, 0, 0), (1, 0, 100, 50)]);
    let w = ProfileOptions {
        threads: None,
        window: Some(IntervalSet::single(0, 50)),
    };
    let r = Profile::of(&s, &w).method(ids[0]).unwrap().clone();
    assert_eq!((r.incl_real_ns, r.incl_cpu_ns), (50, 25));
}

fn balanced() -> impl Strategy<Value = Vec<(u8, u32)>> {
    prop::collection::vec((any::<bool>(), 0u32..4), 0..60).prop_map(|ops| {
        let mut out = Vec::new();
        let mut stack = Vec::new();
        for (push, m) in ops {
            if push || stack.is_empty() {
                stack.push(m);
                out.push((0, m));
            } else {
                out.push((1, stack.pop().unwrap()));
            }
        }
        while let Some(m) = stack.pop() {
            out.push((1, m));
        }
        out
    })
}

proptest! {
    #[test]
    fn totals_add_up(ops in balanced(), gaps in prop::collection::vec(0u64..50, 60..121)) {
        let mut ts = 0;
        let ev: Vec<(u8, u32, u64, u64)> = ops.iter().zip(&gaps).map(|(&(k, m), &g)| { ts += g; (k, m, ts, ts / 2) }).collect();
        let (s, _) = session(Clocks::DUAL, &ev);
        let p = Profile::of(&s, &ProfileOptions::default());
        let covered: u64 = CallTree::of(&s, None, None).root().incl_real_ns;
        prop_assert_eq!(p.total_real_ns, covered);
        for r in &p.methods {
            prop_assert!(r.excl_real_ns <= r.incl_real_ns);
            prop_assert!(r.incl_real_ns <= covered);
            prop_assert!(r.recursive_calls < r.calls.max(1));
        }
        let calls: u64 = p.methods.iter().map(|r| r.calls).sum();
        prop_assert_eq!(calls as usize, ops.len() / 2);
        // A window covering everything changes nothing.
        let all = ProfileOptions { threads: None, window: Some(IntervalSet::single(-1, ts as i64 + 1)) };
        let q = Profile::of(&s, &all);
        prop_assert_eq!(p.methods, q.methods);
    }
}
