//! Shared test vectors for probes written in other languages.
//!
//! `testdata/vectors.json` is generated here: each vector gives a CFG, a
//! scheme, a width, AdapTracer's `inc`/`bound`, starting counters and each
//! choice block's successors in symbol order (`symbols`), a
//! sequence of invocations (path → expected trace and bits) coded with one
//! model, the counters at the end (and with run contexts,
//! `final_context_counters`: method, from, to, set, counter), and
//! (`stream_trace`) the same invocations
//! coded back to back into one word list by one coder. A Java (or other) probe must
//! produce the same traces and counters.
//!
//! `vectors_file_is_current` fails when the file differs from what this code
//! generates; regenerate with `TRACEKIT_BLESS=1 cargo test -p tracekit-paths
//! --test vectors`. `vectors_file_decodes` checks the file on its own terms.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tracekit_paths::*;

/// The vector files: the default model, frequency-ordered symbols, and run
/// contexts (with frequency order).
const FILES: [(&str, ModelOptions); 3] = [
    (
        "testdata/vectors.json",
        ModelOptions {
            symbol_order: SymbolOrder::Successor,
            context: ContextKind::None,
        },
    ),
    (
        "testdata/vectors-frequency.json",
        ModelOptions {
            symbol_order: SymbolOrder::Frequency,
            context: ContextKind::None,
        },
    ),
    (
        "testdata/vectors-runs.json",
        ModelOptions {
            symbol_order: SymbolOrder::Frequency,
            context: ContextKind::Runs,
        },
    ),
];

fn vectors_path(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(file)
}

