//! Reading what the QEMU plugin wrote: per-process block logs
//! (`pid-<pid>.blocks`) and counters (`pid-<pid>.counts`), with forked
//! children's inherited blocks resolved through their ancestors' logs.
//!
//! Log grammar (one record per line, fields separated by one space):
//! ```text
//! tracekit-emu-blocks 3                        (or 2; or 1: every I line has text)
//! P <pid> <parent pid or 0> <inherited slots> <target> <tb|insn>
//! S <entries>                                  (a memory-map snapshot ...)
//! M <start hex> <end hex> <perms> <offset hex> <path>   (... of that many lines)
//! B <slot> <vaddr hex> <instruction count> <A|T|?|->
//! I <vaddr hex> <bytes hex>[ <disassembly>]    (count lines follow each B)
//! I <bytes hex>                                (version 3: right after the previous one)
//! X <slots used>                               (only after a normal exit)
//! ```
//! A log ends at its end or at its first NUL byte (the plugin writes it
//! through a mapping grown in steps; a killed process leaves zeros). An `I`
//! line without text was left for [`crate::disasm`] to disassemble. Each
//! block is placed in the mapping of the latest snapshot before it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use tracekit_emu_format::RawFile;

use crate::error::{EmuError, Result};
use crate::perfmap::PerfMap;
use crate::raw_files::RawFiles;

/// Instruction-set mode of a block (only 32-bit ARM has two).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum IsaMode {
    /// 32-bit ARM encoding.
    Arm,
    /// Thumb / Thumb-2 encoding.
    Thumb,
    /// 32-bit ARM block the plugin could not decide from the bytes alone.
    Unknown,
    /// ISA with a single mode.
    Single,
}

impl IsaMode {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "A" => IsaMode::Arm,
            "T" => IsaMode::Thumb,
            "?" => IsaMode::Unknown,
            "-" => IsaMode::Single,
            _ => return None,
        })
    }
}

/// One guest instruction of a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insn {
    /// Guest virtual address.
    pub vaddr: u64,
    /// Encoded bytes.
    pub bytes: Vec<u8>,
    /// QEMU's disassembly (mnemonic, operands).
    pub disas: String,
}

/// A guest memory mapping (from the plugin's snapshots of the map).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Mapping {
    /// First guest address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// Host view of the permissions (`r--p`: QEMU never maps guest code executable).
    pub perms: String,
    /// Offset of `start` in the file.
    pub offset: u64,
    /// Mapped file, pseudo-name such as `[heap]`, or empty (anonymous).
    pub path: String,
}

impl Mapping {
    /// True for anonymous memory (no file, no pseudo-name): where a JIT
    /// writes code.
    pub fn anonymous(&self) -> bool {
        self.path.is_empty()
    }
}

/// A translated block as logged by the plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// First counter slot of the block.
    pub slot: u64,
    /// Guest address of the first instruction.
    pub vaddr: u64,
    /// ARM/Thumb mode (after resolution with ELF mapping symbols).
    pub mode: IsaMode,
    /// Instructions in order.
    pub insns: Vec<Insn>,
    /// The mapping holding the block when it was translated, if the log
    /// had a snapshot covering it.
    pub mapping: Option<Arc<Mapping>>,
}

impl Block {
    /// True when some instruction still lacks its disassembly.
    pub fn needs_disassembly(&self) -> bool {
        self.insns.iter().any(|i| i.disas.is_empty())
    }
}

/// The parsed log of one process.
#[derive(Clone, Debug)]
pub struct ProcessLog {
    /// Process id.
    pub pid: u32,
    /// Parent pid when the process was forked under the profiler, else 0.
    pub parent: u32,
    /// Slots below this number were allocated by ancestors.
    pub inherited: u64,
    /// QEMU target name (`arm`, `mipsel`, `aarch64`, `x86_64`, …).
    pub target: String,
    /// True when counting was per instruction (`insn` mode).
    pub per_insn: bool,
    /// Blocks this process translated itself.
    pub blocks: Vec<Arc<Block>>,
    /// True when the process reached QEMU's normal exit (not killed).
    pub exited_normally: bool,
    /// Memory-map snapshots logged (version 2 logs).
    pub snapshots: usize,
}

fn bad(path: &Path, line: usize, msg: impl Into<String>) -> EmuError {
    EmuError::Parse {
        path: path.to_owned(),
        line,
        msg: msg.into(),
    }
}

