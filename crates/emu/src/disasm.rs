//! Disassembly of the instructions the plugin logged without text.
//!
//! QEMU 7.2 disassembles ARM, AArch64 and x86 guests with capstone (the
//! system's `libcapstone.so.4`, a dependency of Debian's qemu-user) and
//! prints `"<mnemonic> <operands>"`. Doing that inside the plugin cost more
//! than anything else it did, because QEMU opens a capstone handle per
//! instruction; so the plugin only logs bytes and this module runs the very
//! same library here, once per run, with QEMU's settings: ARM or Thumb mode
//! from the block (`CS_MODE_ARM`/`CS_MODE_THUMB`), AArch64, x86-64 in AT&T
//! syntax. The text is then QEMU's own, character for character
//! (`crates/cli/tests/emu_jvm.rs` compares the two on every instruction of a
//! JVM run logged with `disas=all`).
//!
//! capstone is BSD-licensed; it is loaded with `dlopen` and its few entry
//! points are declared here by hand from its documented API (capstone 4's
//! `cs_insn` layout), so nothing is needed at build time.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Arc;

use crate::capture::{Block, Insn, IsaMode};
use crate::error::{EmuError, Result};

const CS_ARCH_ARM: c_int = 0;
const CS_ARCH_ARM64: c_int = 1;
const CS_ARCH_X86: c_int = 3;
const CS_MODE_ARM: c_int = 0;
const CS_MODE_THUMB: c_int = 1 << 4;
const CS_MODE_64: c_int = 1 << 3;
const CS_OPT_SYNTAX: c_int = 1;
const CS_OPT_SYNTAX_ATT: usize = 2;
const CS_OPT_SKIPDATA: c_int = 5;
const CS_OPT_ON: usize = 3;

/// capstone 4's `cs_insn` (the fields up to the text).
#[repr(C)]
struct CsInsn {
    id: u32,
    address: u64,
    size: u16,
    bytes: [u8; 16],
    mnemonic: [c_char; 32],
    op_str: [c_char; 160],
    detail: *mut c_void,
}

type CsOpen = unsafe extern "C" fn(c_int, c_int, *mut usize) -> c_int;
type CsOption = unsafe extern "C" fn(usize, c_int, usize) -> c_int;
type CsDisasm = unsafe extern "C" fn(usize, *const u8, usize, u64, usize, *mut *mut CsInsn) -> usize;
type CsFree = unsafe extern "C" fn(*mut CsInsn, usize);
type CsClose = unsafe extern "C" fn(*mut usize) -> c_int;
type CsVersion = unsafe extern "C" fn(*mut c_int, *mut c_int) -> u32;

struct Api {
    open: CsOpen,
    option: CsOption,
    disasm: CsDisasm,
    free: CsFree,
    close: CsClose,
}

fn load_api() -> Result<Api> {
    let missing = |what: &str| {
        EmuError::Invalid(format!(
            "cannot disassemble the logged instructions: {what} (libcapstone4, installed with qemu-user)"
        ))
    };
    // SAFETY: dlopen/dlsym with NUL-terminated names; symbols are checked
    // for null and cast to their documented signatures.
    unsafe {
        let lib = libc::dlopen(c"libcapstone.so.4".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if lib.is_null() {
            return Err(missing("libcapstone.so.4 not found"));
        }
        let sym = |name: &CStr| {
            let p = libc::dlsym(lib, name.as_ptr());
            if p.is_null() {
                Err(missing(&format!(
                    "{} missing from libcapstone.so.4",
                    name.to_string_lossy()
                )))
            } else {
                Ok(p)
            }
        };
        let version: CsVersion = std::mem::transmute(sym(c"cs_version")?);
        let (mut major, mut minor) = (0, 0);
        version(&mut major, &mut minor);
        if major != 4 {
            return Err(missing(&format!("libcapstone.so.4 reports version {major}.{minor}")));
        }
        Ok(Api {
            open: std::mem::transmute::<*mut c_void, CsOpen>(sym(c"cs_open")?),
            option: std::mem::transmute::<*mut c_void, CsOption>(sym(c"cs_option")?),
            disasm: std::mem::transmute::<*mut c_void, CsDisasm>(sym(c"cs_disasm")?),
            free: std::mem::transmute::<*mut c_void, CsFree>(sym(c"cs_free")?),
            close: std::mem::transmute::<*mut c_void, CsClose>(sym(c"cs_close")?),
        })
    }
}

/// An open capstone handle for one (architecture, mode).
struct Handle<'a> {
    api: &'a Api,
    h: usize,
}

