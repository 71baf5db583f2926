//! Guest ELF facts: function symbols for naming hot blocks, ARM mapping
//! symbols (`$a`, `$t`, `$d`) for resolving ARM/Thumb mode, and the ELF
//! header fields that pick the right `qemu-<arch>`.

use std::path::Path;

use object::{Object, ObjectSection, ObjectSegment, ObjectSymbol};

use crate::capture::IsaMode;
use crate::error::{EmuError, Result};

/// Machine and byte order from an ELF header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElfKind {
    /// Instruction set family.
    pub arch: object::Architecture,
    /// True for little-endian files.
    pub little_endian: bool,
}

/// Reads and parses an executable, handing the parsed file to `f`.
fn with_executable<R>(path: &Path, f: impl FnOnce(&object::File<'_>) -> R) -> Result<R> {
    let data = tracekit_safeio::read_bytes(path)?;
    let file = object::File::parse(&*data)
        .map_err(|e| EmuError::Invalid(format!("{}: not a readable executable: {e}", path.display())))?;
    Ok(f(&file))
}

/// Parses an executable reading only the parts `f` asks for (headers, a
/// section), not the whole file: `emu run` checks a program several ways
/// before it starts, and reading a large static binary each time was most
/// of its own cost on short runs.
pub(crate) fn with_headers<R>(
    path: &Path,
    f: impl FnOnce(&object::File<'_, &object::ReadCache<std::fs::File>>) -> R,
) -> Result<R> {
    let file = tracekit_safeio::open_regular(path)?;
    let cache = object::ReadCache::new(file);
    let parsed = object::File::parse(&cache)
        .map_err(|e| EmuError::Invalid(format!("{}: not a readable executable: {e}", path.display())))?;
    Ok(f(&parsed))
}

/// Reads the ELF header of `path`.
pub fn elf_kind(path: &Path) -> Result<ElfKind> {
    with_headers(path, |file| ElfKind {
        arch: file.architecture(),
        little_endian: file.is_little_endian(),
    })
}

/// Function symbols and mapping symbols of one guest executable.
#[derive(Clone, Debug, Default)]
pub struct SymbolTable {
    /// (start, size, name) sorted by start; Thumb bit cleared.
    functions: Vec<(u64, u64, String)>,
    /// (address, mode) sorted by address, from `$a`/`$t`/`$d`.
    mapping: Vec<(u64, Option<IsaMode>)>,
    /// Loadable segments: (file offset, size in the file, address).
    segments: Vec<(u64, u64, u64)>,
}

impl SymbolTable {
    /// Loads the symbols of `path`; a stripped file gives an empty table.
    pub fn load(path: &Path) -> Result<SymbolTable> {
        with_executable(path, SymbolTable::from_file)
    }

    fn from_file(file: &object::File<'_>) -> SymbolTable {
        let arm = file.architecture() == object::Architecture::Arm;
        let mut table = SymbolTable::default();
        for seg in file.segments() {
            let (off, size) = seg.file_range();
            table.segments.push((off, size, seg.address()));
        }
        // Shared libraries usually keep only dynamic symbols.
        let dynamic = file.symbols().next().is_none();
        let symbols: Vec<object::Symbol<'_, '_>> = if dynamic {
            file.dynamic_symbols().collect()
        } else {
            file.symbols().collect()
        };
        for sym in symbols {
            let Ok(name) = sym.name() else { continue };
            let addr = sym.address();
            if arm && name.starts_with('$') {
                let mode = match name.as_bytes().get(1) {
                    Some(b'a') => Some(IsaMode::Arm),
                    Some(b't') => Some(IsaMode::Thumb),
                    _ => None, // $d: data
                };
                table.mapping.push((addr, mode));
                continue;
            }
            // Functions, plus untyped labels in code sections (assembly
            // entry points such as `_start` are often untyped).
            let in_code = match sym.section() {
                object::SymbolSection::Section(i) => file
                    .section_by_index(i)
                    .is_ok_and(|s| s.kind() == object::SectionKind::Text),
                _ => false,
            };
            let code = match sym.kind() {
                object::SymbolKind::Text => true,
                object::SymbolKind::Label | object::SymbolKind::Unknown => in_code,
                _ => false,
            };
            if code && !name.is_empty() && !name.starts_with(".L") {
                let start = if arm { addr & !1 } else { addr };
                table.functions.push((start, sym.size(), name.to_owned()));
                if arm && addr & 1 == 1 {
                    table.mapping.push((start, Some(IsaMode::Thumb)));
                }
            }
        }
        table.functions.sort();
        table.functions.dedup_by(|a, b| a.0 == b.0);
        table.mapping.sort_by_key(|m| m.0);
        table
    }

    /// `name+0xoff` for an address inside (or just after) a known function.
    pub fn describe(&self, addr: u64) -> Option<String> {
        let i = self.functions.partition_point(|f| f.0 <= addr).checked_sub(1)?;
        let (start, size, name) = &self.functions[i];
        let off = addr - start;
        if *size != 0 && off >= *size {
            return None;
        }
        Some(if off == 0 {
            name.clone()
        } else {
            format!("{name}+0x{off:x}")
        })
    }

    /// The address (as the ELF file numbers it) of the byte at `offset` in
    /// the file, through the loadable segments; how a mapped library's
    /// run-time address is turned into one its symbols use.
    pub fn address_of_offset(&self, offset: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|(off, size, _)| offset >= *off && offset < off + size)
            .map(|(off, _, addr)| offset - off + addr)
    }

    /// ARM/Thumb mode at `addr` according to the mapping symbols.
    pub fn mode_at(&self, addr: u64) -> Option<IsaMode> {
        let i = self.mapping.partition_point(|m| m.0 <= addr).checked_sub(1)?;
        self.mapping[i].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_use_the_closest_preceding_entry() {
        let t = SymbolTable {
            functions: vec![(0x100, 0x20, "f".into()), (0x200, 0, "g".into())],
            mapping: vec![
                (0x100, Some(IsaMode::Arm)),
                (0x200, Some(IsaMode::Thumb)),
                (0x300, None),
            ],
            segments: vec![(0, 0x1000, 0x10000)],
        };
        assert_eq!(t.address_of_offset(0x10), Some(0x10010));
        assert_eq!(t.address_of_offset(0x1000), None);
        assert_eq!(t.describe(0x100).as_deref(), Some("f"));
        assert_eq!(t.describe(0x104).as_deref(), Some("f+0x4"));
        assert_eq!(t.describe(0x130), None);
        assert_eq!(t.describe(0x250).as_deref(), Some("g+0x50"));
        assert_eq!(t.describe(0x10), None);
        assert_eq!(t.mode_at(0x204), Some(IsaMode::Thumb));
        assert_eq!(t.mode_at(0x304), None);
    }

    #[test]
    fn unreadable_files_are_reported_with_their_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("junk");
        std::fs::write(&p, b"not an elf").unwrap();
        let e = SymbolTable::load(&p).unwrap_err().to_string();
        assert!(e.contains("junk"), "{e}");
    }
}
