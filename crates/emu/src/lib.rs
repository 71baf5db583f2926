//! Instruction profiling of programs run under QEMU's user-mode emulator,
//! after the AndroProf design (seed 001) but with a QEMU plugin instead of
//! a patched emulator.
//!
//! - [`run`] launches `qemu-<arch>` with `tracekit-qemu-plugin` and keeps
//!   everything in a run directory (raw counts, `run.json`, cached
//!   analyses, imported profiles); [`stage`] keeps the plugin's files on
//!   a RAM file system while QEMU runs and packs them into one file at the
//!   end ([`pack`]), and [`children`] waits for every process the guest
//!   started.
//! - [`raw_files`] finds the plugin's files of a run, loose or packed.
//! - [`capture`] reads the plugin's per-process block logs and counters,
//!   resolving blocks a forked child inherited from its parent;
//!   [`disasm`] disassembles what the plugin logged as bytes only (with
//!   the capstone library QEMU itself uses); [`perfmap`] reads a JVM's
//!   code map; [`regions`] places blocks in the VM, interpreter, JIT code,
//!   libraries or the program, and names them.
//! - [`profile`] holds categorization profiles (a documented text format,
//!   with defaults for ARMv7 Cortex-A8/A9, MIPS32, AArch64 and x86_64) and
//!   classifies instructions by mnemonic and ARM/Thumb type.
//! - [`analysis`] computes per-process totals, categories, cycles, energy,
//!   histograms and hottest blocks (named via [`symbols`]).
//! - [`totals`] sums a run's counters by the plugin's per-slot sizes.
//! - [`estimate`] reproduces the seed's time/power/energy formulas.
//! - [`report`] renders reports and side-by-side comparisons.
//!
//! ```
//! use tracekit_emu::estimate::{Estimate, EstimateInput};
//! let e = Estimate::compute(&EstimateInput {
//!     freq_ghz: 1.0, power_w: 0.89, cpi: 13.03,
//!     base_instructions: 39_171_751_755.0, base_misses: 521_966_483.0,
//!     mem_access_nj: 2.61, instructions: 56_750_218_825.0,
//! }).unwrap();
//! assert_eq!(e.time_s, 739.45535128975);
//!
//! let profile = tracekit_emu::profile::Profile::builtin("armv7-cortex-a8").unwrap();
//! let c = profile.classifier();
//! use tracekit_emu::profile::InsnType;
//! assert_eq!(c.category(InsnType::Thumb, "cbz").name, "CondBranch");
//! ```

pub mod analysis;
pub mod capture;
pub mod children;
pub mod disasm;
pub mod error;
pub mod estimate;
pub mod guest;
pub mod pack;
pub mod perfmap;
pub mod profile;
pub mod raw_files;
pub mod regions;
pub mod report;
pub mod run;
pub mod stage;
pub mod study;
pub mod symbols;
pub mod totals;

pub use error::{EmuError, Result};
