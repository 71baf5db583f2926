//! Writes the bundled example session (or a synthetic one of N calls) in
//! every export format: `cargo run -p tracekit-export --example export_example -- DIR [CALLS]`.

use std::fs::File;
use tracekit_export::{write_firefox, write_folded, write_speedscope, Clock, FoldedOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("usage: export_example DIR [CALLS]"));
    let session = match args.next() {
        Some(n) => tracekit_report::synthetic::session(n.parse().expect("CALLS is a number")),
        None => tracekit_example::browser_session(&tracekit_example::Options::default()),
    };
    std::fs::create_dir_all(&dir).unwrap();
    write_speedscope(
        &session,
        &mut File::create(dir.join("session.speedscope.json")).unwrap(),
    )
    .unwrap();
    write_firefox(&session, &mut File::create(dir.join("session.firefox.json")).unwrap()).unwrap();
    for clock in [Clock::Wall, Clock::ThreadCpu] {
        let opts = FoldedOptions {
            clock,
            thread_roots: true,
        };
        let path = dir.join(format!("session.{}.folded", clock.name()));
        write_folded(&session, &opts, &mut File::create(path).unwrap()).unwrap();
    }
}