fn hex(path: &Path, line: usize, s: &str) -> Result<u64> {
    u64::from_str_radix(s, 16).map_err(|_| bad(path, line, format!("bad hex number {s:?}")))
}

fn hex_bytes(path: &Path, line: usize, s: &str) -> Result<Vec<u8>> {
    if s.len() % 2 != 0 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad(path, line, format!("bad instruction bytes {s:?}")));
    }
    Ok((0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("checked"))
        .collect())
}

/// Parses one block log from text; `path` is only used in error messages.
pub fn parse_log(path: &Path, text: &str) -> Result<ProcessLog> {
    // A killed process leaves the rest of the mapped log as zeros.
    let text = text.split('\0').next().unwrap_or("");
    // A line without its newline was cut while being written: drop it.
    let text = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => text,
    };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let version = match lines.next() {
        Some((_, "tracekit-emu-blocks 1")) => 1,
        Some((_, "tracekit-emu-blocks 2")) => 2,
        Some((_, "tracekit-emu-blocks 3")) => 3,
        _ => {
            return Err(bad(
                path,
                1,
                "not a tracekit-emu block log (expected 'tracekit-emu-blocks 1', '2' or '3')",
            ))
        }
    };
    let (hline, header) = lines.next().ok_or_else(|| bad(path, 2, "missing P header"))?;
    let h: Vec<&str> = header.split(' ').collect();
    if h.len() != 6 || h[0] != "P" {
        return Err(bad(
            path,
            hline,
            "expected 'P <pid> <parent> <inherited> <target> <mode>'",
        ));
    }
    let num = |s: &str| {
        s.parse::<u64>()
            .map_err(|_| bad(path, hline, format!("bad number {s:?}")))
    };
    let per_insn = match h[5] {
        "tb" => false,
        "insn" => true,
        m => return Err(bad(path, hline, format!("unknown mode {m:?}"))),
    };
    let mut log = ProcessLog {
        pid: u32::try_from(num(h[1])?).map_err(|_| bad(path, hline, "pid out of range"))?,
        parent: u32::try_from(num(h[2])?).map_err(|_| bad(path, hline, "pid out of range"))?,
        inherited: num(h[3])?,
        target: h[4].to_owned(),
        per_insn,
        blocks: Vec::new(),
        exited_normally: false,
        snapshots: 0,
    };
    // The snapshot being read (entries still expected) and the one in force.
    let mut reading: Option<(Vec<Arc<Mapping>>, usize)> = None;
    let mut current: Vec<Arc<Mapping>> = Vec::new();
    let mut pending: Option<(Block, usize)> = None;
    let close = |pending: &mut Option<(Block, usize)>, log: &mut ProcessLog, at: usize| -> Result<()> {
        if let Some((b, want)) = pending.take() {
            if b.insns.len() != want {
                return Err(bad(
                    path,
                    at,
                    format!("block at slot {} has {} of {want} instructions", b.slot, b.insns.len()),
                ));
            }
            log.blocks.push(Arc::new(b));
        }
        Ok(())
    };
    for (no, line) in lines {
        let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
        if kind != "M" {
            if let Some((_, left)) = &reading {
                return Err(bad(path, no, format!("memory-map snapshot ends {left} entries early")));
            }
        }
        match kind {
            "S" => {
                close(&mut pending, &mut log, no)?;
                let n: usize = rest.parse().map_err(|_| bad(path, no, "bad snapshot size"))?;
                if n > 1_000_000 {
                    return Err(bad(path, no, "snapshot of more than a million mappings"));
                }
                reading = Some((Vec::with_capacity(n), n));
                if n == 0 {
                    current = Vec::new();
                    reading = None;
                    log.snapshots += 1;
                }
            }
            "M" => {
                let (entries, left) = reading
                    .as_mut()
                    .ok_or_else(|| bad(path, no, "mapping outside a snapshot"))?;
                let mut f = rest.splitn(5, ' ');
                let start = hex(path, no, f.next().unwrap_or(""))?;
                let end = hex(path, no, f.next().unwrap_or(""))?;
                let perms = f.next().unwrap_or("").to_owned();
                let offset = hex(path, no, f.next().unwrap_or(""))?;
                if end <= start || perms.len() != 4 {
                    return Err(bad(path, no, "expected 'M <start> <end> <perms> <offset> <path>'"));
                }
                let path_field = f.next().unwrap_or("").to_owned();
                entries.push(Arc::new(Mapping {
                    start,
                    end,
                    perms,
                    offset,
                    path: path_field,
                }));
                *left -= 1;
                if *left == 0 {
                    let (mut done, _) = reading.take().expect("reading");
                    done.sort_by_key(|m| m.start);
                    current = done;
                    log.snapshots += 1;
                }
            }
            "B" => {
                close(&mut pending, &mut log, no)?;
                let f: Vec<&str> = rest.split(' ').collect();
                if f.len() != 4 {
                    return Err(bad(path, no, "expected 'B <slot> <vaddr> <count> <mode>'"));
                }
                let slot = f[0].parse().map_err(|_| bad(path, no, "bad slot"))?;
                let n: usize = f[2].parse().map_err(|_| bad(path, no, "bad instruction count"))?;
                let mode = IsaMode::parse(f[3]).ok_or_else(|| bad(path, no, format!("bad mode {:?}", f[3])))?;
                let vaddr = hex(path, no, f[1])?;
                if n > 100_000 {
                    return Err(bad(path, no, "block of more than 100000 instructions"));
                }
                let block = Block {
                    slot,
                    vaddr,
                    mode,
                    insns: Vec::with_capacity(n),
                    mapping: mapping_at(&current, vaddr),
                };
                pending = Some((block, n));
            }
            "I" => {
                let (b, want) = pending
                    .as_mut()
                    .ok_or_else(|| bad(path, no, "instruction outside a block"))?;
                if b.insns.len() == *want {
                    return Err(bad(path, no, "more instructions than the block declares"));
                }
                let mut f = rest.splitn(3, ' ');
                let first = f.next().unwrap_or("");
                let insn = match f.next() {
                    // Version 3's short form: the bytes alone, at the end
                    // of the previous instruction (or the block's start).
                    None if version >= 3 => Insn {
                        vaddr: b
                            .insns
                            .last()
                            .map_or(b.vaddr, |i| i.vaddr.wrapping_add(i.bytes.len() as u64)),
                        bytes: hex_bytes(path, no, first)?,
                        disas: String::new(),
                    },
                    second => Insn {
                        vaddr: hex(path, no, first)?,
                        bytes: hex_bytes(path, no, second.unwrap_or(""))?,
                        disas: f.next().unwrap_or("").to_owned(),
                    },
                };
                b.insns.push(insn);
            }
            "X" => {
                close(&mut pending, &mut log, no)?;
                log.exited_normally = true;
            }
            "" => {}
            _ => return Err(bad(path, no, format!("unknown record {kind:?}"))),
        }
    }
    // A log cut short by a kill may end inside a block: keep what is whole.
    if let Some((b, want)) = pending.take() {
        if b.insns.len() == want {
            log.blocks.push(Arc::new(b));
        }
    }
    Ok(log)
}

