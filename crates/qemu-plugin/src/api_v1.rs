//! QEMU TCG plugin API, version 1 (QEMU 6.0 – 8.x; Debian bookworm ships 7.2).
//!
//! These are our own Rust declarations of the handful of C entry points and
//! types the recorder needs, written from the documented API (names,
//! argument and return types, enum values). QEMU's `qemu-plugin.h` is
//! GPL-licensed and is deliberately *not* copied, translated wholesale or
//! generated from here: only the facts needed to call the functions are
//! restated, which keeps this crate MIT OR Apache-2.0.
//!
//! Everything that depends on the API version lives in this module and in
//! [`crate::install_v1`]. Version 2 (QEMU 9.0+) replaced the `*_exec_inline`
//! calls by per-vCPU scoreboards; supporting it means adding an `api_v2`
//! module with those declarations and a second install path that feeds the
//! same [`crate::recorder::Recorder`].

#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_uint, c_void};

/// The API version this module speaks; exported as `qemu_plugin_version`.
pub const VERSION: c_int = 1;

/// Opaque plugin handle QEMU passes to the plugin.
pub type qemu_plugin_id_t = u64;

/// Opaque translation block handed to the translation callback.
#[repr(C)]
pub struct qemu_plugin_tb {
    _opaque: [u8; 0],
}

/// Opaque guest instruction inside a translation block.
#[repr(C)]
pub struct qemu_plugin_insn {
    _opaque: [u8; 0],
}

/// The leading part of `qemu_info_t`: the recorder reads only the target
/// name (e.g. `"arm"`, `"aarch64"`, `"mipsel"`, `"x86_64"`), which is the
/// first field; the rest of the struct is never touched.
#[repr(C)]
pub struct qemu_info_t {
    /// NUL-terminated name of the emulated target.
    pub target_name: *const c_char,
    /// Minimum API version QEMU supports.
    pub version_min: c_int,
    /// Current API version of QEMU.
    pub version_cur: c_int,
    /// True under system emulation, false under linux-user.
    pub system_emulation: bool,
}

/// `enum qemu_plugin_cb_flags`: the callback reads no guest registers.
pub const QEMU_PLUGIN_CB_NO_REGS: c_int = 0;
/// `enum qemu_plugin_op`: add an immediate to a 64-bit counter in memory.
pub const QEMU_PLUGIN_INLINE_ADD_U64: c_int = 0;

/// Translation callback type.
pub type tb_trans_cb = extern "C" fn(id: qemu_plugin_id_t, tb: *mut qemu_plugin_tb);
/// Execution callback type with user data.
pub type vcpu_udata_cb = extern "C" fn(vcpu_index: c_uint, userdata: *mut c_void);
/// At-exit callback type with user data.
pub type udata_cb = extern "C" fn(id: qemu_plugin_id_t, userdata: *mut c_void);

extern "C" {
    /// Calls `cb` for every translation block QEMU translates.
    pub fn qemu_plugin_register_vcpu_tb_trans_cb(id: qemu_plugin_id_t, cb: tb_trans_cb);
    /// Adds `imm` to the `u64` at `ptr` each time `tb` starts executing
    /// (generated code, no call; not atomic across vCPUs).
    pub fn qemu_plugin_register_vcpu_tb_exec_inline(tb: *mut qemu_plugin_tb, op: c_int, ptr: *mut c_void, imm: u64);
    /// Calls `cb(vcpu, userdata)` each time `insn` executes.
    pub fn qemu_plugin_register_vcpu_insn_exec_cb(
        insn: *mut qemu_plugin_insn,
        cb: vcpu_udata_cb,
        flags: c_int,
        userdata: *mut c_void,
    );
    /// Calls `cb` when the emulated program exits normally.
    pub fn qemu_plugin_register_atexit_cb(id: qemu_plugin_id_t, cb: udata_cb, userdata: *mut c_void);
    /// Number of guest instructions in a block.
    pub fn qemu_plugin_tb_n_insns(tb: *const qemu_plugin_tb) -> usize;
    /// Guest virtual address of a block's first instruction.
    pub fn qemu_plugin_tb_vaddr(tb: *const qemu_plugin_tb) -> u64;
    /// The `idx`-th instruction of a block.
    pub fn qemu_plugin_tb_get_insn(tb: *const qemu_plugin_tb, idx: usize) -> *mut qemu_plugin_insn;
    /// The instruction's encoded bytes (valid during the callback).
    pub fn qemu_plugin_insn_data(insn: *const qemu_plugin_insn) -> *const c_void;
    /// Length of the encoded instruction in bytes.
    pub fn qemu_plugin_insn_size(insn: *const qemu_plugin_insn) -> usize;
    /// Guest virtual address of the instruction.
    pub fn qemu_plugin_insn_vaddr(insn: *const qemu_plugin_insn) -> u64;
    /// Host address of the instruction's bytes; in user mode guest memory
    /// is host memory at a fixed offset (`guest_base`), so `haddr - vaddr`
    /// is that offset. May be null when the code is not in RAM.
    pub fn qemu_plugin_insn_haddr(insn: *const qemu_plugin_insn) -> *mut c_void;
    /// QEMU's disassembly of the instruction, allocated by glib; free it
    /// with [`g_free`].
    pub fn qemu_plugin_insn_disas(insn: *const qemu_plugin_insn) -> *mut c_char;
    /// Writes a message to QEMU's log (standard error by default).
    pub fn qemu_plugin_outs(string: *const c_char);
    /// glib's deallocator (glib is always loaded in a QEMU process).
    pub fn g_free(mem: *mut c_void);
}
