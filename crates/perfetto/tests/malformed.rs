//! Bad input: truncated files keep every packet before the cut; corrupt
//! bytes are errors naming the file and the packet's offset; FIFOs,
//! devices and directories are refused without blocking.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};
use tracekit_model::*;
use tracekit_perfetto::{read_bytes, read_path, repair, Error};

/// A trace of a few hundred packets, and the offset of each packet.
fn sample() -> (Vec<u8>, Vec<usize>) {
    let s = tracekit_report::synthetic::session(300);
    let mut bytes = Vec::new();
    tracekit_perfetto::write(&s, &mut bytes).unwrap();
    let mut offsets = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        offsets.push(pos);
        pos += 1;
        let (mut len, mut shift) = (0usize, 0);
        loop {
            let b = bytes[pos];
            pos += 1;
            len |= usize::from(b & 0x7f) << shift;
            shift += 7;
            if b < 0x80 {
                break;
            }
        }
        pos += len;
    }
    (bytes, offsets)
}

fn assert_balanced(s: &Session) {
    for (_, _, c) in s.thread_calls() {
        let mut depth = 0i64;
        for e in c.iter() {
            depth += if e.kind == CallKind::Enter { 1 } else { -1 };
            assert!(depth >= 0);
        }
        assert_eq!(depth, 0);
    }
}

#[test]
fn a_cut_keeps_every_packet_before_it() {
    let (bytes, offsets) = sample();
    let mut last_calls = 0;
    for cut in (1..bytes.len()).step_by(53) {
        let r = read_bytes(&bytes[..cut], "cut.pftrace");
        if cut < offsets[1] {
            let e = r.unwrap_err();
            assert_eq!(e.offset(), Some(0));
            assert!(e.to_string().starts_with("cut.pftrace: byte 0: "), "{e}");
            continue;
        }
        let s = r.unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        let at_boundary = offsets.contains(&cut);
        let truncated = s.repairs.iter().find(|r| r.code == repair::TRUNCATED);
        assert_eq!(truncated.is_some(), !at_boundary, "cut at {cut}");
        if let Some(r) = truncated {
            let packet = offsets.iter().rev().find(|&&o| o < cut).unwrap();
            assert!(r.detail.contains(&format!("byte {packet}")), "{}", r.detail);
        }
        assert!(s.call_event_count() >= last_calls, "a longer prefix lost calls");
        last_calls = s.call_event_count();
        assert_balanced(&s);
    }
    assert!(last_calls > 0);
}

#[test]
fn a_corrupt_varint_between_packets_names_its_offset() {
    let (bytes, offsets) = sample();
    let at = offsets[offsets.len() / 2];
    let mut bad = bytes[..at].to_vec();
    bad.push(0x0A);
    bad.extend([0xff; 10]);
    bad.push(0x01);
    bad.extend_from_slice(&bytes[at..]);
    let e = read_bytes(&bad, "bad.pftrace").unwrap_err();
    assert_eq!(e.offset(), Some(at as u64));
    let msg = e.to_string();
    assert!(msg.starts_with(&format!("bad.pftrace: byte {at}: ")), "{msg}");
    assert!(msg.contains("longer than ten bytes"), "{msg}");
}

#[test]
fn a_corrupt_packet_in_the_middle_is_an_error_at_the_end_a_repair() {
    let (bytes, offsets) = sample();
    // Overwrite a middle packet's first body byte with an invalid wire type.
    let k = offsets.len() / 2;
    let mut bad = bytes.clone();
    bad[offsets[k] + 2] = 0x0f;
    let e = read_bytes(&bad, "mid.pftrace").unwrap_err();
    assert_eq!(e.offset(), Some(offsets[k] as u64));
    assert!(e.to_string().contains("invalid wire type"), "{e}");
    // The same damage in the last packet: everything before it is kept.
    let last = *offsets.last().unwrap();
    let mut bad = bytes.clone();
    bad[last + 2] = 0x0f;
    let s = read_bytes(&bad, "end.pftrace").unwrap();
    let r = s
        .repairs
        .iter()
        .find(|r| r.code == repair::CORRUPT_LAST_PACKET)
        .unwrap();
    assert!(r.detail.contains(&format!("byte {last}")), "{}", r.detail);
    assert_balanced(&s);
}

