//! The QEMU-independent part of the plugin: options, block identities, the
//! block log, per-process files and fork handling.
//!
//! Output, per process, in the `out=` directory:
//! - `pid-<pid>.blocks`: text, one record per line —
//!   `tracekit-emu-blocks 3` (magic), then
//!   `P <pid> <parent pid or 0> <inherited slots> <target> <tb|insn>`, then
//!   snapshots of the guest memory map (`S <entries>` followed by
//!   `M <start> <end> <perms> <offset> <path>` lines, see [`crate::maps`]),
//!   and for every block the first time it is translated
//!   `B <slot> <vaddr hex> <instruction count> <A|T|?|->` followed by one
//!   `I <vaddr hex> <bytes hex>[ <disassembly>]` line per instruction
//!   (`I <bytes hex>` alone when it follows the previous instruction and
//!   has no text), and
//!   `X <slots used>` at normal exit. Until then the file may end in zero
//!   bytes (it is written through a growing mapping, [`MappedLog`]).
//! - `pid-<pid>.counts`: little-endian `u64` per slot (see [`crate::store`]).
//! - `pid-<pid>.sizes`: little-endian `u32` per slot, the instructions each
//!   slot counts, entry 0 the slots used ([`SizeTable`]): totals without the log.
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
use std::io;
use std::path::PathBuf;

use crate::block_table::{hash_of, BlockTable, Known};
use crate::maps::{guest_limit, parse_host_maps, write_snapshot, Coverage};
use crate::store::{CounterStore, MappedLog, SizeTable};

pub use crate::options::{CountMode, Disas, Options};

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
    sizes: SizeTable,
    log: MappedLog,
    /// The blocks this process translated itself (see [`BlockMap`]).
    known: BlockTable,
    /// The tables of this process's ancestors, oldest first, frozen at
    /// each fork: a child adds its own blocks to a fresh `known` rather than
    /// inserting into the inherited table, whose pages it would otherwise
    /// copy-on-write all over (most of a short child's page faults).
    inherited: Vec<BlockTable>,
    key: Vec<u8>,
    texts: HashMap<(char, Vec<u8>), String>,
    coverage: Option<Coverage>,
    /// The last memory-map snapshot, as logged.
    snapshot: String,
    /// A forked child owes its log the snapshot it inherited: written
    /// before its first block instead of reading `/proc/self/maps` again
    /// (the map at a fork is the parent's, and the parent classifies its
    /// own blocks by that same snapshot).
    snapshot_owed: bool,
}

impl Recorder {
    /// Opens this process's files and writes the log header.
    pub fn start(opts: Options, target: &str) -> io::Result<Self> {
        let pid = std::process::id();
        let mut store = CounterStore::create(&counts_path(&opts, pid), opts.capacity)?;
        store.alloc(1).expect("capacity ≥ 2"); // slot 0: overflow sink
        let mut sizes = SizeTable::create(&sizes_path(&opts, pid), opts.capacity)?;
        sizes.set_used(1);
        let log = MappedLog::create(&blocks_path(&opts, pid))?;
        let mut rec = Self {
            opts,
            target: target.to_owned(),
            pid,
            store,
            sizes,
            log,
            // Not pre-sized: a large table's pages are touched by inserts
            // all over, which made forked children copy them.
            known: BlockTable::default(),
            inherited: Vec::new(),
            key: Vec::new(),
            texts: HashMap::new(),
            coverage: None,
            snapshot: String::new(),
            snapshot_owed: false,
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
            "tracekit-emu-blocks 3\nP {} {} {} {} {}\n",
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
            if std::mem::take(&mut self.snapshot_owed) {
                self.log.append(self.snapshot.as_bytes())?;
            }
            return Ok(());
        }
        let Ok(text) = std::fs::read_to_string("/proc/self/maps") else {
            return Ok(());
        };
        let entries = parse_host_maps(&text, base, guest_limit(&self.target));
        self.snapshot.clear();
        write_snapshot(&mut self.snapshot, &entries);
        self.log.append(self.snapshot.as_bytes())?;
        self.snapshot_owed = false;
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
        // No pid check here: a `getpid` per translation cost more than the
        // rest of a retranslation; forks are followed by the fork handler.
        self.key.clear();
        self.key.extend_from_slice(&vaddr.to_le_bytes());
        for i in insns {
            self.key.push(i.bytes.len().min(255) as u8);
            self.key.extend_from_slice(i.bytes);
        }
        let key = self.key.as_slice();
        // Hashed once for every table searched and for the insert below.
        let hash = hash_of(key);
        let seen = self
            .known
            .get_hashed(hash, key)
            .or_else(|| self.inherited.iter().rev().find_map(|m| m.get_hashed(hash, key)));
        if let Some(Known { slot, insns }) = seen {
            return Ok(Placement {
                slot,
                insns,
                overflow: false,
            });
        }
        self.follow_maps(vaddr, guest_base)?;
        let mode = isa_mode(&self.target, insns);
        let with_text = self.needs_text(mode);
        let phantom = phantom_candidate(&self.target, insns);
        // Empty (no allocation) on targets whose text the analysis makes.
        let mut texts: Vec<Option<String>> = if with_text || phantom {
            vec![None; insns.len()]
        } else {
            Vec::new()
        };
        if with_text {
            for (i, insn) in insns.iter().enumerate() {
                texts[i] = Some(self.text_of(mode, insn, || disassemble(i)));
            }
        }
        let mut n = insns.len();
        if phantom {
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
        self.sizes.set(slot, n as u32, self.store.used());
        self.known.insert_hashed(hash, &self.key, Known { slot, insns: n });
        // One append per new block: the log is complete up to the last
        // translation whatever way the process ends.
        let room = crate::block_record::room(insns, &texts);
        self.log.append_with(room, |out| {
            crate::block_record::write(out, slot, vaddr, mode, insns, &texts)
        })?;
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
        self.switch_to_child(std::process::id())
    }

    /// Switches to the files of child `pid` (the fork handler's work,
    /// callable by tests without forking).
    fn switch_to_child(&mut self, pid: u32) -> io::Result<()> {
        let parent = self.pid;
        self.pid = pid;
        let own = std::mem::take(&mut self.known);
        if !own.is_empty() {
            self.inherited.push(own);
        }
        self.store.reopen_for_child(&counts_path(&self.opts, self.pid))?;
        self.sizes
            .reopen_for_child(&sizes_path(&self.opts, self.pid), self.store.used())?;
        self.log = MappedLog::create(&blocks_path(&self.opts, self.pid))?;
        // The child's own blocks are classified against its own log, which
        // gets the inherited snapshot before its first block.
        self.snapshot_owed = self.coverage.is_some();
        let inherited = self.store.used();
        self.write_header(parent, inherited)
    }

    /// Safety net behind the `fork` handler, checked at exit: if the
    /// process id changed without it running (a fork QEMU made some other
    /// way), switch to the new pid's files now.
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
        self.sizes.trim(self.store.used())?;
        self.store.trim()
    }
}

fn counts_path(opts: &Options, pid: u32) -> PathBuf {
    opts.out.join(tracekit_emu_format::counts_file(pid))
}

fn sizes_path(opts: &Options, pid: u32) -> PathBuf {
    opts.out.join(tracekit_emu_format::sizes_file(pid))
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
mod tests;
