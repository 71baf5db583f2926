//! The QEMU-independent part of the plugin: options, block identities, the
//! block log, per-process files and fork handling.
//!
//! Output, per process, in the `out=` directory:
//! - `pid-<pid>.blocks`: text, one record per line —
//!   `tracekit-emu-blocks 2` (magic), then
//!   `P <pid> <parent pid or 0> <inherited slots> <target> <tb|insn>`, then
//!   snapshots of the guest memory map (`S <entries>` followed by
//!   `M <start> <end> <perms> <offset> <path>` lines, see [`crate::maps`]),
//!   and for every block the first time it is translated
//!   `B <slot> <vaddr hex> <instruction count> <A|T|?|->` followed by one
//!   `I <vaddr hex> <bytes hex>[ <disassembly>]` line per instruction, and
//!   `X <slots used>` at normal exit. Until then the file may end in zero
//!   bytes (it is written through a growing mapping, [`MappedLog`]).
//! - `pid-<pid>.counts`: little-endian `u64` per slot (see [`crate::store`]).
//!
//! Disassembly is left to the analysis (`tracekit-emu` runs capstone, the
//! library QEMU 7.2 itself uses, with QEMU's options) for targets where that
//! gives QEMU's text exactly — AArch64, x86-64 and ARM/Thumb blocks whose
//! mode the bytes decide; QEMU's disassembler is asked only for the others
//! (MIPS, undecided ARM blocks) or for every instruction with `disas=all`.
//! QEMU 7.2 opens a capstone handle per call, which made disassembly the
//! plugin's largest cost on code-heavy guests such as a JVM.
//!
//! In `tb` mode a block owns one slot counting its executions. In `insn`
//! mode every instruction owns a slot (block slot + index) counted by a
//! per-instruction callback: an independent way to get the same numbers.
//! Slot 0 is the overflow sink, used only if the counts file fills up.
//!
//! A block's identity is its address **and its exact instruction bytes**
//! (with instruction lengths): a retranslation of identical code (after a
//! code-cache flush, or in a forked child) reuses the slot, while code
//! rewritten at the same address (a JIT reusing its code cache) gets a new
//! slot and a new log record, so the two are never confused.
//!
//! A forked child inherits its parent's slots `1..inherited`: their block
//! records are in the parent's (or an ancestor's) log; the child logs only
//! blocks it translates itself.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;

use rustc_hash::FxBuildHasher;

use crate::maps::{guest_limit, parse_host_maps, write_snapshot, Coverage};
use crate::store::{CounterStore, MappedLog, DEFAULT_CAPACITY};

/// How executions are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountMode {
    /// One inline add per translation block execution (fast, the default).
    Block,
    /// One callback per executed instruction (slow reference mode).
    Insn,
}

impl CountMode {
    fn name(self) -> &'static str {
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

/// One guest instruction as seen at translation time.
#[derive(Clone, Copy, Debug)]
pub struct InsnBytes<'a> {
    /// Guest virtual address.
    pub vaddr: u64,
    /// Encoded bytes.
    pub bytes: &'a [u8],
}

/// Where the plugin must point its instrumentation for a translated block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// First slot; in `insn` mode instruction `i` uses `slot + i` unless
    /// `overflow` is set, in which case every instruction uses slot 0.
    pub slot: u64,
    /// Instructions that really execute (and are logged): the block's
    /// instructions minus a trailing phantom, see [`is_phantom`].
    pub insns: usize,
    /// The counts file was full: executions go to the overflow sink.
    pub overflow: bool,
}

/// Per-process recording state.
pub struct Recorder {
    opts: Options,
    target: String,
    pid: u32,
    store: CounterStore,
    log: MappedLog,
    /// Block identity (address, then each instruction's length and bytes)
    /// → (slot, logged instructions). Keys are compared in full.
    known: HashMap<Box<[u8]>, (u64, usize), FxBuildHasher>,
    key: Vec<u8>,
    texts: HashMap<(char, Vec<u8>), String>,
    record: String,
    coverage: Option<Coverage>,
}

