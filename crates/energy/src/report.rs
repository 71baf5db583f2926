//! The report: energy per window, the total over their union, the
//! estimates by both rules and the cross-checks by other sources.

use crate::curve::secs;
use crate::gauge::{SamplerPair, TrackGauge};
use crate::index::{energy_between, Curve, EnergyIndex};
use crate::sign::SignDecision;
use crate::source::SourceTrack;
use crate::windows::Window;
use crate::Method;
use serde::Serialize;

/// Energy over one window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowEnergy {
    /// Start, µs on the session timeline.
    pub from_us: f64,
    /// End, µs.
    pub to_us: f64,
    /// What the window is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Energy drawn, J (`null` when the source gives none, e.g. current
    /// without a voltage).
    pub energy_j: Option<f64>,
    /// Energy over covered time, W.
    pub mean_power_w: Option<f64>,
    /// Charge drawn, µAh (`null` without a current or charge track).
    pub charge_uah: Option<f64>,
    /// Error bounds of `energy_j`, J (see the crate docs).
    pub bounds_j: Option<[f64; 2]>,
    /// How much of the window had data, µs.
    pub covered_us: f64,
    /// True when the answer should not be trusted.
    pub uncertain: bool,
    /// Why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncertain_reason: Option<String>,
}

/// The total over the windows by both integration rules (rate sources).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimates {
    /// Trapezoid, J.
    pub trapezoid_j: f64,
    /// Left-hold, J.
    pub left_hold_j: f64,
}

/// The energy another source gives over the same windows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossCheck {
    /// The other source, e.g. `"charge counter × mean voltage"`.
    pub method: String,
    /// Its energy over the windows, J.
    pub energy_j: f64,
    /// Its energy divided by the primary's.
    pub ratio: Option<f64>,
    /// True when it agrees within its own resolution (or 10%).
    pub agrees: bool,
    /// What the comparison means.
    pub note: String,
}

/// Everything `tracekit energy` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnergyReport {
    /// One entry per window asked for.
    pub windows: Vec<WindowEnergy>,
    /// Over the union of the windows (overlapping windows count once).
    pub total: WindowEnergy,
    /// How energy was computed.
    pub method: Method,
    /// The current's sign convention and why.
    pub current_sign: SignDecision,
    /// The gauge's update period, ms, when samples repeat.
    pub gauge_period_ms: Option<f64>,
    /// Samples that brought no new value on any input.
    pub stale_samples: usize,
    /// The tracks used.
    pub sources: Vec<SourceTrack>,
    /// Median interval between the input samples, ms.
    pub sampling_period_ms: Option<f64>,
    /// The total by both integration rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimates: Option<Estimates>,
    /// Other sources over the same windows.
    pub cross_checks: Vec<CrossCheck>,
    /// Per input track: samples, repeats, changes, period, resolution.
    pub gauge: Vec<TrackGauge>,
    /// Samples too close for one sampler.
    pub two_samplers: Vec<SamplerPair>,
    /// Anything else worth knowing.
    pub notes: Vec<String>,
}

