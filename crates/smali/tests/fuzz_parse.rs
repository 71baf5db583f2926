//! The smali reader and everything behind it never panic on outside text:
//! the corpus in tests/corpus parses (and instruments, with no edge work)
//! as a regression test, and random mutations of it either parse or fail
//! with an error whose line and column lie inside the text.

use std::collections::HashMap;
use std::path::Path;

use proptest::prelude::*;
use tracekit_smali::cfg::analyze;
use tracekit_smali::parse::parse;
use tracekit_smali::rewrite::{write_method, MethodPlan};

fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut v: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v.into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

/// Parses, builds every CFG and writes every method back; returns the
/// number of methods instrumented, or the parse error.
fn exercise(name: &str, text: &str) -> Result<usize, tracekit_smali::ParseError> {
    let f = parse(Path::new(name), text)?;
    let mut done = 0;
    for m in &f.methods {
        if let Ok(a) = analyze(m, &f.lines) {
            let work = HashMap::new();
            let plan = MethodPlan {
                id: 0,
                work: &work,
                verify: true,
            };
            if write_method(m, &f.lines, &a, &plan, &mut Vec::new()).is_ok() {
                done += 1;
            }
        }
    }
    Ok(done)
}

#[test]
fn corpus_parses_and_instruments() {
    for (name, text) in corpus() {
        let n = exercise(&name, &text).unwrap_or_else(|e| panic!("{e}"));
        assert!(n > 0, "{name}: no method instrumented");
    }
}

#[test]
fn every_cut_is_complete_or_names_a_line_inside() {
    for (name, text) in corpus() {
        let lines = text.lines().count();
        for cut in (0..text.len()).step_by(7) {
            if !text.is_char_boundary(cut) {
                continue;
            }
            if let Err(e) = exercise(&name, &text[..cut]) {
                assert!(e.line >= 1 && e.line <= lines.max(1), "{e}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn mutations_never_panic(pick in 0usize..8, edits in prop::collection::vec((any::<usize>(), 0u8..4, any::<u8>()), 1..6)) {
        let c = corpus();
        let (name, text) = &c[pick % c.len()];
        let mut b = text.clone().into_bytes();
        for (pos, kind, byte) in edits {
            let p = pos % (b.len() + 1);
            let ch = b" .:{}\",v p0x-#\n>L;"[byte as usize % 18];
            match kind {
                0 => { if p < b.len() { b[p] = ch } }
                1 => b.insert(p, ch),
                2 => { if p < b.len() { b.remove(p); } }
                _ => b.truncate(p),
            }
        }
        let text = String::from_utf8_lossy(&b).into_owned();
        if let Err(e) = exercise(name, &text) {
            prop_assert!(e.line >= 1 && e.line <= text.lines().count().max(1) + 1, "{}", e);
            prop_assert!(e.to_string().starts_with(name.as_str()));
        }
    }
}
