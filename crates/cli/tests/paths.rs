//! End-to-end tests of `tracekit paths encode|decode`, running the binary.

use std::path::PathBuf;

mod common;
use common::{ok_stdout, tracekit};

const SEED_CFG: &str = r#"{"methods": [{"name": "m", "entry": "A", "exit": "D",
  "edges": [["A","B"], ["B","C"], ["C","B"], ["C","D"]]}]}"#;
const SEED_PATH: &str = "A,B,C,B,C,B,C,B,C,B,C,D";

/// A fresh scratch directory for one test, removed when it ends.
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("tracekit-paths-e2e-")
        .tempdir()
        .unwrap()
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn err_text(args: &[&str]) -> String {
    let out = tracekit(args);
    assert!(!out.status.success(), "tracekit {args:?} should fail");
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8(out.stderr).unwrap();
    assert!(!e.contains("panicked"), "{e}");
    e
}

fn encode(cfg: &str, scheme: &str, width: &str, path: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "paths", "encode", "--cfg", cfg, "--method", "m", "--scheme", scheme, "--width", width, "--path", path,
        "--json",
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&ok_stdout(&args)).unwrap()
}

fn decode(cfg: &str, scheme: &str, width: &str, trace: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "paths", "decode", "--cfg", cfg, "--method", "m", "--scheme", scheme, "--width", width, "--trace", trace,
        "--json",
    ];
    args.extend_from_slice(extra);
    let v: serde_json::Value = serde_json::from_str(&ok_stdout(&args)).unwrap();
    serde_json::from_value(v["path"].clone()).unwrap()
}

#[test]
fn seed_pap_example_exactly() {
    let scratch = scratch();
    let d = scratch.path();
    let cfg = write(d, "seed.json", SEED_CFG);
    let cfg = cfg.to_str().unwrap();
    let out = ok_stdout(&[
        "paths", "encode", "--cfg", cfg, "--method", "m", "--scheme", "pap", "--width", "3", "--path", SEED_PATH,
        "--json",
    ]);
    assert_eq!(out.trim(), r#"{"trace":[7,"C",1],"bits":8}"#);
    let path = decode(cfg, "pap", "3", r#"[7, "C", 1]"#, &[]);
    assert_eq!(path.join(","), SEED_PATH);
}

/// The seed's section 4.1: on the same path AdapTracer spends 6 bits in the
/// first execution and 3 bits in the second (3-bit PathIDs), against PAP's 8.
#[test]
fn seed_adaptracer_first_and_second_execution() {
    let scratch = scratch();
    let d = scratch.path();
    let cfg = write(d, "seed.json", SEED_CFG);
    let cfg = cfg.to_str().unwrap();
    let model = d.join("model.tsv");
    let model = model.to_str().unwrap();
    let run1 = encode(cfg, "adaptracer", "3", SEED_PATH, &["--inc", "3"]);
    assert_eq!(run1["bits"], 6);
    let trace1 = run1["trace"].to_string();
    let back = decode(
        cfg,
        "adaptracer",
        "3",
        &trace1,
        &["--inc", "3", "--update-model", model],
    );
    assert_eq!(back.join(","), SEED_PATH);
    let run2 = encode(cfg, "adaptracer", "3", SEED_PATH, &["--inc", "3", "--model", model]);
    assert_eq!(run2["bits"], 3);
    let trace2 = run2["trace"].to_string();
    let back = decode(cfg, "adaptracer", "3", &trace2, &["--inc", "3", "--model", model]);
    assert_eq!(back.join(","), SEED_PATH);
}

#[test]
fn every_scheme_roundtrips_through_the_binary() {
    let scratch = scratch();
    let d = scratch.path();
    let cfg = write(
        d,
        "sw.json",
        r#"{"methods": [{"name": "m", "entry": "E",
          "edges": [["E","L"], ["L","S"], ["S","c0"], ["S","c1"], ["S","c2"], ["S","c3"],
                    ["c0","J"], ["c1","J"], ["c2","J"], ["c3","R"], ["J","L"], ["J","X"],
                    ["L","H","exception"], ["H","T"], ["U","J"]]}]}"#,
        // Sinks R, X and T: a virtual exit "<exit>" follows each.
    );
    let cfg = cfg.to_str().unwrap();
    let path = "E,L,S,c0,J,L,S,c2,J,L,S,c1,J,L,S,c2,J,L,S,c0,J,L,S,c3,R,<exit>";
    for scheme in ["blpp", "pap", "adaptracer"] {
        for width in ["3", "7", "32", "64"] {
            let t = encode(cfg, scheme, width, path, &[]);
            let trace = t["trace"].to_string();
            let n: u64 = width.parse().unwrap();
            let words = t["trace"].as_array().unwrap().iter().filter(|x| x.is_u64()).count() as u64;
            assert!(t["bits"].as_u64().unwrap() >= words * n);
            assert_eq!(
                decode(cfg, scheme, width, &trace, &[]).join(","),
                path,
                "{scheme} {width}"
            );
        }
    }
}

