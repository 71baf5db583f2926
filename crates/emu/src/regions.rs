//! Code regions: which part of a process a block belongs to — the VM
//! (`libjvm`), the interpreter, stubs or JIT-compiled methods in a JVM's
//! code cache, the C library, the JDK's own native libraries, the
//! application's native (JNI) libraries, other system libraries, or the
//! program itself — and names for blocks (ELF symbols of whatever file
//! holds the block, or the JVM's code map).
//!
//! A block's mapping comes from the plugin's memory-map snapshots (the
//! guest's map as the host sees it, see `tracekit-qemu-plugin`'s `maps`).
//! HotSpot's template interpreter is generated at start-up into the code
//! cache, like compiled methods, so the code cache is split with the JVM's
//! own code map (`perf-<pid>.map`, written at exit, see [`crate::perfmap`]).
//! A code-cache address that no blob holds any more (a method flushed
//! before exit) lies inside the span of the map and counts as JIT code;
//! without a map (the JVM was killed, or no JVM) anonymous code is
//! `generated` code.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::capture::{Block, IsaMode, Mapping, ProcessCapture};
use crate::perfmap::BlobKind;
use crate::symbols::SymbolTable;

/// Where a block's code lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Region {
    /// The program's own executable (for `java`, the launcher).
    Program,
    /// The JVM's shared library (`libjvm.so`): runtime, GC, compilers (and
    /// Zero's interpreter).
    Vm,
    /// HotSpot's template interpreter (code cache).
    Interpreter,
    /// Stubs, adapters and runtime routines (code cache).
    Stubs,
    /// JIT-compiled Java methods (code cache).
    Jit,
    /// Anonymous code with no code map to split it.
    Generated,
    /// The C library, math library and dynamic loader.
    Libc,
    /// The JDK's other native libraries (`libjava.so`, `libzip.so`, …).
    JdkNative,
    /// The application's own native libraries (JNI libraries), i.e. any
    /// other file outside the system and JDK directories.
    AppNative,
    /// Other system libraries (`/lib`, `/usr/lib`).
    System,
    /// Not inside any mapping the plugin saw (logs of format 1).
    Unmapped,
}

impl Region {
    /// Every region, in report order.
    pub const ALL: [Region; 11] = [
        Region::Program,
        Region::Vm,
        Region::Interpreter,
        Region::Stubs,
        Region::Jit,
        Region::Generated,
        Region::Libc,
        Region::JdkNative,
        Region::AppNative,
        Region::System,
        Region::Unmapped,
    ];

    /// The name used in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Region::Program => "program",
            Region::Vm => "vm",
            Region::Interpreter => "interpreter",
            Region::Stubs => "stubs",
            Region::Jit => "jit",
            Region::Generated => "generated",
            Region::Libc => "libc",
            Region::JdkNative => "jdk-native",
            Region::AppNative => "app-native",
            Region::System => "system",
            Region::Unmapped => "unmapped",
        }
    }

    /// A short description for text reports.
    pub fn describe(self) -> &'static str {
        match self {
            Region::Program => "the program's executable",
            Region::Vm => "VM (libjvm: runtime, GC, compilers)",
            Region::Interpreter => "interpreter (code cache)",
            Region::Stubs => "stubs and adapters (code cache)",
            Region::Jit => "JIT-compiled methods (code cache)",
            Region::Generated => "generated code (no code map)",
            Region::Libc => "C library and loader",
            Region::JdkNative => "JDK native libraries",
            Region::AppNative => "application native (JNI) libraries",
            Region::System => "other system libraries",
            Region::Unmapped => "outside the known memory map",
        }
    }
}

const JVM_LIBRARY: &str = "libjvm.so";

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn is_libc(name: &str) -> bool {
    [
        "libc.so",
        "libc-",
        "ld-linux",
        "ld.so",
        "ld64.so",
        "libm.so",
        "libm-",
        "libpthread",
        "libdl.so",
        "librt.so",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

fn is_system(path: &str) -> bool {
    [
        "/lib/",
        "/lib32/",
        "/lib64/",
        "/usr/lib/",
        "/usr/lib32/",
        "/usr/lib64/",
        "/usr/local/lib/",
    ]
    .iter()
    .any(|p| path.starts_with(p))
        || cross_library(path)
}

/// A library of a cross toolchain's guest root, `/usr/<triplet>/lib…/…`
/// (what QEMU's `-L` prefix maps the guest's `/lib` to).
fn cross_library(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/usr/") else {
        return false;
    };
    let Some((triplet, below)) = rest.split_once('/') else {
        return false;
    };
    triplet.contains("-linux-") && below.starts_with("lib")
}

/// Classifies the blocks of one process.
pub struct Classifier<'a> {
    cap: &'a ProcessCapture,
    program: Option<PathBuf>,
    jdk_homes: Vec<String>,
}