impl Recorder {
    /// Opens this process's files and writes the log header.
    pub fn start(opts: Options, target: &str) -> io::Result<Self> {
        let pid = std::process::id();
        let mut store = CounterStore::create(&counts_path(&opts, pid), opts.capacity)?;
        store.alloc(1).expect("capacity ≥ 2"); // slot 0: overflow sink
        let log = MappedLog::create(&blocks_path(&opts, pid))?;
        let mut rec = Self {
            opts,
            target: target.to_owned(),
            pid,
            store,
            log,
            known: HashMap::default(),
            key: Vec::new(),
            texts: HashMap::new(),
            record: String::new(),
            coverage: None,
        };
        rec.write_header(0, 1)?;
        Ok(rec)
    }

    /// Counting mode in force.
    pub fn mode(&self) -> CountMode {
        self.opts.mode
    }

    /// Pid whose files are being written.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    fn write_header(&mut self, parent: u32, inherited: u64) -> io::Result<()> {
        let text = format!(
            "tracekit-emu-blocks 2\nP {} {} {} {} {}\n",
            self.pid,
            parent,
            inherited,
            self.target,
            self.opts.mode.name()
        );
        self.log.append(text.as_bytes())
    }

    /// Logs a snapshot of the guest memory map when `vaddr` lies outside
    /// every readable mapping of the last one (or there is none yet).
    fn follow_maps(&mut self, vaddr: u64, guest_base: Option<u64>) -> io::Result<()> {
        let Some(base) = guest_base else { return Ok(()) };
        if self.coverage.as_ref().is_some_and(|c| c.covers(vaddr)) {
            return Ok(());
        }
        let Ok(text) = std::fs::read_to_string("/proc/self/maps") else {
            return Ok(());
        };
        let entries = parse_host_maps(&text, base, guest_limit(&self.target));
        self.record.clear();
        write_snapshot(&mut self.record, &entries);
        self.log.append(self.record.as_bytes())?;
        self.coverage = Some(Coverage::of(&entries));
        Ok(())
    }

    /// True when the analysis cannot reproduce QEMU's disassembly of a
    /// block in this mode, so the plugin must log QEMU's text.
    fn needs_text(&self, mode: char) -> bool {
        self.opts.disas == Disas::All
            || match self.target.as_str() {
                "aarch64" | "x86_64" => false,
                "arm" => mode == '?',
                _ => true,
            }
    }

    /// Called for every translation: returns where to count. A block seen
    /// before (same address, instruction lengths and bytes — QEMU
    /// retranslates after a code-cache flush) reuses its slot and is not
    /// logged again; code rewritten at the same address is a new block.
    /// `guest_base` (host − guest address) enables memory-map snapshots;
    /// `disassemble(i)` is only called for instructions whose text is logged.
    pub fn translate(
        &mut self,
        vaddr: u64,
        insns: &[InsnBytes<'_>],
        guest_base: Option<u64>,
        disassemble: impl Fn(usize) -> String,
    ) -> io::Result<Placement> {
        self.follow_pid()?;
        self.key.clear();
        self.key.extend_from_slice(&vaddr.to_le_bytes());
        for i in insns {
            self.key.push(i.bytes.len().min(255) as u8);
            self.key.extend_from_slice(i.bytes);
        }
        if let Some(&(slot, n)) = self.known.get(self.key.as_slice()) {
            return Ok(Placement {
                slot,
                insns: n,
                overflow: false,
            });
        }
        self.follow_maps(vaddr, guest_base)?;
        let mode = isa_mode(&self.target, insns);
        let with_text = self.needs_text(mode);
        let mut texts: Vec<Option<String>> = vec![None; insns.len()];
        if with_text {
            for (i, insn) in insns.iter().enumerate() {
                texts[i] = Some(self.text_of(mode, insn, || disassemble(i)));
            }
        }
        let mut n = insns.len();
        if phantom_candidate(&self.target, insns) {
            let last = texts[n - 1].take().unwrap_or_else(|| disassemble(n - 1));
            if is_phantom(&self.target, insns, &[String::new(), last.clone()]) {
                n -= 1;
            } else if with_text {
                texts[n - 1] = Some(last);
            }
        }
        let insns = &insns[..n];
        let width = match self.opts.mode {
            CountMode::Block => 1,
            CountMode::Insn => n.max(1) as u64,
        };
        let Some(slot) = self.store.alloc(width) else {
            return Ok(Placement {
                slot: 0,
                insns: n,
                overflow: true,
            });
        };
        self.known.insert(self.key.clone().into_boxed_slice(), (slot, n));
        let text = &mut self.record;
        text.clear();
        let _ = writeln!(text, "B {slot} {vaddr:x} {n} {mode}");
        for (insn, disas) in insns.iter().zip(&texts) {
            let _ = write!(text, "I {:x} ", insn.vaddr);
            push_hex(text, insn.bytes);
            if let Some(d) = disas {
                text.push(' ');
                text.extend(d.trim().chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }));
            }
            text.push('\n');
        }
        // One append per new block: the log is complete up to the last
        // translation whatever way the process ends.
        self.log.append(self.record.as_bytes())?;
        Ok(Placement {
            slot,
            insns: n,
            overflow: false,
        })
    }

    /// QEMU's disassembly is slow; the text of instruction bytes seen
    /// before in the same mode is reused when it cannot depend on the
    /// address.
    fn text_of(&mut self, mode: char, insn: &InsnBytes<'_>, disassemble: impl FnOnce() -> String) -> String {
        let key = (mode, insn.bytes.to_vec());
        match self.texts.get(&key) {
            Some(t) if mode != '?' => t.clone(),
            _ => {
                let t = disassemble();
                if mode != '?' && address_independent(&t) {
                    self.texts.insert(key, t.clone());
                }
                t
            }
        }
    }

    /// Address of a counter slot.
    pub fn slot_ptr(&self, slot: u64) -> *mut u64 {
        self.store.slot_ptr(slot)
    }

    /// In the child right after `fork`: switch to files of the new pid, with
    /// counters starting at zero at the same addresses.
    pub fn after_fork_in_child(&mut self) -> io::Result<()> {
        let parent = self.pid;
        self.pid = std::process::id();
        self.store.reopen_for_child(&counts_path(&self.opts, self.pid))?;
        self.log = MappedLog::create(&blocks_path(&self.opts, self.pid))?;
        // The child's own blocks are classified against its own log.
        self.coverage = None;
        let inherited = self.store.used();
        self.write_header(parent, inherited)
    }

    /// Safety net behind the `fork` handler: if the process id changed
    /// without it running (a fork QEMU made some other way), switch to the
    /// new pid's files now.
    fn follow_pid(&mut self) -> io::Result<()> {
        if std::process::id() != self.pid {
            self.after_fork_in_child()?;
        }
        Ok(())
    }

    /// At normal exit: mark the log complete and trim both files.
    pub fn finish(&mut self) -> io::Result<()> {
        self.follow_pid()?;
        self.log.append(format!("X {}\n", self.store.used()).as_bytes())?;
        self.log.finish()?;
        self.store.trim()
    }
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
}

