//! How an [`AdaptiveModel`](crate::AdaptiveModel) numbers symbols and
//! selects counter sets: the opt-in refinements of the seed's model (the
//! exact rules are in the [`adaptive`](crate::adaptive) module docs).

use crate::error::{PathError, Result};

/// How a block's out-edges are numbered as coder symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SymbolOrder {
    /// Symbol = index in `Cfg::successors` (the seed's behaviour).
    #[default]
    Successor,
    /// By starting counter, largest first; ties in successor order.
    Frequency,
}

impl std::str::FromStr for SymbolOrder {
    type Err = PathError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "successor" => Ok(SymbolOrder::Successor),
            "frequency" => Ok(SymbolOrder::Frequency),
            _ => Err(PathError::InvalidParameter(format!(
                "unknown symbol order {s:?} (expected successor or frequency)"
            ))),
        }
    }
}

/// Which history selects a block's counter set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContextKind {
    /// One counter set per block (the seed's model).
    #[default]
    None,
    /// `2k` sets per block chosen by the last symbol and whether its run has
    /// reached the previous run's length (see the module docs).
    Runs,
}

impl std::str::FromStr for ContextKind {
    type Err = PathError;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "none" => Ok(ContextKind::None),
            "runs" => Ok(ContextKind::Runs),
            _ => Err(PathError::InvalidParameter(format!(
                "unknown context {s:?} (expected none or runs)"
            ))),
        }
    }
}

/// Largest number of symbols for which [`ContextKind::Runs`] keeps
/// several counter sets.
pub const MAX_CONTEXT_SYMBOLS: usize = 16;

/// How an [`AdaptiveModel`](crate::AdaptiveModel) numbers symbols and selects counter sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModelOptions {
    /// Symbol numbering.
    pub symbol_order: SymbolOrder,
    /// Counter-set selection.
    pub context: ContextKind,
}