/// The mapping of a sorted snapshot that holds `addr`.
fn mapping_at(snapshot: &[Arc<Mapping>], addr: u64) -> Option<Arc<Mapping>> {
    let i = snapshot.partition_point(|m| m.start <= addr).checked_sub(1)?;
    let m = &snapshot[i];
    (addr < m.end).then(|| m.clone())
}

/// Reads the first `slots` counters of a counts file. The plugin creates
/// the file at full capacity, so one shorter than `slots` counters was cut
/// (copied in part, truncated): that is an error, never zeros.
pub fn counts_of(raw: &RawFiles, pid: u32, slots: u64) -> Result<Vec<u64>> {
    let (path, bytes, _) = raw.prefix(RawFile::Counts(pid), slots.saturating_mul(8))?;
    if (bytes.len() as u64) < slots.saturating_mul(8) {
        return Err(EmuError::Invalid(format!(
            "{}: truncated: {} bytes, but the block log uses {slots} counters ({} bytes); \
             the counts past byte {} are lost, so totals would be wrong",
            path.display(),
            bytes.len(),
            slots * 8,
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// One process with every block it may have executed and the counts.
#[derive(Clone, Debug)]
pub struct ProcessCapture {
    /// The process's own log (pid, parent, target, …).
    pub log: ProcessLog,
    /// Blocks visible to the process (inherited and own), by slot.
    pub blocks: Vec<Arc<Block>>,
    /// Counter values indexed by slot.
    pub counts: Vec<u64>,
    /// The JVM's code map (`pid-<pid>.perfmap`), when the process wrote one.
    pub perfmap: Option<PerfMap>,
}

impl ProcessCapture {
    /// Executions of each instruction of `block`.
    pub fn insn_counts(&self, block: &Block) -> impl Iterator<Item = u64> + '_ {
        let per_insn = self.log.per_insn;
        let slot = block.slot as usize;
        (0..block.insns.len()).map(move |i| {
            let s = if per_insn { slot + i } else { slot };
            self.counts.get(s).copied().unwrap_or(0)
        })
    }

    /// Executions of `block` (in `insn` mode: of its first instruction).
    pub fn block_count(&self, block: &Block) -> u64 {
        self.counts.get(block.slot as usize).copied().unwrap_or(0)
    }

    /// Executions that went to the overflow slot (counts file full).
    pub fn overflow(&self) -> u64 {
        self.counts.first().copied().unwrap_or(0)
    }
}

/// Loads every process found in `raw_dir`, ordered by pid, with every
/// instruction's text (see [`crate::disasm`]).
pub fn load_dir(raw_dir: &Path) -> Result<Vec<ProcessCapture>> {
    load_dir_with(raw_dir, true)
}

/// Loads every process found in `raw_dir`; instructions the plugin logged
/// without text are disassembled only when `disassemble` is set (totals of
/// blocks and instructions need no text).
pub fn load_dir_with(raw_dir: &Path, disassemble: bool) -> Result<Vec<ProcessCapture>> {
    let raw = RawFiles::open(raw_dir)?;
    let mut logs = BTreeMap::new();
    for kind in raw.kinds() {
        if let RawFile::Blocks(_) = kind {
            let (path, text) = raw.text(kind)?;
            let mut log = parse_log(&path, &text)?;
            if disassemble {
                crate::disasm::fill(&log.target, &mut log.blocks)?;
            }
            logs.insert(log.pid, log);
        }
    }
    let mut out = Vec::new();
    for log in logs.values() {
        let mut visible: BTreeMap<u64, Arc<Block>> = BTreeMap::new();
        // Walk up the ancestry: each ancestor contributes the slots below
        // the limit inherited from it.
        let mut limit = u64::MAX;
        let mut cur = Some(log);
        let mut hops = 0;
        while let Some(l) = cur {
            for b in l.blocks.iter().filter(|b| b.slot < limit) {
                visible.entry(b.slot).or_insert_with(|| b.clone());
            }
            limit = limit.min(l.inherited);
            cur = if l.parent != 0 { logs.get(&l.parent) } else { None };
            hops += 1;
            if hops > logs.len() {
                break; // pid reuse loop: stop rather than spin
            }
        }
        let slots = visible
            .values()
            .map(|b| b.slot + if log.per_insn { b.insns.len() as u64 } else { 1 })
            .max()
            .unwrap_or(1);
        let counts = counts_of(&raw, log.pid, slots)?;
        let perfmap = if raw.has(RawFile::Perfmap(log.pid)) {
            let (path, text) = raw.text(RawFile::Perfmap(log.pid))?;
            Some(PerfMap::parse(&path, &text)?)
        } else {
            None
        };
        out.push(ProcessCapture {
            log: log.clone(),
            blocks: visible.into_values().collect(),
            counts,
            perfmap,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str =
        "tracekit-emu-blocks 1\nP 7 0 1 arm tb\nB 1 1000 2 T\nI 1000 0120 movs r0, #1\nI 1002 7047 bx lr\nX 2\n";

    #[test]
    fn parses_a_complete_log() {
        let log = parse_log(Path::new("x"), LOG).unwrap();
        assert_eq!(
            (log.pid, log.parent, log.inherited, log.target.as_str()),
            (7, 0, 1, "arm")
        );
        assert!(log.exited_normally && !log.per_insn);
        assert_eq!(log.blocks.len(), 1);
        assert_eq!(log.blocks[0].mode, IsaMode::Thumb);
        assert_eq!(log.blocks[0].insns[1].disas, "bx lr");
        assert_eq!(log.blocks[0].insns[0].bytes, vec![0x01, 0x20]);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let broken = LOG.replace("I 1002 7047", "I 10g2 7047");
        let e = parse_log(Path::new("pid-7.blocks"), &broken).unwrap_err().to_string();
        assert!(e.contains("pid-7.blocks") && e.contains("line 5"), "{e}");
    }

    #[test]
    fn a_log_cut_inside_a_block_keeps_whole_blocks_only() {
        let cut =
            "tracekit-emu-blocks 1\nP 7 0 1 arm tb\nB 1 1000 1 A\nI 1000 00000000 x\nB 2 1004 2 A\nI 1004 00000000 y\n";
        let log = parse_log(Path::new("x"), cut).unwrap();
        assert_eq!(log.blocks.len(), 1);
        assert!(!log.exited_normally);
    }

    const LOG2: &str = "tracekit-emu-blocks 2\nP 7 0 1 aarch64 tb\nS 2\n\
        M 1000 2000 r--p 0 /bin/prog\nM 3000 4000 rw-p 0 \nB 1 1000 1 -\nI 1000 1f2003d5\n\
        B 2 3000 1 -\nI 3000 1f2003d5\nB 3 3000 1 -\nI 3000 20008052\nB 4 8000 1 -\nI 8000 1f2003d5\n";

    #[test]
    fn version_3_short_instruction_lines_follow_the_previous_one() {
        let v3 = "tracekit-emu-blocks 3\nP 7 0 1 aarch64 tb\nB 1 1000 3 -\nI 1f2003d5\nI 1f2003d5\n\
            I 2000 c0035fd6 ret\nX 2\n";
        let log = parse_log(Path::new("x"), v3).unwrap();
        let at: Vec<u64> = log.blocks[0].insns.iter().map(|i| i.vaddr).collect();
        assert_eq!(at, vec![0x1000, 0x1004, 0x2000]);
        assert_eq!(log.blocks[0].insns[2].disas, "ret");
        let v2 = v3.replace("blocks 3", "blocks 2");
        let old = parse_log(Path::new("x"), &v2).unwrap();
        assert_eq!(old.blocks[0].insns[0].vaddr, 0x1f2003d5, "version 2 has no short form");
    }

    #[test]
    fn version_2_logs_place_blocks_in_mappings_and_may_lack_text() {
        let log = parse_log(Path::new("x"), LOG2).unwrap();
        assert_eq!(log.snapshots, 1);
        assert_eq!(log.blocks.len(), 4);
        assert_eq!(log.blocks[0].mapping.as_ref().unwrap().path, "/bin/prog");
        assert!(log.blocks[1].mapping.as_ref().unwrap().anonymous());
        assert_eq!(
            log.blocks[1].vaddr, log.blocks[2].vaddr,
            "rewritten code: two blocks, one address"
        );
        assert_ne!(log.blocks[1].insns[0].bytes, log.blocks[2].insns[0].bytes);
        assert!(log.blocks[3].mapping.is_none());
        assert!(log.blocks[0].needs_disassembly());
    }

    #[test]
    fn a_nul_ends_the_log_as_a_kill_leaves_it() {
        let killed = format!("{}B 5 1004 1 -\nI 10\0\0\0\0", LOG2);
        let log = parse_log(Path::new("x"), &killed).unwrap();
        assert_eq!(log.blocks.len(), 4, "the block cut by the kill is dropped");
        assert!(!log.exited_normally);
    }

    #[test]
    fn snapshots_must_be_whole() {
        let short = LOG2.replace("S 2", "S 3");
        let e = parse_log(Path::new("x"), &short).unwrap_err().to_string();
        assert!(e.contains("line 6") && e.contains("early"), "{e}");
        let stray = LOG2.replace("S 2\n", "");
        assert!(parse_log(Path::new("x"), &stray).is_err());
    }

    proptest::proptest! {
        #[test]
        fn mutated_v2_logs_never_panic(pos in 0usize..LOG2.len(), byte in proptest::prelude::any::<u8>()) {
            let mut bytes = LOG2.as_bytes().to_vec();
            bytes[pos] = byte;
            let _ = parse_log(Path::new("x"), &String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn mutated_logs_never_panic(pos in 0usize..LOG.len(), byte in proptest::prelude::any::<u8>()) {
            let mut bytes = LOG.as_bytes().to_vec();
            bytes[pos] = byte;
            let text = String::from_utf8_lossy(&bytes);
            let _ = parse_log(Path::new("x"), &text);
        }
    }
}
