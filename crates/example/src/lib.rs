//! Generates tracekit's bundled example: a browser-like Android session —
//! four threads and tens of thousands of method calls, with the context log
//! the seed recorded for Firefox (Wi-Fi, traffic, battery, CPU, location,
//! RAM, screen state, orientation and time since its change).
//!
//! A simulated user turns the phone, loads pages and scrolls. A simulated
//! defect strikes shortly after the screen turns to portrait, and the user
//! presses the big red button; until the screen turns back, the defect also
//! keeps the renderer redrawing. The phone's battery current, which the
//! simulated hardware draws for what the threads did, is logged as the
//! `Battery current` context item (µA, negative while discharging, every
//! 100 ms). The generator only *acts out* that story; the analysis has to
//! discover the portrait pattern, and what it costs, from the files.
//!
//! [`runs`] acts out repeated runs of a synthetic program with realistic
//! noise and planted changes, for comparing runs (`tracekit diff`).
//!
//! [`hint_scenarios`] generates small sessions for judging ranked hints:
//! one cause among the same distractors each time.
//!
//! ```
//! let s = tracekit_example::browser_session(&tracekit_example::Options::default());
//! assert_eq!(s.threads.len(), 4);
//! assert!(s.call_event_count() > 50_000);
//! ```

mod battery;
mod browser;
mod context;
pub mod hint_scenarios;
mod rng;
pub mod runs;
mod scenario;
mod synthetic;
mod threads;

pub use synthetic::synthetic_calls;

use tracekit_model::{Clocks, Session};

/// Trace start of the example (2013-06-12, when the seed's Firefox session was recorded), µs since the epoch.
pub const START_UNIX_US: i64 = 1_371_042_120_000_000;

/// What to generate.
#[derive(Debug, Clone)]
pub struct Options {
    /// Seed of the deterministic generator.
    pub seed: u64,
    /// Length of the session in seconds.
    pub duration_s: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            seed: 739_177,
            duration_s: 150.0,
        }
    }
}

/// The context log's start relative to the trace start, in µs (negative: it starts first).
pub fn context_offset_us() -> i64 {
    -(context::LEAD_US as i64)
}

/// Generates the session: call events on four threads (dual clock) and the
/// context tracks, all timed from the trace start.
pub fn browser_session(opts: &Options) -> Session {
    let mut rng = rng::Rng::new(opts.seed);
    let sc = scenario::Scenario::generate(&mut rng, opts.duration_s);
    let mut s = Session::new("browser", Clocks::DUAL);
    s.anchor_unix_ns = Some(START_UNIX_US * 1000);
    s.duration_ns = Some(sc.duration_us * 1000);
    s.processes.push(tracekit_model::Process {
        pid: 2817,
        name: "org.mozilla.fennec".into(),
    });
    let methods = browser::trace_threads(&mut s, &sc, &mut rng);
    for t in &mut s.threads {
        t.pid = Some(2817);
    }
    s.context = context::context_tracks(&sc, &mut rng);
    let battery = battery::current_track(&s, &sc, methods.draw_frame, methods.socket_read, opts.seed);
    s.context.push(battery);
    s.properties.push(("vm".into(), "dalvik".into()));
    s.properties.push(("pid".into(), "2817".into()));
    s
}
