//! Estimates from different models, set side by side with a reference
//! (the measured energy, when there is one), and how a modelled power
//! track agrees with a measured one sample by sample.

use crate::signals::Step;
use crate::ModelEstimate;
use serde::Serialize;

/// One row of [`side_by_side`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparedEstimate {
    /// The estimate.
    #[serde(flatten)]
    pub estimate: ModelEstimate,
    /// Energy relative to the reference, % (100 = equal; `None` without one).
    pub energy_vs_reference_pct: Option<f64>,
    /// Mean power relative to the reference's, %.
    pub power_vs_reference_pct: Option<f64>,
}

/// The estimates with their ratio to `reference` (the first row when given).
pub fn side_by_side(reference: Option<&ModelEstimate>, others: &[ModelEstimate]) -> Vec<ComparedEstimate> {
    let pct = |a: f64, b: f64| (b != 0.0).then(|| 100.0 * a / b);
    reference
        .into_iter()
        .chain(others)
        .map(|e| ComparedEstimate {
            estimate: e.clone(),
            energy_vs_reference_pct: reference.and_then(|r| pct(e.energy_j, r.energy_j)),
            power_vs_reference_pct: reference.and_then(|r| pct(e.mean_power_w, r.mean_power_w)),
        })
        .collect()
}

/// How a modelled power agrees with measured samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Agreement {
    /// Measured intervals compared.
    pub samples: usize,
    /// Mean absolute percentage error of the model, %.
    pub mape_pct: f64,
    /// R² of the model against the measurement.
    pub r2: f64,
    /// Modelled energy over measured energy, over the compared intervals.
    pub energy_ratio: f64,
}

/// Compares `model` (W) with measured samples (`times`, `watts`), each
/// sample read as the mean over the interval since the previous one.
pub fn agreement(model: &Step, times: &[i64], watts: &[f64]) -> Agreement {
    let mut c = model.cursor();
    let (mut n, mut sy, mut sy2, mut rss, mut ape, mut nape, mut em, mut ey) =
        (0usize, 0.0, 0.0, 0.0, 0.0, 0usize, 0.0, 0.0);
    let mean_abs = watts.iter().map(|w| w.abs()).sum::<f64>() / watts.len().max(1) as f64;
    for k in 1..times.len() {
        let (a, b) = (times[k - 1], times[k]);
        if b <= a {
            continue;
        }
        let m = c.mean(a, b);
        let y = watts[k];
        let dt = (b - a) as f64 * 1e-9;
        n += 1;
        sy += y;
        sy2 += y * y;
        rss += (y - m) * (y - m);
        if y.abs() > 0.01 * mean_abs {
            ape += ((y - m) / y).abs();
            nape += 1;
        }
        em += m * dt;
        ey += y * dt;
    }
    let nf = n.max(1) as f64;
    let tss = sy2 - sy * sy / nf;
    Agreement {
        samples: n,
        mape_pct: 100.0 * ape / nape.max(1) as f64,
        r2: if tss > 0.0 { 1.0 - rss / tss } else { 0.0 },
        energy_ratio: if ey != 0.0 { em / ey } else { 0.0 },
    }
}
