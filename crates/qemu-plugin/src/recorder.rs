//! The QEMU-independent part of the plugin: options, block identities, the
//! block log, per-process files and fork handling.
//!
//! Output, per process, in the `out=` directory:
//! - `pid-<pid>.blocks`: text, one record per line —
//!   `tracekit-emu-blocks 1` (magic), then
//!   `P <pid> <parent pid or 0> <inherited slots> <target> <tb|insn>`, then for
//!   every block the first time it is translated
//!   `B <slot> <vaddr hex> <instruction count> <A|T|?|->` followed by one
//!   `I <vaddr hex> <bytes hex> <disassembly>` line per instruction, and
//!   `X <slots used>` at normal exit.
//! - `pid-<pid>.counts`: little-endian `u64` per slot (see [`crate::store`]).
//!
//! In `tb` mode a block owns one slot counting its executions. In `insn`
//! mode every instruction owns a slot (block slot + index) counted by a
//! per-instruction callback: an independent way to get the same numbers.
//! Slot 0 is the overflow sink, used only if the counts file fills up.
//!
//! A forked child inherits its parent's slots `1..inherited`: their block
//! records are in the parent's (or an ancestor's) log; the child logs only
//! blocks it translates itself.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{self, Write};
use std::path::PathBuf;

use crate::store::{CounterStore, DEFAULT_CAPACITY};

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

/// Plugin options, from QEMU's `-plugin lib.so,out=DIR,mode=tb` arguments.
#[derive(Clone, Debug)]
pub struct Options {
    /// Output directory (must exist).
    pub out: PathBuf,
    /// Counting mode.
    pub mode: CountMode,
    /// Slots per counts file.
    pub capacity: u64,
}

impl Options {
    /// Parses `key=value` arguments; `out` is required.
    pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Self, String> {
        let mut out = None;
        let mut mode = CountMode::Block;
        let mut capacity = DEFAULT_CAPACITY;
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
                "capacity" => {
                    capacity = value
                        .parse()
                        .ok()
                        .filter(|c| *c >= 2)
                        .ok_or_else(|| format!("capacity must be an integer ≥ 2, not {value:?}"))?
                }
                _ => return Err(format!("unknown plugin argument {key:?} (known: out, mode, capacity)")),
            }
        }
        let out = out.ok_or("missing plugin argument out=DIR")?;
        Ok(Self { out, mode, capacity })
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

#[derive(PartialEq, Eq, Hash)]
struct BlockKey {
    vaddr: u64,
    insns: usize,
    content: u64,
}

/// Per-process recording state.
pub struct Recorder {
    opts: Options,
    target: String,
    pid: u32,
    store: CounterStore,
    log: File,
    known: HashMap<BlockKey, (u64, usize)>,
    texts: HashMap<(char, Vec<u8>), String>,
}

impl Recorder {
    /// Opens this process's files and writes the log header.
    pub fn start(opts: Options, target: &str) -> io::Result<Self> {
        let pid = std::process::id();
        let mut store = CounterStore::create(&counts_path(&opts, pid), opts.capacity)?;
        store.alloc(1).expect("capacity ≥ 2"); // slot 0: overflow sink
        let log = File::create(blocks_path(&opts, pid))?;
        let mut rec = Self {
            opts,
            target: target.to_owned(),
            pid,
            store,
            log,
            known: HashMap::new(),
            texts: HashMap::new(),
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
            "tracekit-emu-blocks 1\nP {} {} {} {} {}\n",
            self.pid,
            parent,
            inherited,
            self.target,
            self.opts.mode.name()
        );
        self.log.write_all(text.as_bytes())
    }