impl<'a> Handle<'a> {
    fn open(api: &'a Api, arch: c_int, mode: c_int, att: bool) -> Result<Self> {
        let mut h = 0usize;
        // SAFETY: documented capstone calls on a handle we own.
        unsafe {
            if (api.open)(arch, mode, &mut h) != 0 {
                return Err(EmuError::Invalid(format!(
                    "capstone cannot open arch {arch} mode {mode}"
                )));
            }
            (api.option)(h, CS_OPT_SKIPDATA, CS_OPT_ON);
            if att {
                (api.option)(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
            }
        }
        Ok(Self { api, h })
    }

    /// QEMU's text for one instruction: `"<mnemonic> <operands>"`, trimmed.
    fn text(&self, bytes: &[u8], addr: u64) -> String {
        let mut insn: *mut CsInsn = std::ptr::null_mut();
        // SAFETY: capstone reads `bytes` and allocates `insn`, freed below.
        unsafe {
            let n = (self.api.disasm)(self.h, bytes.as_ptr(), bytes.len(), addr, 1, &mut insn);
            if n == 0 || insn.is_null() {
                return String::from("?");
            }
            let m = CStr::from_ptr((*insn).mnemonic.as_ptr()).to_string_lossy();
            let o = CStr::from_ptr((*insn).op_str.as_ptr()).to_string_lossy();
            let text = format!("{m} {o}").trim().to_owned();
            (self.api.free)(insn, n);
            text
        }
    }
}

impl Drop for Handle<'_> {
    fn drop(&mut self) {
        // SAFETY: closing our own handle once.
        unsafe { (self.api.close)(&mut self.h) };
    }
}

/// capstone settings QEMU uses for a target and block mode; `None` when
/// QEMU does not disassemble that target with capstone.
fn settings(target: &str, mode: IsaMode) -> Option<(c_int, c_int, bool)> {
    match (target, mode) {
        ("aarch64", _) => Some((CS_ARCH_ARM64, CS_MODE_ARM, false)),
        ("x86_64", _) => Some((CS_ARCH_X86, CS_MODE_64, true)),
        ("arm", IsaMode::Arm) => Some((CS_ARCH_ARM, CS_MODE_ARM, false)),
        ("arm", IsaMode::Thumb) => Some((CS_ARCH_ARM, CS_MODE_THUMB, false)),
        _ => None,
    }
}

