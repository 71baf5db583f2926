//! The phone's battery: what the simulated hardware draws, as the context
//! logger's `Battery current` listener reports it.
//!
//! The hardware acts on what the app's threads did (their call events):
//! every CPU second a thread spends costs the CPU's power; each frame the
//! renderer submits (`LayerRenderer.onDrawFrame`) keeps the GPU busy for
//! three times as long as the CPU took to submit it; the Wi-Fi radio is
//! active while the network thread reads a socket and for a tail after;
//! the screen and the rest of the system draw a constant. The logger reads
//! the fuel gauge every 250 ms; like most gauges' current registers, the
//! reading is the mean current over the last second (at the battery's
//! voltage), negative while discharging as Android's `BatteryManager`
//! reports it. Nothing here knows about the analysis.

use crate::rng::Rng;
use crate::scenario::Scenario;
use tracekit_model::{ContextTrack, ContextType, ContextValue, MethodId, Session};

/// Grid of the simulated hardware, µs.
const STEP_US: u64 = 1_000;
/// How often the logger reads the gauge, µs.
pub(crate) const PERIOD_US: u64 = 250_000;
/// The span the gauge averages its current over, µs.
pub(crate) const AVERAGE_US: u64 = 1_000_000;

/// The hardware's powers, W.
const SYSTEM_W: f64 = 0.28;
const SCREEN_W: f64 = 0.62;
const CPU_W_PER_CORE: f64 = 1.1;
const GPU_W: f64 = 1.35;
const WIFI_ACTIVE_W: f64 = 0.45;
const WIFI_TAIL_US: u64 = 150_000;
/// GPU time per CPU time of a frame submission.
const GPU_PER_SUBMIT: u64 = 3;

/// Battery terminal voltage at `t` µs: full-ish, slowly falling, sagging
/// under load (internal resistance 0.15 Ω).
fn volts(t_us: u64, amps: f64) -> f64 {
    4.08 - 0.04 * t_us as f64 / 150e6 - 0.15 * amps
}

/// Builds the `Battery current` item (µA, negative = discharging) from the
/// threads' call events.
pub(crate) fn current_track(
    s: &Session,
    sc: &Scenario,
    draw_frame: MethodId,
    socket_read: MethodId,
    seed: u64,
) -> ContextTrack {
    let n = (sc.duration_us / STEP_US + 1) as usize;
    let mut cores = vec![0.0f64; n];
    let mut gpu = vec![0u8; n];
    let mut wifi = vec![0u8; n];
    let mark = |v: &mut [u8], from_us: u64, to_us: u64| {
        let (a, b) = (
            (from_us / STEP_US) as usize,
            (to_us.div_ceil(STEP_US) as usize).min(v.len()),
        );
        for x in v.iter_mut().take(b).skip(a) {
            *x = 1;
        }
    };
    for (_, _, calls) in s.thread_calls() {
        let (words, ts, cpu) = calls.columns();
        let Some(cpu) = cpu else { continue };
        let mut open: Vec<(u32, u64, u64)> = Vec::new();
        for k in 0..words.len() {
            let (t_us, c_us) = (ts[k] / 1000, cpu[k] / 1000);
            // CPU: this thread's CPU time since its previous event, spread evenly.
            if k > 0 {
                let (t0, c0) = (ts[k - 1] / 1000, cpu[k - 1] / 1000);
                if t_us > t0 {
                    let rate = (c_us - c0) as f64 / (t_us - t0) as f64;
                    let (a, b) = (t0 / STEP_US, t_us / STEP_US);
                    for (i, x) in cores
                        .iter_mut()
                        .enumerate()
                        .take((b as usize + 1).min(n))
                        .skip(a as usize)
                    {
                        let lo = (i as u64 * STEP_US).max(t0);
                        let hi = ((i as u64 + 1) * STEP_US).min(t_us);
                        if hi > lo {
                            *x += rate * (hi - lo) as f64 / STEP_US as f64;
                        }
                    }
                }
            }
            let method = words[k] >> 2;
            if words[k] & 3 == 0 {
                open.push((method, t_us, c_us));
            } else if let Some((m, t0, c0)) = open.pop() {
                if m == draw_frame.0 {
                    mark(&mut gpu, t_us, t_us + GPU_PER_SUBMIT * (c_us - c0).max(1));
                } else if m == socket_read.0 {
                    mark(&mut wifi, t0, t_us + WIFI_TAIL_US);
                }
            }
        }
    }
    let mut rng = Rng::new(seed ^ 0xba77_e4e5);
    let mut t = ContextTrack::new("Battery current", ContextType::Int);
    t.unit = Some("µA".to_owned());
    let per = (AVERAGE_US / STEP_US) as usize;
    let mut at = PERIOD_US;
    while at <= sc.duration_us {
        let end = (at / STEP_US) as usize;
        let mut amps = 0.0;
        let from = end.saturating_sub(per);
        for i in from..end {
            let watts = SYSTEM_W
                + SCREEN_W
                + CPU_W_PER_CORE * cores[i]
                + GPU_W * f64::from(gpu[i])
                + WIFI_ACTIVE_W * f64::from(wifi[i]);
            // Solve P = V(I)·I for the current at this instant.
            let v0 = volts(i as u64 * STEP_US, 0.0);
            let disc = (v0 * v0 - 4.0 * 0.15 * watts).max(0.0);
            amps += (v0 - disc.sqrt()) / (2.0 * 0.15);
        }
        amps /= (end - from) as f64;
        // The gauge's own noise: 0.5%, and whole µA.
        let reading = -(amps * (1.0 + 0.005 * (rng.unit() * 2.0 - 1.0)) * 1e6).round();
        t.push(at as i64 * 1000, ContextValue::Int(reading as i32));
        at += PERIOD_US;
    }
    t
}
