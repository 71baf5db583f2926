//! A QEMU TCG plugin, written in Rust, that profiles executed instructions
//! of a Linux program run under QEMU's user-mode emulator (`qemu-arm`,
//! `qemu-mipsel`, `qemu-aarch64`, `qemu-x86_64`, …).
//!
//! For every translation block the plugin assigns a counter slot and logs
//! the block's instructions once (address, bytes, the ARM/Thumb mode on
//! 32-bit ARM, and QEMU's disassembly where the analysis cannot redo it),
//! plus snapshots of the guest's memory map so every block can be placed in
//! a library, a program or anonymous (JIT) memory. Executions are counted **exactly**
//! per process and per block with one inline add per block execution, so
//! QEMU's block chaining stays on. Counters live in a memory-mapped file per
//! process, so counts survive any way the process ends; a forked child gets
//! fresh counters keyed by its own pid. See [`recorder`] for the file
//! layout; `tracekit-emu` reads it.
//!
//! ```text
//! qemu-arm -plugin target/release/libtracekit_qemu_plugin.so,out=DIR,mode=tb ./prog
//! ```
//! `mode=insn` counts with one callback per executed instruction instead: a
//! slow but independent reference for the block counts.
//!
//! Licensing: only [`api_v1`] knows QEMU's plugin ABI, declared by hand from
//! the documented API; no QEMU (GPL) source is part of this crate.

pub mod api_v1;
pub mod block_record;
pub mod block_table;
pub mod maps;
pub mod options;
pub mod recorder;
pub mod store;

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use recorder::{CountMode, InsnBytes, Options, Recorder};

static RECORDER: Mutex<Option<Recorder>> = Mutex::new(None);

fn with_recorder<R>(f: impl FnOnce(&mut Recorder) -> R) -> Option<R> {
    let mut guard = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    guard.as_mut().map(f)
}

fn say(msg: &str) {
    let text = CString::new(format!("tracekit-qemu-plugin: {msg}\n").replace('\0', " ")).expect("NULs removed");
    // SAFETY: valid NUL-terminated string; QEMU copies it.
    unsafe { api_v1::qemu_plugin_outs(text.as_ptr()) };
}

/// Runs a callback body, turning a panic into a message and an abort:
/// unwinding into QEMU's C frames is undefined behaviour.
fn guarded(what: &str, f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        say(&format!("panic in {what}; aborting"));
        std::process::abort();
    }
}

/// API version this build speaks (read by QEMU before installing).
#[no_mangle]
pub static qemu_plugin_version: c_int = api_v1::VERSION;

/// Entry point QEMU calls once after loading the plugin (API v1).
///
/// # Safety
/// Called by QEMU with a valid `info` and `argc` valid C strings in `argv`.
#[no_mangle]
pub unsafe extern "C" fn qemu_plugin_install(
    id: api_v1::qemu_plugin_id_t,
    info: *const api_v1::qemu_info_t,
    argc: c_int,
    argv: *const *const c_char,
) -> c_int {
    let mut result = -1;
    guarded("install", || {
        // SAFETY: QEMU's contract for install.
        let (target, args) = unsafe {
            let target = CStr::from_ptr((*info).target_name).to_string_lossy().into_owned();
            let args: Vec<String> = (0..argc.max(0) as usize)
                .map(|i| CStr::from_ptr(*argv.add(i)).to_string_lossy().into_owned())
                .collect();
            (target, args)
        };
        match install_v1(id, &target, &args) {
            Ok(()) => result = 0,
            Err(e) => say(&e),
        }
    });
    result
}

fn install_v1(id: api_v1::qemu_plugin_id_t, target: &str, args: &[String]) -> Result<(), String> {
    let opts = Options::parse(args)?;
    let out = opts.out.display().to_string();
    let rec = Recorder::start(opts, target).map_err(|e| format!("cannot write to {out}: {e}"))?;
    *RECORDER.lock().unwrap_or_else(|e| e.into_inner()) = Some(rec);
    // SAFETY: registering callbacks with the handle QEMU gave us.
    unsafe {
        api_v1::qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
        api_v1::qemu_plugin_register_atexit_cb(id, on_exit, std::ptr::null_mut());
        // linux-user runs a guest fork() as a real fork of QEMU; the child
        // handler switches the copy of our state to the child's pid.
        libc::pthread_atfork(None, None, Some(on_fork_child));
    }
    Ok(())
}

