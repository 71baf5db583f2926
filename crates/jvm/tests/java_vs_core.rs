//! The in-JVM encoders (tracekit.rt's coder thread, run through its
//! VectorCheck harness, which builds the raw records the probes keep in
//! locals) must produce exactly the words of the core crate's encoders, for
//! random CFGs and random paths, every scheme, several widths, with aborted
//! invocations; the binary log they write decodes to the same paths. Needs
//! a JDK and ASM (scripts/deps/jvm.apt).

use std::io::Write;
use std::process::{Command, Stdio};

use tracekit_jvm::cfg::{Block, MethodCfg};
use tracekit_jvm::decode::{decode_stream, Options};
use tracekit_jvm::log::{BitReader, Chunk, LogReader, SidecarReader};
use tracekit_jvm::program::{Method, Program, StoredProgram};
use tracekit_jvm::schemes::{CoreProgram, SchemeTables};
use tracekit_jvm::tables::{route_to_exit, write_tables, Config, Scheme};
use tracekit_jvm::tools::java_tools;
use tracekit_paths::{AdaptiveModel, AdaptiveParams, BlockId, Blpp};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random method CFG shaped like bytecode: blocks in order, each falls
/// through or branches (back edges included), some switches, all reach EXIT.
fn random_cfg(rng: &mut Rng) -> MethodCfg {
    let n = 2 + rng.below(12);
    let exit = n as u32 + 1;
    let mut succs: Vec<Vec<u32>> = vec![vec![1]];
    for b in 1..=n as u32 {
        let mut s = Vec::new();
        let next = if b as usize == n { exit } else { b + 1 };
        s.push(next);
        let extra = match rng.below(6) {
            0 | 1 => 0,
            2 | 3 => 1,
            4 => 2,
            _ => 5,
        };
        for _ in 0..extra {
            let t = 1 + rng.below(n + 1) as u32;
            if !s.contains(&t) {
                s.push(t);
            }
        }
        if rng.below(5) == 0 && !s.contains(&exit) {
            s.push(exit);
        }
        succs.push(s);
    }
    succs.push(vec![]);
    let blocks = (0..n as u32)
        .map(|i| Block {
            first_insn: i,
            offset: i,
            lines: (i + 1, i + 1),
        })
        .collect();
    MethodCfg {
        blocks,
        insn_count: n as u32,
        succs,
    }
}

/// A random walk from ENTRY to EXIT biased towards loops, up to ~`len` steps
/// before heading to EXIT along the shortest route.
fn random_path(rng: &mut Rng, cfg: &MethodCfg, len: usize) -> Vec<u32> {
    let route = route_to_exit(cfg);
    let mut path = vec![0u32];
    let mut v = 0u32;
    while v != cfg.exit() {
        v = if path.len() < len {
            let s = &cfg.succs[v as usize];
            // Skew choices so the adaptive model has something to learn.
            let k = if rng.below(4) == 0 { rng.below(s.len()) } else { 0 };
            s[k]
        } else {
            route[v as usize]
        };
        path.push(v);
    }
    path
}

fn program(rng: &mut Rng, methods: usize) -> Program {
    let mut p = Program::default();
    for i in 0..methods {
        p.methods.push(Method {
            class: "T".into(),
            name: format!("m{i}"),
            descriptor: "()V".into(),
            source: None,
            cfg: random_cfg(rng),
        });
    }
    p
}