#[test]
fn adaptracer_model_file_makes_the_next_run_smaller() {
    let scratch = scratch();
    let d = scratch.path();
    // A loop around a branch that goes one way 9 times in 10.
    let cfg = write(
        d,
        "loop.json",
        r#"{"methods": [{"name": "m", "entry": "A", "exit": "X", "edges": [["A","H"], ["H","F"],
          ["H","T"], ["T","J"], ["F","J"], ["J","H"], ["J","X"]]}]}"#,
    );
    let cfg = cfg.to_str().unwrap();
    let long_path = {
        let mut p = vec!["A"];
        for i in 0..60 {
            p.extend(["H", if i % 10 == 9 { "F" } else { "T" }, "J"]);
        }
        p.push("X");
        p.join(",")
    };
    let m1 = d.join("m1.tsv");
    let m1s = m1.to_str().unwrap();
    let run1 = encode(cfg, "adaptracer", "3", &long_path, &[]);
    // The parser decodes run 1 and writes the model for run 2.
    let trace1 = run1["trace"].to_string();
    let p = decode(cfg, "adaptracer", "3", &trace1, &["--update-model", m1s]);
    assert_eq!(p.join(","), long_path);
    let model = std::fs::read_to_string(&m1).unwrap();
    assert!(model.contains("method\tfrom\tto\tprobability\tcounter"), "{model}");
    assert!(model.contains("m\tH\tT\t"), "{model}");
    let run2 = encode(cfg, "adaptracer", "3", &long_path, &["--model", m1s]);
    assert!(
        run2["bits"].as_u64() < run1["bits"].as_u64(),
        "run 1 {run1}, run 2 {run2}"
    );
    let trace2 = run2["trace"].to_string();
    assert_eq!(
        decode(cfg, "adaptracer", "3", &trace2, &["--model", m1s]).join(","),
        long_path
    );
    // Frequency order: the same run 2 with the most frequent edges as symbol 0.
    let freq = ["--model", m1s, "--symbol-order", "frequency"];
    let run2f = encode(cfg, "adaptracer", "3", &long_path, &freq);
    let trace2f = run2f["trace"].to_string();
    assert_eq!(decode(cfg, "adaptracer", "3", &trace2f, &freq).join(","), long_path);
    assert_ne!(trace2f, trace2, "H→T is symbol 1 by successor order, 0 by frequency");
    // Run contexts: the model file gains per-context rows and still decodes.
    let m2 = d.join("m2.tsv");
    let m2s = m2.to_str().unwrap();
    let ctx = ["--context", "runs"];
    let r1 = encode(cfg, "adaptracer", "3", &long_path, &ctx);
    let t1 = r1["trace"].to_string();
    let back = decode(
        cfg,
        "adaptracer",
        "3",
        &t1,
        &["--context", "runs", "--update-model", m2s],
    );
    assert_eq!(back.join(","), long_path);
    assert!(std::fs::read_to_string(&m2).unwrap().contains("counter\tcontext\n"));
    let ctx2 = ["--context", "runs", "--model", m2s];
    let r2 = encode(cfg, "adaptracer", "3", &long_path, &ctx2);
    assert!(r2["bits"].as_u64() < r1["bits"].as_u64(), "{r1} {r2}");
    let t2 = r2["trace"].to_string();
    assert_eq!(decode(cfg, "adaptracer", "3", &t2, &ctx2).join(","), long_path);
}

