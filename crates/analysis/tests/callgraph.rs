//! The call graph's numbers are the call tree's: on the bundled example,
//! each method's time and calls (and the share while a condition holds)
//! equal the sums over its call-tree nodes, each edge's the sums over the
//! tree nodes of the callee under the caller.

use rustc_hash::FxHashMap;
use tracekit_analysis::problems::horizon;
use tracekit_analysis::{CallGraph, CallTree, Condition, IntervalSet};
use tracekit_model::{MethodId, Session};

#[derive(Default, Debug, PartialEq, Eq)]
struct Sums {
    calls: u64,
    incl: u64,
    cpu: u64,
}

/// Per method (outermost invocations only, as the profile counts inclusive
/// time) and per caller → callee, summed over the call tree's nodes.
fn tree_sums(t: &CallTree) -> (FxHashMap<MethodId, Sums>, FxHashMap<(MethodId, MethodId), Sums>) {
    let (mut nodes, mut edges) = (FxHashMap::default(), FxHashMap::<(MethodId, MethodId), Sums>::default());
    for n in t.nodes.iter().skip(1) {
        let m = n.method.unwrap();
        let mut up = n.parent;
        let mut nested = false;
        while let Some(p) = up {
            nested |= t.nodes[p].method == Some(m);
            up = t.nodes[p].parent;
        }
        let s: &mut Sums = nodes.entry(m).or_default();
        s.calls += n.calls;
        if !nested {
            s.incl += n.incl_real_ns;
            s.cpu += n.incl_cpu_ns;
        }
        if let Some(caller) = n.parent.and_then(|p| t.nodes[p].method) {
            let e = edges.entry((caller, m)).or_default();
            e.calls += n.calls;
            e.incl += n.incl_real_ns;
            e.cpu += n.incl_cpu_ns;
        }
    }
    (nodes, edges)
}

fn check(s: &Session, window: Option<&IntervalSet>) {
    let g = CallGraph::of(s, None, window);
    let (mut nodes, mut edges) = tree_sums(&CallTree::of(s, None, window));
    let mut highlighted = 0;
    for n in &g.nodes {
        let (calls, incl, cpu) = match (window, n.when) {
            (Some(_), Some(w)) => (w.calls, w.incl_real_ns, w.incl_cpu_ns),
            (None, None) => (n.calls, n.incl_real_ns, n.incl_cpu_ns),
            other => panic!("{other:?}"),
        };
        highlighted += usize::from(incl > 0);
        let want = nodes.remove(&n.method).unwrap_or_default();
        assert_eq!(
            Sums { calls, incl, cpu },
            want,
            "{}",
            s.methods.get(n.method).qualified_name()
        );
    }
    for e in &g.edges {
        let (calls, incl, cpu) = match e.when {
            Some(w) => (w.calls, w.incl_real_ns, w.incl_cpu_ns),
            None => (e.calls, e.incl_real_ns, e.incl_cpu_ns),
        };
        let want = edges.remove(&(e.caller, e.callee)).unwrap_or_default();
        assert_eq!(Sums { calls, incl, cpu }, want);
    }
    assert!(
        edges.is_empty(),
        "every caller → callee pair of the tree is an edge: {edges:?}"
    );
    assert!(nodes.is_empty(), "every method of the tree is a node: {nodes:?}");
    if window.is_some() {
        assert!(highlighted > 10 && highlighted <= g.nodes.len(), "{highlighted}");
    }
}

#[test]
fn the_graph_highlights_the_conditioned_call_trees_times() {
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        seed: 5,
        duration_s: 30.0,
    });
    check(&s, None);
    let w = Condition::parse("Screen orientation == 1")
        .unwrap()
        .intervals(&s, horizon(&s))
        .unwrap();
    assert!(!w.is_empty());
    check(&s, Some(&w));
    let g = CallGraph::of(&s, None, Some(&w));
    let inside = g.when_total_ns.unwrap();
    assert!(inside > 0 && inside < g.total_ns);
}
