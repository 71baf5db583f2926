//! Android's power profile driven by a session's tracks: the device's
//! power at every instant, as BatteryStats reads the profile.
//!
//! At each instant, in mA (times the profile's voltage for W):
//! - `cpu.suspend` + `cpu.idle` (the device is taken as awake for the whole
//!   capture);
//! - while any CPU runs, `cpu.active`; for each cluster with a running
//!   core, `cpu.cluster_power.clusterN`; for each running core, its
//!   cluster's `cpu.core_power` at the core's frequency (linear between the
//!   listed speeds);
//! - screen on: `screen.on` + `screen.full` × brightness / 255;
//! - Wi-Fi on: its idle current; receiving or sending (traffic above
//!   [`crate::signals::ACTIVE_TRAFFIC_BPS`]): the rx or tx current instead;
//! - mobile radio active, GPS on: their currents.
//!
//! Components whose tracks the session lacks are left out and listed.

use crate::device::DeviceProfile;
use crate::signals::{Drivers, Signals, Step};
use serde::Serialize;
use tracekit_model::{CounterKind, CounterTrack, Session};

/// Name of the counter track a model's power is written to.
pub const MODELLED_POWER: &str = "modelled power";

/// Energy of one component over the modelled span.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComponentEnergy {
    /// `base`, `cpu`, `screen`, `wifi`, `radio` or `gps`.
    pub component: String,
    /// Energy, J.
    pub energy_j: f64,
    /// Mean power over the span, W.
    pub mean_power_w: f64,
}

/// A modelled power track and what went into it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelledPower {
    /// The power, W, held from each sample to the next ([`CounterKind::Level`]).
    #[serde(skip)]
    pub track: CounterTrack,
    /// Span modelled, ns on the session's timeline.
    pub span_ns: (i64, i64),
    /// Per component.
    pub components: Vec<ComponentEnergy>,
    /// Total energy, J.
    pub energy_j: f64,
    /// Mean power, W.
    pub mean_power_w: f64,
    /// The tracks used.
    pub drivers: Drivers,
    /// What was left out, and how the profile was read.
    pub notes: Vec<String>,
}

impl ModelledPower {
    /// The power as a step function (W).
    pub fn step(&self) -> Step {
        Step::new(self.track.times.clone(), self.track.values.clone(), 0.0)
    }
}

const COMPONENTS: [&str; 6] = ["base", "cpu", "screen", "wifi", "radio", "gps"];

