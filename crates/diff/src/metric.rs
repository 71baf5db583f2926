//! What a row measures, and what a row is keyed by.

use serde::Serialize;

/// One measured quantity of a row. Every metric is a cost: more is worse,
/// so an increase is a regression.
///
/// Energy columns plug in here: [`Metric::InclEnergy`] and
/// [`Metric::ExclEnergy`] are filled from an [`EnergyAttribution`]
/// (crate::EnergyAttribution) when one is given, and otherwise absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Invocations (recursive ones included).
    Calls,
    /// Inclusive time on the wall (timeline) clock, ns.
    InclWall,
    /// Exclusive time on the wall (timeline) clock, ns.
    ExclWall,
    /// Inclusive thread-CPU time, ns.
    InclCpu,
    /// Exclusive thread-CPU time, ns.
    ExclCpu,
    /// Inclusive energy, J.
    InclEnergy,
    /// Exclusive energy, J.
    ExclEnergy,
    /// Guest instructions executed (emulator runs).
    Instructions,
    /// How often a path, an edge or a method invocation ran (path logs).
    Executions,
}

/// The kind of quantity a metric is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricKind {
    /// A count: exact when the program is deterministic.
    Count,
    /// A time in ns: always noisy.
    Time,
    /// An energy in J: always noisy.
    Energy,
}

impl Metric {
    /// Every metric, in the order tables list them.
    pub const ALL: [Metric; 9] = [
        Metric::Calls,
        Metric::InclWall,
        Metric::ExclWall,
        Metric::InclCpu,
        Metric::ExclCpu,
        Metric::InclEnergy,
        Metric::ExclEnergy,
        Metric::Instructions,
        Metric::Executions,
    ];

    /// The name on the command line and in JSON (`excl-wall`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Calls => "calls",
            Metric::InclWall => "incl-wall",
            Metric::ExclWall => "excl-wall",
            Metric::InclCpu => "incl-cpu",
            Metric::ExclCpu => "excl-cpu",
            Metric::InclEnergy => "incl-energy",
            Metric::ExclEnergy => "excl-energy",
            Metric::Instructions => "instructions",
            Metric::Executions => "executions",
        }
    }

    /// Parses a [`Metric::name`].
    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == s.trim())
    }

    /// Count, time or energy.
    pub fn kind(self) -> MetricKind {
        match self {
            Metric::Calls | Metric::Instructions | Metric::Executions => MetricKind::Count,
            Metric::InclWall | Metric::ExclWall | Metric::InclCpu | Metric::ExclCpu => MetricKind::Time,
            Metric::InclEnergy | Metric::ExclEnergy => MetricKind::Energy,
        }
    }

    /// The unit of raw values: `ns`, `J` or `` for counts.
    pub fn unit(self) -> &'static str {
        match self.kind() {
            MetricKind::Count => "",
            MetricKind::Time => "ns",
            MetricKind::Energy => "J",
        }
    }

    /// The metric whose sum over all rows of a run is that run's total for
    /// this metric (what `--normalize` divides by): the exclusive
    /// counterpart of an inclusive metric, the metric itself otherwise.
    pub fn total_of(self) -> Metric {
        match self {
            Metric::InclWall => Metric::ExclWall,
            Metric::InclCpu => Metric::ExclCpu,
            Metric::InclEnergy => Metric::ExclEnergy,
            m => m,
        }
    }

    /// True when the values of a call path's rows add up along the stack
    /// (what a flame graph's widths need): exclusive metrics and counts.
    pub fn additive(self) -> bool {
        self.total_of() == self
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What one row stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    /// A method (traces: matched by class, name and signature; native
    /// functions by name and module) or, for path logs, a method's
    /// invocations.
    Method,
    /// A call path from the root (traces) or a method's block path (path logs).
    Path,
    /// A control-flow edge of a method (path logs).
    Edge,
    /// An instruction category (emulator runs, summed over processes).
    Category,
    /// An instruction category of one process (emulator runs; processes
    /// matched by their order of pids).
    Process,
    /// A guest function (emulator runs, from the program's symbols).
    Function,
    /// A guest block, named `function+0xoffset` (emulator runs of one build).
    Block,
}

impl By {
    /// Every kind of row.
    pub const ALL: [By; 7] = [
        By::Method,
        By::Path,
        By::Edge,
        By::Category,
        By::Process,
        By::Function,
        By::Block,
    ];

    /// Parses a [`By::name`].
    pub fn parse(s: &str) -> Option<By> {
        By::ALL.into_iter().find(|b| b.name() == s.trim())
    }

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            By::Method => "method",
            By::Path => "path",
            By::Edge => "edge",
            By::Category => "category",
            By::Process => "process",
            By::Function => "function",
            By::Block => "block",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_totals_are_exclusive() {
        for m in Metric::ALL {
            assert_eq!(Metric::parse(m.name()), Some(m));
            assert!(m.total_of().additive());
        }
        assert_eq!(Metric::parse("wall"), None);
        assert!(!Metric::InclCpu.additive());
        assert_eq!(Metric::Calls.kind(), MetricKind::Count);
        for b in By::ALL {
            assert_eq!(By::parse(b.name()), Some(b));
        }
    }
}
