//! Queries are outside data: mutated canned and standard-library queries
//! (characters deleted, inserted, replaced; statements cut) must give a
//! result or an error, never a panic or a hang. Findings go to
//! `tests/corpus/queries.txt`, replayed first.

mod common;

use proptest::prelude::*;
use std::sync::OnceLock;
use tracekit_sql::{Engine, QUERIES};

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let mut s = common::example(3, "ex");
        // A small session keeps each query quick.
        s.session = tracekit_example::synthetic_calls(400);
        Engine::over_sessions(vec![s]).unwrap()
    })
}

fn seeds() -> Vec<String> {
    let mut v: Vec<String> = QUERIES.iter().map(|(_, q)| q.to_string()).collect();
    v.extend(tracekit_sql::stdlib::STDLIB.iter().map(|(_, q)| q.to_string()));
    v
}

#[test]
fn the_corpus_gives_errors_not_panics() {
    let corpus = include_str!("corpus/queries.txt");
    for q in corpus.split("\n----\n").filter(|q| !q.trim().is_empty()) {
        let _ = engine().run(q);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]
    #[test]
    fn mutated_queries_never_panic(which in 0usize..11, edits in proptest::collection::vec((any::<u16>(), 0u8..4, any::<char>()), 1..6)) {
        let seeds = seeds();
        let mut q: Vec<char> = seeds[which % seeds.len()].chars().collect();
        for (at, op, c) in edits {
            if q.is_empty() { break; }
            let i = at as usize % q.len();
            match op {
                0 => { q.remove(i); }
                1 => q.insert(i, c),
                2 => q[i] = c,
                _ => q.truncate(i),
            }
        }
        let text: String = q.into_iter().collect();
        let _ = engine().run(&text);
    }
}
