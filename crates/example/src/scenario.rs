//! What the simulated user does: when the phone is turned, pages load, the
//! user scrolls — and when the bug strikes and the big red button is pressed.
//!
//! The bug is a simulated app defect: shortly after the screen turns to
//! portrait, the page layout goes wrong (the app calls
//! `GeckoLayerClient.setPageRect` with stale metrics) and the user, seeing
//! it, presses the big red button. The stale page rectangle also keeps the
//! renderer busy: until the screen turns back, every display frame is
//! redrawn, which costs the battery. Nothing here knows about the analysis;
//! the analysis has to find the pattern from the trace and the context log.

use crate::rng::Rng;

/// All times are µs since the trace start.
pub(crate) struct Scenario {
    pub duration_us: u64,
    /// `(time, orientation)`: 0 landscape, 1 portrait; first entry at 0.
    pub orientation: Vec<(u64, i32)>,
    /// `(start, end)` of page loads.
    pub loads: Vec<(u64, u64)>,
    /// `(start, end)` of scrolling bursts.
    pub scrolls: Vec<(u64, u64)>,
    /// When the faulty layout happens.
    pub bug: Vec<u64>,
    /// When the user presses the big red button.
    pub brb: Vec<u64>,
    /// `(start, end)` of the redraw loops the defect starts (from the faulty
    /// layout until the screen turns back).
    pub redraw: Vec<(u64, u64)>,
    /// `(start, end)` of a Wi-Fi drop-out.
    pub wifi_drop: (u64, u64),
}

const S: u64 = 1_000_000;

/// Activity spans: the first starts after `first` s; each lasts `len` s and
/// is followed by a pause of `gap` s (ranges drawn uniformly).
fn spans(rng: &mut Rng, duration_us: u64, first: (f64, f64), len: (f64, f64), gap: (f64, f64)) -> Vec<(u64, u64)> {
    let secs = |rng: &mut Rng, r: (f64, f64)| (rng.range(r.0, r.1) * S as f64) as u64;
    let mut out = Vec::new();
    let mut t = secs(rng, first);
    while t < duration_us {
        let l = secs(rng, len);
        out.push((t, (t + l).min(duration_us)));
        t += l + secs(rng, gap);
    }
    out
}

impl Scenario {
    pub fn generate(rng: &mut Rng, duration_s: f64) -> Scenario {
        let duration_us = (duration_s * S as f64) as u64;
        let mut orientation = vec![(0u64, 0i32)];
        let mut bug = Vec::new();
        let mut brb = Vec::new();
        let mut t = (rng.range(6.0, 12.0) * S as f64) as u64;
        let mut current = 0;
        while t < duration_us {
            current = 1 - current;
            orientation.push((t, current));
            let stay = if current == 1 {
                rng.range(3.5, 8.0)
            } else {
                rng.range(7.0, 16.0)
            };
            if current == 1 && rng.chance(0.85) {
                // The defect shows, and the user reacts a moment later.
                let b = t + (rng.range(0.9, 1.4) * S as f64) as u64;
                let press = b + (rng.range(0.2, 0.4) * S as f64) as u64;
                if press < duration_us {
                    bug.push(b);
                    brb.push(press);
                }
            }
            t += (stay * S as f64) as u64;
        }
        let loads = spans(rng, duration_us, (0.5, 2.0), (1.5, 4.0), (5.0, 18.0));
        let scrolls = spans(rng, duration_us, (1.0, 3.0), (0.4, 2.5), (1.0, 6.0));
        let redraw = bug
            .iter()
            .map(|&b| {
                let back = orientation.iter().map(|o| o.0).find(|&t| t > b).unwrap_or(duration_us);
                (b, back.min(duration_us))
            })
            .collect();
        let drop_at = (rng.range(0.4, 0.7) * duration_us as f64) as u64;
        let wifi_drop = (drop_at, drop_at + (rng.range(2.0, 5.0) * S as f64) as u64);
        Scenario {
            duration_us,
            orientation,
            loads,
            scrolls,
            bug,
            brb,
            redraw,
            wifi_drop,
        }
    }

    /// Whether a page is loading at `t`.
    pub fn loading(&self, t: u64) -> bool {
        self.loads.iter().any(|&(a, b)| a <= t && t < b)
    }

    /// Whether the defect's redraw loop runs at `t`.
    pub fn redrawing(&self, t: u64) -> bool {
        self.redraw.iter().any(|&(a, b)| a <= t && t < b)
    }

    /// Whether the user is scrolling at `t`.
    pub fn scrolling(&self, t: u64) -> bool {
        self.scrolls.iter().any(|&(a, b)| a <= t && t < b)
    }

    /// Times of display frames: 60 per second while something changes on screen.
    pub fn frames(&self) -> Vec<u64> {
        let mut busy: Vec<(u64, u64)> = self.loads.clone();
        busy.extend(&self.scrolls);
        busy.extend(self.orientation.iter().skip(1).map(|&(t, _)| (t, t + 600_000)));
        busy.extend(self.bug.iter().map(|&t| (t, t + 300_000)));
        busy.extend(self.redraw.iter().copied());
        busy.sort();
        let mut frames = Vec::new();
        let mut last = 0u64;
        for (a, b) in busy {
            let mut f = a.max(last + 16_667);
            while f < b.min(self.duration_us) {
                frames.push(f);
                last = f;
                f += 16_667;
            }
        }
        frames
    }
}
