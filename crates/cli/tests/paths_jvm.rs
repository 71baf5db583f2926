//! End-to-end tests of JVM path profiling: instrument real jars, run them on
//! the real JVM (with its verifier on, as by default for class-path code),
//! decode the logs and check every scheme against the raw ground truth.
//! Needs JDK 17 and libasm-java (scripts/deps/jvm.apt).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const TK: &str = env!("CARGO_BIN_EXE_tracekit");

/// A scratch directory removed when the test ends, pass or fail.
fn workdir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tk-paths-{name}-"))
        .tempdir()
        .unwrap()
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/paths_jvm")
        .join(name)
}

/// Compiles the Java programs of tests/data/paths_jvm into `dir/shapes.jar`.
fn shapes_jar(dir: &Path) -> PathBuf {
    let classes = dir.join("classes");
    let ok = Command::new("javac")
        .arg("-g")
        .arg("-d")
        .arg(&classes)
        .arg(data("Shapes.java"))
        .arg(data("Skewed.java"))
        .status()
        .expect("javac (JDK 17) is needed");
    assert!(ok.success());
    let jar = dir.join("shapes.jar");
    let ok = Command::new("jar")
        .arg("cf")
        .arg(&jar)
        .arg("-C")
        .arg(&classes)
        .arg(".")
        .status()
        .unwrap();
    assert!(ok.success());
    jar
}

fn tk(args: &[&str]) -> std::process::Output {
    Command::new(TK).args(args).output().unwrap()
}

fn ok(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "tracekit failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `tracekit paths instrument INPUT -o OUTPUT OPTIONS…`, successful or not.
fn try_instrument(input: &Path, output: &Path, options: &[&str]) -> std::process::Output {
    let mut args = vec![
        "paths",
        "instrument",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ];
    args.extend_from_slice(options);
    tk(&args)
}

fn instrument(input: &Path, output: &Path, scheme: &str, extra: &[&str]) {
    ok(try_instrument(input, output, &[&["--scheme", scheme], extra].concat()));
}

/// Runs `java -cp jar args…`; returns (exit success, log path).
fn run(jar: &Path, log: &Path, args: &[&str]) -> bool {
    let st = Command::new("java")
        // Class-path classes are verified by default; say so explicitly.
        .arg("-XX:+UnlockDiagnosticVMOptions")
        .arg("-XX:+BytecodeVerificationRemote")
        .arg("-cp")
        .arg(jar)
        .args(args)
        .env("TRACEKIT_PATHS_LOG", log)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    st.success()
}

fn decode(log: &Path, jar: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "paths",
        "decode-log",
        log.to_str().unwrap(),
        "--program",
        jar.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    serde_json::from_str(&ok(tk(&args))).unwrap()
}

fn invocations_of<'a>(v: &'a Value, method: &str) -> Vec<&'a Value> {
    v["invocations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["method"] == method)
        .collect()
}

