//! The plugin's options, parsed from QEMU's `-plugin lib.so,out=DIR,...`
//! arguments: where to write, how to count, what to disassemble.

use std::path::PathBuf;

use crate::store::DEFAULT_CAPACITY;

/// How executions are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountMode {
    /// One inline add per translation block execution (fast, the default).
    Block,
    /// One callback per executed instruction (slow reference mode).
    Insn,
}

impl CountMode {
    /// The mode's name in plugin arguments and in the block log's header.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CountMode::Block => "tb",
            CountMode::Insn => "insn",
        }
    }
}

/// Which instructions the plugin asks QEMU to disassemble.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disas {
    /// Only where the analysis cannot reproduce QEMU's text (the default).
    Needed,
    /// Every instruction (for checking the analysis's disassembly).
    All,
}

/// Plugin options, from QEMU's `-plugin lib.so,out=DIR,mode=tb` arguments.
#[derive(Clone, Debug)]
pub struct Options {
    /// Output directory (must exist).
    pub out: PathBuf,
    /// Counting mode.
    pub mode: CountMode,
    /// Slots per counts file.
    pub capacity: u64,
    /// Disassembly policy.
    pub disas: Disas,
}

impl Options {
    /// Parses `key=value` arguments; `out` is required.
    pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Self, String> {
        let mut out = None;
        let mut mode = CountMode::Block;
        let mut capacity = DEFAULT_CAPACITY;
        let mut disas = Disas::Needed;
        for arg in args {
            let arg = arg.as_ref();
            let (key, value) = arg
                .split_once('=')
                .ok_or_else(|| format!("plugin argument {arg:?} is not key=value"))?;
            match key {
                "out" => out = Some(PathBuf::from(value)),
                "mode" => {
                    mode = match value {
                        "tb" => CountMode::Block,
                        "insn" => CountMode::Insn,
                        _ => return Err(format!("mode must be tb or insn, not {value:?}")),
                    }
                }
                "disas" => {
                    disas = match value {
                        "needed" => Disas::Needed,
                        "all" => Disas::All,
                        _ => return Err(format!("disas must be needed or all, not {value:?}")),
                    }
                }
                "capacity" => {
                    capacity = value
                        .parse()
                        .ok()
                        .filter(|c| *c >= 2)
                        .ok_or_else(|| format!("capacity must be an integer ≥ 2, not {value:?}"))?
                }
                _ => {
                    return Err(format!(
                        "unknown plugin argument {key:?} (known: out, mode, disas, capacity)"
                    ))
                }
            }
        }
        let out = out.ok_or("missing plugin argument out=DIR")?;
        Ok(Self {
            out,
            mode,
            capacity,
            disas,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_need_out_and_reject_unknown_keys() {
        assert!(Options::parse::<&str>(&[]).is_err());
        assert!(Options::parse(&["out=/x", "bogus=1"]).is_err());
        assert!(Options::parse(&["out=/x", "mode=fast"]).is_err());
        assert!(Options::parse(&["noequals"]).is_err());
        let o = Options::parse(&["out=/x"]).unwrap();
        assert_eq!(o.mode, CountMode::Block);
    }
}
