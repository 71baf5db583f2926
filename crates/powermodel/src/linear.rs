//! A PowerTutor-style component model: power is linear in each CPU
//! cluster's busy cores and busy cores × frequency (or, without per-CPU
//! tracks, the device's CPU utilisation), screen state and brightness,
//! Wi-Fi state and traffic, mobile radio and GPS, plus a base.
//!
//! **Fitting.** Each sample of the measured power track is taken as the
//! mean power over the interval since the previous sample (how fuel
//! gauges, RAPL and power monitors report), and every feature is averaged
//! over the same interval. The coefficients (W per unit of each feature)
//! come from ordinary least squares ([`crate::lsq`]); features the capture
//! never varies are left out and listed. The fit reports MAPE and R² over
//! all samples and *held out*: fitted on alternate blocks of
//! [`HOLDOUT_BLOCK`] samples and scored on the others, both ways.
//!
//! **Quality.** The fit is called `good` only when R² ≥ 0.9, MAPE ≤ 10%,
//! the held-out MAPE is within 1.5× (or 2 points) of the in-sample one, no
//! component's coefficient is negative, and at most 10% of the residual
//! variance is systematic: the residuals, grouped in 20 bins of the fitted
//! power, have means that explain that share of their variance. A model
//! whose form does not match the data (power cubic in frequency fitted
//! linearly, a component the model lacks) fails one of these and says
//! which.

use crate::device::{DeviceProfile, NOMINAL_VOLTAGE_V};
use crate::lsq::Normal;
use crate::signals::{Drivers, Signals, Step};
use serde::Serialize;
use tracekit_model::power_profile::PowerProfile;
use tracekit_model::Session;

/// Samples per block of the held-out split.
pub const HOLDOUT_BLOCK: usize = 256;

/// One input of the linear model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Feature {
    /// The constant term: power with everything idle and off.
    Base,
    /// Running cores of a cluster.
    ClusterBusy {
        /// Cluster index.
        cluster: usize,
    },
    /// Σ running core × its frequency (GHz) over a cluster.
    ClusterBusyGhz {
        /// Cluster index.
        cluster: usize,
    },
    /// Screen on (0/1).
    ScreenOn,
    /// Screen on × brightness (0–1 of full).
    ScreenBrightness,
    /// Wi-Fi on (0/1).
    WifiOn,
    /// Wi-Fi receiving (0/1).
    WifiRx,
    /// Wi-Fi sending (0/1).
    WifiTx,
    /// Mobile radio active (0/1).
    Radio,
    /// GPS on (0/1).
    Gps,
    /// Device CPU utilisation (0–1), when no CPU's running state is known.
    CpuUtilisation,
}

impl Feature {
    /// A short name for reports.
    pub fn name(&self) -> String {
        match self {
            Feature::Base => "base".into(),
            Feature::ClusterBusy { cluster } => format!("cluster{cluster} busy cores"),
            Feature::ClusterBusyGhz { cluster } => format!("cluster{cluster} busy cores × GHz"),
            Feature::ScreenOn => "screen on".into(),
            Feature::ScreenBrightness => "screen brightness".into(),
            Feature::WifiOn => "wifi on".into(),
            Feature::WifiRx => "wifi receiving".into(),
            Feature::WifiTx => "wifi sending".into(),
            Feature::Radio => "radio active".into(),
            Feature::Gps => "gps on".into(),
            Feature::CpuUtilisation => "cpu utilisation".into(),
        }
    }
}

/// A fitted coefficient.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    /// The feature.
    pub feature: Feature,
    /// Its name.
    pub name: String,
    /// Watts per unit of the feature.
    pub coefficient_w: f64,
    /// Standard error of the coefficient, W.
    pub std_error_w: f64,
}

/// Error measures of a fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FitError {
    /// Samples scored.
    pub samples: usize,
    /// Mean absolute percentage error, %.
    pub mape_pct: f64,
    /// Coefficient of determination.
    pub r2: f64,
    /// Root-mean-square error, W.
    pub rmse_w: f64,
}

/// How far to trust a fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Quality {
    /// `good` or `poor`.
    pub verdict: &'static str,
    /// Why it is not good (empty when it is).
    pub reasons: Vec<String>,
}

/// A CPU cluster as the fit sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitCluster {
    /// Its CPUs.
    pub cpus: Vec<u32>,
    /// Frequencies seen, kHz, rising.
    pub speeds_khz: Vec<f64>,
}