#[test]
fn every_scheme_decodes_to_the_raw_ground_truth() {
    let tmp = workdir("schemes");
    let dir = tmp.path();
    let jar = shapes_jar(dir);
    for (variant, args, exits_ok) in [
        ("throw", &["Shapes", "25", "throw"][..], false),
        ("exit", &["Shapes", "25", "exit"][..], true),
    ] {
        let mut raw: Option<Value> = None;
        for scheme in [
            "raw",
            "blpp",
            "pap",
            "adaptracer",
            "adaptracer-stream",
            "adaptracer-context",
        ] {
            for width in ["64", "32"] {
                if scheme == "raw" && width == "32" {
                    continue;
                }
                let out = dir.join(format!("{scheme}-{width}.jar"));
                match scheme {
                    "adaptracer" => instrument(&jar, &out, "adaptracer", &["--width", width, "--context", "none"]),
                    "adaptracer-stream" => instrument(&jar, &out, "adaptracer", &["--width", width, "--stream"]),
                    // The default of `instrument`: the context stream.
                    "adaptracer-context" => {
                        ok(try_instrument(&jar, &out, &["--width", width]));
                    }
                    _ => instrument(&jar, &out, scheme, &["--width", width]),
                }
                let log = dir.join(format!("{scheme}-{width}-{variant}.log"));
                assert_eq!(
                    run(&out, &log, args),
                    exits_ok,
                    "{scheme} {variant}: the program's own exit status must be kept"
                );
                let decoded = decode(&log, &out, &[]);
                assert!(decoded["bits"].as_u64().unwrap() > 0);
                match &raw {
                    None => raw = Some(decoded),
                    Some(r) => assert_eq!(
                        r["invocations"], decoded["invocations"],
                        "{scheme} W={width} {variant} differs from raw"
                    ),
                }
            }
        }
        // Ground truth sanity: what Shapes.main does, seen in the raw paths.
        let r = raw.unwrap();
        let guarded = invocations_of(&r, "Shapes.guarded(I)I");
        assert_eq!(guarded.len(), 25);
        let distinct: std::collections::HashSet<String> = guarded.iter().map(|g| g["path"].to_string()).collect();
        assert_eq!(
            distinct.len(),
            3,
            "normal, ArithmeticException and IllegalStateException paths"
        );
        let classify = invocations_of(&r, "Shapes.classify(I)I");
        assert_eq!(classify.iter().filter(|c| c["thread"] == "worker").count(), 25);
        let main = invocations_of(&r, "Shapes.main([Ljava/lang/String;)V");
        if variant == "throw" {
            assert_eq!(main.len(), 1);
            assert_eq!(main[0]["aborted"], Value::Bool(true), "main ends by an exception");
        } else {
            // Invocations still running when the JVM exits keep their state in
            // their frames: the caller of System.exit is not recorded.
            assert!(main.is_empty(), "{main:?}");
        }
        let throwers = invocations_of(&r, "Shapes.thrower(I)V");
        assert_eq!(throwers.iter().filter(|t| t["aborted"] == true).count(), throwers.len());
    }
}

#[test]
fn adaptive_model_shrinks_the_next_run() {
    let tmp = workdir("adaptive");
    let dir = tmp.path();
    let jar = shapes_jar(dir);
    let run1 = dir.join("run1.jar");
    instrument(&jar, &run1, "adaptracer", &["--context", "none"]);
    let log1 = dir.join("run1.log");
    assert!(run(&run1, &log1, &["Skewed", "3000"]));
    let model = dir.join("model.tsv");
    let d1 = decode(&log1, &run1, &["--update-model", model.to_str().unwrap()]);
    let text = std::fs::read_to_string(&model).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("Skewed.work(I)J\t")),
        "model names methods and edges"
    );
    let run2 = dir.join("run2.jar");
    instrument(
        &jar,
        &run2,
        "adaptracer",
        &["--context", "none", "--model", model.to_str().unwrap()],
    );
    let log2 = dir.join("run2.log");
    assert!(run(&run2, &log2, &["Skewed", "3000"]));
    let d2 = decode(&log2, &run2, &[]);
    assert_eq!(d1["invocations"], d2["invocations"], "same workload, same paths");
    let (b1, b2) = (d1["bits"].as_u64().unwrap(), d2["bits"].as_u64().unwrap());
    assert!(b2 < b1, "run 2 ({b2} bits) must be smaller than run 1 ({b1} bits)");
}

#[test]
fn compare_runs_every_scheme_and_reports() {
    let tmp = workdir("compare");
    let dir = tmp.path();
    let jar = shapes_jar(dir);
    let out = ok(tk(&[
        "paths",
        "compare",
        "--width",
        "32",
        "--",
        "java",
        "-cp",
        jar.to_str().unwrap(),
        "Shapes",
        "20",
    ]));
    for s in [
        "raw ",
        "blpp ",
        "pap ",
        "adaptracer ",
        "adaptracer-stream ",
        "adaptracer-context ",
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(s))
            .unwrap_or_else(|| panic!("no {s} row in\n{out}"));
        assert!(line.ends_with("yes"), "{line}");
    }
    // The report names source lines of hot paths.
    let ajar = dir.join("a.jar");
    instrument(&jar, &ajar, "adaptracer", &[]);
    let log = dir.join("a.log");
    assert!(run(&ajar, &log, &["Shapes", "20"]));
    let rep = ok(tk(&[
        "paths",
        "report",
        log.to_str().unwrap(),
        "--program",
        ajar.to_str().unwrap(),
    ]));
    assert!(rep.contains("Shapes.guarded(I)I  [Shapes.java]"), "{rep}");
    assert!(rep.contains("lines 36 38 39"), "{rep}");
    assert!(rep.contains("blocks b0 b1 b2"), "{rep}");
}

