//! End-to-end tests of `tracekit diff` (issue 14): runs written as real
//! trace files and read back through the one door, real traces from real
//! devices, two builds of one C program under QEMU with the real plugin,
//! and path logs of a real JVM; the differential flame graph in headless
//! Chromium (`TRACEKIT_SKIP_BROWSER=1` skips that part).

mod common;

use common::{emu_plugin as plugin, repo_root as root};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tracekit_example::runs::{method, program_run, RunsSpec, Side};

const TK: &str = env!("CARGO_BIN_EXE_tracekit");

fn workdir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tk(args: &[&str]) -> Output {
    Command::new(TK).args(args).output().expect("run tracekit")
}

fn ok_json(out: Output) -> Value {
    assert!(
        out.status.success(),
        "tracekit failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Writes `n` runs of each side; returns (A paths, B paths).
fn write_runs(dir: &Path, spec: &RunsSpec, n: u32) -> (Vec<String>, Vec<String>) {
    let mut out = (Vec::new(), Vec::new());
    for (side, letter) in [(Side::A, "a"), (Side::B, "b")] {
        for r in 0..n {
            let base = dir.join(format!("{letter}-{r:02}"));
            tracekit_io::save(&program_run(spec, side, r), &base).unwrap();
            let p = format!("{}.trace", base.display());
            match side {
                Side::A => out.0.push(p),
                Side::B => out.1.push(p),
            }
        }
    }
    out
}

fn key(i: usize) -> String {
    method(i).display_name()
}

/// Flagged rows of a JSON report as (key joined by `;`, verdict).
fn flagged(v: &Value) -> Vec<(String, String)> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] == "regressed" || r["verdict"] == "improved")
        .map(|r| {
            let k: Vec<&str> = r["key"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap())
                .collect();
            (k.join(";"), r["verdict"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn planted_changes_are_found_in_trace_files_and_fail_the_build() {
    let dir = workdir("planted");
    let spec = RunsSpec {
        seed: 21,
        methods: 40,
        calls: 20_000,
        changes: vec![(11, 1.10), (23, 0.70)],
        ..RunsSpec::default()
    };
    let (a, b) = write_runs(&dir, &spec, 10);
    let folded = dir.join("d.folded");
    let html = dir.join("d.html");
    let mut args: Vec<&str> = vec!["diff"];
    args.extend(a.iter().map(String::as_str));
    args.push("--vs");
    args.extend(b.iter().map(String::as_str));
    args.extend([
        "--json",
        "--fail-on-regression",
        "--folded",
        s(&folded),
        "--html",
        s(&html),
    ]);
    let out = tk(&args);
    assert_eq!(
        out.status.code(),
        Some(3),
        "a regression ends with status 3: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["by"], "method");
    assert_eq!(v["metrics"], serde_json::json!(["excl-wall"]));
    assert_eq!(v["summary"]["rows"], 40);
    assert_eq!(
        flagged(&v),
        [(key(23), "improved".to_owned()), (key(11), "regressed".to_owned())],
        "sorted by size of change; nothing else flagged"
    );
    let up = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"][0] == key(11))
        .unwrap();
    assert!(up["ci_low"].as_f64().unwrap() > 0.0, "{up}");
    assert!(up["values_a"].as_array().unwrap().len() == 10);

    // Folded stacks with two counts: every stack from main, whole numbers.
    let text = std::fs::read_to_string(&folded).unwrap();
    let mut leaf = BTreeMap::new();
    for line in text.lines() {
        let mut parts = line.rsplitn(3, ' ');
        let cb: u64 = parts.next().unwrap().parse().unwrap();
        let ca: u64 = parts.next().unwrap().parse().unwrap();
        let stack = parts.next().unwrap();
        assert!(stack.starts_with(&key(0).replace(';', ":")), "{line}");
        let last = stack.rsplit(';').next().unwrap().to_owned();
        let e = leaf.entry(last).or_insert((0u64, 0u64));
        e.0 += ca;
        e.1 += cb;
    }
    let (a11, b11) = leaf[&key(11).replace(';', ":")];
    let (a23, b23) = leaf[&key(23).replace(';', ":")];
    assert!(
        b11 as f64 > a11 as f64 * 1.05 && (b23 as f64) < a23 as f64 * 0.8,
        "{a11} {b11} {a23} {b23}"
    );

    // The same program on both sides: nothing regressed, status 0.
    let mut args: Vec<&str> = vec!["diff"];
    args.extend(a[..5].iter().map(String::as_str));
    args.push("--vs");
    args.extend(a[5..].iter().map(String::as_str));
    args.extend(["--json", "--fail-on-regression"]);
    let v = ok_json(tk(&args));
    assert!(flagged(&v).is_empty(), "{:?}", flagged(&v));

    // One run per side: differences, and a warning instead of verdicts.
    let out = tk(&["diff", &a[0], "--vs", &b[0]]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tracekit: warning:") && err.contains("one run per side"),
        "{err}"
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains(&key(11)) && table.contains("excl-wall (ns):"), "{table}");

    flame_graph_in_the_browser(&html);
}

/// The page's flame graph draws the grown method red and the shrunk one blue.
fn flame_graph_in_the_browser(html: &Path) {
    let page = std::fs::read_to_string(html).unwrap();
    assert!(!page.contains("<script src") && !page.contains("<link") && page.contains("default-src 'none'"));
    if std::env::var_os("TRACEKIT_SKIP_BROWSER").is_some() {
        return;
    }
    let mut b = tracekit_browser::Browser::launch(1400, 900)
        .unwrap_or_else(|e| panic!("headless Chromium is needed (run scripts/setup): {e}"));
    b.navigate(&format!("file://{}", html.display())).unwrap();
    b.wait_for("window.TKDIFF && TKDIFF.state.boxes.length > 0", 10.0)
        .unwrap();
    let colour = |b: &mut tracekit_browser::Browser, name: &str| -> (Value, Value) {
        let v = b
            .eval(&format!(
                "(function () {{ var x = TKDIFF.state.boxes.filter(function (b) {{ return b.name === {} }}); \
                 return x.length ? [x[0].colour, x[0].verdict] : null; }})()",
                serde_json::to_string(name).unwrap()
            ))
            .unwrap();
        assert!(!v.is_null(), "{name} is drawn");
        (v[0].clone(), v[1].clone())
    };
    let (up, up_verdict) = colour(&mut b, &key(11));
    assert_eq!(up["r"], 255, "grew: red {up}");
    assert!(up["b"].as_u64().unwrap() < 200, "{up}");
    assert_eq!(up_verdict, "regressed");
    let (down, down_verdict) = colour(&mut b, &key(23));
    assert_eq!(down["b"], 255, "shrank: blue {down}");
    assert!(down["r"].as_u64().unwrap() < 200, "{down}");
    assert_eq!(down_verdict, "improved");
    let rows = b
        .eval("document.querySelectorAll('#td-rows tr[data-verdict=regressed]').length")
        .unwrap();
    assert_eq!(rows, 1);
    assert!(b.page_errors().is_empty(), "{:?}", b.page_errors());
    b.screenshot(&tracekit_browser::artifacts_dir().join("cli-diff-flame.png"))
        .unwrap();
}

fn realdata(name: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/realdata/dmtrace")
        .join(name);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: realdata folder absent");
        None
    }
}

/// `tracekit profile --json` rows by the name `diff` matches methods by.
fn profile(p: &Path) -> BTreeMap<String, Vec<Value>> {
    let v = ok_json(tk(&["profile", s(p), "--json"]));
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for m in v["methods"].as_array().unwrap() {
        let class = m["class"].as_str().unwrap();
        let name = m["name"].as_str().unwrap();
        let q = if class.is_empty() {
            name.to_owned()
        } else {
            format!("{class}.{name}")
        };
        let sig = m["signature"].as_str().unwrap();
        let k = if sig.is_empty() { q } else { format!("{q} {sig}") };
        out.entry(k).or_default().push(m.clone());
    }
    out
}

#[test]
fn real_traces_are_matched_by_method_name_across_files() {
    let (Some(regular), Some(streaming)) = (
        realdata("fenix_art_regular_v3_dual.trace"),
        realdata("fenix_art_streaming_v3_dual.trace"),
    ) else {
        return;
    };
    // A file against itself: every difference is exactly 0.
    let v = ok_json(tk(&[
        "diff",
        s(&regular),
        "--vs",
        s(&regular),
        "--json",
        "--metric",
        "all",
    ]));
    assert!(v["summary"]["rows"].as_u64().unwrap() > 100);
    for r in v["rows"].as_array().unwrap() {
        assert_eq!(r["delta"], 0.0, "{r}");
        assert_eq!(r["verdict"], "unchanged", "{r}");
    }
    let methods = ok_json(tk(&["diff", s(&regular), "--vs", s(&regular), "--json"]));
    let paths = ok_json(tk(&[
        "diff",
        s(&regular),
        "--vs",
        s(&regular),
        "--json",
        "--by",
        "path",
    ]));
    assert!(paths["summary"]["rows"].as_u64().unwrap() > methods["summary"]["rows"].as_u64().unwrap());
    assert_eq!(paths["summary"]["unchanged"], paths["summary"]["rows"]);

    // Two recordings of the app: methods have other ids in each file; the
    // diff's values are each file's own profile.
    let v = ok_json(tk(&[
        "diff",
        s(&regular),
        "--vs",
        s(&streaming),
        "--json",
        "--metric",
        "calls,excl-wall",
    ]));
    let (pa, pb) = (profile(&regular), profile(&streaming));
    let mut checked = 0;
    for r in v["rows"].as_array().unwrap() {
        let k = r["key"][0].as_str().unwrap();
        let (Some([ra]), Some([rb])) = (pa.get(k).map(Vec::as_slice), pb.get(k).map(Vec::as_slice)) else {
            continue; // one method listed under two ids: the diff adds them up
        };
        let (field, scale) = match r["metric"].as_str().unwrap() {
            "calls" => ("calls", 1.0),
            _ => ("excl_real_us", 1000.0),
        };
        assert_eq!(
            r["median_a"].as_f64().unwrap(),
            ra[field].as_f64().unwrap() * scale,
            "{k}"
        );
        assert_eq!(
            r["median_b"].as_f64().unwrap(),
            rb[field].as_f64().unwrap() * scale,
            "{k}"
        );
        checked += 1;
    }
    assert!(checked > 100, "{checked} rows checked");
    assert!(v["only_in_a"].as_array().unwrap().len() + v["only_in_b"].as_array().unwrap().len() > 0);
}

fn emu_run(arch: &str, mode: &str, prog: &Path, out: &Path) {
    let o = Command::new(TK)
        .args([
            "emu",
            "run",
            "--arch",
            arch,
            "--mode",
            mode,
            "-o",
            s(out),
            "--",
            s(prog),
        ])
        .env("TRACEKIT_QEMU_PLUGIN", plugin())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn rows_by_key(v: &Value) -> BTreeMap<String, Value> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let k: Vec<&str> = r["key"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().unwrap())
                .collect();
            (k.join(" | "), r.clone())
        })
        .collect()
}

#[test]
fn two_builds_under_the_emulator_give_exact_instruction_deltas() {
    for (arch, cc) in [("x86_64", "gcc"), ("arm", "arm-linux-gnueabihf-gcc")] {
        let dir = workdir(&format!("emu-{arch}"));
        let mut runs: BTreeMap<(&str, &str, u32), PathBuf> = BTreeMap::new();
        for opt in ["-O0", "-O2"] {
            let prog = dir.join(format!("kernel{opt}"));
            let st = Command::new(cc)
                .args([opt, "-static", "-o", s(&prog)])
                .arg(root().join("crates/cli/tests/data/diff/kernel.c"))
                .status()
                .unwrap_or_else(|e| panic!("{cc} is needed (run scripts/setup): {e}"));
            assert!(st.success());
            for (mode, n) in [("tb", 2), ("insn", 1)] {
                for r in 0..n {
                    let out = dir.join(format!("{opt}-{mode}-{r}"));
                    emu_run(arch, mode, &prog, &out);
                    runs.insert((opt, mode, r), out);
                }
            }
        }
        let p = |k: (&'static str, &'static str, u32)| runs[&k].to_str().unwrap().to_owned();
        // Instructions per category of a run, from `tracekit emu report`.
        let categories = |dir: &str| -> BTreeMap<String, f64> {
            let v = ok_json(tk(&["emu", "report", dir, "--json"]));
            let mut out = BTreeMap::new();
            for proc_ in v["processes"].as_array().unwrap() {
                for (k, n) in proc_["categories"].as_object().unwrap() {
                    *out.entry(k.clone()).or_default() += n.as_f64().unwrap();
                }
            }
            out
        };
        let mut by_mode = BTreeMap::new();
        for mode in ["tb", "insn"] {
            let (a0, b0) = (p(("-O0", mode, 0)), p(("-O2", mode, 0)));
            let mut args = vec!["diff".to_owned(), a0.clone()];
            if mode == "tb" {
                args.push(p(("-O0", mode, 1)));
            }
            args.extend(["--vs".to_owned(), b0.clone()]);
            if mode == "tb" {
                args.push(p(("-O2", mode, 1)));
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let cat = ok_json(tk(&[&args[..], &["--json"]].concat()));
            assert_eq!(cat["metrics"], serde_json::json!(["instructions"]));
            let (ca, cb) = (categories(&a0), categories(&b0));
            let rows = rows_by_key(&cat);
            assert_eq!(
                rows.keys().collect::<Vec<_>>(),
                ca.keys().collect::<Vec<_>>(),
                "{arch} {mode}"
            );
            for (k, row) in &rows {
                // Runs of one build agree to the instruction, so the delta is exact …
                assert_eq!(row["exact"], true, "{arch} {mode} {k}");
                // … and it is the difference of the two builds' own counts.
                assert_eq!(row["delta"].as_f64().unwrap(), cb[k] - ca[k], "{arch} {mode} {k}");
            }
            let func = rows_by_key(&ok_json(tk(&[&args[..], &["--by", "function", "--json"]].concat())));
            let work = &func["work"];
            assert_eq!(work["exact"], true, "{work}");
            assert_eq!(work["verdict"], "improved", "{arch}: -O2's loop is shorter: {work}");
            assert!(work["delta"].as_f64().unwrap() < -20_000.0, "{work}");
            by_mode.insert(mode, (rows, func));
        }
        // Block counting and the per-instruction callback agree on every
        // function's delta, but for the odd instruction QEMU leaves off a
        // block at a page boundary (ARCHITECTURE.md, emulator invariants).
        let (tb, insn) = (&by_mode["tb"].1, &by_mode["insn"].1);
        assert_eq!(tb.keys().collect::<Vec<_>>(), insn.keys().collect::<Vec<_>>());
        let off: f64 = tb
            .iter()
            .map(|(k, r)| (r["delta"].as_f64().unwrap() - insn[k]["delta"].as_f64().unwrap()).abs())
            .sum();
        assert!(off <= 2.0, "{arch}: tb and insn deltas differ by {off} instructions");
        assert_eq!(tb["work"]["delta"], insn["work"]["delta"]);
    }
    // An emulator run and a trace do not compare.
    let out = tk(&["diff", "/nonexistent.trace", "--vs", s(&workdir("emu-x86_64"))]);
    assert_eq!(out.status.code(), Some(1));
}

fn javac_jar(dir: &Path) -> PathBuf {
    let classes = dir.join("classes");
    let st = Command::new("javac")
        .arg("-g")
        .arg("-d")
        .arg(&classes)
        .arg(root().join("crates/cli/tests/data/diff/Work.java"))
        .status()
        .expect("javac (JDK 17) is needed");
    assert!(st.success());
    let jar = dir.join("work.jar");
    let st = Command::new("jar")
        .args(["cf", s(&jar), "-C", s(&classes), "."])
        .status()
        .unwrap();
    assert!(st.success());
    jar
}

#[test]
fn path_frequencies_of_a_deterministic_program_differ_exactly() {
    let dir = workdir("paths");
    let jar = javac_jar(&dir);
    let traced = dir.join("traced.jar");
    let o = tk(&["paths", "instrument", s(&jar), "-o", s(&traced), "--scheme", "pap"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut logs = Vec::new();
    for (n, arg) in [(0, "40"), (1, "40"), (2, "55"), (3, "55")] {
        let log = dir.join(format!("run{n}.log"));
        let st = Command::new("java")
            .args(["-cp", s(&traced), "Work", arg])
            .env("TRACEKIT_PATHS_LOG", &log)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(st.success());
        logs.push(log.to_str().unwrap().to_owned());
    }
    // Path counts from `paths decode-log`, the independent reference.
    let counts = |log: &str| -> BTreeMap<String, f64> {
        let v = ok_json(tk(&["paths", "decode-log", log, "--program", s(&traced), "--json"]));
        let mut c = BTreeMap::new();
        for inv in v["invocations"].as_array().unwrap() {
            let blocks: Vec<String> = inv["path"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| format!("b{}", b.as_u64().unwrap()))
                .collect();
            *c.entry(format!("{} | {}", inv["method"].as_str().unwrap(), blocks.join(" ")))
                .or_default() += 1.0;
        }
        c
    };
    let (ca, cb) = (counts(&logs[0]), counts(&logs[2]));
    let v = ok_json(tk(&[
        "diff",
        &logs[0],
        &logs[1],
        "--vs",
        &logs[2],
        &logs[3],
        "--program",
        s(&traced),
        "--json",
    ]));
    assert_eq!(v["by"], "path");
    assert_eq!(v["metrics"], serde_json::json!(["executions"]));
    let mut seen = 0;
    for (k, row) in rows_by_key(&v) {
        assert_eq!(row["exact"], true, "{k}");
        let want = cb.get(&k).copied().unwrap_or(0.0) - ca.get(&k).copied().unwrap_or(0.0);
        assert_eq!(row["delta"].as_f64().unwrap(), want, "{k}");
        seen += 1;
    }
    assert!(seen >= 3, "{v}");
    let step = rows_by_key(&ok_json(tk(&[
        "diff",
        &logs[0],
        "--vs",
        &logs[2],
        "--program",
        s(&traced),
        "--by",
        "method",
        "--json",
    ])));
    let row = &step["Work.step(I)I"];
    assert_eq!(row["delta"], 15.0, "{row}");
    assert_eq!(row["verdict"], "regressed");
}

#[test]
fn bad_inputs_are_named_and_nothing_is_compared() {
    let dir = workdir("bad");
    let spec = RunsSpec {
        methods: 10,
        calls: 200,
        ..RunsSpec::default()
    };
    let (a, b) = write_runs(&dir, &spec, 2);
    let junk = dir.join("junk.trace");
    std::fs::write(&junk, b"*version\n3\nthis is not a trace").unwrap();
    let out = tk(&["diff", &a[0], &a[1], s(&junk), "--vs", &b[0], &b[1]]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("tracekit: error:") && err.contains("junk.trace"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    // Choices are checked by the parser (status 2).
    for bad in [&["--by", "line"][..], &["--metric", "watts"], &["--alpha", "2"]] {
        let mut args = vec!["diff", &a[0], "--vs", &b[0]];
        args.extend_from_slice(bad);
        assert_eq!(tk(&args).status.code(), Some(2), "{bad:?}");
    }
    // A kind of row the inputs do not have, and energy no run carries.
    let out = tk(&["diff", &a[0], "--vs", &b[0], "--by", "category"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not apply to traces"));
    let out = tk(&["diff", &a[0], "--vs", &b[0], "--metric", "excl-energy"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("energy"));
}
