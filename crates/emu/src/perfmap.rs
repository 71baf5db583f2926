//! HotSpot's code map: the `perf-<pid>.map` file a JVM writes at exit with
//! `-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit`, one code blob
//! per line: `0x<start> 0x<size> <name>`. Compiled methods are named by
//! their Java signature (`int java.lang.String.hashCode()`); the template
//! interpreter is `Interpreter`; everything else (stubs, adapters, runtime
//! routines) has another name. `emu run` keeps the file as
//! `raw/pid-<pid>.perfmap` so blocks in the code cache can be told apart:
//! interpreter, stubs, or JIT-compiled methods.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{EmuError, Result};

/// What a code blob is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlobKind {
    /// The template interpreter.
    Interpreter,
    /// A JIT-compiled Java method (nmethod).
    Method,
    /// Stubs, adapters, runtime routines.
    Stub,
}

/// One code blob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blob {
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// HotSpot's name for it.
    pub name: String,
    /// Its kind, from the name.
    pub kind: BlobKind,
}

/// A JVM's code map, sorted by address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PerfMap {
    /// Blobs sorted by start.
    pub blobs: Vec<Blob>,
}

/// The kind of a blob from its name: a Java signature is
/// `<type> <qualified name>(<parameters>)` with no space in the first two
/// parts.
pub fn kind_of(name: &str) -> BlobKind {
    if name == "Interpreter" {
        return BlobKind::Interpreter;
    }
    let signature = name.ends_with(')')
        && name.split_once(' ').is_some_and(|(ty, rest)| {
            !ty.is_empty()
                && rest
                    .split_once('(')
                    .is_some_and(|(method, _)| method.contains('.') && !method.contains(' '))
        });
    if signature {
        BlobKind::Method
    } else {
        BlobKind::Stub
    }
}

fn number(path: &Path, line: usize, s: &str) -> Result<u64> {
    let digits = s.strip_prefix("0x").unwrap_or(s);
    u64::from_str_radix(digits, 16).map_err(|_| EmuError::Parse {
        path: path.to_owned(),
        line,
        msg: format!("bad hex number {s:?}"),
    })
}

impl PerfMap {
    /// Parses a perf map; `path` names the file in errors.
    pub fn parse(path: &Path, text: &str) -> Result<PerfMap> {
        let mut blobs = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let mut f = line.splitn(3, ' ');
            let start = number(path, i + 1, f.next().unwrap_or(""))?;
            let size = number(path, i + 1, f.next().unwrap_or(""))?;
            let name = f.next().unwrap_or("").to_owned();
            let end = start.checked_add(size).ok_or_else(|| EmuError::Parse {
                path: path.to_owned(),
                line: i + 1,
                msg: "blob past the end of the address space".into(),
            })?;
            blobs.push(Blob {
                start,
                end,
                kind: kind_of(&name),
                name,
            });
        }
        blobs.sort_by_key(|b| (b.start, b.end));
        Ok(PerfMap { blobs })
    }

    /// Reads and parses a perf map file (regular files only).
    pub fn load(path: &Path) -> Result<PerfMap> {
        let text = tracekit_safeio::read_text(path)?;
        PerfMap::parse(path, &text)
    }

    /// The blob holding `addr`.
    pub fn blob_at(&self, addr: u64) -> Option<&Blob> {
        let i = self.blobs.partition_point(|b| b.start <= addr).checked_sub(1)?;
        let b = &self.blobs[i];
        (addr < b.end).then_some(b)
    }

    /// Lowest start and highest end of all blobs: the span of the code
    /// cache that was in use.
    pub fn span(&self) -> Option<(u64, u64)> {
        let lo = self.blobs.first()?.start;
        let hi = self.blobs.iter().map(|b| b.end).max()?;
        Some((lo, hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = "0x0000ffff90000000 0x0000000000017de0 Interpreter\n\
        0x0000ffff98000100 0x0000000000000350 void Hello.main(java.lang.String[])\n\
        0x0000ffff90020000 0x0000000000000040 I2C/C2I adapters\n\
        0x0000ffff90030000 0x0000000000000040 StubRoutines (1)\n\
        0x0000ffff90040000 0x0000000000000040 new_instance Runtime1 stub\n";

    #[test]
    fn blobs_are_classified_by_name() {
        let m = PerfMap::parse(Path::new("m"), MAP).unwrap();
        assert_eq!(m.blobs.len(), 5);
        assert_eq!(m.blob_at(0xffff90000010).unwrap().kind, BlobKind::Interpreter);
        assert_eq!(m.blob_at(0xffff98000100).unwrap().kind, BlobKind::Method);
        assert_eq!(m.blob_at(0xffff90020000).unwrap().kind, BlobKind::Stub);
        assert_eq!(m.blob_at(0xffff90030000).unwrap().kind, BlobKind::Stub);
        assert_eq!(m.blob_at(0xffff90040000).unwrap().kind, BlobKind::Stub);
        assert!(m.blob_at(0xffff98000450).is_none());
        assert_eq!(m.span(), Some((0xffff90000000, 0xffff98000450)));
        assert_eq!(kind_of("int java.lang.String.hashCode()"), BlobKind::Method);
        assert_eq!(kind_of("void tkbench.emu.Kernels$Jit.loop(int)"), BlobKind::Method);
    }

    #[test]
    fn bad_lines_name_the_file_and_line() {
        let e = PerfMap::parse(Path::new("pid-9.perfmap"), "0x10 0x10 a\nzz 0x1 b\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("pid-9.perfmap") && e.contains("line 2"), "{e}");
        assert!(PerfMap::parse(Path::new("m"), "0xffffffffffffffff 0x10 x\n").is_err());
    }

    proptest::proptest! {
        #[test]
        fn mutated_maps_never_panic(pos in 0usize..MAP.len(), byte in proptest::prelude::any::<u8>()) {
            let mut bytes = MAP.as_bytes().to_vec();
            bytes[pos] = byte;
            let _ = PerfMap::parse(Path::new("m"), &String::from_utf8_lossy(&bytes));
        }
    }
}