struct Case {
    name: String,
    cfg: Value,
    method: &'static str,
    scheme: Scheme,
    width: u32,
    params: AdaptiveParams,
    initial: Vec<(&'static str, &'static str, &'static str, u32)>,
    interprocedural: bool,
    paths: Vec<Vec<String>>,
    options: ModelOptions,
}

fn names(s: &str) -> Vec<String> {
    s.split(',').map(str::to_string).collect()
}

fn seed_cfg() -> Value {
    json!({"methods": [{"name": "m", "entry": "A", "exit": "D",
        "edges": [["A","B"], ["B","C"], ["C","B"], ["C","D"]]}]})
}

fn seed_loop(iterations: usize) -> Vec<String> {
    let mut p = vec!["A".to_string()];
    for _ in 0..iterations {
        p.extend(["B".to_string(), "C".to_string()]);
    }
    p.push("D".into());
    p
}

fn diamond_loop(iterations: usize, every: usize) -> Vec<String> {
    let mut p = vec!["A".to_string()];
    for i in 0..iterations {
        p.push("H".into());
        p.push(if i % every == every - 1 { "F" } else { "T" }.into());
        p.push("J".into());
    }
    p.push("X".into());
    p
}

fn switch_path(n: usize) -> Vec<String> {
    let mut p = vec!["E".to_string()];
    let mut x = 17usize;
    for _ in 0..n {
        x = (x * 1103515245 + 12345) % 2147483648;
        let case = [0, 0, 0, 1, 2, 0, 0, 3, 11, 0, 5, 0][x % 12];
        p.extend(["S".to_string(), format!("k{case}"), "L".to_string()]);
    }
    p.push("R".into());
    p
}

fn cases() -> Vec<Case> {
    let d = AdaptiveParams::default();
    let diamond = json!({"methods": [{"name": "m", "entry": "A", "exit": "X",
        "edges": [["A","H"], ["H","T"], ["H","F"], ["T","J"], ["F","J"], ["J","H"], ["J","X"]]}]});
    let mut switch_edges = vec![json!(["E", "S"]), json!(["L", "S"]), json!(["L", "R"])];
    for k in 0..12 {
        switch_edges.push(json!(["S", format!("k{k}")]));
        switch_edges.push(json!([format!("k{k}"), "L"]));
    }
    let switch = json!({"methods": [{"name": "m", "entry": "E", "exit": "R", "edges": switch_edges}]});
    let calls = json!({"methods": [
        {"name": "m", "entry": "A", "exit": "X", "edges": [["A","B"], ["B","A"], ["B","X"]],
         "calls": {"A": ["f"]}},
        {"name": "f", "entry": "E", "exit": "R",
         "edges": [["E","T"], ["E","F"], ["T","R"], ["F","R"]], "calls": {"T": ["g"]}},
        {"name": "g", "entry": "G", "exit": "J", "edges": [["G","H"], ["G","I"], ["H","J"], ["I","J"]]}]});
    let mut v = vec![
        Case {
            name: "seed-pap-w3".into(),
            cfg: seed_cfg(),
            method: "m",
            scheme: Scheme::Pap,
            width: 3,
            params: d,
            initial: vec![],
            interprocedural: false,
            options: ModelOptions::default(),
            paths: vec![seed_loop(5), seed_loop(1), seed_loop(30)],
        },
        Case {
            name: "seed-blpp-w3".into(),
            cfg: seed_cfg(),
            method: "m",
            scheme: Scheme::Blpp,
            width: 3,
            params: d,
            initial: vec![],
            interprocedural: false,
            options: ModelOptions::default(),
            paths: vec![seed_loop(5), seed_loop(1)],
        },
        Case {
            name: "diamond-pap-w5".into(),
            cfg: diamond.clone(),
            method: "m",
            scheme: Scheme::Pap,
            width: 5,
            params: d,
            initial: vec![],
            interprocedural: false,
            options: ModelOptions::default(),
            paths: vec![diamond_loop(12, 4)],
        },
        Case {
            name: "diamond-blpp-w5".into(),
            cfg: diamond.clone(),
            method: "m",
            scheme: Scheme::Blpp,
            width: 5,
            params: d,
            initial: vec![],
            interprocedural: false,
            options: ModelOptions::default(),
            paths: vec![diamond_loop(12, 4)],
        },
        Case {
            name: "switch-pap-w64".into(),
            cfg: switch.clone(),
            method: "m",
            scheme: Scheme::Pap,
            width: 64,
            params: d,
            initial: vec![],
            interprocedural: false,
            options: ModelOptions::default(),
            paths: vec![switch_path(60)],
        },
        Case {
            name: "seed-adaptracer-w3".into(),
            cfg: seed_cfg(),
            method: "m",
            scheme: Scheme::AdapTracer,
            width: 3,
            params: d,
            initial: vec![],
            interprocedural: false,
            options: ModelOptions::default(),
            paths: vec![seed_loop(5), seed_loop(5), seed_loop(1)],
        },
        Case {
            name: "seed-adaptracer-model-w3".into(),
            cfg: seed_cfg(),
            method: "m",
            scheme: Scheme::AdapTracer,
            width: 3,
            params: d,
            initial: vec![("m", "C", "B", 4), ("m", "C", "D", 1)],
            interprocedural: false,
            options: ModelOptions::default(),
            paths: vec![seed_loop(5)],
        },
        Case {
            name: "no-choice-is-empty".into(),
            cfg: json!({"methods": [{"name": "m", "entry": "A", "edges": [["A","B"], ["B","C"]]}]}),
            method: "m",
            scheme: Scheme::AdapTracer,
            width: 8,
            params: d,
            initial: vec![],
            interprocedural: false,
            options: ModelOptions::default(),
            paths: vec![names("A,B,C")],
        },
        Case {
            name: "switch-adaptracer-w13-model".into(),
            cfg: switch.clone(),
            method: "m",
            scheme: Scheme::AdapTracer,
            width: 13,
            params: AdaptiveParams { inc: 2, bound: 40 },
            initial: vec![("m", "S", "k0", 30), ("m", "S", "k11", 7), ("m", "L", "S", 100)],
            interprocedural: false,
            options: ModelOptions::default(),
            paths: vec![switch_path(80), switch_path(7)],
        },
        Case {
            name: "calls-adaptracer-w5".into(),
            cfg: calls,
            method: "m",
            scheme: Scheme::AdapTracer,
            width: 5,
            params: d,
            initial: vec![],
            interprocedural: true,
            options: ModelOptions::default(),
            paths: vec![
                names("m::A,f::E,f::T,g::G,g::I,g::J,f::R,m::B,m::A,f::E,f::F,f::R,m::B,m::X"),
                names("m::A,f::E,f::F,f::R,m::B,m::X"),
            ],
        },
    ];
    for inc in 1..=4 {
        for width in [3, 7, 32, 64] {
            v.push(Case {
                name: format!("diamond-adaptracer-inc{inc}-w{width}"),
                cfg: diamond.clone(),
                method: "m",
                scheme: Scheme::AdapTracer,
                width,
                params: AdaptiveParams {
                    inc: inc as u32,
                    bound: 16,
                },
                initial: vec![],
                interprocedural: false,
                options: ModelOptions::default(),
                paths: vec![diamond_loop(40, 5), diamond_loop(3, 2), diamond_loop(200, 7)],
            });
        }
    }
    let if_else = json!({"methods": [{"name": "m", "entry": "A", "exit": "X",
        "edges": [["A","F"], ["A","T"], ["T","X"], ["F","X"]]}]});
    let frequency = |name: &str, cfg: &Value, width, params, initial, paths| Case {
        name: name.into(),
        cfg: cfg.clone(),
        method: "m",
        scheme: Scheme::AdapTracer,
        width,
        params,
        initial,
        interprocedural: false,
        options: FILES[1].1,
        paths,
    };
    v.push(frequency(
        "freq-if-else-learned-w32",
        &if_else,
        32,
        d,
        vec![("m", "A", "T", 40), ("m", "A", "F", 4)],
        vec![names("A,T,X"), names("A,T,X"), names("A,F,X"), names("A,T,X")],
    ));
    v.push(frequency(
        "freq-seed-reordered-w3",
        &seed_cfg(),
        3,
        d,
        vec![("m", "C", "B", 4), ("m", "C", "D", 9)],
        vec![seed_loop(5), seed_loop(1)],
    ));
    v.push(frequency(
        "freq-switch-w13",
        &switch,
        13,
        AdaptiveParams { inc: 2, bound: 40 },
        vec![
            ("m", "S", "k0", 30),
            ("m", "S", "k11", 7),
            ("m", "S", "k3", 7),
            ("m", "L", "S", 100),
        ],
        vec![switch_path(80), switch_path(7)],
    ));
    v.push(frequency(
        "freq-diamond-w64",
        &diamond,
        64,
        AdaptiveParams { inc: 3, bound: 16 },
        vec![
            ("m", "H", "F", 12),
            ("m", "H", "T", 3),
            ("m", "J", "H", 15),
            ("m", "J", "X", 1),
        ],
        vec![diamond_loop(40, 5), diamond_loop(3, 2)],
    ));
    let runs = |name: &str, cfg: &Value, width, params, initial, paths| Case {
        options: FILES[2].1,
        ..frequency(name, cfg, width, params, initial, paths)
    };
    v.push(runs(
        "runs-seed-trip-count-w3",
        &seed_cfg(),
        3,
        d,
        vec![],
        vec![seed_loop(5), seed_loop(5), seed_loop(5), seed_loop(5), seed_loop(2)],
    ));
    v.push(runs(
        "runs-diamond-w7",
        &diamond,
        7,
        AdaptiveParams { inc: 3, bound: 30 },
        vec![("m", "H", "F", 5), ("m", "J", "X", 2)],
        vec![diamond_loop(40, 4), diamond_loop(12, 3), diamond_loop(40, 4)],
    ));
    v.push(runs(
        "runs-switch-w64",
        &switch,
        64,
        d,
        vec![("m", "S", "k0", 30), ("m", "S", "k11", 7)],
        vec![switch_path(80), switch_path(7)],
    ));
    v
}

fn generate(options: ModelOptions) -> Value {
    let mut out = Vec::new();
    for c in cases().into_iter().filter(|c| c.options == options) {
        let program = Program::from_json_str(&c.cfg.to_string(), Path::new(&c.name)).unwrap();
        let m = program.method_id(c.method).unwrap();
        let mut edges = EdgeModel::new();
        for &(mm, f, t, x) in &c.initial {
            edges.set_counter(mm, f, t, x);
        }
        let mut model = AdaptiveModel::from_edge_model_with_options(&program, &edges, c.params, c.options).unwrap();
        let mut invocations = Vec::new();
        for p in &c.paths {
            let (trace, bits) = if c.interprocedural {
                let visits: Vec<Visit> = p
                    .iter()
                    .map(|s| {
                        let (mn, b) = s.split_once("::").unwrap();
                        let method = program.method_id(mn).unwrap();
                        Visit {
                            method,
                            block: program.cfg(method).block_id(b).unwrap(),
                        }
                    })
                    .collect();
                let at = AdapTracer::new(&program, c.width).unwrap();
                let t = at.encode_visits(&mut model, m, &visits).unwrap();
                let bits = t.words.len() as u64 * u64::from(c.width);
                (json!(t.words), bits)
            } else {
                let codec = Codec::new(&program, m, c.scheme, c.width).unwrap();
                let path = codec.cfg().resolve_path(p).unwrap();
                let t = codec.encode(Some(&mut model), &path).unwrap();
                (trace_to_json(codec.cfg(), &t.items), t.bits)
            };
            invocations.push(json!({"path": p, "trace": trace, "bits": bits}));
        }
        let model_rows = |m: &AdaptiveModel| -> Vec<Value> {
            m.to_edge_model(&program)
                .iter()
                .map(|(a, b, c, d)| json!([a, b, c, d]))
                .collect()
        };
        // Per block with a choice, its successors in symbol order (what the
        // instrumenter hands the probe), from the starting counters.
        let start_model = AdaptiveModel::from_edge_model_with_options(&program, &edges, c.params, c.options).unwrap();
        let mut symbols = Vec::new();
        for mid in program.method_ids() {
            let cfg = program.cfg(mid);
            for b in cfg.blocks() {
                let order = start_model.symbol_order(mid, b);
                if !order.is_empty() {
                    let succ: Vec<&str> = order
                        .iter()
                        .map(|&i| cfg.block_name(cfg.successors(b)[i as usize]))
                        .collect();
                    symbols.push(json!([cfg.name(), cfg.block_name(b), succ]));
                }
            }
        }
        let initial_rows: Vec<Value> = c.initial.iter().map(|(a, b, cc, d)| json!([a, b, cc, d])).collect();
        let mut v = json!({
            "name": &c.name,
            "cfg": c.cfg,
            "method": c.method,
            "scheme": c.scheme.name(),
            "width": c.width,
            "invocations": invocations,
        });
        if c.scheme == Scheme::AdapTracer && !c.interprocedural {
            // The same invocations coded back to back into one word list.
            let mut model = AdaptiveModel::from_edge_model_with_options(&program, &edges, c.params, c.options).unwrap();
            let mut enc = ChoiceEncoder::new(c.width);
            for p in &c.paths {
                let path = program.cfg(m).resolve_path(p).unwrap();
                enc.append_path(&mut model, &program, m, &path).unwrap();
            }
            v["stream_trace"] = json!(enc.finish().words);
        }
        if c.scheme == Scheme::AdapTracer {
            v["inc"] = json!(c.params.inc);
            v["bound"] = json!(c.params.bound);
            v["interprocedural"] = json!(c.interprocedural);
            v["initial_counters"] = json!(initial_rows);
            v["symbols"] = json!(symbols);
            v["symbol_order"] = json!(match c.options.symbol_order {
                SymbolOrder::Successor => "successor",
                SymbolOrder::Frequency => "frequency",
            });
            if c.options.context == ContextKind::Runs {
                v["context"] = json!("runs");
            }
            v["final_counters"] = json!(model_rows(&model));
            if c.options.context == ContextKind::Runs {
                let rows: Vec<Value> = model
                    .to_edge_model(&program)
                    .iter_contexts()
                    .map(|(a, b, cc, x, n)| json!([a, b, cc, x, n]))
                    .collect();
                v["final_context_counters"] = json!(rows);
            }
        }
        out.push(v);
    }
    json!({
        "about": "tracekit-paths shared test vectors; see crates/paths/tests/vectors.rs and the crate docs for the algorithms",
        "vectors": out,
    })
}

fn render(v: &Value) -> String {
    // One invocation or vector per line keeps diffs readable.
    let mut s = String::from("{\"about\": ");
    s.push_str(&v["about"].to_string());
    s.push_str(",\n \"vectors\": [\n");
    let vs = v["vectors"].as_array().unwrap();
    for (i, x) in vs.iter().enumerate() {
        s.push_str("  ");
        s.push_str(&x.to_string());
        s.push_str(if i + 1 < vs.len() { ",\n" } else { "\n" });
    }
    s.push_str(" ]}\n");
    s
}

#[test]
fn vectors_files_are_current() {
    for (file, options) in FILES {
        let text = render(&generate(options));
        let path = vectors_path(file);
        if std::env::var_os("TRACEKIT_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).expect("vector file (bless it)");
        assert!(on_disk == text, "{file} is stale: run with TRACEKIT_BLESS=1");
    }
}

/// Replays the files: every trace decodes to its path and the decoder ends
/// with the recorded counters.
#[test]
fn vectors_files_decode() {
    for (file, options) in FILES {
        // While blessing, the file may be rewritten concurrently: check the new text.
        let text = if std::env::var_os("TRACEKIT_BLESS").is_some() {
            render(&generate(options))
        } else {
            std::fs::read_to_string(vectors_path(file)).unwrap()
        };
        replay(&text, options);
    }
}

fn replay(text: &str, options: ModelOptions) {
    let v: Value = serde_json::from_str(text).unwrap();
    let vectors = v["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 3);
    for x in vectors {
        let name = x["name"].as_str().unwrap();
        let program = Program::from_json_str(&x["cfg"].to_string(), Path::new(name)).unwrap();
        let m = program.method_id(x["method"].as_str().unwrap()).unwrap();
        let scheme: Scheme = x["scheme"].as_str().unwrap().parse().unwrap();
        let width = x["width"].as_u64().unwrap() as u32;
        let mut model = if scheme == Scheme::AdapTracer {
            let mut e = EdgeModel::new();
            for r in x["initial_counters"].as_array().unwrap() {
                e.set_counter(
                    r[0].as_str().unwrap(),
                    r[1].as_str().unwrap(),
                    r[2].as_str().unwrap(),
                    r[3].as_u64().unwrap() as u32,
                );
            }
            let params = AdaptiveParams {
                inc: x["inc"].as_u64().unwrap() as u32,
                bound: x["bound"].as_u64().unwrap() as u32,
            };
            let start = AdaptiveModel::from_edge_model_with_options(&program, &e, params, options).unwrap();
            for row in x["symbols"].as_array().unwrap() {
                let mid = program.method_id(row[0].as_str().unwrap()).unwrap();
                let cfg = program.cfg(mid);
                let b = cfg.block_id(row[1].as_str().unwrap()).unwrap();
                let names: Vec<&str> = start
                    .symbol_order(mid, b)
                    .iter()
                    .map(|&i| cfg.block_name(cfg.successors(b)[i as usize]))
                    .collect();
                assert_eq!(json!(names), row[2], "{name}");
            }
            Some(start)
        } else {
            None
        };
        let start_model = model.clone();
        for inv in x["invocations"].as_array().unwrap() {
            let want: Vec<String> = serde_json::from_value(inv["path"].clone()).unwrap();
            let got: Vec<String> = if x["interprocedural"].as_bool() == Some(true) {
                let words: Vec<u64> = serde_json::from_value(inv["trace"].clone()).unwrap();
                let at = AdapTracer::new(&program, width).unwrap();
                at.decode_visits(model.as_mut().unwrap(), m, &words)
                    .unwrap()
                    .iter()
                    .map(|v| {
                        let c = program.cfg(v.method);
                        format!("{}::{}", c.name(), c.block_name(v.block))
                    })
                    .collect()
            } else {
                let codec = Codec::new(&program, m, scheme, width).unwrap();
                let items = trace_from_json(codec.cfg(), &inv["trace"].to_string()).unwrap();
                assert_eq!(codec.bits(&items), inv["bits"].as_u64().unwrap(), "{name}");
                let path = codec.decode(model.as_mut(), &items).unwrap();
                codec.cfg().path_names(&path)
            };
            assert_eq!(got, want, "{name}");
        }
        if let Some(words) = x.get("stream_trace") {
            let words: Vec<u64> = serde_json::from_value(words.clone()).unwrap();
            let at = AdapTracer::new(&program, width).unwrap();
            let mut fresh = start_model.clone().unwrap();
            let mut stream = at.stream(&words).unwrap();
            for inv in x["invocations"].as_array().unwrap() {
                let want: Vec<String> = serde_json::from_value(inv["path"].clone()).unwrap();
                let p = at.decode_next(&mut stream, &mut fresh, m).unwrap();
                assert_eq!(program.cfg(m).path_names(&p), want, "{name} stream");
            }
        }
        if let (Some(model), Some(want)) = (&model, x.get("final_context_counters")) {
            let rows: Vec<Value> = model
                .to_edge_model(&program)
                .iter_contexts()
                .map(|(a, b, c, k, n)| json!([a, b, c, k, n]))
                .collect();
            assert_eq!(&json!(rows), want, "{name}");
        }
        if let Some(model) = model {
            let rows: Vec<Value> = model
                .to_edge_model(&program)
                .iter()
                .map(|(a, b, c, d)| json!([a, b, c, d]))
                .collect();
            assert_eq!(json!(rows), x["final_counters"], "{name}");
        }
    }
    // The seed's worked example is in the file verbatim.
    assert!(options != FILES[0].1 || text.contains(r#""trace":[7,"C",1]"#));
}