#[test]
fn bad_logs_and_jars_fail_with_clear_errors() {
    let tmp = workdir("errors");
    let dir = tmp.path();
    let jar = shapes_jar(dir);
    let decode_log = |log: &Path, jar: &Path| {
        tk(&[
            "paths",
            "decode-log",
            log.to_str().unwrap(),
            "--program",
            jar.to_str().unwrap(),
        ])
    };
    let err = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let out = dir.join("raw.jar");
    instrument(&jar, &out, "raw", &[]);
    let log = dir.join("raw.log");
    assert!(run(&out, &log, &["Shapes", "5"]));
    let good = std::fs::read(&log).unwrap();
    // Not a log at all, or an old text log: the byte is named.
    let bad = dir.join("bad.log");
    std::fs::write(&bad, "tracekit-paths-log 1 scheme=raw width=64\nthread 0 1 main\n").unwrap();
    let o = decode_log(&bad, &out);
    assert!(!o.status.success());
    assert!(err(&o).contains("bad.log") && err(&o).contains("byte 0"), "{}", err(&o));
    // An unknown chunk kind after the header.
    let mut corrupt = good.clone();
    // The header: the magic and eight LEB128 numbers.
    let mut header_end = 8;
    for _ in 0..8 {
        while corrupt[header_end] & 0x80 != 0 {
            header_end += 1;
        }
        header_end += 1;
    }
    corrupt[header_end] = 9;
    std::fs::write(&bad, &corrupt).unwrap();
    let o = decode_log(&bad, &out);
    assert!(
        err(&o).contains(&format!("byte {header_end}: unknown chunk kind 9")),
        "{}",
        err(&o)
    );
    // A log cut short keeps every complete block and says so.
    std::fs::write(&bad, &good[..good.len() - 1]).unwrap();
    let o = decode_log(&bad, &out);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("no end mark"), "{}", err(&o));
    // A log of another jar (or scheme) is refused.
    let pjar = dir.join("pap.jar");
    instrument(&jar, &pjar, "pap", &["--verify"]);
    let o = decode_log(&log, &pjar);
    assert!(err(&o).contains("scheme=raw"), "{}", err(&o));
    // A verification sidecar that disagrees with the decoded path is caught.
    let vlog = dir.join("verify.log");
    assert!(run(&pjar, &vlog, &["Shapes", "5"]));
    let good = ok(decode_log(&vlog, &pjar));
    assert!(
        good.contains("decoded paths equal the blocks recorded in the same run"),
        "{good}"
    );
    let side = dir.join("verify.log.verify");
    let mut text = std::fs::read(&side).unwrap();
    let at = text.len() - 2;
    text[at] ^= 1;
    std::fs::write(&side, &text).unwrap();
    let o = decode_log(&vlog, &pjar);
    assert!(err(&o).contains("differs from the blocks recorded"), "{}", err(&o));
    // Context stream (the default): the words alone give the invocations; a
    // flipped bit in them cannot decode to the recorded run.
    let cjar = dir.join("ctx-verify.jar");
    ok(try_instrument(&jar, &cjar, &["--verify"]));
    let clog = dir.join("ctx.log");
    assert!(run(&cjar, &clog, &["Shapes", "5"]));
    assert!(ok(decode_log(&clog, &cjar)).contains("decoded paths equal the blocks recorded in the same run"));
    let mut bytes = std::fs::read(&clog).unwrap();
    // Past the header (magic, eight numbers) and main's THREAD chunk (kind,
    // index, id, name length, "main"), the first BLOCK's kind, thread, count
    // and word count; then flip the top bit of its first word.
    let skip = |b: &[u8], mut at: usize, n: usize| {
        for _ in 0..n {
            while b[at] & 0x80 != 0 {
                at += 1;
            }
            at += 1;
        }
        at
    };
    let mut at = skip(&bytes, 8, 8);
    assert_eq!(bytes[at], 1, "a THREAD chunk");
    at = skip(&bytes, at + 1, 3) + 4;
    assert_eq!(bytes[at], 2, "a BLOCK chunk");
    at = skip(&bytes, at + 1, 3);
    bytes[at] ^= 0x80;
    std::fs::write(&clog, &bytes).unwrap();
    assert!(
        !decode_log(&clog, &cjar).status.success(),
        "a flipped bit cannot decode to the recorded run"
    );
    let o = try_instrument(&jar, &dir.join("y.jar"), &["--scheme", "pap", "--stream"]);
    assert!(err(&o).contains("AdapTracer modes"), "{}", err(&o));
    // Instrumenting an instrumented jar, or a non-jar, is refused.
    let o = try_instrument(&out, &dir.join("x.jar"), &["--scheme", "raw"]);
    assert!(err(&o).contains("already instrumented"));
    let o = try_instrument(&log, &dir.join("x.jar"), &["--scheme", "raw"]);
    assert!(!o.status.success());
    assert!(err(&o).contains("raw.log"));
}