/// Fills in the text of every instruction logged without one, in place.
/// Blocks already complete are left alone (and capstone is not even loaded
/// when none is missing). Text that cannot depend on the address is
/// computed once per distinct encoding.
pub fn fill(target: &str, blocks: &mut [Arc<Block>]) -> Result<()> {
    if !blocks.iter().any(|b| b.needs_disassembly()) {
        return Ok(());
    }
    let api = load_api()?;
    let mut handles: HashMap<(c_int, c_int, bool), Handle<'_>> = HashMap::new();
    let mut memo: HashMap<(IsaMode, Vec<u8>), String> = HashMap::new();
    for block in blocks.iter_mut() {
        if !block.needs_disassembly() {
            continue;
        }
        let Some(key) = settings(target, block.mode) else {
            return Err(EmuError::Invalid(format!(
                "block at {:#x} ({target}, {:?}) was logged without text and tracekit cannot disassemble it",
                block.vaddr, block.mode
            )));
        };
        if let std::collections::hash_map::Entry::Vacant(e) = handles.entry(key) {
            e.insert(Handle::open(&api, key.0, key.1, key.2)?);
        }
        let handle = &handles[&key];
        let b = Arc::make_mut(block);
        for Insn { vaddr, bytes, disas } in b.insns.iter_mut().filter(|i| i.disas.is_empty()) {
            let memo_key = (b.mode, bytes.clone());
            if let Some(t) = memo.get(&memo_key) {
                *disas = t.clone();
                continue;
            }
            let text = handle.text(bytes, *vaddr);
            // Address-free text (no number ≥ 0x1000) is shared by encoding.
            if tracekit_qemu_text_is_address_free(&text) {
                memo.insert(memo_key, text.clone());
            }
            *disas = text;
        }
    }
    Ok(())
}

/// The plugin's rule (`address_independent`): a text holding no number of
/// 0x1000 or more cannot depend on the instruction's address.
fn tracekit_qemu_text_is_address_free(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            if bytes[i] == b'0' && bytes.get(i + 1).is_some_and(|&c| c == b'x' || c == b'X') {
                i += 2;
            }
            let digits = i;
            while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                i += 1;
            }
            let run = if digits > start {
                &text[digits..i]
            } else {
                &text[start..i]
            };
            if !matches!(u64::from_str_radix(run, 16), Ok(v) if v < 0x1000) {
                return false;
            }
        } else {
            i += 1;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(mode: IsaMode, insns: &[(u64, &[u8])]) -> Arc<Block> {
        Arc::new(Block {
            slot: 1,
            vaddr: insns[0].0,
            mode,
            insns: insns
                .iter()
                .map(|(a, b)| Insn {
                    vaddr: *a,
                    bytes: b.to_vec(),
                    disas: String::new(),
                })
                .collect(),
            mapping: None,
        })
    }

    #[test]
    fn fills_qemu_style_text_per_target_and_mode() {
        let mut blocks = vec![block(
            IsaMode::Single,
            &[(0x1000, &[0x20, 0x00, 0x80, 0x52]), (0x1004, &[0xff, 0xff, 0xff, 0x17])],
        )];
        fill("aarch64", &mut blocks).unwrap();
        assert_eq!(blocks[0].insns[0].disas, "movz w0, #0x1");
        assert_eq!(blocks[0].insns[1].disas, "b #0x1000");
        let mut x86 = vec![block(IsaMode::Single, &[(0x401000, &[0xb8, 0x39, 0, 0, 0])])];
        fill("x86_64", &mut x86).unwrap();
        assert_eq!(x86[0].insns[0].disas, "movl $0x39, %eax");
        let mut thumb = vec![block(IsaMode::Thumb, &[(0x8000, &[0x01, 0x20])])];
        fill("arm", &mut thumb).unwrap();
        assert_eq!(thumb[0].insns[0].disas, "movs r0, #1");
    }

    #[test]
    fn an_undecided_or_unknown_mode_is_an_error_not_a_guess() {
        let mut b = vec![block(IsaMode::Unknown, &[(0x8000, &[0, 0, 0, 0xe8])])];
        assert!(fill("arm", &mut b).is_err());
        let mut m = vec![block(IsaMode::Single, &[(0x400000, &[0, 0, 0, 0])])];
        assert!(fill("mipsel", &mut m)
            .unwrap_err()
            .to_string()
            .contains("cannot disassemble"));
    }

    #[test]
    fn address_free_texts_are_recognised() {
        assert!(tracekit_qemu_text_is_address_free("movs r0, #1"));
        assert!(!tracekit_qemu_text_is_address_free("b #0x1000"));
        assert!(!tracekit_qemu_text_is_address_free("bl 4096"));
    }
}
