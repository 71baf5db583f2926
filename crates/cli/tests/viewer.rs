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
    b.screenshot(&artifacts_dir().join("cli-report-brb.png")).unwrap();
    b.eval("document.querySelectorAll('.tk-preset')[1].click()").unwrap();
    b.wait_for(
        "TK.state.problem.intervals.length > 0 && TK.state.problem.calls_inside.length > 0",
        10.0,
    )
    .unwrap();
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
        b.screenshot(&artifacts_dir().join("cli-ui.png")).unwrap();
        assert!(b.page_errors().is_empty(), "{:?}", b.page_errors());
    });
    let _ = child.kill();
    let _ = child.wait();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
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