    /// Called for every translation: returns where to count. A block seen
    /// before (same address, length and bytes — QEMU retranslates after a
    /// code-cache flush) reuses its slot and is not logged again;
    /// `disassemble(i)` is only called for new blocks.
    pub fn translate(
        &mut self,
        vaddr: u64,
        insns: &[InsnBytes<'_>],
        disassemble: impl Fn(usize) -> String,
    ) -> io::Result<Placement> {
        self.follow_pid()?;
        let key = BlockKey {
            vaddr,
            insns: insns.len(),
            content: content_hash(insns),
        };
        if let Some(&(slot, n)) = self.known.get(&key) {
            return Ok(Placement {
                slot,
                insns: n,
                overflow: false,
            });
        }
        let mode = isa_mode(&self.target, insns);
        let mut texts: Vec<String> = Vec::with_capacity(insns.len());
        for (i, insn) in insns.iter().enumerate() {
            // QEMU's disassembler is slow (7.2 opens a capstone handle per
            // call); the text of instruction bytes seen before in the same
            // mode is reused when it cannot depend on the address.
            let key = (mode, insn.bytes.to_vec());
            let text = match self.texts.get(&key) {
                Some(t) if mode != '?' => t.clone(),
                _ => {
                    let t = disassemble(i);
                    if mode != '?' && address_independent(&t) {
                        self.texts.insert(key, t.clone());
                    }
                    t
                }
            };
            texts.push(text);
        }
        if is_phantom(&self.target, insns, &texts) {
            texts.pop();
        }
        let insns = &insns[..texts.len()];
        let width = match self.opts.mode {
            CountMode::Block => 1,
            CountMode::Insn => insns.len().max(1) as u64,
        };
        let Some(slot) = self.store.alloc(width) else {
            return Ok(Placement {
                slot: 0,
                insns: insns.len(),
                overflow: true,
            });
        };
        self.known.insert(key, (slot, insns.len()));
        let mut text = format!("B {slot} {vaddr:x} {} {mode}\n", insns.len());
        for (insn, disas) in insns.iter().zip(&texts) {
            let _ = write!(text, "I {:x} ", insn.vaddr);
            for b in insn.bytes {
                let _ = write!(text, "{b:02x}");
            }
            text.push(' ');
            text.extend(
                disas
                    .trim()
                    .chars()
                    .map(|c| if c == '\n' || c == '\r' { ' ' } else { c }),
            );
            text.push('\n');
        }
        // One write per new block: the log is complete up to the last
        // translation whatever way the process ends.
        self.log.write_all(text.as_bytes())?;
        Ok(Placement {
            slot,
            insns: insns.len(),
            overflow: false,
        })
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
        self.log = File::create(blocks_path(&self.opts, self.pid))?;
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

    /// At normal exit: mark the log complete and trim the counts file.
    pub fn finish(&mut self) -> io::Result<()> {
        self.follow_pid()?;
        self.log.write_all(format!("X {}\n", self.store.used()).as_bytes())?;
        self.store.trim()
    }
}

fn counts_path(opts: &Options, pid: u32) -> PathBuf {
    opts.out.join(format!("pid-{pid}.counts"))
}

fn blocks_path(opts: &Options, pid: u32) -> PathBuf {
    opts.out.join(format!("pid-{pid}.blocks"))
}

fn content_hash(insns: &[InsnBytes<'_>]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for i in insns {
        i.vaddr.hash(&mut h);
        i.bytes.hash(&mut h);
    }
    h.finish()
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
        let mut rec = Recorder::start(opts(dir.path(), "tb"), "arm").unwrap();
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
        let a = rec.translate(0x1000, &insns, |i| format!("op{i}")).unwrap();
        let b = rec
            .translate(0x1000, &insns, |_| panic!("must not disassemble twice"))
            .unwrap();
        assert_eq!(a, b);
        assert_eq!(a.slot, 1);
        rec.finish().unwrap();
        let log = std::fs::read_to_string(dir.path().join(format!("pid-{}.blocks", rec.pid()))).unwrap();
        let expected = format!(
            "tracekit-emu-blocks 1\nP {} 0 1 arm tb\nB 1 1000 2 T\nI 1000 0120 op0\nI 1002 7047 op1\nX 2\n",
            rec.pid()
        );
        assert_eq!(log, expected);
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
        assert_eq!(rec.translate(0, &insns, |_| String::new()).unwrap().slot, 1);
        assert_eq!(rec.translate(8, &insns[..1], |_| String::new()).unwrap().slot, 3);
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
        assert!(!rec.translate(0, &i, |_| "nop".into()).unwrap().overflow);
        let p = rec.translate(1, &i, |_| "nop".into()).unwrap();
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
        assert_eq!(rec.translate(0x1ffd, &insns, disas).unwrap().insns, 1);
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
        assert_eq!(rec.translate(0x2ffe, &whole, |_| "ret".to_owned()).unwrap().insns, 2);
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
        let mut rec = Recorder::start(opts(dir.path(), "tb"), "x86_64").unwrap();
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
        rec.translate(0x1000, &nop, |_| count("nop")).unwrap();
        rec.translate(
            0x2000,
            &[InsnBytes {
                vaddr: 0x2000,
                ..nop[0]
            }],
            |_| count("nop"),
        )
        .unwrap();
        assert_eq!(calls.get(), 1);
        rec.translate(0x3000, &jmp, |_| count("jmp 0x3002")).unwrap();
        rec.translate(
            0x4000,
            &[InsnBytes {
                vaddr: 0x4000,
                ..jmp[0]
            }],
            |_| count("jmp 0x4002"),
        )
        .unwrap();
        assert_eq!(calls.get(), 3);
        let log = std::fs::read_to_string(dir.path().join(format!("pid-{}.blocks", rec.pid()))).unwrap();
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
