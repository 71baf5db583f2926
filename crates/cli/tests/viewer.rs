//! End-to-end tests of issue 6: `tracekit report --html` and `tracekit ui`
//! on the bundled example, looked at in headless Chromium. Screenshots go to
//! `target/viewer-artifacts/`. `TRACEKIT_SKIP_BROWSER=1` skips the browser
//! part on a machine without Chromium (CI installs it via scripts/setup).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tracekit_browser::{artifacts_dir, Browser};

fn ok(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .output()
        .expect("run tracekit");
    assert!(
        out.status.success(),
        "tracekit {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn example(name: &str) -> (PathBuf, String) {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    ok(&[
        "example",
        "-o",
        d.to_str().unwrap(),
        "--name",
        "s",
        "--seed",
        "5",
        "--duration",
        "30",
    ]);
    let base = d.join("s").to_str().unwrap().to_owned();
    (d, base)
}

/// Per method (outermost calls only) and per caller → callee: calls and
/// inclusive µs summed over a `calltree --json` tree.
type Sums = std::collections::HashMap<String, (u64, f64)>;

fn tree_sums(node: &serde_json::Value, path: &mut Vec<String>, nodes: &mut Sums, edges: &mut Sums) {
    let method = node["method"].as_str().map(str::to_owned);
    if let Some(m) = &method {
        let calls = node["calls"].as_u64().unwrap();
        let incl = node["incl_real_us"].as_f64().unwrap();
        let e = nodes.entry(m.clone()).or_default();
        e.0 += calls;
        if !path.contains(m) {
            e.1 += incl;
        }
        if let Some(caller) = path.last() {
            let e = edges.entry(format!("{caller} -> {m}")).or_default();
            e.0 += calls;
            e.1 += incl;
        }
        path.push(m.clone());
    }
    for c in node["children"].as_array().unwrap() {
        tree_sums(c, path, nodes, edges);
    }
    if method.is_some() {
        path.pop();
    }
}

fn browser() -> Option<Browser> {
    if std::env::var_os("TRACEKIT_SKIP_BROWSER").is_some() {
        return None;
    }
    Some(Browser::launch(1400, 900).unwrap_or_else(|e| panic!("headless Chromium is needed (run scripts/setup): {e}")))
}

fn labels(b: &mut Browser, kind: &str) -> Vec<String> {
    let v = b
        .eval(&format!(
            "Array.from(document.querySelectorAll('.tk-label[data-kind={kind}]')).map(e => e.firstChild.textContent)"
        ))
        .unwrap();
    serde_json::from_value(v).unwrap()
}

const THREADS: [&str; 4] = ["main", "GLThread 12", "Gecko", "Socket Thread"];