#[test]
fn interprocedural_adaptracer() {
    let scratch = scratch();
    let d = scratch.path();
    let cfg = write(
        d,
        "calls.json",
        r#"{"methods": [
          {"name": "m", "entry": "A", "exit": "X", "edges": [["A","B"], ["B","A"], ["B","X"]],
           "calls": {"A": ["f"]}},
          {"name": "f", "entry": "E", "exit": "R", "edges": [["E","T"], ["E","F"], ["T","R"], ["F","R"]]}]}"#,
    );
    let cfg = cfg.to_str().unwrap();
    let path = "m::A,f::E,f::T,f::R,m::B,m::A,f::E,f::F,f::R,m::B,m::X";
    let t = encode(cfg, "adaptracer", "5", path, &["--interprocedural"]);
    let back = decode(cfg, "adaptracer", "5", &t["trace"].to_string(), &["--interprocedural"]);
    assert_eq!(back.join(","), path);
}

#[test]
fn text_output_is_readable() {
    let scratch = scratch();
    let d = scratch.path();
    let cfg = write(d, "seed.json", SEED_CFG);
    let cfg = cfg.to_str().unwrap();
    let out = ok_stdout(&[
        "paths", "encode", "--cfg", cfg, "--method", "m", "--scheme", "pap", "--width", "3", "--path", SEED_PATH,
    ]);
    assert!(out.contains("trace: 7 C 1\n") && out.contains("bits: 8\n"), "{out}");
    let out = ok_stdout(&[
        "paths", "decode", "--cfg", cfg, "--method", "m", "--scheme", "blpp", "--width", "3", "--trace", "[0, 1]",
    ]);
    assert!(out.contains("path: A B C B C D\n"), "{out}");
}

#[test]
fn clear_errors() {
    let scratch = scratch();
    let d = scratch.path();
    let good = write(d, "seed.json", SEED_CFG);
    let good = good.to_str().unwrap();
    let bad = write(d, "bad.json", "{\"methods\": [\n  {\"name\": \"m\", \"entry\": 5}]}");
    let bad = bad.to_str().unwrap();

    let e = err_text(&[
        "paths", "encode", "--cfg", bad, "--method", "m", "--scheme", "pap", "--width", "3", "--path", "A,D",
    ]);
    assert!(e.contains("bad.json") && e.contains("line 2 column"), "{e}");

    let e = err_text(&[
        "paths", "encode", "--cfg", good, "--method", "m", "--scheme", "pap", "--width", "3", "--path", "A,B,D",
    ]);
    assert!(e.contains("step 2") && e.contains("\"B\" -> \"D\""), "{e}");

    let e = err_text(&[
        "paths", "encode", "--cfg", good, "--method", "nope", "--scheme", "pap", "--width", "3", "--path", "A,D",
    ]);
    assert!(e.contains("no method \"nope\""), "{e}");

    let e = err_text(&[
        "paths", "decode", "--cfg", good, "--method", "m", "--scheme", "pap", "--width", "3", "--trace", "[9]",
    ]);
    assert!(e.contains("does not fit in 3 bits"), "{e}");

    let e = err_text(&[
        "paths", "encode", "--cfg", good, "--method", "m", "--scheme", "pap", "--width", "2", "--path", "A,D",
    ]);
    assert!(e.contains("outside 3..=64"), "{e}");

    let e = err_text(&[
        "paths",
        "decode",
        "--cfg",
        good,
        "--method",
        "m",
        "--scheme",
        "adaptracer",
        "--width",
        "8",
        "--trace",
        "[]",
        "--max-steps",
        "1000",
    ]);
    assert!(e.contains("exceeded 1000 block visits"), "{e}");

    let missing = d.join("missing.json");
    let e = err_text(&[
        "paths",
        "encode",
        "--cfg",
        missing.to_str().unwrap(),
        "--method",
        "m",
        "--scheme",
        "pap",
        "--width",
        "3",
        "--path",
        "A,D",
    ]);
    assert!(e.contains("missing.json"), "{e}");
}
