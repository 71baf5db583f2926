//! Each call's inclusive energy, attached to the viewer's call slices
//! ([`tracekit_analysis::slices::Level::energy`]), so that the profile,
//! call tree and flame graph of any selection can show energy as they show
//! time. A call's energy is what its thread was charged between its entry
//! and exit.

use crate::Attribution;
use tracekit_analysis::ThreadSlices;
use tracekit_model::Session;

/// Fills every level's `energy` column from `a` (made with
/// `record_calls`). Returns false, touching nothing, when `a` has no
/// per-call record or does not match the slices.
pub fn attach(slices: &mut [ThreadSlices], session: &Session, a: &Attribution) -> bool {
    let Some(cum) = &a.call_cumulative else {
        return false;
    };
    if cum.len() != slices.len() || slices.len() != session.threads.len() {
        return false;
    }
    for ((th, c), (_, _, calls)) in slices.iter_mut().zip(cum).zip(session.thread_calls()) {
        let times = calls.times();
        if c.len() != times.len() {
            return false;
        }
        // Times held still where a broken clock stepped back, as the slices do.
        let mut held = Vec::with_capacity(times.len());
        let mut last = 0u64;
        for &t in times {
            last = last.max(t);
            held.push(last);
        }
        let at = |t: u64| -> f64 {
            match held.partition_point(|&x| x <= t) {
                0 => 0.0,
                i => c[i - 1],
            }
        };
        for l in &mut th.levels {
            l.energy = l.start.iter().zip(&l.end).map(|(&s, &e)| at(e) - at(s)).collect();
        }
    }
    true
}