fn counts_path(opts: &Options, pid: u32) -> PathBuf {
    opts.out.join(tracekit_emu_format::counts_file(pid))
}

fn blocks_path(opts: &Options, pid: u32) -> PathBuf {
    opts.out.join(tracekit_emu_format::blocks_file(pid))
}

/// True when a disassembly cannot depend on the instruction's address:
/// it holds no number of 0x1000 or more. Branch targets, `adrp` pages and
/// literal-pool addresses are printed as absolute addresses, and no user
/// code lives below 0x1000, so every address-dependent text fails this
/// test (some large immediates do too, which only costs a disassembly).
pub fn address_independent(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            let hex = bytes[i] == b'0' && bytes.get(i + 1).is_some_and(|&c| c == b'x' || c == b'X');
            if hex {
                i += 2;
            }
            let digits_start = i;
            while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                i += 1;
            }
            let digits = &text[digits_start..i];
            let value = if hex {
                u64::from_str_radix(digits, 16).ok()
            } else {
                // A decimal run, possibly glued to hex letters: judge it as hex
                // too, the larger reading, to stay on the safe side.
                u64::from_str_radix(&text[start..i], 16).ok()
            };
            if !matches!(value, Some(v) if v < 0x1000) {
                return false;
            }
        } else {
            i += 1;
        }
    }
    true
}