/// A fitted linear power model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinearFit {
    /// Coefficients of the features kept.
    pub terms: Vec<Term>,
    /// Features left out (never varied, or a combination of others).
    pub dropped: Vec<String>,
    /// The CPU clusters.
    pub clusters: Vec<FitCluster>,
    /// Error over every sample.
    pub error: FitError,
    /// Error on held-out samples (`None` with too few samples).
    pub holdout: Option<FitError>,
    /// Share of the residual variance that depends on the fitted value.
    pub systematic_residual: f64,
    /// The verdict.
    pub quality: Quality,
    /// The tracks used.
    pub drivers: Drivers,
}

/// Why a fit could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitFailure {
    /// Too few samples.
    #[error("{0} power samples is too few to fit a model (at least 10 are needed)")]
    TooFew(usize),
    /// Nothing to fit.
    #[error("no feature varies during the capture; nothing can be fitted")]
    Singular,
}

/// The features of one session, ready to be averaged over intervals.
struct Design {
    features: Vec<Feature>,
    steps: Vec<Step>,
}

/// CPUs grouped into clusters: `layout` when given, else CPUs whose
/// frequency tracks hold the same values at the same times share a
/// cluster (they are one frequency domain); CPUs without a frequency track
/// form one cluster of their own.
fn clusters_of(sig: &Signals, layout: Option<&[Vec<u32>]>) -> Vec<FitCluster> {
    let known: Vec<u32> = (0..sig.running.len() as u32)
        .filter(|&c| sig.running[c as usize].is_some())
        .collect();
    let mut groups: Vec<Vec<u32>> = match layout {
        Some(l) => l
            .iter()
            .map(|g| g.iter().copied().filter(|c| known.contains(c)).collect())
            .filter(|g: &Vec<u32>| !g.is_empty())
            .collect(),
        None => {
            let mut g: Vec<Vec<u32>> = Vec::new();
            for &c in &known {
                let f = sig.freq_khz.get(c as usize).and_then(Option::as_ref);
                let same = g.iter_mut().find(|grp| {
                    let o = sig.freq_khz.get(grp[0] as usize).and_then(Option::as_ref);
                    match (f, o) {
                        (Some(a), Some(b)) => a.times() == b.times() && a.values() == b.values(),
                        (None, None) => true,
                        _ => false,
                    }
                });
                match same {
                    Some(grp) => grp.push(c),
                    None => g.push(vec![c]),
                }
            }
            g
        }
    };
    groups.sort();
    groups
        .into_iter()
        .map(|cpus| {
            let mut speeds: Vec<f64> = cpus
                .iter()
                .filter_map(|&c| sig.freq_khz.get(c as usize).and_then(Option::as_ref))
                .flat_map(|s| s.values().iter().copied())
                .filter(|&v| v > 0.0)
                .collect();
            speeds.sort_by(f64::total_cmp);
            speeds.dedup();
            FitCluster {
                cpus,
                speeds_khz: speeds,
            }
        })
        .collect()
}

fn design(sig: &Signals, clusters: &[FitCluster]) -> Design {
    let mut features = vec![Feature::Base];
    let mut steps = vec![Step::constant(1.0)];
    let zero = Step::constant(0.0);
    for (k, cl) in clusters.iter().enumerate() {
        let run: Vec<&Step> = cl
            .cpus
            .iter()
            .map(|&c| sig.running[c as usize].as_ref().unwrap_or(&zero))
            .collect();
        features.push(Feature::ClusterBusy { cluster: k });
        steps.push(Step::combine(&run, |v| v.iter().sum()));
        if !cl.speeds_khz.is_empty() {
            let mut inputs = run.clone();
            inputs.extend(
                cl.cpus
                    .iter()
                    .map(|&c| sig.freq_khz[c as usize].as_ref().unwrap_or(&zero)),
            );
            let n = cl.cpus.len();
            features.push(Feature::ClusterBusyGhz { cluster: k });
            steps.push(Step::combine(&inputs, move |v| {
                (0..n).map(|i| v[i] * v[n + i] * 1e-6).sum()
            }));
        }
    }
    if let Some(on) = &sig.screen_on {
        features.push(Feature::ScreenOn);
        steps.push(on.clone());
        if let Some(b) = &sig.brightness {
            features.push(Feature::ScreenBrightness);
            steps.push(Step::combine(&[on, b], |v| v[0] * v[1]));
        }
    }
    if let Some(w) = &sig.wifi_on {
        features.push(Feature::WifiOn);
        steps.push(w.clone());
        for (f, s) in [(Feature::WifiRx, &sig.rx_active), (Feature::WifiTx, &sig.tx_active)] {
            if let Some(s) = s {
                features.push(f);
                steps.push(Step::combine(&[w, s], |v| v[0] * v[1]));
            }
        }
    }
    for (f, s) in [
        (Feature::Radio, &sig.radio),
        (Feature::Gps, &sig.gps),
        (Feature::CpuUtilisation, &sig.cpu_utilisation),
    ] {
        if let Some(s) = s {
            features.push(f);
            steps.push(s.clone());
        }
    }
    Design { features, steps }
}

