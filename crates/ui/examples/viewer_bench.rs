//! Time to first paint of the HTML report and of the web UI, and the
//! report's size, for synthetic sessions of the given numbers of calls.
//! Run through `scripts/bench/viewer.sh`.
//!
//! `cargo run --release -p tracekit-ui --example viewer_bench -- [RUNS] N…`
//!
//! First paint is the page's own mark (`TK_FIRST_PAINT`, ms since navigation
//! start) set when the timeline has drawn its first frame with data; each run
//! uses a fresh Chromium with an empty profile.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Instant;
use tracekit_browser::{artifacts_dir, Browser};
use tracekit_report::{render_report, synthetic, AnalysisSolver, ReportOptions, ViewModel};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Zooms in around the centre until the new frame is drawn; resolves to ms.
const ZOOM_JS: &str = "new Promise(done => {
  const t = performance.now(), src = TK.source, key0 = src.cache && src.cache.key;
  TK.timeline.zoom(0.5);
  if (!(src instanceof TK.ServerSource)) return done(performance.now() - t);
  const check = () => (src.cache && src.cache.key !== key0 && !src.pending && !src.wanted) ? done(performance.now() - t) : setTimeout(check, 1);
  check();
})";

/// First paint (ms since navigation start) and the median time of five
/// successive zoom-in steps, each until its frame is drawn.
fn first_paint(url: &str, shot: &std::path::Path) -> (f64, f64) {
    let mut b = Browser::launch(1400, 900).expect("chromium");
    b.navigate(url).expect("navigate");
    b.wait_for("document.body.dataset.painted === '1'", 600.0)
        .expect("first paint");
    let ms = b.eval("window.TK_FIRST_PAINT").unwrap().as_f64().unwrap();
    b.screenshot(shot).unwrap();
    let zooms: Vec<f64> = (0..5).map(|_| b.eval(ZOOM_JS).unwrap().as_f64().unwrap()).collect();
    assert!(b.page_errors().is_empty(), "{:?}", b.page_errors());
    (ms, median(zooms))
}

fn http_ms(addr: std::net::SocketAddr, path: &str) -> (f64, usize) {
    let t = Instant::now();
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    (t.elapsed().as_secs_f64() * 1e3, out.len())
}

fn main() {
    let mut args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("numbers")).collect();
    if args.is_empty() {
        args = vec![3, 100_000, 1_000_000, 10_000_000];
    }
    let runs = args.remove(0).max(1);
    let dir = artifacts_dir().join("bench");
    std::fs::create_dir_all(&dir).unwrap();
    println!("| calls | report size | report first paint (ms) | report zoom step (ms) | UI first paint (ms) | UI zoom step (ms) | UI /api/slices whole span (ms, bytes) | UI /api/slices 1% window (ms) | prepare (s) | write report (s) |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for n in args {
        let t = Instant::now();
        let session = Arc::new(synthetic::session(n));
        let view = Arc::new(ViewModel::new(&session));
        let prepare = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let html = render_report(&view, &[], &ReportOptions::default());
        let path = dir.join(format!("report-{n}.html"));
        std::fs::write(&path, &html).unwrap();
        let write = t.elapsed().as_secs_f64();
        let size = html.len();
        drop(html);
        let url = format!("file://{}", path.canonicalize().unwrap().display());
        let report: Vec<(f64, f64)> = (0..runs)
            .map(|_| first_paint(&url, &dir.join(format!("report-{n}.png"))))
            .collect();

        let server =
            tracekit_ui::Server::bind(0, view.clone(), Arc::new(AnalysisSolver::new(session.clone())), vec![]).unwrap();
        let addr = server.spawn();
        let ui: Vec<(f64, f64)> = (0..runs)
            .map(|_| first_paint(&format!("http://{addr}/"), &dir.join(format!("ui-{n}.png"))))
            .collect();
        let (t0, t1) = view.span;
        let whole: Vec<(f64, usize)> = (0..5)
            .map(|_| http_ms(addr, &format!("/api/slices?t0={t0}&t1={t1}&px=1186")))
            .collect();
        let w = (t1 - t0) / 100;
        let zoomed: Vec<f64> = (0..5)
            .map(|k| {
                http_ms(
                    addr,
                    &format!("/api/slices?t0={}&t1={}&px=1186", t0 + k * w * 10, t0 + k * w * 10 + w),
                )
                .0
            })
            .collect();
        println!(
            "| {n} | {:.1} MB | {:.0} | {:.1} | {:.0} | {:.1} | {:.1} ({:.0} kB) | {:.1} | {prepare:.1} | {write:.1} |",
            size as f64 / 1e6,
            median(report.iter().map(|x| x.0).collect()),
            median(report.iter().map(|x| x.1).collect()),
            median(ui.iter().map(|x| x.0).collect()),
            median(ui.iter().map(|x| x.1).collect()),
            median(whole.iter().map(|x| x.0).collect()),
            whole[0].1 as f64 / 1e3,
            median(zoomed),
        );
    }
}