/// True when the block's last instruction is a *phantom*: on x86, QEMU
/// (7.2) starts decoding an instruction that turns out to cross into the
/// next page, abandons it and ends the block before it, yet the plugin
/// still lists it, holding only the bytes up to the page end. Such a
/// truncated instruction ends exactly on a page boundary, is not the
/// block's first, and does not disassemble. It never executes, so it is
/// neither logged nor counted.
pub fn is_phantom(target: &str, insns: &[InsnBytes<'_>], disas: &[String]) -> bool {
    const PAGE: u64 = 4096;
    if !matches!(target, "x86_64" | "i386") || insns.len() < 2 {
        return false;
    }
    let last = insns[insns.len() - 1];
    let text = disas.last().map(|d| d.trim()).unwrap_or("");
    (last.vaddr + last.bytes.len() as u64) % PAGE == 0
        && (text.is_empty() || text.starts_with(".byte") || text.starts_with("(bad)"))
}

/// True when the block's last instruction could be a phantom (see
/// [`is_phantom`]): only then is its text needed to decide.
pub fn phantom_candidate(target: &str, insns: &[InsnBytes<'_>]) -> bool {
    const PAGE: u64 = 4096;
    matches!(target, "x86_64" | "i386")
        && insns.len() >= 2
        && insns
            .last()
            .is_some_and(|l| (l.vaddr + l.bytes.len() as u64) % PAGE == 0)
}

/// Instruction-set mode of a block: for 32-bit ARM `T` (Thumb) when any
/// instruction is 2 bytes long, `A` (ARM) when some 4-byte instruction's
/// first halfword cannot start a 32-bit Thumb encoding (those start with
/// 0b11101, 0b11110 or 0b11111, i.e. halfword ≥ 0xE800), otherwise `?`
/// (the analysis resolves it from the ELF's `$a`/`$t` mapping symbols).
/// Other targets have a single mode, written `-`.
pub fn isa_mode(target: &str, insns: &[InsnBytes<'_>]) -> char {
    if target != "arm" {
        return '-';
    }
    if insns.iter().any(|i| i.bytes.len() == 2) {
        return 'T';
    }
    let arm_only = insns
        .iter()
        .any(|i| i.bytes.len() >= 2 && u16::from_le_bytes([i.bytes[0], i.bytes[1]]) < 0xE800);
    if arm_only {
        'A'
    } else {
        '?'
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(dir: &std::path::Path, mode: &str) -> Options {
        Options::parse(&[
            format!("out={}", dir.display()),
            format!("mode={mode}"),
            "capacity=64".into(),
        ])
        .unwrap()
    }

    #[test]
    fn options_need_out_and_reject_unknown_keys() {
        assert!(Options::parse::<&str>(&[]).is_err());
        assert!(Options::parse(&["out=/x", "bogus=1"]).is_err());
        assert!(Options::parse(&["out=/x", "mode=fast"]).is_err());
        assert!(Options::parse(&["noequals"]).is_err());
        let o = Options::parse(&["out=/x"]).unwrap();
        assert_eq!(o.mode, CountMode::Block);
    }

    #[test]
    fn new_blocks_are_logged_once_and_retranslations_reuse_the_slot() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = Recorder::start(opts(dir.path(), "tb"), "mipsel").unwrap();
        let insns = [
            InsnBytes {
                vaddr: 0x1000,
                bytes: &[0x01, 0x20],
            },
            InsnBytes {
                vaddr: 0x1002,
                bytes: &[0x70, 0x47],
            },
        ];
        let a = rec.translate(0x1000, &insns, None, |i| format!("op{i}")).unwrap();
        let b = rec
            .translate(0x1000, &insns, None, |_| panic!("must not disassemble twice"))
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.slot, 1);
        rec.finish().unwrap();
        let log = std::fs::read_to_string(dir.path().join(tracekit_emu_format::blocks_file(rec.pid()))).unwrap();
        let expected = format!(
            "tracekit-emu-blocks 2\nP {} 0 1 mipsel tb\nB 1 1000 2 -\nI 1000 0120 op0\nI 1002 7047 op1\nX 2\n",
            rec.pid()
        );
        assert_eq!(log, expected);
    }

    #[test]
    fn code_rewritten_at_an_address_is_a_new_block_and_its_return_reuses_the_old_slot() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = Recorder::start(opts(dir.path(), "tb"), "aarch64").unwrap();
        let a = [InsnBytes {
            vaddr: 0x4000,
            bytes: &[0x20, 0x00, 0x80, 0x52],
        }];
        let b = [InsnBytes {
            vaddr: 0x4000,
            bytes: &[0x40, 0x00, 0x80, 0x52],
        }];
        let no_text = |_| -> String { panic!("aarch64 text is left to the analysis") };
        let first = rec.translate(0x4000, &a, None, no_text).unwrap().slot;
        let second = rec.translate(0x4000, &b, None, no_text).unwrap().slot;
        let again = rec.translate(0x4000, &a, None, no_text).unwrap().slot;
        assert_ne!(first, second);
        assert_eq!(first, again);
        // Same bytes split differently (one 4-byte vs two 2-byte
        // instructions) are different blocks too.
        let split = [
            InsnBytes {
                vaddr: 0x4000,
                bytes: &[0x20, 0x00],
            },
            InsnBytes {
                vaddr: 0x4002,
                bytes: &[0x80, 0x52],
            },
        ];
        assert_ne!(rec.translate(0x4000, &split, None, no_text).unwrap().slot, first);
        rec.finish().unwrap();
        let log = std::fs::read_to_string(dir.path().join(tracekit_emu_format::blocks_file(rec.pid()))).unwrap();
        assert_eq!(log.matches("\nB ").count(), 3, "{log}");
        assert!(log.contains("B 2 4000 1 -\nI 4000 40008052\n"), "{log}");
    }

    #[test]
    fn a_block_outside_the_known_map_triggers_a_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = Recorder::start(opts(dir.path(), "tb"), "x86_64").unwrap();
        // guest_base 0: the host map is the guest map. A function of this
        // very test binary is inside a readable mapping.
        let here = a_block_outside_the_known_map_triggers_a_snapshot as fn() as usize as u64;
        let i = [InsnBytes {
            vaddr: here,
            bytes: &[0x90],
        }];
        rec.translate(here, &i, Some(0), |_| String::new()).unwrap();
        let j = [InsnBytes {
            vaddr: here + 1,
            bytes: &[0x90],
        }];
        rec.translate(here + 1, &j, Some(0), |_| String::new()).unwrap();
        rec.finish().unwrap();
        let log = std::fs::read_to_string(dir.path().join(tracekit_emu_format::blocks_file(rec.pid()))).unwrap();
        assert_eq!(log.matches("\nS ").count(), 1, "one snapshot covers both blocks");
        assert!(log.lines().any(|l| l.starts_with("M ") && l.contains("r-xp")), "{log}");
    }

    #[test]
    fn insn_mode_reserves_one_slot_per_instruction() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = Recorder::start(opts(dir.path(), "insn"), "aarch64").unwrap();
        let insns = [
            InsnBytes {
                vaddr: 0,
                bytes: &[0; 4],
            },
            InsnBytes {
                vaddr: 4,
                bytes: &[1; 4],
            },
        ];
        assert_eq!(rec.translate(0, &insns, None, |_| String::new()).unwrap().slot, 1);
        assert_eq!(rec.translate(8, &insns[..1], None, |_| String::new()).unwrap().slot, 3);
    }

    #[test]
    fn a_full_counts_file_diverts_to_the_overflow_slot() {
        let dir = tempfile::tempdir().unwrap();
        let o = Options::parse(&[format!("out={}", dir.path().display()), "capacity=2".into()]).unwrap();
        let mut rec = Recorder::start(o, "x86_64").unwrap();
        let i = [InsnBytes {
            vaddr: 0,
            bytes: &[0x90],
        }];
        assert!(!rec.translate(0, &i, None, |_| "nop".into()).unwrap().overflow);
        let p = rec.translate(1, &i, None, |_| "nop".into()).unwrap();
        assert_eq!(
            p,
            Placement {
                slot: 0,
                insns: 1,
                overflow: true
            }
        );
    }

    #[test]
    fn a_truncated_x86_instruction_at_a_page_end_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let mut rec = Recorder::start(opts(dir.path(), "tb"), "x86_64").unwrap();
        let insns = [
            InsnBytes {
                vaddr: 0x1ffd,
                bytes: &[0x90, 0x90],
            },
            InsnBytes {
                vaddr: 0x1fff,
                bytes: &[0xf2],
            },
        ];
        let disas = |i: usize| {
            if i == 0 {
                "nop".to_owned()
            } else {
                ".byte 0xf2".to_owned()
            }
        };
        assert_eq!(rec.translate(0x1ffd, &insns, None, disas).unwrap().insns, 1);
        // A genuine instruction ending on the page boundary stays.
        let whole = [
            InsnBytes {
                vaddr: 0x2ffe,
                bytes: &[0x90],
            },
            InsnBytes {
                vaddr: 0x2fff,
                bytes: &[0xc3],
            },
        ];
        assert_eq!(
            rec.translate(0x2ffe, &whole, None, |_| "ret".to_owned()).unwrap().insns,
            2
        );
        // Fixed-width ISAs never have phantoms.
        assert!(!is_phantom("arm", &insns, &["a".into(), ".byte 0xf2".into()]));
    }

    #[test]
    fn texts_with_addresses_are_not_reused() {
        assert!(address_independent("movl $0x39, %eax"));
        assert!(address_independent("ldr r0, [r1, #4]"));
        assert!(address_independent("addiu\tgp,gp,-318"));
        assert!(!address_independent("bl #0x10abc"));
        assert!(!address_independent("adrp x0, #0x4a0000"));
        assert!(!address_independent("jne 0x401010"));
        assert!(!address_independent("addiu\tgp,gp,-31860"));
        assert!(!address_independent("x 99999999999999999999999"));
    }

    #[test]
    fn disassembly_is_reused_per_mode_and_bytes_only_when_safe() {
        let dir = tempfile::tempdir().unwrap();
        let mut o = opts(dir.path(), "tb");
        o.disas = Disas::All;
        let mut rec = Recorder::start(o, "x86_64").unwrap();
        let calls = std::cell::Cell::new(0);
        let nop = [InsnBytes {
            vaddr: 0x1000,
            bytes: &[0x90],
        }];
        let jmp = [InsnBytes {
            vaddr: 0x1000,
            bytes: &[0xeb, 0x00],
        }];
        let count = |t: &str| {
            calls.set(calls.get() + 1);
            t.to_owned()
        };
        rec.translate(0x1000, &nop, None, |_| count("nop")).unwrap();
        rec.translate(
            0x2000,
            &[InsnBytes {
                vaddr: 0x2000,
                ..nop[0]
            }],
            None,
            |_| count("nop"),
        )
        .unwrap();
        assert_eq!(calls.get(), 1);
        rec.translate(0x3000, &jmp, None, |_| count("jmp 0x3002")).unwrap();
        rec.translate(
            0x4000,
            &[InsnBytes {
                vaddr: 0x4000,
                ..jmp[0]
            }],
            None,
            |_| count("jmp 0x4002"),
        )
        .unwrap();
        assert_eq!(calls.get(), 3);
        let log = std::fs::read_to_string(dir.path().join(tracekit_emu_format::blocks_file(rec.pid()))).unwrap();
        assert!(log.contains("jmp 0x4002"), "{log}");
    }

    #[test]
    fn arm_mode_is_decided_only_when_the_bytes_allow() {
        let t16 = InsnBytes {
            vaddr: 0,
            bytes: &[0x00, 0xbf],
        };
        let arm = InsnBytes {
            vaddr: 0,
            bytes: &[0x04, 0xe0, 0x2d, 0xe5],
        }; // push {lr}
        let bl = InsnBytes {
            vaddr: 0,
            bytes: &[0x00, 0xf0, 0x00, 0xf8],
        }; // thumb bl
        assert_eq!(isa_mode("arm", &[arm]), 'A');
        assert_eq!(isa_mode("arm", &[bl, t16]), 'T');
        assert_eq!(isa_mode("arm", &[bl]), '?');
        assert_eq!(isa_mode("mipsel", &[arm]), '-');
    }
}