extern "C" fn on_translate(_id: api_v1::qemu_plugin_id_t, tb: *mut api_v1::qemu_plugin_tb) {
    guarded("translation callback", || {
        // SAFETY: `tb` and its instructions are valid during this callback.
        unsafe { translate(tb) }
    });
}

unsafe fn translate(tb: *mut api_v1::qemu_plugin_tb) {
    let n = api_v1::qemu_plugin_tb_n_insns(tb);
    let handles: Vec<*mut api_v1::qemu_plugin_insn> = (0..n).map(|i| api_v1::qemu_plugin_tb_get_insn(tb, i)).collect();
    let insns: Vec<InsnBytes<'_>> = handles
        .iter()
        .map(|&h| InsnBytes {
            vaddr: api_v1::qemu_plugin_insn_vaddr(h),
            bytes: std::slice::from_raw_parts(
                api_v1::qemu_plugin_insn_data(h).cast::<u8>(),
                api_v1::qemu_plugin_insn_size(h),
            ),
        })
        .collect();
    let vaddr = api_v1::qemu_plugin_tb_vaddr(tb);
    // In user mode guest memory is host memory at a fixed offset.
    let guest_base = handles.first().and_then(|&h| {
        let host = api_v1::qemu_plugin_insn_haddr(h) as u64;
        (host != 0).then(|| host.wrapping_sub(api_v1::qemu_plugin_insn_vaddr(h)))
    });
    let disassemble = |i: usize| {
        let p = api_v1::qemu_plugin_insn_disas(handles[i]);
        if p.is_null() {
            return String::from("?");
        }
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        api_v1::g_free(p.cast());
        s
    };
    let placed = with_recorder(|rec| {
        let placement = match rec.translate(vaddr, &insns, guest_base, disassemble) {
            Ok(p) => p,
            Err(e) => {
                say(&format!("cannot write the block log: {e}"));
                std::process::abort();
            }
        };
        (rec.mode(), placement, rec.slot_ptr(placement.slot))
    });
    let Some((mode, placement, counter)) = placed else {
        return;
    };
    match mode {
        CountMode::Block => {
            api_v1::qemu_plugin_register_vcpu_tb_exec_inline(tb, api_v1::QEMU_PLUGIN_INLINE_ADD_U64, counter.cast(), 1)
        }
        CountMode::Insn => {
            // Instruction i counts in the slot after the block's i-th; on
            // overflow every instruction counts in the sink (slot 0).
            for (i, &h) in handles.iter().enumerate().take(placement.insns) {
                let slot = if placement.overflow { counter } else { counter.add(i) };
                api_v1::qemu_plugin_register_vcpu_insn_exec_cb(
                    h,
                    on_insn_exec,
                    api_v1::QEMU_PLUGIN_CB_NO_REGS,
                    slot.cast(),
                );
            }
        }
    }
}

extern "C" fn on_insn_exec(_vcpu: c_uint, counter: *mut c_void) {
    // SAFETY: `counter` is an aligned slot of our live mapping.
    unsafe { AtomicU64::from_ptr(counter.cast()) }.fetch_add(1, Ordering::Relaxed);
}

extern "C" fn on_exit(_id: api_v1::qemu_plugin_id_t, _userdata: *mut c_void) {
    guarded("exit callback", || {
        if let Some(Err(e)) = with_recorder(|r| r.finish()) {
            say(&format!("cannot finish the output files: {e}"));
        }
    });
}

extern "C" fn on_fork_child() {
    guarded("fork handler", || {
        if let Some(Err(e)) = with_recorder(|r| r.after_fork_in_child()) {
            say(&format!("cannot open the child's output files: {e}"));
            std::process::abort();
        }
    });
}
