//! Offline symbolization: runtime addresses → function name, module, source
//! file and line, from the process map copy and the modules' ELF symbols and
//! DWARF line tables.

use object::{Object, ObjectSegment};
use std::collections::HashMap;
use tracekit_rt_format::demangle::function_symbols;

/// One line of `/proc/<pid>/maps` that maps a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// File offset of `start`.
    pub offset: u64,
    /// Path of the mapped file.
    pub path: String,
}

/// Parses a copy of `/proc/<pid>/maps`, keeping file-backed mappings.
/// Lines that do not parse are reported as `(line number, text)`.
pub fn parse_maps(text: &str) -> (Vec<Mapping>, Vec<(usize, String)>) {
    let mut maps = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut f = line.split_whitespace();
        let (Some(range), Some(_perms), Some(off), Some(_dev), Some(_inode)) =
            (f.next(), f.next(), f.next(), f.next(), f.next())
        else {
            if !line.trim().is_empty() {
                bad.push((i + 1, line.to_owned()));
            }
            continue;
        };
        let path: String = f.collect::<Vec<_>>().join(" ");
        let parsed = range.split_once('-').and_then(|(a, b)| {
            Some((
                u64::from_str_radix(a, 16).ok()?,
                u64::from_str_radix(b, 16).ok()?,
                u64::from_str_radix(off, 16).ok()?,
            ))
        });
        match parsed {
            Some((start, end, offset)) if path.starts_with('/') => maps.push(Mapping {
                start,
                end,
                offset,
                path,
            }),
            Some(_) => {}
            None => bad.push((i + 1, line.to_owned())),
        }
    }
    (maps, bad)
}

/// What is known about the function at an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionInfo {
    /// Readable (demangled) name, or `module+0xoffset` when unknown.
    pub name: String,
    /// Path of the module.
    pub module: Option<String>,
    /// Address in the module's own (link-time) address space.
    pub module_address: Option<u64>,
    /// Source file of the function.
    pub file: Option<String>,
    /// Source line of the function.
    pub line: Option<u32>,
}

struct Module {
    segments: Vec<(u64, u64, u64)>,
    symbols: Vec<(u64, String)>,
    lines: Option<addr2line::Loader>,
}

/// Caches loaded modules across processes of one recording.
#[derive(Default)]
pub struct Symbolizer {
    modules: HashMap<String, Option<Module>>,
}

impl Symbolizer {
    /// An empty cache.
    pub fn new() -> Symbolizer {
        Symbolizer::default()
    }

    /// Describes the function at runtime address `addr` of a process with these mappings.
    pub fn lookup(&mut self, maps: &[Mapping], addr: u64) -> FunctionInfo {
        let Some(m) = maps.iter().find(|m| m.start <= addr && addr < m.end) else {
            return FunctionInfo {
                name: format!("0x{addr:x}"),
                module: None,
                module_address: None,
                file: None,
                line: None,
            };
        };
        let file_off = addr - m.start + m.offset;
        let module = self
            .modules
            .entry(m.path.clone())
            .or_insert_with(|| load_module(&m.path));
        let base = m.path.rsplit('/').next().unwrap_or(&m.path).to_owned();
        let unknown = FunctionInfo {
            name: format!("{base}+0x{file_off:x}"),
            module: Some(m.path.clone()),
            module_address: None,
            file: None,
            line: None,
        };
        let Some(module) = module else { return unknown };
        let Some(&(seg_off, _, seg_addr)) = module
            .segments
            .iter()
            .find(|(o, size, _)| *o <= file_off && file_off < o + size)
        else {
            return unknown;
        };
        let svma = file_off - seg_off + seg_addr;
        let i = module.symbols.partition_point(|(a, _)| *a <= svma);
        let name = if i > 0 {
            module.symbols[i - 1].1.clone()
        } else {
            format!("{base}+0x{svma:x}")
        };
        let (file, line) = module
            .lines
            .as_ref()
            .and_then(|c| c.find_location(svma).ok().flatten())
            .map(|l| (l.file.map(str::to_owned), l.line))
            .unwrap_or((None, None));
        FunctionInfo {
            name,
            module: Some(m.path.clone()),
            module_address: Some(svma),
            file,
            line,
        }
    }
}

fn load_module(path: &str) -> Option<Module> {
    // A mapped "file" may be a device (`/dev/zero` maps anonymous shared
    // memory): only regular files are read.
    let data = tracekit_safeio::read_bytes(std::path::Path::new(path)).ok()?;
    let file = object::File::parse(&*data).ok()?;
    let segments = file
        .segments()
        .map(|s| {
            let (o, size) = s.file_range();
            (o, size, s.address())
        })
        .collect();
    let symbols = function_symbols(&file);
    let lines = addr2line::Loader::new(path).ok();
    Some(Module {
        segments,
        symbols,
        lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_maps() {
        let text = "55d0c000-55d0d000 r-xp 00001000 08:01 123 /usr/bin/prog\n7ffd000-7ffe000 rw-p 00000000 00:00 0 [stack]\ngarbage\n";
        let (m, bad) = parse_maps(text);
        assert_eq!(
            m,
            vec![Mapping {
                start: 0x55d0c000,
                end: 0x55d0d000,
                offset: 0x1000,
                path: "/usr/bin/prog".into()
            }]
        );
        assert_eq!(bad, vec![(3, "garbage".into())]);
    }

    #[test]
    fn unknown_address_is_hex() {
        let mut s = Symbolizer::new();
        assert_eq!(s.lookup(&[], 0x10).name, "0x10");
    }

    #[test]
    fn symbolizes_own_test_binary() {
        // Our own executable is mapped from its file: look up this function.
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        let (m, _) = parse_maps(&maps);
        let addr = symbolizes_own_test_binary as *const () as u64;
        let info = Symbolizer::new().lookup(&m, addr);
        assert!(info.name.ends_with("symbolizes_own_test_binary"), "{}", info.name);
        // DWARF gives the source file and line of the function.
        assert!(
            info.file.as_deref().is_some_and(|f| f.ends_with("symbolize.rs")),
            "{info:?}"
        );
        assert!(info.line.is_some_and(|l| l > 100), "{info:?}");
    }
}