impl<'a> Classifier<'a> {
    /// A classifier for `cap`, whose program is `program` (canonical path).
    pub fn new(cap: &'a ProcessCapture, program: Option<&Path>) -> Self {
        let mut jdk_homes: Vec<String> = Vec::new();
        for b in &cap.blocks {
            if let Some(m) = &b.mapping {
                if basename(&m.path) == JVM_LIBRARY {
                    // <home>/lib/<variant>/libjvm.so
                    let home = Path::new(&m.path).ancestors().nth(3).map(|p| p.display().to_string());
                    if let Some(h) = home.filter(|h| !jdk_homes.contains(h)) {
                        jdk_homes.push(h);
                    }
                }
            }
        }
        Self {
            cap,
            program: program.map(Path::to_path_buf),
            jdk_homes,
        }
    }

    /// The region of a block.
    pub fn region(&self, block: &Block) -> Region {
        let Some(m) = &block.mapping else {
            return Region::Unmapped;
        };
        if m.anonymous() {
            return match &self.cap.perfmap {
                None => Region::Generated,
                Some(map) => match map.blob_at(block.vaddr) {
                    Some(b) => match b.kind {
                        BlobKind::Interpreter => Region::Interpreter,
                        BlobKind::Stub => Region::Stubs,
                        BlobKind::Method => Region::Jit,
                    },
                    None => match map.span() {
                        Some((lo, hi)) if block.vaddr >= lo && block.vaddr < hi => Region::Jit,
                        _ => Region::Generated,
                    },
                },
            };
        }
        let name = basename(&m.path);
        if self.program.as_deref().is_some_and(|p| Path::new(&m.path) == p) {
            Region::Program
        } else if name == JVM_LIBRARY {
            Region::Vm
        } else if is_libc(name) {
            Region::Libc
        } else if self
            .jdk_homes
            .iter()
            .any(|h| m.path.starts_with(h.as_str()) && m.path[h.len()..].starts_with('/'))
        {
            Region::JdkNative
        } else if is_system(&m.path) || m.path.starts_with('[') {
            Region::System // [vdso] and the like too
        } else {
            Region::AppNative
        }
    }
}

/// Names blocks: the JVM's code map for code-cache blocks, else the ELF
/// symbols of the file holding the block (loaded once per file), else —
/// for logs without memory maps — the program's symbols at the address.
pub struct Namer {
    program: Option<PathBuf>,
    tables: RefCell<HashMap<String, Option<Arc<SymbolTable>>>>,
}

impl Namer {
    /// A namer whose fallback is `program`'s symbol table.
    pub fn new(program: Option<&Path>) -> Namer {
        Namer {
            program: program.map(Path::to_path_buf),
            tables: RefCell::new(HashMap::new()),
        }
    }

    fn table(&self, path: &str) -> Option<Arc<SymbolTable>> {
        self.tables
            .borrow_mut()
            .entry(path.to_owned())
            .or_insert_with(|| SymbolTable::load(Path::new(path)).ok().map(Arc::new))
            .clone()
    }

    fn locate(&self, block_vaddr: u64, m: Option<&Arc<Mapping>>) -> Option<(Arc<SymbolTable>, u64)> {
        match m {
            Some(m) if !m.anonymous() && !m.path.starts_with('[') => {
                let table = self.table(&m.path)?;
                let addr = table.address_of_offset(block_vaddr - m.start + m.offset)?;
                Some((table, addr))
            }
            Some(_) => None,
            None => {
                let program = self.program.as_ref()?.display().to_string();
                Some((self.table(&program)?, block_vaddr))
            }
        }
    }

    /// `function+0xoffset` (with the file's name when it is not the
    /// program), or the code blob's name for code-cache blocks.
    pub fn describe(&self, cap: &ProcessCapture, block: &Block) -> Option<String> {
        if block.mapping.as_ref().is_some_and(|m| m.anonymous()) {
            let blob = cap.perfmap.as_ref()?.blob_at(block.vaddr)?;
            let off = block.vaddr - blob.start;
            return Some(if off == 0 {
                blob.name.clone()
            } else {
                format!("{}+0x{off:x}", blob.name)
            });
        }
        let (table, addr) = self.locate(block.vaddr, block.mapping.as_ref())?;
        let name = table.describe(addr)?;
        match &block.mapping {
            Some(m) if self.program.as_deref() != Some(Path::new(&m.path)) => {
                Some(format!("{name} [{}]", basename(&m.path)))
            }
            _ => Some(name),
        }
    }

