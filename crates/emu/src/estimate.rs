//! Time, power and energy estimation exactly as the AndroProf seed (§5.2):
//!
//! ```text
//! MAcRate     = base cache misses / base instructions
//! EstimCycles = CPI × #Instructions
//! ExecTime    = EstimCycles / f
//! MemAcPwDis  = (E_acc × MAcRate × #Instructions) / ExecTime
//! EstimPwDis  = P_proc + MemAcPwDis
//! Energy      = EstimPwDis × ExecTime
//! ```
//! Category-based estimation (Σ count × cycles, energy from each category's
//! power over its share of time) is in [`crate::analysis`].

use serde::{Deserialize, Serialize};

use crate::error::{EmuError, Result};

/// Inputs of the seed's estimation (its Fig. 5.2 form).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EstimateInput {
    /// Operation frequency f, GHz.
    pub freq_ghz: f64,
    /// Processor power dissipation P_proc, W.
    pub power_w: f64,
    /// Cycles per instruction.
    pub cpi: f64,
    /// Base number of instructions (reference workload).
    pub base_instructions: f64,
    /// Base number of cache misses (reference workload).
    pub base_misses: f64,
    /// Energy of one main-memory access E_acc, nJ.
    pub mem_access_nj: f64,
    /// Profiled number of instructions.
    pub instructions: f64,
}

/// Outputs of the seed's estimation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// ExecTime, seconds.
    pub time_s: f64,
    /// EstimPwDis, watts.
    pub power_w: f64,
    /// Energy, joules.
    pub energy_j: f64,
}

impl Estimate {
    /// Applies the seed's formulas (order of operations as in the seed, so
    /// its published figures are reproduced to the last digit).
    pub fn compute(i: &EstimateInput) -> Result<Estimate> {
        let positive = [
            ("freq-ghz", i.freq_ghz),
            ("cpi", i.cpi),
            ("base-instructions", i.base_instructions),
            ("instructions", i.instructions),
        ];
        for (name, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return Err(EmuError::Invalid(format!(
                    "--{name} must be a positive number, not {v}"
                )));
            }
        }
        for (name, v) in [
            ("power-w", i.power_w),
            ("base-misses", i.base_misses),
            ("mem-access-nj", i.mem_access_nj),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(EmuError::Invalid(format!(
                    "--{name} must be a non-negative number, not {v}"
                )));
            }
        }
        let mac_rate = i.base_misses / i.base_instructions;
        let cycles = i.cpi * i.instructions;
        let time_s = cycles / (i.freq_ghz * 1e9);
        let mem_power_w = (i.mem_access_nj * 1e-9 * mac_rate * i.instructions) / time_s;
        let power_w = i.power_w + mem_power_w;
        Ok(Estimate {
            time_s,
            power_w,
            energy_j: power_w * time_s,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig_5_2() -> EstimateInput {
        EstimateInput {
            freq_ghz: 1.0,
            power_w: 0.89,
            cpi: 13.03,
            base_instructions: 39_171_751_755.0,
            base_misses: 521_966_483.0,
            mem_access_nj: 2.61,
            instructions: 56_750_218_825.0,
        }
    }

    #[test]
    fn reproduces_the_seed_figure_exactly() {
        let e = Estimate::compute(&fig_5_2()).unwrap();
        assert_eq!(e.time_s, 739.45535128975);
        assert_eq!(e.power_w, 0.8926691053428465);
        assert_eq!(e.energy_j, 660.0889468768014);
    }

    #[test]
    fn the_seed_cortex_a9_power_is_about_1_2753_w() {
        // §5.2: "1,2753W for Cortex A9" with Table 5.3's A9 data at 2 GHz
        // and the unrounded CPI the seed's tables use (2.3692).
        let i = EstimateInput {
            freq_ghz: 2.0,
            power_w: 1.25,
            cpi: 2.3692,
            base_instructions: 39_372_723_114.0,
            base_misses: 451_238_875.0,
            ..fig_5_2()
        };
        let e = Estimate::compute(&i).unwrap();
        assert!((e.power_w - 1.2753).abs() < 5e-5, "{}", e.power_w);
    }

    #[test]
    fn rejects_nonsense_inputs() {
        assert!(Estimate::compute(&EstimateInput {
            freq_ghz: 0.0,
            ..fig_5_2()
        })
        .is_err());
        assert!(Estimate::compute(&EstimateInput {
            base_misses: -1.0,
            ..fig_5_2()
        })
        .is_err());
        assert!(Estimate::compute(&EstimateInput {
            cpi: f64::NAN,
            ..fig_5_2()
        })
        .is_err());
    }
}
