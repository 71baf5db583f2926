//! Ranked hints (value, rate and time-adjusted scores, time's association
//! beyond each suspect) on the bundled example: the big red button's few
//! presses, a method called thousands of times under a condition, and five
//! generated sessions pooled.

use criterion::{criterion_group, criterion_main, Criterion};
use tracekit_analysis::hints::hints;
use tracekit_analysis::problems::{find, ProblemDef};
use tracekit_analysis::{CallGraph, Condition};
use tracekit_example::hint_scenarios::{scenario, Cause};

fn bench(c: &mut Criterion) {
    let s = [tracekit_example::browser_session(&tracekit_example::Options {
        seed: 739_177,
        duration_s: 600.0,
    })];
    let mut g = c.benchmark_group("hints");
    g.sample_size(10);
    let brb = find(&s, &ProblemDef::Brb { method: "brb".into() }).unwrap();
    g.bench_function(format!("example-600s-brb-{}-presses", brb.occurrences.len()), |b| {
        b.iter(|| hints(&s, &brb.occurrences).len())
    });
    let draw = find(
        &s,
        &ProblemDef::Method {
            method: "LayerView.onDraw".into(),
            when: Some(Condition::parse("Screen orientation == 1").unwrap()),
        },
    )
    .unwrap();
    g.bench_function(format!("example-600s-ondraw-{}-calls", draw.occurrences.len()), |b| {
        b.iter(|| hints(&s, &draw.occurrences).len())
    });
    let pooled: Vec<_> = (1..=5).map(|seed| scenario(Cause::DriftingInt, seed)).collect();
    let m = find(&pooled, &ProblemDef::Brb { method: "brb".into() }).unwrap();
    g.bench_function("scenarios-5-pooled", |b| {
        b.iter(|| hints(&pooled, &m.occurrences).len())
    });
    g.finish();
    let w = Condition::parse("Screen orientation == 1")
        .unwrap()
        .intervals(&s[0], tracekit_analysis::problems::horizon(&s[0]))
        .unwrap();
    c.bench_function("callgraph-example-600s-conditioned", |b| {
        b.iter(|| CallGraph::of(&s[0], None, Some(&w)).nodes.len())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
