//! The context log the device would have written beside the trace: the
//! listeners the seed enabled for Firefox (Wi-Fi, traffic, battery, CPU,
//! location, RAM, screen state and orientation).

use crate::rng::Rng;
use crate::scenario::Scenario;
use tracekit_model::{ContextTrack, ContextType, ContextValue};

/// Context logging starts this long before method tracing (µs).
pub(crate) const LEAD_US: u64 = 200_000;

struct Tracks(Vec<ContextTrack>);

impl Tracks {
    fn add(&mut self, label: &str, kind: ContextType, unit: Option<&str>) -> usize {
        let mut t = ContextTrack::new(label, kind);
        t.unit = unit.map(str::to_owned);
        self.0.push(t);
        self.0.len() - 1
    }
    /// Records `v` at `t_us` (µs since the trace start; may precede it).
    fn put(&mut self, i: usize, t_us: i64, v: ContextValue) {
        self.0[i].push(t_us * 1000, v);
    }
}

/// Builds every context track, timestamps in ns since the trace start.
pub(crate) fn context_tracks(sc: &Scenario, rng: &mut Rng) -> Vec<ContextTrack> {
    use ContextType::*;
    let mut t = Tracks(Vec::new());
    let cpu = t.add("CPU", Float, Some("fraction"));
    let screen = t.add("Screen state", Int, None);
    let orient = t.add("Screen orientation", Int, None);
    let last_orient = t.add("Last screen orientation", Int, None);
    let since = t.add("Time since orientation change", Double, Some("s"));
    let tot_sent = t.add("Total sent traffic", Long, Some("B"));
    let tot_recv = t.add("Total received traffic", Long, Some("B"));
    let my_sent = t.add("My sent traffic", Long, Some("B"));
    let my_recv = t.add("My received traffic", Long, Some("B"));
    let wifi = t.add("Wifi connection state", String, None);
    let rssi = t.add("Wifi strength", Int, Some("dBm"));
    let wifi_state = t.add("Wifi state", Int, None);
    let level = t.add("Battery level", Int, Some("%"));
    let temp = t.add("Battery temperature", Int, Some("0.1 C"));
    let volt = t.add("Battery voltage", Int, Some("mV"));
    let status = t.add("Battery status", Int, None);
    let free_mem = t.add("Available memory", Long, Some("B"));
    let low_mem = t.add("Low memory", Int, None);
    let lat = t.add("Latitude", Double, Some("deg"));
    let lon = t.add("Longitude", Double, Some("deg"));
    let provider = t.add("Location provider", String, None);

    let start = -(LEAD_US as i64);
    let end = sc.duration_us as i64;
    // Listeners report their first value when logging starts.
    t.put(screen, start, ContextValue::Int(1));
    t.put(wifi_state, start, ContextValue::Int(3));
    t.put(wifi, start, ContextValue::Str("CONNECTED".into()));
    t.put(status, start, ContextValue::Int(3));
    t.put(low_mem, start, ContextValue::Int(0));
    t.put(provider, start + 1_500, ContextValue::Str("network".into()));

    // Broadcast-driven: orientation (and the last orientation) on change.
    let mut prev = 0;
    for &(at, o) in &sc.orientation {
        let at = if at == 0 {
            start
        } else {
            at as i64 + 30_000 + rng.int(0, 40_000) as i64
        };
        t.put(orient, at, ContextValue::Int(o));
        t.put(last_orient, at, ContextValue::Int(prev));
        prev = o;
    }
    // Wi-Fi drops out once.
    let (a, b) = sc.wifi_drop;
    t.put(wifi, a as i64, ContextValue::Str("DISCONNECTED".into()));
    t.put(wifi, b as i64, ContextValue::Str("CONNECTING".into()));
    t.put(wifi, b as i64 + 900_000, ContextValue::Str("CONNECTED".into()));

    // Periodic listeners.
    let (mut sent, mut recv, mut msent, mut mrecv) = (18_233_411i64, 230_412_977i64, 0i64, 0i64);
    let mut strength = -52i32;
    let mut battery = 78.0f64;
    let mut mem = 412_000_000i64;
    let (mut la, mut lo) = (47.4733, 19.0596);
    let mut k = 0i64;
    let mut ts = start;
    while ts <= end {
        let at = ts.max(0) as u64;
        let busy = sc.loading(at) as i32 as f64 * 0.45
            + sc.scrolling(at) as i32 as f64 * 0.2
            + sc.redrawing(at) as i32 as f64 * 0.3;
        if k % 2 == 0 {
            let load = (0.12 + busy + rng.range(0.0, 0.25)).min(1.0) as f32;
            t.put(cpu, ts, ContextValue::Float(load));
            let down = if sc.loading(at) {
                rng.int(60_000, 400_000) as i64
            } else {
                rng.int(0, 3_000) as i64
            };
            let up = down / 12 + rng.int(0, 800) as i64;
            sent += up + rng.int(0, 2_000) as i64;
            recv += down + rng.int(0, 9_000) as i64;
            msent += up;
            mrecv += down;
            t.put(tot_sent, ts, ContextValue::Long(sent));
            t.put(tot_recv, ts, ContextValue::Long(recv));
            t.put(my_sent, ts, ContextValue::Long(msent));
            t.put(my_recv, ts, ContextValue::Long(mrecv));
            mem += rng.int(0, 6_000_000) as i64 - 3_000_000 - (busy * 1_000_000.0) as i64;
            t.put(free_mem, ts, ContextValue::Long(mem));
        }
        if k % 6 == 0 {
            strength = (strength + rng.int(0, 6) as i32 - 3).clamp(-78, -40);
            t.put(rssi, ts, ContextValue::Int(strength));
        }
        if k % 20 == 0 {
            battery -= rng.range(0.1, 0.6);
            t.put(level, ts, ContextValue::Int(battery as i32));
            t.put(temp, ts, ContextValue::Int(291 + rng.int(0, 14) as i32));
            t.put(
                volt,
                ts,
                ContextValue::Int(3_950 + (battery * 1.3) as i32 + rng.int(0, 20) as i32),
            );
        }
        if k % 40 == 7 {
            la += rng.range(-0.0004, 0.0004);
            lo += rng.range(-0.0004, 0.0004);
            t.put(lat, ts, ContextValue::Double(la));
            t.put(lon, ts, ContextValue::Double(lo));
        }
        // The orientation listener is periodic (every 0.5 s) for the elapsed time.
        let last_turn = sc
            .orientation
            .iter()
            .take_while(|(o, _)| *o <= at)
            .last()
            .map_or(0, |&(o, _)| o);
        let elapsed = if ts < 0 {
            (ts - start) as f64 / 1e6
        } else {
            (at - last_turn) as f64 / 1e6
        };
        t.put(since, ts, ContextValue::Double(elapsed));
        k += 1;
        ts += 500_000;
    }
    t.0
}