/// Runs VectorCheck on `tables` with `input` paths; returns the log bytes and stdout.
fn run_java(tables: &str, input: &str) -> (Vec<u8>, String) {
    let tools = java_tools().expect("JDK and libasm-java are needed (scripts/deps/jvm.apt)");
    let dir = std::env::temp_dir().join(format!("tk-vectors-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let tf = dir.join("tables.txt");
    let lf = dir.join("check.log");
    std::fs::write(&tf, tables).unwrap();
    let mut child = Command::new("java")
        .arg("-cp")
        .arg(&tools.runtime_classes)
        .arg("tracekit.rt.VectorCheck")
        .arg(&tf)
        .arg(&lf)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("java");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "VectorCheck failed");
    let log = std::fs::read(&lf).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (log, String::from_utf8(out.stdout).unwrap())
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

#[derive(Clone)]
struct Case {
    method: usize,
    path: Vec<u32>,
    aborted_after: Option<usize>,
}

fn cases(rng: &mut Rng, p: &Program, count: usize) -> Vec<Case> {
    (0..count)
        .map(|i| {
            let method = rng.below(p.methods.len());
            let cfg = &p.methods[method].cfg;
            let len = if i % 17 == 0 { 3000 } else { 1 + rng.below(60) };
            let path = random_path(rng, cfg, len);
            // Abort some invocations midway: the runtime completes them along the route.
            let aborted_after = if i % 9 == 4 && path.len() > 3 {
                Some(1 + rng.below(path.len() - 2))
            } else {
                None
            };
            let path = match aborted_after {
                Some(k) => {
                    let route = route_to_exit(cfg);
                    let mut p2 = path[..=k].to_vec();
                    while *p2.last().unwrap() != cfg.exit() {
                        p2.push(route[*p2.last().unwrap() as usize]);
                    }
                    p2
                }
                None => path,
            };
            Case {
                method,
                path,
                aborted_after,
            }
        })
        .collect()
}

/// The VectorCheck input of the cases: nodes after ENTRY; an aborted one up
/// to the block it ended in, marked `a`.
fn input_of(cases: &[Case]) -> String {
    let mut input = String::new();
    for c in cases {
        let upto = c.aborted_after.map(|k| k + 1).unwrap_or(c.path.len());
        input += &c.method.to_string();
        for v in &c.path[1..upto] {
            input += &format!(" {v}");
        }
        if c.aborted_after.is_some() {
            input += " a";
        }
        input.push('\n');
    }
    input
}

/// Codes the cases in Java under `config`, decodes the log with the Rust
/// stream decoder (replaying AdapTracer through the core encoders) and
/// checks paths, ends and bit-exact words.
fn java_roundtrip(p: &Program, config: &Config, cases: &[Case]) {
    let schemes = SchemeTables::new(p, config, None).unwrap();
    let (tables, fingerprint) = write_tables(p, config, |id, cfg, out| schemes.rows(id, cfg, out).unwrap());
    let (log, _) = run_java(&tables, &input_of(cases));
    let stored = StoredProgram {
        config: config.clone(),
        model: None,
        program: p.clone(),
        fingerprint,
    };
    let core = CoreProgram::new(&stored).unwrap();
    let mut k = 0;
    let what = format!("{config:?}");
    let summary = decode_stream(
        &stored,
        &core,
        LogReader::new(&log[..]).unwrap(),
        None::<SidecarReader<&[u8]>>,
        Options { replay: true },
        |d| {
            let c = &cases[k];
            assert_eq!(d.method, c.method, "{what} invocation {k}");
            assert_eq!(d.nodes, &c.path[..], "{what} invocation {k}");
            assert_eq!(d.aborted_after, c.aborted_after, "{what} invocation {k}");
            k += 1;
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(k, cases.len(), "{what}");
    assert!(summary.complete, "{what}");
    if config.scheme == Scheme::Adaptracer {
        let rp = summary.replay.unwrap();
        assert!(rp.words_equal, "{what}: Java words differ from the core encoder's");
        assert!(rp.choices > 0);
    }
}

#[test]
fn java_encoders_match_the_core_bit_for_bit() {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let p = program(&mut rng, 12);
    let cases = cases(&mut rng, &p, 400);
    for width in [3u32, 8, 32, 64] {
        for scheme in [Scheme::Raw, Scheme::Blpp, Scheme::Pap, Scheme::Adaptracer] {
            let config = Config {
                scheme,
                width,
                inc: 3,
                bound: 200,
                verify: false,
                stream: false,
                context: false,
            };
            java_roundtrip(&p, &config, &cases);
        }
    }
}

/// Stream mode: one coder per thread, invocations coded one after another
/// when they finish — the core's `ChoiceEncoder::append_path` sequence.
#[test]
fn java_stream_mode_matches_the_core_bit_for_bit() {
    let mut rng = Rng(0x0bad_cafe_1234_5678);
    let p = program(&mut rng, 10);
    let cases = cases(&mut rng, &p, 300);
    for width in [3u32, 13, 32, 64] {
        let config = Config {
            scheme: Scheme::Adaptracer,
            width,
            inc: 3,
            bound: 300,
            verify: false,
            stream: true,
            context: false,
        };
        java_roundtrip(&p, &config, &cases);
    }
}

/// Context stream: the Java probe's `CtxModel` codes method ids, ends and
/// choices exactly like the core's `ContextEncoder` (random programs, the
/// workload run twice so the history predictors fire, aborted invocations).
#[test]
fn java_context_stream_matches_the_core_bit_for_bit() {
    let mut rng = Rng(0x00c0_ffee_5eed_0042);
    // Many methods, so ids get mispredicted, new ones appear late and successor lists fill.
    let p = program(&mut rng, 60);
    let mut cases = cases(&mut rng, &p, 400);
    cases.extend(cases.clone());
    for width in [3u32, 13, 64] {
        let config = Config {
            scheme: Scheme::Adaptracer,
            width,
            inc: 3,
            bound: 300,
            verify: false,
            stream: true,
            context: true,
        };
        java_roundtrip(&p, &config, &cases);
    }
}

/// The blocks of a log: (count, records, record bits, words).
fn blocks(log: &[u8]) -> Vec<(usize, Vec<u8>, u64, Vec<u64>)> {
    let mut r = LogReader::new(log).unwrap();
    let mut out = Vec::new();
    while let Some(c) = r.next_chunk().unwrap() {
        if let Chunk::Block(b) = c {
            out.push((b.count, b.records, b.record_bits, b.words));
        }
    }
    assert!(r.complete);
    out
}

/// The core crate's context-stream vectors (crates/paths/testdata/vectors-context.json)
/// reproduced by the Java probe classes (`CtxModel`, coded directly with the
/// vectors' own completions of aborted invocations), word for word.
#[test]
fn core_context_vectors_reproduce_in_java() {
    use serde_json::Value;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../paths/testdata/vectors-context.json");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut checked = 0;
    for v in all["vectors"].as_array().unwrap() {
        let name = v["name"].as_str().unwrap();
        let program =
            tracekit_paths::Program::from_json_str(&v["cfg"].to_string(), std::path::Path::new("v.json")).unwrap();
        let width = v["width"].as_u64().unwrap() as u32;
        let params = AdaptiveParams {
            inc: v["inc"].as_u64().unwrap() as u32,
            bound: v["bound"].as_u64().unwrap() as u32,
        };
        let model = AdaptiveModel::new(&program, params).unwrap();
        let tables = vector_tables(
            &program,
            Scheme::Adaptracer,
            width,
            params,
            &model,
            " verify 0 stream 1 context 1",
        );
        let mut input = String::new();
        for inv in v["invocations"].as_array().unwrap() {
            let m = program.method_id(inv["method"].as_str().unwrap()).unwrap();
            let cfg = program.cfg(m);
            input += &m.0.to_string();
            for n in &inv["path"].as_array().unwrap()[1..] {
                input += &format!(" {}", cfg.block_id(n.as_str().unwrap()).unwrap().0);
            }
            if let Some(len) = inv["aborted_after"].as_u64() {
                input += &format!(" A {len}");
            }
            input.push('\n');
        }
        let out = run_java_direct(&tables, &input);
        let line = out.lines().find(|l| l.starts_with('w')).expect("a w line");
        let got: Vec<Value> = line
            .split(' ')
            .skip(1)
            .map(|w| Value::from(w.parse::<u64>().unwrap()))
            .collect();
        assert_eq!(Value::Array(got), v["words"], "vector {name}");
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} vectors checked");
}

/// VectorCheck's direct context mode: prints the words.
fn run_java_direct(tables: &str, input: &str) -> String {
    let tools = java_tools().expect("JDK and libasm-java are needed (scripts/deps/jvm.apt)");
    let dir = std::env::temp_dir().join(format!("tk-vectors-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let tf = dir.join("tables.txt");
    std::fs::write(&tf, tables).unwrap();
    let mut child = Command::new("java")
        .arg("-cp")
        .arg(&tools.runtime_classes)
        .arg("tracekit.rt.VectorCheck")
        .arg(&tf)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("java");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "VectorCheck failed");
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(out.stdout).unwrap()
}

/// Runtime tables for a core program (as the instrumenter writes them),
/// with `extra` appended to the header.
fn vector_tables(
    program: &tracekit_paths::Program,
    scheme: Scheme,
    width: u32,
    params: AdaptiveParams,
    model: &AdaptiveModel,
    extra: &str,
) -> String {
    use tracekit_jvm::schemes::scheme_rows;
    use tracekit_jvm::tables::route_to_exit_of;
    let mut tables = format!(
        "scheme {} width {width} inc {} bound {} methods {}{extra}\n",
        scheme.name(),
        params.inc,
        params.bound,
        program.len()
    );
    for m in program.method_ids() {
        let cfg = program.cfg(m);
        let succs: Vec<Vec<u32>> = cfg
            .blocks()
            .map(|b| cfg.successors(b).iter().map(|w| w.0).collect())
            .collect();
        tables += &format!("m {} {}\nee {} {}\nx", m.0, succs.len(), cfg.entry().0, cfg.exit().0);
        for r in route_to_exit_of(&succs, cfg.exit().0) {
            tables += &format!(" {r}");
        }
        tables.push('\n');
        for s in &succs {
            tables += "s";
            for w in s {
                tables += &format!(" {w}");
            }
            tables.push('\n');
        }
        scheme_rows(scheme, width, cfg, m, Some(model), &succs, &mut tables).unwrap();
    }
    tables
}

/// The core crate's shared test vectors (crates/paths/testdata/vectors.json),
/// reproduced by the Java probe classes: same traces, same final counters.
/// Interprocedural vectors are left out: the JVM probes code each invocation
/// on its own.
#[test]
fn core_shared_vectors_reproduce_in_java() {
    use serde_json::Value;
    use tracekit_paths::EdgeModel;

    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../paths/testdata/vectors.json");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut checked = 0;
    for v in all["vectors"].as_array().unwrap() {
        if v["interprocedural"] == true {
            continue;
        }
        let name = v["name"].as_str().unwrap();
        let program =
            tracekit_paths::Program::from_json_str(&v["cfg"].to_string(), std::path::Path::new("vectors.json"))
                .unwrap();
        let scheme = Scheme::parse(v["scheme"].as_str().unwrap()).unwrap();
        let width = v["width"].as_u64().unwrap() as u32;
        let params = AdaptiveParams {
            inc: v["inc"].as_u64().unwrap_or(3) as u32,
            bound: v["bound"].as_u64().unwrap_or(65535) as u32,
        };
        let edge_model = |key: &str| {
            let mut em = EdgeModel::new();
            for row in v[key].as_array().into_iter().flatten() {
                em.set_counter(
                    row[0].as_str().unwrap(),
                    row[1].as_str().unwrap(),
                    row[2].as_str().unwrap(),
                    row[3].as_u64().unwrap() as u32,
                );
            }
            em
        };
        let model = AdaptiveModel::from_edge_model(&program, &edge_model("initial_counters"), params).unwrap();
        let tables = vector_tables(&program, scheme, width, params, &model, "");
        let m = program.method_id(v["method"].as_str().unwrap()).unwrap();
        let cfg = program.cfg(m);
        let mut input = String::new();
        for inv in v["invocations"].as_array().unwrap() {
            let names: Vec<&str> = inv["path"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            input += &m.0.to_string();
            for n in &names[1..] {
                input += &format!(" {}", cfg.block_id(n).unwrap().0);
            }
            input.push('\n');
        }
        let (log, out) = run_java(&tables, &input);
        let mut lines = out.lines();
        let hb = tracekit_jvm::decode::bits_for(program.len() + 1);
        let mut k = 0;
        for (count, records, bits, _) in blocks(&log) {
            let mut r = BitReader::new(&records, bits);
            for _ in 0..count {
                let inv = &v["invocations"][k];
                assert_eq!(r.get(hb), Some(u64::from(m.0)), "vector {name}: head");
                let mut got: Vec<Value> = Vec::new();
                match scheme {
                    Scheme::Blpp => {
                        let blpp = Blpp::new(cfg, width).unwrap();
                        let mut ids = Vec::new();
                        blpp.decode_into(
                            || {
                                let id = r.get(width);
                                ids.extend(id);
                                Ok(id)
                            },
                            &mut Vec::new(),
                        )
                        .unwrap();
                        got = ids.into_iter().map(Value::from).collect();
                    }
                    Scheme::Pap => {
                        let nb = tracekit_jvm::decode::bits_for(cfg.block_count());
                        for _ in 0..r.gamma().unwrap() - 1 {
                            got.push(Value::from(r.get(width).unwrap()));
                            got.push(Value::from(cfg.block_name(BlockId(r.get(nb).unwrap() as u32))));
                        }
                        got.push(Value::from(r.get(width).unwrap()));
                    }
                    _ => {
                        for _ in 0..r.gamma().unwrap() - 1 {
                            got.push(Value::from(r.get(width).unwrap()));
                        }
                    }
                }
                assert_eq!(Value::Array(got), inv["trace"], "vector {name}, invocation {k}");
                k += 1;
            }
        }
        assert_eq!(k, v["invocations"].as_array().unwrap().len(), "vector {name}");
        if scheme == Scheme::Adaptracer {
            let want = AdaptiveModel::from_edge_model(&program, &edge_model("final_counters"), params).unwrap();
            // No line when the method never coded a choice (its counters were never touched).
            let got: Vec<u32> = lines
                .next()
                .map(|line| line.split(' ').skip(2).map(|x| x.parse().unwrap()).collect())
                .unwrap_or_default();
            let want: Vec<u32> = cfg.blocks().flat_map(|b| want.counters(m, b).to_vec()).collect();
            assert_eq!(got, want, "vector {name}: final counters");
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} vectors checked");
}
