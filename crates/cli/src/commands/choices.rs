//! Typed choices of the command line (clap value enums): clap checks them,
//! lists them in `--help` and suggests the nearest on a typo. Each maps to
//! the library type it stands for; the tests below hold every name to the
//! library's own parser, so the two cannot drift apart.

use clap::ValueEnum;

/// `paths encode|decode --scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CodecScheme {
    /// Ball–Larus path ids.
    Blpp,
    /// Profiling all paths (mixed radix, breakpoints).
    Pap,
    /// Adaptive arithmetic coding of edge choices.
    Adaptracer,
}

impl From<CodecScheme> for tracekit_paths::Scheme {
    fn from(s: CodecScheme) -> Self {
        match s {
            CodecScheme::Blpp => tracekit_paths::Scheme::Blpp,
            CodecScheme::Pap => tracekit_paths::Scheme::Pap,
            CodecScheme::Adaptracer => tracekit_paths::Scheme::AdapTracer,
        }
    }
}

/// `paths encode|decode --symbol-order`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SymbolOrder {
    /// Out-edges numbered in successor order (the seed's).
    Successor,
    /// By starting counter, most frequent first.
    Frequency,
}

impl From<SymbolOrder> for tracekit_paths::SymbolOrder {
    fn from(s: SymbolOrder) -> Self {
        match s {
            SymbolOrder::Successor => tracekit_paths::SymbolOrder::Successor,
            SymbolOrder::Frequency => tracekit_paths::SymbolOrder::Frequency,
        }
    }
}

/// `paths encode|decode --context`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunsContext {
    /// One counter set per block.
    None,
    /// Counter sets chosen by the last choice and the run length.
    Runs,
}

impl From<RunsContext> for tracekit_paths::ContextKind {
    fn from(s: RunsContext) -> Self {
        match s {
            RunsContext::None => tracekit_paths::ContextKind::None,
            RunsContext::Runs => tracekit_paths::ContextKind::Runs,
        }
    }
}

/// `paths instrument --scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum JvmScheme {
    /// Every block id, uncompressed (ground truth).
    Raw,
    /// Ball–Larus path ids.
    Blpp,
    /// Profiling all paths.
    Pap,
    /// Adaptive arithmetic coding.
    Adaptracer,
}

impl From<JvmScheme> for tracekit_jvm::Scheme {
    fn from(s: JvmScheme) -> Self {
        match s {
            JvmScheme::Raw => tracekit_jvm::Scheme::Raw,
            JvmScheme::Blpp => tracekit_jvm::Scheme::Blpp,
            JvmScheme::Pap => tracekit_jvm::Scheme::Pap,
            JvmScheme::Adaptracer => tracekit_jvm::Scheme::Adaptracer,
        }
    }
}

/// `paths instrument|adapt --context` (with `--stream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StreamContext {
    /// Per-block order-0 counters.
    None,
    /// The context stream: method ids, ends and choices predicted from the thread's history.
    Predict,
}

/// `emu run --arch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmuArch {
    /// 32-bit ARM (ARM and Thumb).
    Arm,
    /// 32-bit MIPS, either byte order.
    Mips,
    /// 64-bit ARM.
    Aarch64,
    /// x86-64.
    #[value(name = "x86_64")]
    X86_64,
}

impl From<EmuArch> for tracekit_emu::run::Arch {
    fn from(a: EmuArch) -> Self {
        use tracekit_emu::run::Arch;
        match a {
            EmuArch::Arm => Arch::Arm,
            EmuArch::Mips => Arch::Mips,
            EmuArch::Aarch64 => Arch::Aarch64,
            EmuArch::X86_64 => Arch::X86_64,
        }
    }
}

/// `emu run --mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmuMode {
    /// An inline add per block execution (fast).
    Tb,
    /// A callback per instruction (slow reference).
    Insn,
}

impl From<EmuMode> for tracekit_emu::run::CountMode {
    fn from(m: EmuMode) -> Self {
        match m {
            EmuMode::Tb => tracekit_emu::run::CountMode::Tb,
            EmuMode::Insn => tracekit_emu::run::CountMode::Insn,
        }
    }
}

/// `emu profile assign --type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InsnType {
    /// Every instruction type.
    Any,
    /// 32-bit ARM encodings.
    Arm,
    /// Thumb encodings.
    Thumb,
}

impl From<InsnType> for tracekit_emu::profile::InsnType {
    fn from(t: InsnType) -> Self {
        match t {
            InsnType::Any => tracekit_emu::profile::InsnType::Any,
            InsnType::Arm => tracekit_emu::profile::InsnType::Arm,
            InsnType::Thumb => tracekit_emu::profile::InsnType::Thumb,
        }
    }
}

