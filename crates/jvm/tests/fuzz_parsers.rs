//! Parsers of outside data never panic: class files and trace logs,
//! mutated at random (proptest), plus the corpus in tests/corpus replayed as
//! regression tests.

use proptest::prelude::*;
use tracekit_jvm::cfg::build_cfg;
use tracekit_jvm::classfile::parse_class;
use tracekit_jvm::log::parse_log;
use tracekit_jvm::program::Program;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut v: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v.into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

/// Parses a class and builds every CFG; only errors, never panics.
fn exercise(data: &[u8]) {
    if let Ok(c) = parse_class(data) {
        for m in &c.methods {
            let _ = build_cfg(m);
        }
        let mut p = Program::default();
        let _ = p.add_class(data);
    }
}

#[test]
fn corpus_parses_or_fails_cleanly() {
    for (name, data) in corpus() {
        if name.ends_with(".class") {
            // The unmutated class files are valid and give CFGs.
            let c = parse_class(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                c.methods.iter().filter_map(|m| build_cfg(m).unwrap().ok()).count() > 0,
                "{name}"
            );
        } else {
            exercise(&data);
            let _ = parse_log(&String::from_utf8_lossy(&data));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_class_files_never_panic(which in 0usize..2, edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8), cut in any::<prop::sample::Index>(), truncate in any::<bool>()) {
        let class_files: Vec<Vec<u8>> = corpus().into_iter().filter(|(n, _)| n.ends_with(".class")).map(|(_, d)| d).collect();
        let mut data = class_files[which % class_files.len()].clone();
        for (i, b) in &edits {
            let at = i.index(data.len());
            data[at] = *b;
        }
        if truncate {
            data.truncate(cut.index(data.len()));
        }
        exercise(&data);
    }

    #[test]
    fn mutated_logs_never_panic(lines in prop::collection::vec("(i|n|thread|x|v|w|r) [-0-9@a-z ]{0,20}", 0..10)) {
        let text = format!("tracekit-paths-log 1 scheme=pap width=8\nthread 0 1 main\n{}", lines.join("\n"));
        let _ = parse_log(&text);
    }
}
