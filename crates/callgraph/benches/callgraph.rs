//! Drawing call graphs: the example's (37 methods) as SVG, and the layout
//! alone of a random graph of 400 methods and 1,200 edges (a large trace's
//! graph before pruning).

use criterion::{criterion_group, criterion_main, Criterion};
use tracekit_analysis::CallGraph;
use tracekit_callgraph::layout::layout;
use tracekit_callgraph::{render_svg, Caption};

fn bench(c: &mut Criterion) {
    let s = tracekit_example::browser_session(&tracekit_example::Options::default());
    let g = CallGraph::of(&s, None, None);
    let caption = Caption {
        name: s.name.clone(),
        condition: None,
    };
    c.bench_function(&format!("svg-example-{}-methods", g.nodes.len()), |b| {
        b.iter(|| render_svg(&g, &s, &caption).len())
    });
    // SplitMix64, so the graph is the same on every run.
    let mut x = 7u64;
    let mut next = move || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let n = 400usize;
    let sizes: Vec<(f64, f64)> = (0..n).map(|_| (80.0 + (next() % 200) as f64, 38.0)).collect();
    // Mostly downward calls (caller index below callee), some cycles.
    let edges: Vec<(usize, usize)> = (0..1200)
        .map(|_| {
            let a = (next() % n as u64) as usize;
            let b = if next() % 10 == 0 {
                (next() % n as u64) as usize
            } else {
                (a + 1 + (next() % 20) as usize).min(n - 1)
            };
            (a, b)
        })
        .collect();
    let mut g = c.benchmark_group("layout");
    g.sample_size(10);
    g.bench_function("random-400-methods-1200-edges", |b| {
        b.iter(|| layout(&sizes, &edges, 0.0).width)
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
