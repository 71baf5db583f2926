//! Selection of what is traced, decided before the run from
//! `TRACEKIT_FILTER`: a comma-separated list of
//! - `module:GLOB` — every function of the executable or shared object whose
//!   file name matches,
//! - `class:GLOB` — object, operation and proxy events of matching classes,
//! - `GLOB` — functions whose readable (demangled) name matches.
//!
//! With no function or module pattern every function is traced. A function's
//! verdict is computed once (from the ELF symbol table of its module) and
//! cached in a lock-free table, so an unselected function costs one load and
//! compare per hook.

use object::{Object, ObjectSegment};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use tracekit_rt_format::demangle::{function_symbols, glob_match};

/// True when functions are filtered (otherwise all are traced).
pub static FILTERING: AtomicBool = AtomicBool::new(false);

const SLOTS: usize = 1 << 14;
#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: AtomicU64 = AtomicU64::new(0);
static CACHE: [AtomicU64; SLOTS] = [EMPTY; SLOTS];

#[derive(Default)]
struct Patterns {
    modules: Vec<String>,
    names: Vec<String>,
    classes: Vec<String>,
}

static PATTERNS: OnceLock<Patterns> = OnceLock::new();
/// Per module path: its link-time base, then its functions by address.
type SymbolCache = HashMap<String, Vec<(u64, String)>>;
static SYMBOLS: Mutex<Option<SymbolCache>> = Mutex::new(None);

/// Parses the filter; call once before tracing starts.
pub fn init(filter: &str) {
    let mut p = Patterns::default();
    for item in filter.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if let Some(m) = item.strip_prefix("module:") {
            p.modules.push(m.to_owned());
        } else if let Some(c) = item.strip_prefix("class:") {
            p.classes.push(c.to_owned());
        } else {
            p.names.push(item.to_owned());
        }
    }
    FILTERING.store(!p.modules.is_empty() || !p.names.is_empty(), Ordering::Release);
    let _ = PATTERNS.set(p);
}

#[inline(always)]
fn slot(addr: u64) -> usize {
    ((addr ^ (addr >> 14)) as usize >> 2) & (SLOTS - 1)
}

/// Whether the function at `addr` is traced.
#[inline(always)]
pub fn function_selected(addr: u64) -> bool {
    cached_verdict(addr).unwrap_or_else(|| resolve(addr))
}

/// The cached verdict for the function at `addr`, if there is one.
#[inline(always)]
pub fn cached_verdict(addr: u64) -> Option<bool> {
    let e = CACHE[slot(addr)].load(Ordering::Relaxed);
    (e >> 1 == addr).then_some(e & 1 == 1)
}

#[cold]
fn resolve(addr: u64) -> bool {
    let verdict = decide(addr);
    CACHE[slot(addr)].store(addr << 1 | verdict as u64, Ordering::Relaxed);
    verdict
}

/// Whether events of objects of this class are traced.
pub fn class_selected(class: &str) -> bool {
    match PATTERNS.get() {
        Some(p) if !p.classes.is_empty() => p.classes.iter().any(|g| glob_match(g, class)),
        _ => true,
    }
}

fn decide(addr: u64) -> bool {
    let Some(p) = PATTERNS.get() else { return true };
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the loader's tables.
    if unsafe { libc::dladdr(addr as *const libc::c_void, &mut info) } == 0 || info.dli_fname.is_null() {
        return false;
    }
    // SAFETY: dladdr returned a NUL-terminated path.
    let path = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }
        .to_string_lossy()
        .into_owned();
    let base = std::path::Path::new(&path)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let exe_name = std::fs::read_link("/proc/self/exe")
        .ok()
        .and_then(|e| e.file_name().map(|s| s.to_string_lossy().into_owned()));
    let module_name = if base.is_empty() {
        exe_name.unwrap_or_default()
    } else {
        base
    };
    if p.modules.iter().any(|g| glob_match(g, &module_name)) {
        return true;
    }
    if p.names.is_empty() {
        return false;
    }
    let name = symbol_name(&path, info.dli_fbase as u64, addr).unwrap_or_default();
    p.names.iter().any(|g| glob_match(g, &name))
}

fn symbol_name(path: &str, load_base: u64, addr: u64) -> Option<String> {
    let mut guard = SYMBOLS.lock().ok()?;
    let table = guard.get_or_insert_with(HashMap::new);
    if !table.contains_key(path) {
        table.insert(path.to_owned(), load_symbols(path).unwrap_or_default());
    }
    let (first_vaddr, syms) = {
        let s = &table[path];
        (s.first().map(|x| x.0).unwrap_or(0), s)
    };
    // Entry 0 holds the module's first load address (its link-time base).
    let svma = addr.wrapping_sub(load_base).wrapping_add(first_vaddr);
    let syms = &syms[1..];
    let i = syms.partition_point(|(a, _)| *a <= svma);
    (i > 0).then(|| syms[i - 1].1.clone())
}

fn load_symbols(path: &str) -> Option<Vec<(u64, String)>> {
    let data = std::fs::read(path).or_else(|_| std::fs::read("/proc/self/exe")).ok()?;
    let file = object::File::parse(&*data).ok()?;
    let first = file.segments().map(|s| s.address()).min().unwrap_or(0) & !0xfff;
    let mut out = function_symbols(&file);
    out.insert(0, (first, String::new()));
    Some(out)
}