/// Calls `f(k, row, y)` for every measured interval `k ≥ 1` (the sample
/// at `times[k]` read as the mean over `[times[k-1], times[k]]`).
fn for_each_row(d: &Design, times: &[i64], watts: &[f64], mut f: impl FnMut(usize, &[f64], f64)) {
    let mut cursors: Vec<_> = d.steps.iter().map(Step::cursor).collect();
    let mut row = vec![0.0; d.steps.len()];
    for k in 1..times.len() {
        let (a, b) = (times[k - 1], times[k]);
        if b <= a {
            continue;
        }
        for (x, c) in row.iter_mut().zip(cursors.iter_mut()) {
            *x = c.mean(a, b);
        }
        f(k, &row, watts[k]);
    }
}

fn dot(beta: &[f64], x: &[f64]) -> f64 {
    beta.iter().zip(x).map(|(b, x)| b * x).sum()
}

/// Error measures of `beta` on the rows `keep` accepts.
fn score(d: &Design, times: &[i64], watts: &[f64], beta: &[f64], keep: impl Fn(usize) -> bool) -> (FitError, f64) {
    let (mut n, mut sum_y, mut sum_y2, mut rss, mut ape, mut n_ape) = (0usize, 0.0, 0.0, 0.0, 0.0, 0usize);
    let mut fitted: Vec<(f64, f64)> = Vec::new();
    let mean_abs = watts.iter().map(|w| w.abs()).sum::<f64>() / watts.len().max(1) as f64;
    for_each_row(d, times, watts, |k, x, y| {
        if !keep(k) {
            return;
        }
        let p = dot(beta, x);
        let r = y - p;
        n += 1;
        sum_y += y;
        sum_y2 += y * y;
        rss += r * r;
        if y.abs() > 0.01 * mean_abs {
            ape += (r / y).abs();
            n_ape += 1;
        }
        fitted.push((p, r));
    });
    let nf = n.max(1) as f64;
    let tss = sum_y2 - sum_y * sum_y / nf;
    let err = FitError {
        samples: n,
        mape_pct: 100.0 * ape / n_ape.max(1) as f64,
        r2: if tss > 0.0 { 1.0 - rss / tss } else { 0.0 },
        rmse_w: (rss / nf).sqrt(),
    };
    // Systematic residual share over 20 bins of the fitted value.
    let (lo, hi) = fitted
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |a, p| (a.0.min(p.0), a.1.max(p.0)));
    let bins = 20;
    let mut sums = vec![(0usize, 0.0f64); bins];
    for &(p, r) in &fitted {
        let b = if hi > lo {
            (((p - lo) / (hi - lo)) * bins as f64) as usize
        } else {
            0
        };
        let s = &mut sums[b.min(bins - 1)];
        s.0 += 1;
        s.1 += r;
    }
    let explained: f64 = sums.iter().filter(|s| s.0 > 0).map(|s| s.1 * s.1 / s.0 as f64).sum();
    let mean_r = fitted.iter().map(|p| p.1).sum::<f64>() / nf;
    let total: f64 = fitted.iter().map(|p| (p.1 - mean_r) * (p.1 - mean_r)).sum();
    let systematic = if total > 0.0 {
        ((explained - nf * mean_r * mean_r) / total).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (err, systematic)
}

/// Fits the model to `session`'s measured power (`times`, `watts`: the
/// samples of its power track, W). `layout` gives the CPU clusters when
/// known (a device profile's); otherwise they are inferred.
pub fn fit(
    session: &Session,
    times: &[i64],
    watts: &[f64],
    layout: Option<&[Vec<u32>]>,
) -> Result<LinearFit, FitFailure> {
    let drivers = Drivers::discover(session);
    let sig = Signals::build(session, &drivers);
    fit_signals(&sig, drivers, times, watts, layout)
}

