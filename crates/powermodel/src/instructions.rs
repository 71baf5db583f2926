//! The emulator's instruction-category costs (seed 001) as a power model:
//! each category of executed instruction costs cycles and draws a power
//! while it runs, at the profile's clock frequency.
//!
//! `time = Σ count × cycles / f`; `energy = Σ count × cycles / f × power`:
//! the category-based estimate of seed 001 (and `tracekit-emu`'s
//! per-process energy), with no timeline: a program's instruction counts
//! give one [`ModelEstimate`] to set beside measured or modelled energy.

use crate::ModelEstimate;
use serde::Serialize;

/// One category's cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryCost {
    /// Category name.
    pub name: String,
    /// Cycles per instruction.
    pub cycles: f64,
    /// Power while such instructions run, W.
    pub power_w: f64,
}

/// A categorization profile's costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstructionCostModel {
    /// Profile name (e.g. `armv7-cortex-a8`).
    pub name: String,
    /// Clock frequency, Hz.
    pub freq_hz: f64,
    /// The categories; counts of names not listed use `default`.
    pub categories: Vec<CategoryCost>,
    /// The cost of instructions in no category.
    pub default: CategoryCost,
}

impl InstructionCostModel {
    /// Time and energy of executing `counts` (category name, instructions).
    pub fn estimate(&self, label: &str, counts: &[(String, u64)]) -> ModelEstimate {
        let (mut time, mut energy) = (0.0, 0.0);
        for (name, n) in counts {
            let c = self
                .categories
                .iter()
                .find(|c| &c.name == name)
                .unwrap_or(&self.default);
            let t = *n as f64 * c.cycles / self.freq_hz;
            time += t;
            energy += t * c.power_w;
        }
        ModelEstimate {
            model: format!("instruction costs ({})", self.name),
            kind: "instructions",
            label: label.to_owned(),
            duration_s: time,
            energy_j: energy,
            mean_power_w: if time > 0.0 { energy / time } else { 0.0 },
            note: Some(format!(
                "{} instructions at {:.3} GHz; time is the estimated execution time",
                counts.iter().map(|c| c.1).sum::<u64>(),
                self.freq_hz * 1e-9
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_category_example() {
        // Seed 001: an ARMv7 conditional branch costs 3 cycles at 113 mW.
        let m = InstructionCostModel {
            name: "seed".into(),
            freq_hz: 1e9,
            categories: vec![CategoryCost {
                name: "Branch".into(),
                cycles: 3.0,
                power_w: 0.113,
            }],
            default: CategoryCost {
                name: "Undefined".into(),
                cycles: 1.0,
                power_w: 0.1,
            },
        };
        let e = m.estimate("p", &[("Branch".into(), 1_000_000_000), ("Other".into(), 500_000_000)]);
        assert!((e.duration_s - 3.5).abs() < 1e-12);
        assert!((e.energy_j - (3.0 * 0.113 + 0.5 * 0.1)).abs() < 1e-12);
        assert!((e.mean_power_w - e.energy_j / 3.5).abs() < 1e-12);
    }
}