    /// ARM/Thumb mode of an undecided block from its file's mapping symbols.
    pub fn mode_at(&self, block: &Block) -> Option<IsaMode> {
        let (table, addr) = self.locate(block.vaddr, block.mapping.as_ref())?;
        table.mode_at(addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{parse_log, ProcessCapture};
    use crate::perfmap::PerfMap;

    const LOG: &str = "tracekit-emu-blocks 2\nP 5 0 1 aarch64 tb\nS 6\n\
        M 400000 401000 r--p 0 /opt/app/bin/main\n\
        M 10000000 10100000 r--p 0 /usr/lib/jvm/java-17-openjdk-arm64/lib/server/libjvm.so\n\
        M 10200000 10300000 r--p 0 /usr/lib/jvm/java-17-openjdk-arm64/lib/libjava.so\n\
        M 10400000 10500000 r--p 0 /usr/lib/aarch64-linux-gnu/libc.so.6\n\
        M 10600000 10700000 r--p 0 /tmp/w/libtkkernels.so\n\
        M 20000000 30000000 rw-p 0 \n\
        B 1 400000 1 -\nI 400000 1f2003d5\n\
        B 2 10000000 1 -\nI 10000000 1f2003d5\n\
        B 3 10200000 1 -\nI 10200000 1f2003d5\n\
        B 4 10400000 1 -\nI 10400000 1f2003d5\n\
        B 5 10600000 1 -\nI 10600000 1f2003d5\n\
        B 6 20000000 1 -\nI 20000000 1f2003d5\n\
        B 7 20001000 1 -\nI 20001000 1f2003d5\n\
        B 8 20002000 1 -\nI 20002000 1f2003d5\n\
        B 9 2fff0000 1 -\nI 2fff0000 1f2003d5\n\
        B 10 50000000 1 -\nI 50000000 1f2003d5\n";

    fn capture(perf: Option<&str>) -> ProcessCapture {
        let log = parse_log(Path::new("x"), LOG).unwrap();
        ProcessCapture {
            blocks: log.blocks.clone(),
            log,
            counts: vec![1; 11],
            perfmap: perf.map(|t| PerfMap::parse(Path::new("p"), t).unwrap()),
        }
    }

    #[test]
    fn blocks_are_placed_by_mapping_and_code_map() {
        let cap = capture(Some(
            "0x20000000 0x100 Interpreter\n0x20001000 0x100 I2C/C2I adapters\n0x20003000 0x100 int A.b(int)\n",
        ));
        let c = Classifier::new(&cap, Some(Path::new("/opt/app/bin/main")));
        let regions: Vec<Region> = cap.blocks.iter().map(|b| c.region(b)).collect();
        assert_eq!(
            regions,
            vec![
                Region::Program,
                Region::Vm,
                Region::JdkNative,
                Region::Libc,
                Region::AppNative,
                Region::Interpreter,
                Region::Stubs,
                Region::Jit,       // inside the map's span, blob flushed
                Region::Generated, // anonymous, outside the code map
                Region::Unmapped,
            ]
        );
        let no_map = capture(None);
        let c = Classifier::new(&no_map, None);
        assert_eq!(c.region(&no_map.blocks[5]), Region::Generated);
        let namer = Namer::new(None);
        assert_eq!(namer.describe(&cap, &cap.blocks[5]).as_deref(), Some("Interpreter"));
    }

    #[test]
    fn a_cross_toolchains_libraries_are_system_ones() {
        for p in [
            "/usr/arm-linux-gnueabihf/lib/libgcc_s.so.1",
            "/usr/mipsel-linux-gnu/lib/libstdc++.so.6",
            "/usr/lib/aarch64-linux-gnu/libz.so.1",
        ] {
            assert!(is_system(p), "{p}");
        }
        for p in [
            "/usr/arm-linux-gnueabihf/bin/x",
            "/usr/local/bin/libx.so",
            "/usr/share/lib/x.so",
            "/usr",
            "/opt/app/lib/libtkkernels.so",
        ] {
            assert!(!is_system(p), "{p}");
        }
    }
}