/// [`fit`] on signals already built.
pub fn fit_signals(
    sig: &Signals,
    drivers: Drivers,
    times: &[i64],
    watts: &[f64],
    layout: Option<&[Vec<u32>]>,
) -> Result<LinearFit, FitFailure> {
    if times.len() < 11 {
        return Err(FitFailure::TooFew(times.len()));
    }
    let clusters = clusters_of(sig, layout);
    let d = design(sig, &clusters);
    let p = d.steps.len();
    let (mut even, mut odd) = (Normal::new(p), Normal::new(p));
    for_each_row(&d, times, watts, |k, x, y| {
        if (k / HOLDOUT_BLOCK) % 2 == 0 {
            &mut even
        } else {
            &mut odd
        }
        .add(x, y);
    });
    let mut all = even.clone();
    all.merge(&odd);
    let sol = all.solve().ok_or(FitFailure::Singular)?;
    let (error, systematic) = score(&d, times, watts, &sol.beta, |_| true);
    let holdout = if even.rows() >= 10 * p && odd.rows() >= 10 * p {
        match (even.solve(), odd.solve()) {
            (Some(a), Some(b)) => {
                let (ea, _) = score(&d, times, watts, &a.beta, |k| (k / HOLDOUT_BLOCK) % 2 == 1);
                let (eb, _) = score(&d, times, watts, &b.beta, |k| (k / HOLDOUT_BLOCK) % 2 == 0);
                let n = (ea.samples + eb.samples).max(1) as f64;
                let w = |x: f64, y: f64| (x * ea.samples as f64 + y * eb.samples as f64) / n;
                Some(FitError {
                    samples: ea.samples + eb.samples,
                    mape_pct: w(ea.mape_pct, eb.mape_pct),
                    r2: w(ea.r2, eb.r2),
                    rmse_w: (w(ea.rmse_w * ea.rmse_w, eb.rmse_w * eb.rmse_w)).sqrt(),
                })
            }
            _ => None,
        }
    } else {
        None
    };
    let mut terms = Vec::new();
    let mut dropped = Vec::new();
    for (i, f) in d.features.iter().enumerate() {
        if sol.dropped.contains(&i) {
            dropped.push(f.name());
        } else {
            terms.push(Term {
                name: f.name(),
                feature: f.clone(),
                coefficient_w: sol.beta[i],
                std_error_w: sol.std_error[i],
            });
        }
    }
    let mut reasons = Vec::new();
    if error.r2 < 0.9 {
        reasons.push(format!(
            "R² is {:.3} (< 0.9): the features explain too little of the power",
            error.r2
        ));
    }
    if error.mape_pct > 10.0 {
        reasons.push(format!("MAPE is {:.1}% (> 10%)", error.mape_pct));
    }
    if let Some(h) = &holdout {
        if h.mape_pct > (1.5 * error.mape_pct).max(error.mape_pct + 2.0) {
            reasons.push(format!(
                "held-out MAPE {:.1}% is far above the in-sample {:.1}%: the fit does not generalise",
                h.mape_pct, error.mape_pct
            ));
        }
    }
    for t in &terms {
        if t.coefficient_w < 0.0 && t.coefficient_w + 2.0 * t.std_error_w < 0.0 {
            reasons.push(format!(
                "{} has a negative coefficient ({:.4} W): a component cannot give power back",
                t.name, t.coefficient_w
            ));
        }
    }
    if systematic > 0.1 {
        reasons.push(format!(
            "{:.0}% of the residual variance follows the fitted power: the model's form misses a non-linearity",
            systematic * 100.0
        ));
    }
    Ok(LinearFit {
        terms,
        dropped,
        clusters,
        error,
        holdout,
        systematic_residual: systematic,
        quality: Quality {
            verdict: if reasons.is_empty() { "good" } else { "poor" },
            reasons,
        },
        drivers,
    })
}

impl LinearFit {
    fn coef(&self, f: &Feature) -> f64 {
        self.terms
            .iter()
            .find(|t| &t.feature == f)
            .map_or(0.0, |t| t.coefficient_w)
    }