/// Drives `device` with `session`'s tracks over `span` (ns; when `None`,
/// from the earliest to the latest of its tracks, calls and scheduling).
pub fn drive(device: &DeviceProfile, session: &Session, span: Option<(i64, i64)>) -> ModelledPower {
    let drivers = Drivers::discover(session);
    let sig = Signals::build(session, &drivers);
    let mut notes = device.notes.clone();
    notes.extend(drivers.missing.iter().cloned());
    // Inputs in a fixed order: per CPU (running, freq), then the others.
    let ncpu = device.cpu_count() as usize;
    let zero = Step::constant(0.0);
    let mut inputs: Vec<&Step> = Vec::new();
    let mut modelled_cpus = 0;
    for cpu in 0..ncpu {
        let run = sig.running.get(cpu).and_then(Option::as_ref);
        let freq = sig.freq_khz.get(cpu).and_then(Option::as_ref);
        if run.is_some() {
            modelled_cpus += 1;
        }
        if run.is_some() && freq.is_none() {
            notes.push(format!("cpu{cpu}: no frequency track; its lowest speed is assumed"));
        }
        inputs.push(run.unwrap_or(&zero));
        inputs.push(freq.unwrap_or(&zero));
    }
    if modelled_cpus == 0 && !device.clusters.is_empty() {
        notes.push("no CPU's running state is known: CPU power is not modelled".to_owned());
    }
    let extra_cpus = sig.running.len().saturating_sub(ncpu);
    if extra_cpus > 0 {
        notes.push(format!(
            "the capture has {} CPU(s) the profile's clusters do not cover; they are left out",
            extra_cpus
        ));
    }
    let others = [
        &sig.screen_on,
        &sig.brightness,
        &sig.wifi_on,
        &sig.rx_active,
        &sig.tx_active,
        &sig.radio,
        &sig.gps,
    ];
    for o in others {
        inputs.push(o.as_ref().unwrap_or(&zero));
    }
    let has = |o: &Option<Step>| o.is_some();
    let (has_screen, has_wifi, has_radio, has_gps) =
        (has(&sig.screen_on), has(&sig.wifi_on), has(&sig.radio), has(&sig.gps));
    for (present, item, what) in [
        (has_screen, device.screen_on_ma.is_some(), "screen"),
        (has_wifi, device.wifi_on_ma.is_some(), "Wi-Fi"),
        (has_radio, device.radio_active_ma.is_some(), "mobile radio"),
        (has_gps, device.gps_on_ma.is_some(), "GPS"),
    ] {
        if present && !item {
            notes.push(format!(
                "the capture has a {what} track but the profile gives no current for it"
            ));
        }
    }
    let per_component = |v: &[f64]| -> [f64; 6] {
        let mut c = [0.0; 6];
        c[0] = device.suspend_ma + device.idle_ma;
        let mut any = false;
        let mut cluster_on = vec![false; device.clusters.len()];
        for cpu in 0..ncpu {
            if v[2 * cpu] > 0.5 {
                any = true;
                if let Some((k, cl)) = device.cluster_of(cpu as u32) {
                    cluster_on[k] = true;
                    let khz = v[2 * cpu + 1];
                    let khz = if khz > 0.0 {
                        khz
                    } else {
                        cl.speeds_khz.first().copied().unwrap_or(0.0)
                    };
                    c[1] += cl.core_ma_at(khz);
                }
            }
        }
        if any {
            c[1] += device.active_ma;
        }
        for (k, on) in cluster_on.iter().enumerate() {
            if *on {
                c[1] += device.clusters[k].cluster_ma;
            }
        }
        let o = &v[2 * ncpu..];
        if has_screen && o[0] > 0.5 {
            let b = if sig.brightness.is_some() { o[1] } else { 0.5 };
            c[2] = device.screen_on_ma.unwrap_or(0.0) + device.screen_full_ma.unwrap_or(0.0) * b;
        }
        if has_wifi && o[2] > 0.5 {
            c[3] = if o[3] > 0.5 || o[4] > 0.5 {
                let rx = if o[3] > 0.5 {
                    device.wifi_rx_ma.unwrap_or(0.0)
                } else {
                    0.0
                };
                let tx = if o[4] > 0.5 {
                    device.wifi_tx_ma.unwrap_or(0.0)
                } else {
                    0.0
                };
                rx.max(tx)
            } else {
                device.wifi_on_ma.unwrap_or(0.0)
            };
        }
        if has_radio && o[5] > 0.5 {
            c[4] = device.radio_active_ma.unwrap_or(0.0);
        }
        if has_gps && o[6] > 0.5 {
            c[5] = device.gps_on_ma.unwrap_or(0.0);
        }
        c
    };
    if has_screen && sig.brightness.is_none() {
        notes.push("no brightness track: half brightness is assumed".to_owned());
    }
    // The sweep: every change of any input.
    let mut times: Vec<i64> = inputs.iter().flat_map(|s| s.times().iter().copied()).collect();
    times.sort_unstable();
    times.dedup();
    // By default the tracks' extent and the session's (calls, scheduling):
    // a method trace without tracks is modelled over its own time.
    let span = span.unwrap_or_else(|| {
        let own = session.time_span().map(|(a, b)| (a as i64, b as i64));
        match (times.first(), times.last(), own) {
            (Some(&a), Some(&b), Some((c, d))) => (a.min(c), b.max(d)),
            (Some(&a), Some(&b), None) => (a, b),
            (_, _, Some(x)) => x,
            _ => (0, 0),
        }
    });
    let mut idx: Vec<usize> = inputs
        .iter()
        .map(|s| s.times().partition_point(|&x| x <= span.0))
        .collect();
    let mut cur: Vec<f64> = inputs.iter().map(|s| s.at(span.0)).collect();
    let mut track = CounterTrack::new(MODELLED_POWER, Some("W")).with_kind(CounterKind::Level);
    let mut energy = [0.0f64; 6];
    let mut state = per_component(&cur);
    let total = |c: &[f64; 6]| device.watts(c.iter().sum());
    let mut t_prev = span.0;
    let mut accumulate = |to: i64, state: &[f64; 6], t_prev: &mut i64| {
        let dt = (to - *t_prev).max(0) as f64 * 1e-9;
        for (e, ma) in energy.iter_mut().zip(state) {
            *e += device.watts(*ma) * dt;
        }
        *t_prev = to;
    };
    track.push(span.0, total(&state));
    for &t in times.iter().filter(|&&t| t > span.0 && t < span.1) {
        for (j, s) in inputs.iter().enumerate() {
            while idx[j] < s.times().len() && s.times()[idx[j]] <= t {
                cur[j] = s.values()[idx[j]];
                idx[j] += 1;
            }
        }
        accumulate(t, &state, &mut t_prev);
        state = per_component(&cur);
        let w = total(&state);
        if track.values.last() != Some(&w) {
            track.push(t, w);
        }
    }
    accumulate(span.1, &state, &mut t_prev);
    if span.1 > span.0 {
        track.push(span.1, total(&state));
    }
    let secs = (span.1 - span.0).max(0) as f64 * 1e-9;
    let energy_j: f64 = energy.iter().sum();
    let components = COMPONENTS
        .iter()
        .zip(energy)
        .filter(|(c, e)| *e > 0.0 || **c == "base" || (**c == "cpu" && modelled_cpus > 0))
        .map(|(c, e)| ComponentEnergy {
            component: (*c).to_owned(),
            energy_j: e,
            mean_power_w: if secs > 0.0 { e / secs } else { 0.0 },
        })
        .collect();
    ModelledPower {
        track,
        span_ns: span,
        components,
        energy_j,
        mean_power_w: if secs > 0.0 { energy_j / secs } else { 0.0 },
        drivers,
        notes,
    }
}