/// `record --overflow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Overflow {
    /// Drop the event and count it.
    Drop,
    /// Wait for the drainer.
    Wait,
}

/// `record --clock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EventClock {
    /// The CPU's time-stamp counter (default).
    Tsc,
    /// clock_gettime(CLOCK_MONOTONIC).
    Monotonic,
    /// Event numbers only (cheapest, no durations).
    Order,
}

impl EventClock {
    /// The runtime's `TRACEKIT_CLOCK` value.
    pub fn name(self) -> &'static str {
        match self {
            EventClock::Tsc => "tsc",
            EventClock::Monotonic => "monotonic",
            EventClock::Order => "order",
        }
    }
}

/// `record --context` (comma-separated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContextSource {
    /// Every source.
    All,
    /// No context sampler.
    None,
    /// CPU load.
    Cpu,
    /// Memory use.
    Memory,
    /// Network traffic.
    Network,
    /// Battery.
    Battery,
    /// Screen (backlight).
    Screen,
    /// Thermal zones.
    Thermal,
    /// CPU frequencies.
    Cpufreq,
    /// Battery voltage, current, charge and power; RAPL and hwmon power (counter tracks).
    Power,
}

impl ContextSource {
    /// The sampler's source groups for a `--context` list.
    pub fn groups(list: &[ContextSource]) -> Vec<String> {
        if list.contains(&ContextSource::All) {
            return tracekit_record::context::ALL_SOURCES
                .iter()
                .map(|s| s.to_string())
                .collect();
        }
        let mut out: Vec<String> = Vec::new();
        for s in list.iter().filter(|s| **s != ContextSource::None) {
            let name = s
                .to_possible_value()
                .expect("no variant is skipped")
                .get_name()
                .to_owned();
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }
}

/// Every name clap accepts for `T`.
#[cfg(test)]
fn names<T: ValueEnum>() -> Vec<String> {
    T::value_variants()
        .iter()
        .map(|v| v.to_possible_value().unwrap().get_name().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_is_the_library_name() {
        for n in names::<CodecScheme>() {
            let ours = tracekit_paths::Scheme::from(CodecScheme::from_str(&n, false).unwrap());
            assert_eq!(n.parse::<tracekit_paths::Scheme>().unwrap(), ours, "{n}");
        }
        assert_eq!(names::<CodecScheme>().len(), tracekit_paths::Scheme::ALL.len());
        for n in names::<SymbolOrder>() {
            let ours = tracekit_paths::SymbolOrder::from(SymbolOrder::from_str(&n, false).unwrap());
            assert_eq!(n.parse::<tracekit_paths::SymbolOrder>().unwrap(), ours, "{n}");
        }
        for n in names::<RunsContext>() {
            let ours = tracekit_paths::ContextKind::from(RunsContext::from_str(&n, false).unwrap());
            assert_eq!(n.parse::<tracekit_paths::ContextKind>().unwrap(), ours, "{n}");
        }
        for n in names::<JvmScheme>() {
            let ours = tracekit_jvm::Scheme::from(JvmScheme::from_str(&n, false).unwrap());
            assert_eq!(tracekit_jvm::Scheme::parse(&n), Some(ours), "{n}");
        }
        assert_eq!(names::<JvmScheme>().len(), tracekit_jvm::Scheme::ALL.len());
        for n in names::<EmuArch>() {
            let ours = tracekit_emu::run::Arch::from(EmuArch::from_str(&n, false).unwrap());
            assert_eq!(tracekit_emu::run::Arch::parse(&n).unwrap(), ours, "{n}");
        }
        for n in names::<InsnType>() {
            let ours = tracekit_emu::profile::InsnType::from(InsnType::from_str(&n, false).unwrap());
            assert_eq!(tracekit_emu::profile::InsnType::parse(&n), Some(ours), "{n}");
        }
        let sources: Vec<String> = names::<ContextSource>()
            .into_iter()
            .filter(|n| n != "all" && n != "none")
            .collect();
        assert_eq!(sources, tracekit_record::context::ALL_SOURCES);
        for c in EventClock::value_variants() {
            assert_eq!(c.to_possible_value().unwrap().get_name(), c.name());
        }
    }

    #[test]
    fn context_lists() {
        use ContextSource::*;
        assert_eq!(ContextSource::groups(&[None]), Vec::<String>::new());
        assert_eq!(ContextSource::groups(&[Cpu, Memory, Cpu]), ["cpu", "memory"]);
        assert_eq!(
            ContextSource::groups(&[Cpu, All]).len(),
            tracekit_record::context::ALL_SOURCES.len()
        );
    }
}
