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

/// The snapshots of one process image's map, in the order taken (a maps
/// file: see `tracekit_rt_format::names::MAPS_SNAPSHOT_LINE`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MapsHistory {
    /// (raw clock when taken, mappings).
    pub snapshots: Vec<(u64, Vec<Mapping>)>,
}

impl MapsHistory {
    /// Parses a maps file: snapshots each introduced by the snapshot line,
    /// or one snapshot (clock 0) when there is none (older runtimes). A last
    /// line without its newline (a snapshot cut by a crash) is ignored;
    /// other lines that do not parse are reported as `(line, text)`.
    pub fn parse(text: &str) -> (MapsHistory, Vec<(usize, String)>) {
        let complete = match text.rfind('\n') {
            Some(i) => &text[..=i],
            None => "",
        };
        let mut h = MapsHistory::default();
        let mut bad = Vec::new();
        let mut current: Option<(u64, String)> = None;
        let mut first_line = 1;
        let flush = |cur: Option<(u64, String)>, first: usize, h: &mut MapsHistory, bad: &mut Vec<(usize, String)>| {
            if let Some((clock, body)) = cur {
                let (m, b) = parse_maps(&body);
                bad.extend(b.into_iter().map(|(l, t)| (l + first - 1, t)));
                h.snapshots.push((clock, m));
            }
        };
        for (i, line) in complete.lines().enumerate() {
            if let Some(rest) = line.strip_prefix(tracekit_rt_format::names::MAPS_SNAPSHOT_LINE) {
                flush(current.take(), first_line, &mut h, &mut bad);
                match rest.trim().parse::<u64>() {
                    Ok(c) => current = Some((c, String::new())),
                    Err(_) => bad.push((i + 1, line.to_owned())),
                }
                first_line = i + 2;
                continue;
            }
            let body = current.get_or_insert_with(|| (0, String::new()));
            body.1.push_str(line);
            body.1.push('\n');
        }
        flush(current, first_line, &mut h, &mut bad);
        (h, bad)
    }

    /// A history of one snapshot.
    pub fn single(maps: Vec<Mapping>) -> MapsHistory {
        MapsHistory {
            snapshots: vec![(0, maps)],
        }
    }

    /// The mapping that held `addr` at raw clock `clock`: the last snapshot
    /// taken at or before `clock` when it maps `addr`, else the first one
    /// after, else the nearest snapshot in time that maps it. (A library's
    /// constructors run before the snapshot after `dlopen`, its destructors
    /// after the one before `dlclose`; the one after `dlclose` no longer
    /// maps it.)
    pub fn at(&self, addr: u64, clock: u64) -> Option<&Mapping> {
        let find = |i: usize| self.snapshots[i].1.iter().find(|m| m.start <= addr && addr < m.end);
        let n = self.snapshots.len();
        if n == 0 {
            return None;
        }
        let after = self.snapshots.partition_point(|(c, _)| *c <= clock);
        let (mut lo, mut hi) = (after.checked_sub(1), after);
        if let Some(m) = lo.and_then(find) {
            return Some(m);
        }
        if hi < n {
            if let Some(m) = find(hi) {
                return Some(m);
            }
        }
        loop {
            lo = lo.and_then(|l| l.checked_sub(1));
            hi += 1;
            if lo.is_none() && hi >= n {
                return None;
            }
            if let Some(m) = lo.and_then(find) {
                return Some(m);
            }
            if hi < n {
                if let Some(m) = find(hi) {
                    return Some(m);
                }
            }
        }
    }

    /// Whether the function at `addr`, seen at `clock`, depends on the time:
    /// it is mapped then, but not by the same mapping in every snapshot (a
    /// library unloaded and another loaded in its place).
    pub fn depends_on_time(&self, addr: u64, clock: u64) -> bool {
        self.unique(addr).is_none() && self.at(addr, clock).is_some()
    }

    /// The mapping of `addr` when every snapshot that maps it agrees (so the
    /// time of the event does not matter), `None` otherwise.
    pub fn unique(&self, addr: u64) -> Option<&Mapping> {
        let mut found: Option<&Mapping> = None;
        for (_, maps) in &self.snapshots {
            if let Some(m) = maps.iter().find(|m| m.start <= addr && addr < m.end) {
                match found {
                    Some(f) if f != m => return None,
                    _ => found = Some(m),
                }
            }
        }
        found
    }

    /// The first snapshot's path of the main program (its first mapping).
    pub fn program_path(&self) -> Option<&str> {
        self.snapshots.first()?.1.first().map(|m| m.path.as_str())
    }
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
        let m = maps.iter().find(|m| m.start <= addr && addr < m.end);
        self.lookup_in(m, addr)
    }

    /// Describes the function at runtime address `addr`, which `mapping`
    /// (when known) maps.
    pub fn lookup_in(&mut self, mapping: Option<&Mapping>, addr: u64) -> FunctionInfo {
        let Some(m) = mapping else {
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
    fn maps_history_answers_by_time() {
        let text = "# tracekit maps clock 10\n\
            1000-2000 r-xp 00000000 08:01 1 /bin/prog\n\
            # tracekit maps clock 20\n\
            1000-2000 r-xp 00000000 08:01 1 /bin/prog\n\
            5000-6000 r-xp 00000000 08:01 2 /lib/a.so\n\
            # tracekit maps clock 30\n\
            1000-2000 r-xp 00000000 08:01 1 /bin/prog\n\
            # tracekit maps clock 40\n\
            1000-2000 r-xp 00000000 08:01 1 /bin/prog\n\
            5000-6000 r-xp 00000000 08:01 3 /lib/b.so\n\
            # tracekit maps clock 50\n\
            5000-600";
        let (h, bad) = MapsHistory::parse(text);
        assert!(bad.is_empty(), "{bad:?}");
        assert_eq!(h.snapshots.len(), 5, "the cut last line is ignored");
        let lib = |c| h.at(0x5100, c).map(|m| m.path.as_str());
        assert_eq!(
            lib(15),
            Some("/lib/a.so"),
            "constructor before the snapshot after dlopen"
        );
        assert_eq!(lib(25), Some("/lib/a.so"));
        assert_eq!(lib(35), Some("/lib/b.so"), "the next library's constructor");
        assert_eq!(lib(45), Some("/lib/b.so"));
        assert_eq!(lib(5), Some("/lib/a.so"));
        assert_eq!(h.unique(0x5100), None);
        assert_eq!(h.unique(0x1100).map(|m| m.path.as_str()), Some("/bin/prog"));
        // A file from an older runtime is one snapshot.
        let (old, bad) = MapsHistory::parse("1000-2000 r-xp 00000000 08:01 1 /bin/prog\n");
        assert!(bad.is_empty());
        assert_eq!(old.snapshots.len(), 1);
        assert_eq!(old.at(0x1000, 99).map(|m| m.path.as_str()), Some("/bin/prog"));
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