#[test]
fn html_report_is_self_contained_and_shows_the_session() {
    let (d, base) = example("viewer-report");
    let out = d.join("s.html");
    let said = ok(&[
        "report",
        &base,
        "--html",
        "-o",
        out.to_str().unwrap(),
        "--problem",
        "GeckoLayerClient.setPageRect when Screen orientation == 1",
    ]);
    assert!(said.starts_with("wrote "), "{said}");
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(
        !html.contains("<script src")
            && !html.contains("<link")
            && !html.contains("@import")
            && !html.contains("url(http")
    );
    assert!(html.contains("default-src 'none'"), "the page forbids requests");

    let bad = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args([
            "report",
            &base,
            "--html",
            "-o",
            out.to_str().unwrap(),
            "--problem",
            "nothing when Screen orientation == 1",
        ])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("nothing"));

    let Some(mut b) = browser() else { return };
    b.navigate(&format!("file://{}", out.display())).unwrap();
    b.wait_for("document.body.dataset.painted === '1'", 90.0).unwrap();
    assert_eq!(labels(&mut b, "thread"), THREADS);
    let context = labels(&mut b, "context");
    assert!(
        context.len() >= 15 && context.contains(&"Screen orientation".to_owned()),
        "{context:?}"
    );
    // The example's battery log: power from V·I and cumulative energy as
    // rows, the energy charged to every call, power stacked by process.
    let counters = labels(&mut b, "counter");
    assert!(
        counters.contains(&"Power (Battery voltage × Battery current)".to_owned())
            && counters.contains(&"Energy (cumulative)".to_owned()),
        "{counters:?}"
    );
    let e = b
        .eval("(() => { const c = TK.meta.counters.find(c => c.name === 'Energy (cumulative)'); return [c.values[c.values.length - 1], TK.meta.energy.measuredJ, TK.meta.hasEnergy]; })()")
        .unwrap();
    let (last, measured) = (e[0].as_f64().unwrap(), e[1].as_f64().unwrap());
    assert!(measured > 0.0 && (last - measured).abs() <= 1e-9 * measured, "{e}");
    assert_eq!(e[2], true);
    assert_eq!(labels(&mut b, "power"), ["Power by process", "Power by thread"]);
    // The ready-made problems: BRB presses and the condition from the command line.
    let presets = b
        .eval("Array.from(document.querySelectorAll('.tk-preset')).map(e => e.textContent)")
        .unwrap();
    assert_eq!(
        presets,
        serde_json::json!(["BRB (brb)", "GeckoLayerClient.setPageRect when Screen orientation == 1"])
    );
    b.eval("document.querySelectorAll('.tk-preset')[0].click()").unwrap();
    b.wait_for("document.querySelectorAll('.tk-occurrence').length > 0", 10.0)
        .unwrap();
    let top = b
        .eval("document.querySelector('#tk-hints tbody tr').textContent")
        .unwrap();
    assert!(
        top.as_str().unwrap().contains("Time since orientation change"),
        "the analysis's top hint: {top}"
    );
    // The page's own hint rules (for definitions the report was not
    // written with) give the analysis's ranking on the example, counters
    // ranked by their rate included.
    let same = b
        .eval(
            "(() => { const rust = TK.state.problem.hints, js = TK.solveInBrowser(TK.source, {kind: 'brb', method: 'brb'}).view.hints;
               const close = (x, y) => (x == null && y == null) || Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
               const bad = js.filter((h, i) => { const r = rust[i];
                 return !r || h.label !== r.label || h.kind !== r.kind || h.confounded_with_time !== r.confounded_with_time ||
                   !close(h.score, r.score) || !close(h.raw_score, r.raw_score) || !close(h.p5, r.p5) || !close(h.p95, r.p95); });
               return { n: js.length, rates: js.filter(h => h.kind === 'rate').length, bad: bad.map(h => h.label), same: js.length === rust.length }; })()",
        )
        .unwrap();
    assert_eq!(same["bad"], serde_json::json!([]), "{same}");
    assert_eq!(same["same"], true, "{same}");
    assert!(same["rates"].as_u64().unwrap() >= 4, "traffic counters by rate: {same}");
    b.eval("document.getElementById('tk-hints').scrollIntoView()").unwrap();
    let kinds = b
        .eval("Array.from(document.querySelectorAll('#tk-hints .tk-hint-kind')).map(e => e.textContent)")
        .unwrap();
    assert!(
        kinds.as_array().unwrap().iter().any(|k| k == "time") && kinds.as_array().unwrap().iter().any(|k| k == "rate"),
        "{kinds}"
    );
    b.screenshot(&artifacts_dir().join("cli-report-brb.png")).unwrap();
    b.eval("document.querySelectorAll('.tk-preset')[1].click()").unwrap();
    b.wait_for(
        "TK.state.problem.intervals.length > 0 && TK.state.problem.calls_inside.length > 0",
        10.0,
    )
    .unwrap();
    // The problem's measured energy inside its intervals, as the CLI says.
    let page = b
        .eval("(() => { const e = TK.energyInOut(TK.state.problem.intervals); return [e.inside, e.insideS, document.getElementById('tk-problem-energy').textContent]; })()")
        .unwrap();
    let cli = serde_json::from_str::<serde_json::Value>(&ok(&[
        "problems",
        &base,
        "--method",
        "GeckoLayerClient.setPageRect",
        "--when",
        "Screen orientation == 1",
        "--json",
    ]))
    .unwrap();
    let (inside, secs) = (
        cli["energy"]["inside_j"].as_f64().unwrap(),
        cli["energy"]["inside_s"].as_f64().unwrap(),
    );
    assert!(
        inside > 0.0 && (page[0].as_f64().unwrap() - inside).abs() <= 1e-9 * inside,
        "{page} vs {inside}"
    );
    assert!((page[1].as_f64().unwrap() - secs).abs() < 1e-6, "{page} vs {secs} s");
    assert!(page[2].as_str().unwrap().starts_with("Energy: "), "{page}");
    b.screenshot(&artifacts_dir().join("cli-report-condition.png")).unwrap();
    assert!(b.page_errors().is_empty(), "{:?}", b.page_errors());
}

