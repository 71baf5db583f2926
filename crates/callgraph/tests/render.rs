//! The call graph drawn: the layout's promises on random graphs (property
//! tests), and the example's graph in DOT checked by Graphviz itself when it
//! is installed (`scripts/deps/callgraph.apt`).

use proptest::prelude::*;
use tracekit_analysis::problems::horizon;
use tracekit_analysis::{CallGraph, Condition};
use tracekit_callgraph::layout::{layout, Layout};
use tracekit_callgraph::{render_dot, render_svg, Caption};

fn check(l: &Layout, sizes: &[(f64, f64)], edges: &[(usize, usize)]) {
    for (i, a) in l.nodes.iter().enumerate() {
        assert_eq!((a.w, a.h), sizes[i]);
        assert!(
            a.x >= 0.0 && a.y >= 0.0 && a.x + a.w <= l.width && a.y + a.h <= l.height,
            "{a:?} in {}x{}",
            l.width,
            l.height
        );
        for b in &l.nodes[i + 1..] {
            let apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
            assert!(apart, "boxes overlap: {a:?} {b:?}");
        }
    }
    for (&(u, v), p) in edges.iter().zip(&l.edges) {
        let (bu, bv) = (&l.nodes[u], &l.nodes[v]);
        if u == v {
            assert!(p.self_loop);
            continue;
        }
        // Downward edges run from the caller's bottom to the callee's top;
        // edges closing a cycle run upwards, top to bottom.
        let (first, last) = (p.points[0], *p.points.last().unwrap());
        assert_eq!(first.0, bu.cx());
        assert_eq!(last.0, bv.cx());
        if p.back {
            assert!(bv.layer < bu.layer, "a back edge goes up");
            assert_eq!((first.1, last.1), (bu.y, bv.y + bv.h));
        } else {
            assert!(bv.layer > bu.layer, "callees lie below callers");
            assert_eq!((first.1, last.1), (bu.y + bu.h, bv.y));
        }
        // One point per layer crossed.
        assert_eq!(p.points.len(), bu.layer.abs_diff(bv.layer) + 1);
    }
}

proptest! {
    #[test]
    fn layouts_of_random_graphs_keep_their_promises(
        sizes in prop::collection::vec((20.0f64..200.0, 20.0f64..60.0), 1..40),
        raw in prop::collection::vec((0usize..1000, 0usize..1000), 0..120),
    ) {
        let n = sizes.len();
        let mut edges: Vec<(usize, usize)> = raw.iter().map(|&(a, b)| (a % n, b % n)).collect();
        edges.sort_unstable();
        edges.dedup();
        let l = layout(&sizes, &edges, 30.0);
        check(&l, &sizes, &edges);
    }
}

fn example_graph() -> (tracekit_model::Session, CallGraph) {
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        seed: 5,
        duration_s: 30.0,
    });
    let w = Condition::parse("Screen orientation == 1")
        .unwrap()
        .intervals(&s, horizon(&s))
        .unwrap();
    let g = CallGraph::of(&s, None, Some(&w));
    (s, g)
}

#[test]
fn the_example_graph_in_svg_and_dot() {
    let (s, mut g) = example_graph();
    let caption = Caption {
        name: s.name.clone(),
        condition: Some("Screen orientation == 1".into()),
    };
    let svg = render_svg(&g, &s, &caption);
    assert_eq!(svg.matches("<g class=\"tk-node").count(), g.nodes.len());
    assert_eq!(svg.matches("<g class=\"tk-edge").count(), g.edges.len());
    let lit = g
        .nodes
        .iter()
        .filter(|n| n.when.is_some_and(|w| w.incl_real_ns > 0))
        .count();
    assert_eq!(svg.matches("tk-node tk-lit").count(), lit);
    assert!(lit > 5 && lit < g.nodes.len(), "{lit} of {}", g.nodes.len());
    assert!(svg.contains("Every method and call drawn"));
    let p = g.prune(1.0);
    assert!(p.nodes > 0);
    let svg = render_svg(&g, &s, &caption);
    assert!(
        svg.contains(&format!("{} of {} methods", p.nodes, p.nodes_before)),
        "the drawing says what was pruned"
    );
    let dot = render_dot(&g, &s, &caption);
    assert!(dot.contains(&format!("{} of {} methods", p.nodes, p.nodes_before)));
    assert_eq!(dot.matches(" -> ").count(), g.edges.len());
    // Graphviz reads it.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("callgraph");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("example.dot");
    std::fs::write(&path, &dot).unwrap();
    match std::process::Command::new("dot").arg("-Tsvg").arg(&path).output() {
        Ok(out) => {
            assert!(out.status.success(), "dot: {}", String::from_utf8_lossy(&out.stderr));
            let drawn = String::from_utf8_lossy(&out.stdout);
            assert_eq!(drawn.matches("class=\"node\"").count(), g.nodes.len());
            assert_eq!(drawn.matches("class=\"edge\"").count(), g.edges.len());
        }
        Err(_) => eprintln!("skipped: graphviz absent (scripts/deps/callgraph.apt installs it)"),
    }
}

#[test]
fn names_from_the_input_cannot_break_the_markup() {
    let mut s = tracekit_model::Session::new("x", tracekit_model::Clocks::WALL);
    let t = s.add_thread(tracekit_model::Thread::new(1, "main"));
    let a = s
        .methods
        .intern(tracekit_model::Method::new("a/<b>&\"", "f\u{1b}[31m", "()V"));
    let b = s.methods.intern(tracekit_model::Method::new("c\\", "g\"]", "()V"));
    for e in [
        tracekit_model::CallEvent::enter(a, 0, None),
        tracekit_model::CallEvent::enter(b, 1, None),
        tracekit_model::CallEvent::exit(b, 2, None),
        tracekit_model::CallEvent::exit(a, 3, None),
    ] {
        s.calls_mut(t).push(e);
    }
    let g = CallGraph::of(&s, None, None);
    let caption = Caption {
        name: "</svg>".into(),
        condition: None,
    };
    let svg = render_svg(&g, &s, &caption);
    assert!(!svg.contains("<b>") && !svg.contains('\u{1b}') && svg.matches("</svg>").count() == 1);
    let dot = render_dot(&g, &s, &caption);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("callgraph");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("names.dot"), &dot).unwrap();
    if let Ok(out) = std::process::Command::new("dot")
        .arg("-Tsvg")
        .arg(dir.join("names.dot"))
        .output()
    {
        assert!(out.status.success(), "{}\n{dot}", String::from_utf8_lossy(&out.stderr));
    }
}
