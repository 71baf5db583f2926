//! Unit tests of the recorder: block identities, the log, per-process
//! files and fork handling.

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
fn instructions_without_text_that_follow_on_are_logged_as_bytes_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut rec = Recorder::start(opts(dir.path(), "tb"), "aarch64").unwrap();
    let nop = [0x1f, 0x20, 0x03, 0xd5];
    let insns = [
        InsnBytes {
            vaddr: 0x4000,
            bytes: &nop,
        },
        InsnBytes {
            vaddr: 0x4004,
            bytes: &nop,
        },
    ];
    rec.translate(0x4000, &insns, None, |_| panic!("no text on aarch64"))
        .unwrap();
    let log = std::fs::read_to_string(dir.path().join(tracekit_emu_format::blocks_file(rec.pid()))).unwrap();
    assert!(log.contains("B 1 4000 2 -\nI 1f2003d5\nI 1f2003d5\n"), "{log}");
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
        "tracekit-emu-blocks 3\nP {} 0 1 mipsel tb\nB 1 1000 2 -\nI 1000 0120 op0\nI 1002 7047 op1\nX 2\n",
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
    assert!(log.contains("B 2 4000 1 -\nI 40008052\n"), "{log}");
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
fn a_child_reuses_inherited_blocks_and_logs_the_inherited_snapshot_before_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let mut rec = Recorder::start(opts(dir.path(), "tb"), "x86_64").unwrap();
    let here = a_child_reuses_inherited_blocks_and_logs_the_inherited_snapshot_before_its_own as fn() as usize as u64;
    let block = |at: u64| {
        [InsnBytes {
            vaddr: at,
            bytes: &[0x90],
        }]
    };
    let inherited = rec.translate(here, &block(here), Some(0), |_| String::new()).unwrap();
    let parent_pid = rec.pid();
    let parent_log = |dir: &std::path::Path| {
        let text = std::fs::read_to_string(dir.join(tracekit_emu_format::blocks_file(parent_pid))).unwrap();
        text.trim_end_matches('\0').to_owned()
    };
    let before = parent_log(dir.path());
    let child = parent_pid.wrapping_add(100_000);
    rec.switch_to_child(child).unwrap();
    // An inherited block keeps its slot and is not logged again.
    assert_eq!(
        rec.translate(here, &block(here), Some(0), |_| String::new()).unwrap(),
        inherited
    );
    let own = rec
        .translate(here + 1, &block(here + 1), Some(0), |_| String::new())
        .unwrap();
    assert_eq!(own.slot, inherited.slot + 1);
    // The parent's own table is untouched by the child's new block.
    assert!(rec.known.len() == 1 && rec.inherited.len() == 1 && rec.inherited[0].len() == 1);
    // Not `finish`: its pid check would switch back to this real process.
    let log = std::fs::read_to_string(dir.path().join(tracekit_emu_format::blocks_file(child))).unwrap();
    let log = log.trim_end_matches('\0');
    let header = format!("tracekit-emu-blocks 3\nP {child} {parent_pid} 2 x86_64 tb\nS ");
    assert!(log.starts_with(&header), "{log}");
    assert_eq!(log.matches("\nS ").count(), 1, "{log}");
    assert_eq!(log.matches("\nB ").count(), 1, "only the child's own block: {log}");
    let snapshot = |l: &str| {
        l.lines()
            .filter(|l| l.starts_with('S') || l.starts_with('M'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        snapshot(log),
        snapshot(&before),
        "the child logs the snapshot it inherited"
    );
    assert_eq!(parent_log(dir.path()), before, "the parent's log is untouched");
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