impl EnergyIndex {
    /// The report over `windows` (the whole capture when empty).
    pub fn report(&self, windows: &[Window]) -> EnergyReport {
        let windows: Vec<Window> = if windows.is_empty() {
            vec![self.whole()]
        } else {
            windows.to_vec()
        };
        let per: Vec<WindowEnergy> = self.windows(&windows);
        let union = union_of(&windows);
        let parts: Vec<WindowEnergy> = union.iter().map(|w| self.window(w)).collect();
        let from = union.first().map_or(0, |w| w.from_ns);
        let to = union.last().map_or(0, |w| w.to_ns);
        let sum = |f: &dyn Fn(&WindowEnergy) -> Option<f64>| -> Option<f64> {
            parts.iter().map(f).try_fold(0.0, |acc, x| x.map(|x| acc + x))
        };
        let energy_j = sum(&|w| w.energy_j);
        let covered: f64 = parts.iter().map(|w| w.covered_us).sum();
        let bounds_j = match (sum(&|w| w.bounds_j.map(|b| b[0])), sum(&|w| w.bounds_j.map(|b| b[1]))) {
            (Some(l), Some(h)) => Some([l, h]),
            _ => None,
        };
        let reasons: Vec<String> = parts.iter().filter_map(|w| w.uncertain_reason.clone()).collect();
        let total = WindowEnergy {
            from_us: from as f64 * 1e-3,
            to_us: to as f64 * 1e-3,
            label: (union.len() > 1).then(|| format!("union of {} intervals", union.len())),
            energy_j,
            mean_power_w: energy_j.filter(|_| covered > 0.0).map(|e| e / (covered * 1e-6)),
            charge_uah: sum(&|w| w.charge_uah),
            bounds_j,
            covered_us: covered,
            uncertain: !reasons.is_empty(),
            uncertain_reason: (!reasons.is_empty()).then(|| {
                let mut r = reasons.clone();
                r.dedup();
                r.join("; ")
            }),
        };
        let estimates = match &self.energy.curve {
            Curve::Rate(r) => {
                let (mut trap, mut left) = (0.0, 0.0);
                for w in &union {
                    let d = r.between(w.from_ns, w.to_ns);
                    trap += d.trapezoid;
                    left += d.left;
                }
                Some(Estimates {
                    trapezoid_j: trap,
                    left_hold_j: left,
                })
            }
            _ => None,
        };
        let cross_checks = self
            .alternatives
            .iter()
            .map(|(name, e, what)| {
                let (mut energy, mut res) = (0.0, 0.0);
                for w in &union {
                    let cs = secs(
                        w.to_ns
                            .min(self.span.1)
                            .saturating_sub(w.from_ns.max(self.span.0))
                            .max(0),
                    );
                    energy += energy_between(&e.curve, self.rule, w.from_ns, w.to_ns).unwrap_or(0.0);
                    res += e.res_w * cs + e.res_j;
                }
                let ratio = energy_j.filter(|&p| p != 0.0).map(|p| energy / p);
                let primary = energy_j.unwrap_or(0.0);
                let agrees = (energy - primary).abs() <= res.max(0.1 * primary.abs());
                let note = match ratio {
                    Some(r) if !agrees && (r.abs() > 100.0 || r.abs() < 0.01) => format!(
                        "{what}: off by a factor of {:.0}{}; its unit is probably not what the track says",
                        r.abs().max(1.0 / r.abs()),
                        if r < 0.0 { " and in the opposite direction" } else { "" }
                    ),
                    Some(r) if !agrees && r < 0.0 => format!("{what}: the opposite direction to the primary source"),
                    _ if agrees => format!("{what}: agrees within {res:.4} J"),
                    _ => format!("{what}: differs by more than its resolution ({res:.4} J) and 10%"),
                };
                CrossCheck {
                    method: name.clone(),
                    energy_j: energy,
                    ratio,
                    agrees,
                    note,
                }
            })
            .collect();
        EnergyReport {
            windows: per,
            total,
            method: self.method,
            current_sign: self.sign.clone(),
            gauge_period_ms: self.gauge_period_ms,
            stale_samples: self.stale_samples,
            sources: self.sources.clone(),
            sampling_period_ms: self.sampling_period_ms,
            estimates,
            cross_checks,
            gauge: self.gauge.clone(),
            two_samplers: self.two_samplers.clone(),
            notes: self.notes.clone(),
        }
    }
}

/// Sorted, merged windows (overlaps and touching windows joined).
fn union_of(windows: &[Window]) -> Vec<Window> {
    let mut spans: Vec<(i64, i64)> = windows.iter().map(|w| (w.from_ns, w.to_ns.max(w.from_ns))).collect();
    spans.sort_unstable();
    let mut out: Vec<Window> = Vec::new();
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.to_ns => last.to_ns = last.to_ns.max(b),
            _ => out.push(Window::new(a, b)),
        }
    }
    out
}
