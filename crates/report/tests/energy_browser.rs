//! Energy in the report (headless Chromium): the bundled example's battery
//! charged to every call (`tracekit-attribution`), shown as energy columns
//! whose browser-side sums agree with the Rust `interval_profile` for the
//! whole session and for a selection, an energy-weighted flame graph, and
//! power rows stacked by process and by thread. Screenshots go to
//! `target/viewer-artifacts/`; `TRACEKIT_SKIP_BROWSER=1` skips the browser.

use serde_json::Value;
use tracekit_attribution::{attribute, calls, EnergyIndex, Options};
use tracekit_browser::{artifacts_dir, Browser};
use tracekit_report::{interval_profile, render_report, ReportOptions, ViewModel};

fn view() -> (ViewModel, f64) {
    let s = tracekit_example::browser_session(&tracekit_example::Options {
        seed: 5,
        duration_s: 30.0,
    });
    let idx = EnergyIndex::build(&s, &tracekit_energy::Options::default()).unwrap();
    let power = idx.power_samples().unwrap();
    let at = attribute(
        &s,
        &power,
        &Options {
            record_calls: true,
            bins: 256,
            ..Options::default()
        },
    );
    let mut v = ViewModel::new(&s);
    assert!(calls::attach(&mut v.threads, &s, &at));
    v.set_energy(
        serde_json::json!({"source": "test", "measuredJ": at.measured_j}),
        serde_json::to_value(&at.bins).unwrap(),
    );
    (v, at.attributed_j() - at.outside_methods_j)
}

#[test]
fn energy_columns_agree_with_rust_and_flame_and_power_rows_show() {
    let (v, in_calls) = view();
    // Rust: the calls' energy is what threads were charged while in a call.
    let whole = interval_profile(&v.threads, &[(v.span.0, v.span.1 + 1)]);
    assert!(whole.has_energy);
    assert!(
        (whole.total_energy - in_calls).abs() <= 1e-9 * in_calls,
        "{} vs {in_calls}",
        whole.total_energy
    );
    let excl: f64 = whole.rows.iter().map(|r| r.excl_energy).sum();
    assert!((excl - whole.total_energy).abs() <= 1e-9 * whole.total_energy);
    let (a, b) = (v.span.0 + 7_000_000_000, v.span.0 + 12_000_000_000);
    let part = interval_profile(&v.threads, &[(a, b)]);
    assert!(part.total_energy > 0.0 && part.total_energy < whole.total_energy);

    if std::env::var_os("TRACEKIT_SKIP_BROWSER").is_some() {
        eprintln!("TRACEKIT_SKIP_BROWSER set: skipping the browser part");
        return;
    }
    let mut br = Browser::launch(1400, 900).expect("headless Chromium is needed (run scripts/setup)");
    let dir = artifacts_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("report-energy.html");
    std::fs::write(&path, render_report(&v, &[], &ReportOptions::default())).unwrap();
    br.navigate(&format!("file://{}", path.canonicalize().unwrap().display()))
        .unwrap();
    br.wait_for("document.body.dataset.painted === '1'", 90.0).unwrap();
    // Energy columns are there.
    let heads = br
        .eval("Array.from(document.querySelectorAll('#tk-profile-table th')).map(e => e.dataset.key)")
        .unwrap();
    for k in ["incl_energy", "excl_energy", "incl_energy_pct", "excl_energy_pct"] {
        assert!(heads.as_array().unwrap().iter().any(|h| h == k), "{k} in {heads}");
    }
    // The browser's sums agree with Rust's, whole and for a selection.
    let js = |iv: String| {
        format!(
            "(() => {{ const j = TK.intervalProfile(TK.source.threads, {iv}); return [j.total_energy, j.rows.reduce((s, r) => s + r.excl_energy, 0)]; }})()"
        )
    };
    let w = br.eval(&js(format!("[[{}, {}]]", v.span.0, v.span.1 + 1))).unwrap();
    assert!(
        (w[0].as_f64().unwrap() - whole.total_energy).abs() <= 1e-9 * whole.total_energy,
        "{w}"
    );
    assert!(
        (w[1].as_f64().unwrap() - whole.total_energy).abs() <= 1e-6 * whole.total_energy,
        "{w}"
    );
    let p = br.eval(&js(format!("[[{a}, {b}]]"))).unwrap();
    assert!(
        (p[0].as_f64().unwrap() - part.total_energy).abs() <= 1e-9 * part.total_energy,
        "{p}"
    );
    // Sorting by exclusive energy puts the Rust's largest first.
    br.eval("document.querySelector('#tk-profile-table th[data-key=excl_energy]').click()")
        .unwrap();
    let first = br
        .eval("document.querySelector('#tk-profile-table tbody tr').dataset.method")
        .unwrap();
    let top = whole
        .rows
        .iter()
        .max_by(|x, y| x.excl_energy.total_cmp(&y.excl_energy))
        .unwrap();
    assert_eq!(first, Value::String(top.method.to_string()));
    // The flame graph by energy.
    br.eval("document.querySelector('button[data-tab=flame]').click()")
        .unwrap();
    br.eval("const s = document.getElementById('tk-flame-weight'); s.value = 'energy'; s.dispatchEvent(new Event('change'))")
        .unwrap();
    assert_eq!(
        br.eval("document.getElementById('tk-flame').dataset.weight").unwrap(),
        Value::String("energy".into())
    );
    let widths = br
        .eval("TK.tables.flameBoxes.filter(b => b.thread).map(b => [b.thread, b.w])")
        .unwrap();
    assert!(!widths.as_array().unwrap().is_empty(), "{widths}");
    br.screenshot(&dir.join("report-energy-flame.png")).unwrap();
    // Stacked power rows.
    let rows = br
        .eval("Array.from(document.querySelectorAll('.tk-label[data-kind=power]')).map(e => [e.firstChild.textContent, e.dataset.series])")
        .unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows[0][0], "Power by process");
    assert!(
        rows[0][1].as_str().unwrap().starts_with("idle|unattributed|"),
        "{rows:?}"
    );
    assert_eq!(rows[1][0], "Power by thread");
    assert!(rows[1][1].as_str().unwrap().contains("GLThread 12"), "{rows:?}");
    // Scrolled down to the power rows; the call tree shows energy too.
    br.eval("document.getElementById('tk-tracks').scrollTop = 1e6").unwrap();
    br.eval("document.querySelector('button[data-tab=calltree]').click()")
        .unwrap();
    let tree_heads = br
        .eval("Array.from(document.querySelectorAll('#tk-calltree th')).map(e => e.textContent)")
        .unwrap();
    assert!(
        tree_heads.as_array().unwrap().iter().any(|h| h == "Incl Energy"),
        "{tree_heads}"
    );
    br.screenshot(&dir.join("report-energy.png")).unwrap();
    assert!(br.page_errors().is_empty(), "{:?}", br.page_errors());
}
