//! Parsers of outside data never panic: class files and binary trace logs
//! (decoded under every scheme and mode), mutated at random (proptest), plus
//! the corpus in tests/corpus replayed as regression tests.

use proptest::prelude::*;
use tracekit_jvm::cfg::build_cfg;
use tracekit_jvm::classfile::parse_class;
use tracekit_jvm::decode::{decode_stream, Options};
use tracekit_jvm::log::{LogReader, SidecarReader, MAGIC};
use tracekit_jvm::program::{Program, StoredProgram};
use tracekit_jvm::schemes::CoreProgram;
use tracekit_jvm::tables::{Config, Scheme};

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
            decode_bytes(Scheme::Pap, 0, &data);
        }
    }
}

/// The program of the corpus' Shapes.class.
fn shapes() -> Program {
    static SHAPES: std::sync::OnceLock<Program> = std::sync::OnceLock::new();
    SHAPES
        .get_or_init(|| {
            let data = corpus().into_iter().find(|(n, _)| n == "Shapes.class").unwrap().1;
            let mut p = Program::default();
            p.add_class(&data).unwrap();
            p
        })
        .clone()
}

/// A log header for the Shapes program, a thread, one block of `body` as
/// its records (and words), and the end mark.
fn log_of(scheme: Scheme, mode: u8, body: &[u8]) -> Vec<u8> {
    let methods = shapes().methods.len() as u8;
    let id = [Scheme::Raw, Scheme::Blpp, Scheme::Pap, Scheme::Adaptracer]
        .iter()
        .position(|&s| s == scheme)
        .unwrap() as u8;
    let mut log = MAGIC.to_vec();
    log.extend([id, mode, 16, 3, 100, methods, 0, 0]);
    log.extend([1, 0, 1, 4, b'm', b'a', b'i', b'n']);
    log.extend([2, 0, 5]);
    let half = body.len() / 2;
    if mode != 2 {
        log.push((half * 8) as u8);
        log.extend(&body[..half]);
    }
    if mode != 0 {
        let words = (body.len() - half) / 2;
        log.push(words as u8);
        log.extend(&body[half..half + 2 * words]);
    }
    log.push(0);
    log
}

/// Decodes a log of the Shapes program; only errors, never panics.
fn decode_bytes(scheme: Scheme, mode: u8, log: &[u8]) {
    let _ = decode_result(scheme, mode, log);
}

/// Decodes a log of the Shapes program, with the decoder's verdict.
fn decode_result(scheme: Scheme, mode: u8, log: &[u8]) -> anyhow::Result<()> {
    let stored = StoredProgram {
        config: Config {
            scheme,
            width: 16,
            inc: 3,
            bound: 100,
            verify: false,
            stream: mode >= 1,
            context: mode == 2,
        },
        model: None,
        program: shapes(),
        fingerprint: 0,
    };
    let core = CoreProgram::new(&stored).unwrap();
    let reader = LogReader::new(log)?;
    decode_stream(
        &stored,
        &core,
        reader,
        None::<SidecarReader<&[u8]>>,
        Options { replay: true },
        |_| Ok(()),
    )
    .map(|_| ())
}

#[test]
fn a_huge_pap_breakpoint_count_is_an_error_not_an_allocation() {
    // One record: method 0, then the Elias-gamma code of 2^40 breakpoints
    // + 1, in a block far too short to hold them (120 bits: `log_of` writes
    // the bit count as one varint byte). The count once sized a
    // vector before any breakpoint was read.
    let head_bits = tracekit_jvm::decode::bits_for(shapes().methods.len() + 1) as usize;
    let mut bits = "0".repeat(head_bits);
    bits += &"0".repeat(40);
    bits.push('1');
    bits += &"0".repeat(40);
    while bits.len() < 120 {
        bits.push('0');
    }
    let records: Vec<u8> = bits
        .as_bytes()
        .chunks(8)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 2).unwrap())
        .collect();
    let mut body = records.clone();
    body.resize(2 * records.len(), 0);
    let err = decode_result(Scheme::Pap, 0, &log_of(Scheme::Pap, 0, &body)).unwrap_err();
    assert!(format!("{err:#}").contains("breakpoints in"), "{err:#}");
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

}

proptest! {
    // Decoding garbage may walk long paths before its guard stops it: fewer cases.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn mutated_logs_never_panic(scheme in 0u8..4, mode in 0u8..3, body in prop::collection::vec(any::<u8>(), 0..200), edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6)) {
        let scheme = [Scheme::Raw, Scheme::Blpp, Scheme::Pap, Scheme::Adaptracer][scheme as usize];
        let mode = if scheme == Scheme::Adaptracer { mode } else { 0 };
        let mut log = log_of(scheme, mode, &body);
        for (i, b) in &edits {
            let at = i.index(log.len());
            log[at] = *b;
        }
        decode_bytes(scheme, mode, &log);
    }
}