#[test]
fn ui_serves_the_same_views_on_loopback() {
    let (_d, base) = example("viewer-ui");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(["ui", &base, "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "binds loopback only: {url}");
    let result = std::panic::catch_unwind(|| {
        let Some(mut b) = browser() else { return };
        b.navigate(&url).unwrap();
        b.wait_for("document.body.dataset.painted === '1'", 90.0).unwrap();
        assert_eq!(labels(&mut b, "thread"), THREADS);
        assert!(labels(&mut b, "context").contains(&"Wifi connection state".to_owned()));
        // Define a problem in the form; the server's analysis answers.
        b.eval("document.querySelector('input[name=kind][value=method]').checked = true")
            .unwrap();
        b.eval("document.getElementById('tk-method').value = 'GeckoLayerClient.setPageRect'")
            .unwrap();
        b.eval("document.getElementById('tk-when').value = 'Screen orientation == 1'")
            .unwrap();
        b.eval("document.getElementById('tk-apply').click()").unwrap();
        b.wait_for("TK.state.problem && TK.state.problem.def.kind === 'method' && document.querySelectorAll('.tk-occurrence').length > 0", 20.0).unwrap();
        assert!(b
            .eval("document.getElementById('tk-hints').textContent")
            .unwrap()
            .as_str()
            .unwrap()
            .contains("Screen orientation"));
        // A bad condition is reported, not swallowed.
        b.eval("document.getElementById('tk-when').value = 'No such item == 1'; document.getElementById('tk-apply').click()").unwrap();
        b.wait_for("document.querySelector('#tk-problem-result .tk-error')", 10.0)
            .unwrap();
        // Select an interval: the server recomputes the profile for it.
        let x0 = b
            .eval("TK.$('tk-canvas').getBoundingClientRect().x")
            .unwrap()
            .as_f64()
            .unwrap();
        b.drag(x0 + 200.0, x0 + 400.0, 120.0).unwrap();
        b.wait_for(
            "document.getElementById('tk-scope').textContent.includes('selection')",
            10.0,
        )
        .unwrap();
        b.wait_for(
            "document.querySelectorAll('#tk-profile-table tbody tr').length > 0",
            10.0,
        )
        .unwrap();
        // The server's selection profile carries the calls' energy.
        let heads = b
            .eval("Array.from(document.querySelectorAll('#tk-profile-table th')).map(e => e.dataset.key)")
            .unwrap();
        assert!(heads.as_array().unwrap().iter().any(|h| h == "excl_energy"), "{heads}");
        assert!(labels(&mut b, "counter").contains(&"Energy (cumulative)".to_owned()));
        b.screenshot(&artifacts_dir().join("cli-ui.png")).unwrap();
        assert!(b.page_errors().is_empty(), "{:?}", b.page_errors());
    });
    let _ = child.kill();
    let _ = child.wait();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

#[test]
fn call_graph_svg_highlights_the_conditioned_call_tree() {
    let (d, base) = example("viewer-callgraph");
    let cond = "Screen orientation == 1";
    let svg = d.join("graph.svg");
    let said = ok(&[
        "calltree",
        &base,
        "--format",
        "svg",
        "--when",
        cond,
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert!(said.starts_with("wrote "), "{said}");
    let dot = ok(&["calltree", &base, "--format", "dot", "--when", cond]);
    assert!(
        dot.starts_with("// Call graph of s") && dot.contains("digraph callgraph"),
        "{dot}"
    );
    // The conditioned call tree, as JSON.
    let tree: serde_json::Value = serde_json::from_str(&ok(&["calltree", &base, "--when", cond, "--json"])).unwrap();
    let (mut nodes, mut edges) = (Sums::new(), Sums::new());
    tree_sums(&tree, &mut Vec::new(), &mut nodes, &mut edges);
    // A pruned graph says so, on stderr and in the drawing.
    let pruned = d.join("pruned.svg");
    let out = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args([
            "calltree",
            &base,
            "--format",
            "svg",
            "--when",
            cond,
            "--min-percent",
            "1",
            "-o",
            pruned.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("pruned below 1% of the time"));
    assert!(std::fs::read_to_string(&pruned)
        .unwrap()
        .contains("Pruned below 1% of the time"));

    let Some(mut b) = browser() else { return };
    b.navigate(&format!("file://{}", svg.display())).unwrap();
    b.wait_for("document.querySelectorAll('g.tk-node').length > 0", 20.0)
        .unwrap();
    let drawn = b
        .eval(
            "(() => { const num = (g, k) => g.hasAttribute(k) ? Number(g.getAttribute(k)) : null;
               const nodes = Array.from(document.querySelectorAll('g.tk-node')).map(g => {
                 const r = g.querySelector('rect.tk-box').getBBox();
                 const widest = Math.max(...Array.from(g.querySelectorAll('text')).map(t => t.getComputedTextLength()));
                 return { method: g.dataset.method, calls: num(g, 'data-calls'), when_calls: num(g, 'data-when-calls'),
                   when_ns: num(g, 'data-when-incl-ns'), lit: g.classList.contains('tk-lit'),
                   box: [r.x, r.y, r.width, r.height], fits: widest <= r.width - 8 }; });
               const edges = Array.from(document.querySelectorAll('g.tk-edge')).map(g => ({
                 key: g.dataset.caller + ' -> ' + g.dataset.callee, when_calls: num(g, 'data-when-calls'), when_ns: num(g, 'data-when-incl-ns'),
                 lit: !!g.querySelector('path.tk-edge-when') }));
               const vb = document.documentElement.viewBox.baseVal;
               return { nodes, edges, width: vb.width, height: vb.height,
                 header: Array.from(document.querySelectorAll('text.tk-condition')).map(t => t.textContent) }; })()",
        )
        .unwrap();
    let list = drawn["nodes"].as_array().unwrap();
    assert!(list.len() > 20, "{} methods drawn", list.len());
    assert!(
        drawn["header"][0].as_str().unwrap().contains(cond),
        "{}",
        drawn["header"]
    );
    let (w, h) = (drawn["width"].as_f64().unwrap(), drawn["height"].as_f64().unwrap());
    let boxes: Vec<[f64; 4]> = list
        .iter()
        .map(|n| serde_json::from_value(n["box"].clone()).unwrap())
        .collect();
    for (i, a) in boxes.iter().enumerate() {
        assert!(list[i]["fits"] == true, "label wider than its box: {}", list[i]);
        assert!(
            a[0] >= 0.0 && a[1] >= 0.0 && a[0] + a[2] <= w && a[1] + a[3] <= h,
            "outside the drawing: {a:?}"
        );
        for b in &boxes[i + 1..] {
            let apart = a[0] + a[2] <= b[0] || b[0] + b[2] <= a[0] || a[1] + a[3] <= b[1] || b[1] + b[3] <= a[1];
            assert!(apart, "boxes overlap: {a:?} {b:?}");
        }
    }
    // The highlighted share of every method and call is the conditioned call tree's.
    let mut lit = 0;
    for n in list {
        let m = n["method"].as_str().unwrap();
        let (calls, us) = nodes.remove(m).unwrap_or_default();
        assert_eq!(n["when_calls"].as_u64().unwrap(), calls, "{m}");
        assert!(
            (n["when_ns"].as_f64().unwrap() - us * 1000.0).abs() < 1.0,
            "{m}: {} ns vs {us} µs",
            n["when_ns"]
        );
        assert_eq!(
            n["lit"] == true,
            us > 0.0,
            "{m} is highlighted exactly when it ran under the condition"
        );
        lit += usize::from(us > 0.0);
    }
    assert!(
        nodes.values().all(|v| v.1 == 0.0),
        "methods that ran under the condition but are missing: {nodes:?}"
    );
    assert!(lit > 5 && lit < list.len(), "{lit}");
    for e in drawn["edges"].as_array().unwrap() {
        let key = e["key"].as_str().unwrap();
        let (calls, us) = edges.remove(key).unwrap_or_default();
        assert_eq!(e["when_calls"].as_u64().unwrap(), calls, "{key}");
        assert!((e["when_ns"].as_f64().unwrap() - us * 1000.0).abs() < 1.0, "{key}");
        assert_eq!(e["lit"] == true, us > 0.0, "{key}");
    }
    assert!(
        edges.values().all(|v| v.1 == 0.0),
        "calls under the condition missing: {edges:?}"
    );
    b.screenshot(&artifacts_dir().join("cli-callgraph.png")).unwrap();
    assert!(b.page_errors().is_empty(), "{:?}", b.page_errors());
}

/// A Perfetto capture from a real phone: one row per CPU with the threads it
/// ran, its counters as rows, and no empty rows for threads without calls.
#[test]
fn system_trace_report_draws_cpu_rows() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/realdata/perfetto/mstools_samsung_s20_test_trace.perfetto-trace");
    if !p.exists() {
        eprintln!("skipped: realdata folder absent");
        return;
    }
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("viewer-cpus");
    std::fs::create_dir_all(&d).unwrap();
    let out = d.join("s20.html");
    ok(&["report", p.to_str().unwrap(), "--html", "-o", out.to_str().unwrap()]);
    let Some(mut b) = browser() else { return };
    b.navigate(&format!("file://{}", out.display())).unwrap();
    b.wait_for("document.body.dataset.painted === '1'", 90.0).unwrap();
    let cpus = labels(&mut b, "cpu");
    assert!(cpus.len() >= 4 && cpus[0] == "CPU 0", "{cpus:?}");
    let counters = labels(&mut b, "counter");
    assert!(counters.iter().any(|c| c == "cpu0 freq"), "{counters:?}");
    // 162 threads, nearly all without calls: only those with calls or markers get rows.
    assert!(labels(&mut b, "thread").len() < 10);
    b.screenshot(&artifacts_dir().join("cli-report-cpus.png")).unwrap();
}