#[test]
fn instrumenting_never_destroys_its_input_and_fails_in_one_line() {
    let tmp = workdir("safety");
    let dir = tmp.path();
    let jar = shapes_jar(dir);
    let before = std::fs::read(&jar).unwrap();
    // Output = input, however it is spelled: refused, the jar intact.
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::os::unix::fs::symlink(&jar, dir.join("link.jar")).unwrap();
    for out in [jar.clone(), dir.join("sub/../shapes.jar"), dir.join("link.jar")] {
        let o = try_instrument(&jar, &out, &["--scheme", "raw"]);
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("would overwrite the input"), "{err}");
    }
    assert_eq!(std::fs::read(&jar).unwrap(), before);

    // A jar whose classes are fine but whose resource is corrupt passes the
    // Rust reader (it reads classes only) and fails in Java: one line, no
    // stack trace, and no half-written output jar.
    let res = dir.join("res");
    std::fs::create_dir_all(res.join("data")).unwrap();
    std::fs::write(res.join("data/words.txt"), "tracekit path profiling\n".repeat(2000)).unwrap();
    let bad = dir.join("bad.jar");
    std::fs::copy(&jar, &bad).unwrap();
    let ok_jar = Command::new("jar")
        .arg("uf")
        .arg(&bad)
        .arg("-C")
        .arg(&res)
        .arg("data/words.txt")
        .status()
        .unwrap();
    assert!(ok_jar.success());
    let mut bytes = std::fs::read(&bad).unwrap();
    let name = b"data/words.txt";
    let header = bytes
        .windows(4)
        .enumerate()
        .filter(|(_, w)| *w == b"PK\x03\x04")
        .map(|(i, _)| i)
        .find(|&i| bytes[i + 30..].starts_with(name))
        .unwrap();
    let extra = u16::from_le_bytes([bytes[header + 28], bytes[header + 29]]) as usize;
    let data = header + 30 + name.len() + extra;
    for b in &mut bytes[data + 2..data + 40] {
        *b = 0xff;
    }
    std::fs::write(&bad, &bytes).unwrap();
    let out = dir.join("bad-traced.jar");
    let o = try_instrument(&bad, &out, &["--scheme", "raw"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("tracekit: error: instrumenting"), "{err}");
    assert!(err.contains("bad.jar") && err.contains("java.util.zip."), "{err}");
    assert!(!err.contains("\tat ") && err.trim_end().lines().count() == 1, "{err}");
    assert!(!out.exists(), "no half-written jar is left");

    // FIFOs where a jar or a log is expected are refused at once.
    let fifo = dir.join("fifo.jar");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let o = try_instrument(&fifo, &dir.join("f.jar"), &[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a regular file"));
    let traced = dir.join("traced.jar");
    instrument(&jar, &traced, "pap", &[]);
    let log = dir.join("run.log");
    assert!(run(&traced, &log, &["Shapes", "3"]));
    for args in [
        vec![
            "paths",
            "decode-log",
            log.to_str().unwrap(),
            "--program",
            fifo.to_str().unwrap(),
        ],
        vec![
            "paths",
            "report",
            fifo.to_str().unwrap(),
            "--program",
            traced.to_str().unwrap(),
        ],
    ] {
        let o = tk(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("fifo.jar: not a regular file"), "{args:?}: {err}");
    }
    // A corrupt log names the file and the byte.
    let mut bytes = std::fs::read(&log).unwrap();
    bytes[3] = b'X';
    std::fs::write(&log, &bytes).unwrap();
    let o = tk(&[
        "paths",
        "report",
        log.to_str().unwrap(),
        "--program",
        traced.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("run.log") && err.contains("byte 0"), "{err}");
}

/// A real third-party program from Debian (Rhino, package `rhino`) runs
/// instrumented under every scheme and decodes to the raw ground truth.
#[test]
fn rhino_interpreter_decodes_exactly_under_every_scheme() {
    let rhino = Path::new("/usr/share/java/js.jar");
    assert!(
        rhino.exists(),
        "Rhino is missing: run scripts/setup (scripts/deps/jvm.apt lists it)"
    );
    let tmp = workdir("rhino");
    let dir = tmp.path();
    let script = dir.join("tiny.js");
    std::fs::write(&script, "var s = 0; for (var i = 0; i < 30; i++) { s += (i % 3 === 0) ? i : -1; }\ntry { null.x; } catch (e) { s++; }\nprint(s);\n").unwrap();
    let out = ok(tk(&[
        "paths",
        "compare",
        "--width",
        "32",
        "--",
        "java",
        "-cp",
        rhino.to_str().unwrap(),
        "org.mozilla.javascript.tools.shell.Main",
        "-opt",
        "-1",
        script.to_str().unwrap(),
    ]));
    for s in ["raw ", "blpp ", "pap ", "adaptracer ", "adaptracer-context "] {
        let line = out
            .lines()
            .find(|l| l.starts_with(s))
            .unwrap_or_else(|| panic!("no {s} row in\n{out}"));
        assert!(line.ends_with("yes"), "{line}");
    }
    assert!(!out.contains("WARNING"), "{out}");
}

/// The text report of a deterministic run is stable: hot paths with source
/// lines, bits per invocation and per branch. Regenerate the golden file
/// with `TRACEKIT_BLESS=1`.
#[test]
fn report_matches_golden_file() {
    let tmp = workdir("golden");
    let dir = tmp.path();
    let jar = shapes_jar(dir);
    let out = dir.join("at.jar");
    instrument(&jar, &out, "adaptracer", &["--width", "32", "--context", "none"]);
    let log = dir.join("at.log");
    assert!(run(&out, &log, &["Shapes", "20"]));
    let report = ok(tk(&[
        "paths",
        "report",
        log.to_str().unwrap(),
        "--program",
        out.to_str().unwrap(),
        "--methods",
        "6",
        "--top",
        "2",
    ]));
    let golden = data("report.golden");
    if std::env::var_os("TRACEKIT_BLESS").is_some() {
        std::fs::write(&golden, &report).unwrap();
    }
    assert_eq!(
        report,
        std::fs::read_to_string(&golden).expect("golden file (bless with TRACEKIT_BLESS=1)")
    );
}

/// The context stream on workloads of the tkbench suite (built by
/// scripts/deps/jvm.sh): `compare` checks every variant's decoded paths
/// against the nodes recorded in the same run and replays the probes' words
/// through the core encoders; the context stream is the smallest trace.
#[test]
fn context_stream_is_exact_on_the_suite() {
    let jar = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workloads/jvm/build/tkbench.jar");
    assert!(
        jar.exists(),
        "{} is missing: run scripts/deps/jvm.sh (part of scripts/setup)",
        jar.display()
    );
    // OneBlock: methods of one block get the probes' short form (Rt.exit0,
    // Rt.abort0), returning, throwing and passing exceptions on.
    for wl in ["Exceptions", "OneBlock", "Method", "HeapSort"] {
        let class = format!("tkbench.{wl}");
        let out = ok(tk(&[
            "paths",
            "compare",
            "--width",
            "32",
            "--",
            "java",
            "-cp",
            jar.to_str().unwrap(),
            &class,
            "300",
        ]));
        assert!(!out.contains("WARNING"), "{out}");
        let bits = |scheme: &str| -> u64 {
            let line = out
                .lines()
                .find(|l| l.starts_with(scheme))
                .unwrap_or_else(|| panic!("no {scheme} row in\n{out}"));
            assert!(line.ends_with("yes"), "{wl}: {line}");
            line.split_whitespace().nth(1).unwrap().parse().unwrap()
        };
        let (stream, context) = (bits("adaptracer-stream "), bits("adaptracer-context "));
        assert!(context < stream, "{wl}: context {context} bits, stream {stream}");
    }
}