    /// The power of one running core of `cpu` at `khz`, W (`None` when the
    /// CPU is in no cluster of the fit).
    pub fn core_power_w(&self, cpu: u32, khz: f64) -> Option<f64> {
        let k = self.clusters.iter().position(|c| c.cpus.contains(&cpu))?;
        Some(
            self.coef(&Feature::ClusterBusy { cluster: k })
                + self.coef(&Feature::ClusterBusyGhz { cluster: k }) * khz * 1e-6,
        )
    }

    /// The fitted power over the session's tracks, W, as a step function
    /// that changes wherever a feature does.
    pub fn predict(&self, sig: &Signals) -> Step {
        let d = design(sig, &self.clusters);
        let beta: Vec<f64> = d.features.iter().map(|f| self.coef(f)).collect();
        let refs: Vec<&Step> = d.steps.iter().collect();
        Step::combine(&refs, |v| dot(&beta, v))
    }

    /// The coefficients as an Android power profile (mA at
    /// [`NOMINAL_VOLTAGE_V`]): `cpu.idle` from the base (`cpu.suspend`,
    /// `cpu.active` and the cluster costs 0), per cluster the cores and,
    /// at each frequency seen, `busy + busy×GHz × speed`; `screen.on`,
    /// `screen.full`, the Wi-Fi controller's idle/rx/tx (rx and tx include
    /// the idle current, as the profile means them), `radio.active`,
    /// `gps.on`. `base` supplies what the capture cannot tell (the battery
    /// capacity). A device-utilisation term has no place in the profile's
    /// per-core form and is not written.
    pub fn to_power_profile(&self, base: Option<&PowerProfile>) -> PowerProfile {
        let ma = |w: f64| w / NOMINAL_VOLTAGE_V * 1e3;
        let mut p = PowerProfile::new("Android");
        if let Some(c) = base.and_then(|b| b.item("battery.capacity")) {
            p.set_item("battery.capacity", c);
        }
        p.set_item("cpu.suspend", 0.0);
        p.set_item("cpu.idle", ma(self.coef(&Feature::Base)));
        p.set_item("cpu.active", 0.0);
        if !self.clusters.is_empty() {
            p.set_array(
                "cpu.clusters.cores",
                self.clusters.iter().map(|c| c.cpus.len() as f64).collect(),
            );
        }
        for (k, c) in self.clusters.iter().enumerate() {
            let speeds = if c.speeds_khz.is_empty() {
                vec![1.0]
            } else {
                c.speeds_khz.clone()
            };
            let busy = self.coef(&Feature::ClusterBusy { cluster: k });
            let ghz = self.coef(&Feature::ClusterBusyGhz { cluster: k });
            p.set_item(&format!("cpu.cluster_power.cluster{k}"), 0.0);
            p.set_array(
                &format!("cpu.core_power.cluster{k}"),
                speeds.iter().map(|s| ma(busy + ghz * s * 1e-6)).collect(),
            );
            p.set_array(&format!("cpu.core_speeds.cluster{k}"), speeds);
        }
        let has = |f: &Feature| self.terms.iter().any(|t| &t.feature == f);
        if has(&Feature::ScreenOn) || has(&Feature::ScreenBrightness) {
            p.set_item("screen.on", ma(self.coef(&Feature::ScreenOn)));
            p.set_item("screen.full", ma(self.coef(&Feature::ScreenBrightness)));
        }
        if has(&Feature::WifiOn) || has(&Feature::WifiRx) || has(&Feature::WifiTx) {
            let on = self.coef(&Feature::WifiOn);
            p.set_item("wifi.controller.idle", ma(on));
            p.set_item("wifi.controller.rx", ma(on + self.coef(&Feature::WifiRx)));
            p.set_item("wifi.controller.tx", ma(on + self.coef(&Feature::WifiTx)));
            p.set_item("wifi.controller.voltage", NOMINAL_VOLTAGE_V * 1e3);
        }
        if has(&Feature::Radio) {
            p.set_item("radio.active", ma(self.coef(&Feature::Radio)));
        }
        if has(&Feature::Gps) {
            p.set_item("gps.on", ma(self.coef(&Feature::Gps)));
        }
        p
    }

    /// The fit read as a device profile (for attribution weights and
    /// driving, exactly as a written profile would be read back); an error
    /// when a core current came out negative.
    pub fn to_device(&self, base: Option<&PowerProfile>) -> Result<DeviceProfile, crate::Error> {
        let n = self.clusters.iter().map(|c| c.cpus.len() as u32).sum::<u32>().max(1);
        DeviceProfile::from_profile(&self.to_power_profile(base), n)
    }
}