#[test]
fn garbage_empty_and_zero_files_are_errors() {
    for (bytes, what) in [
        (vec![], "no trace packets"),
        (vec![0u8; 4096], "invalid field number"),
        (
            b"hello, world\n".to_vec(),
            "x.bin: byte 2: not a packet: invalid wire type",
        ),
    ] {
        let e = read_bytes(&bytes, "x.bin").unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
        assert!(!tracekit_perfetto::sniff(&bytes));
    }
}

/// Reads `path` on another thread; the read must end (not block) quickly.
fn read_soon(path: &Path) -> Result<Session, Error> {
    let p = path.to_owned();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(read_path(&p));
    });
    let start = Instant::now();
    let r = rx.recv_timeout(Duration::from_secs(10)).expect("read_path blocked");
    assert!(start.elapsed() < Duration::from_secs(10));
    r
}

#[test]
fn fifos_devices_and_directories_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("trace.pftrace");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.map(|s| s.success()).unwrap_or(false) {
        let e = read_soon(&fifo).unwrap_err();
        assert!(matches!(e, Error::NotRegular { kind: "a FIFO", .. }), "{e}");
        assert!(e.to_string().contains("trace.pftrace"), "{e}");
    } else {
        eprintln!("skipped the FIFO case: mkfifo unavailable");
    }
    let e = read_soon(Path::new("/dev/zero")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("/dev/zero: not a regular file (a character device)"),
        "{e}"
    );
    let e = read_soon(dir.path()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::NotRegular {
                kind: "a directory",
                ..
            }
        ),
        "{e}"
    );
    let missing = dir.path().join("missing.pftrace");
    let e = read_soon(&missing).unwrap_err();
    assert!(
        matches!(e, Error::Io { .. }) && e.to_string().contains("missing.pftrace"),
        "{e}"
    );
}

#[test]
fn a_file_reads_like_the_same_bytes_in_memory() {
    // Many times the 256 KiB read chunk, so packets straddle chunk ends.
    let s = tracekit_report::synthetic::session(200_000);
    let mut bytes = Vec::new();
    tracekit_perfetto::write(&s, &mut bytes).unwrap();
    assert!(bytes.len() > 5 << 20);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pftrace");
    std::fs::write(&path, &bytes).unwrap();
    let a = read_path(&path).unwrap();
    let b = read_bytes(&bytes, "big.pftrace").unwrap();
    assert_eq!(a.name, "big");
    assert_eq!(a.call_event_count(), b.call_event_count());
    for ((_, _, x), (_, _, y)) in a.thread_calls().zip(b.thread_calls()) {
        assert_eq!(x, y);
    }
    // Cut inside the file: the streamed reader keeps the same prefix.
    std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
    let c = read_path(&path).unwrap();
    let d = read_bytes(&bytes[..bytes.len() - 7], "big.pftrace").unwrap();
    assert_eq!(c.call_event_count(), d.call_event_count());
    assert_eq!(c.repairs, d.repairs);
}

#[test]
fn an_impossible_packet_length_is_an_error_not_an_allocation() {
    let (bytes, offsets) = sample();
    let at = offsets[3];
    let mut bad = bytes[..at].to_vec();
    bad.push(0x0A);
    bad.extend(common::varint(1 << 40));
    bad.extend_from_slice(&bytes[at..]);
    let e = read_bytes(&bad, "huge.pftrace").unwrap_err();
    assert_eq!(e.offset(), Some(at as u64));
    assert!(e.to_string().contains("longer than 256 MiB"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.pftrace");
    std::fs::write(&path, &bad).unwrap();
    let e = read_path(&path).unwrap_err();
    assert_eq!(e.offset(), Some(at as u64));
}
