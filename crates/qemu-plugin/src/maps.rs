//! The guest's memory map, as the plugin can see it.
//!
//! Plugin API version 1 gives no access to the guest's memory map, and
//! QEMU only emulates `/proc/self/maps` for the guest's own system calls.
//! But in user mode guest memory *is* host memory at a fixed offset
//! (`guest_base`, learnt from any instruction as host address − guest
//! address), and every file the guest maps is mapped by QEMU with the host's
//! `mmap`. So the host's `/proc/self/maps`, shifted by `guest_base`, lists the
//! guest's file mappings (libraries, the JVM, a JNI library) and its anonymous
//! memory (a JIT's code cache) with their paths and file offsets. It also
//! lists QEMU's own mappings; those never contain a guest block, so they do
//! no harm to classifying blocks by address.
//!
//! The recorder takes such a snapshot lazily: at the first translation and
//! whenever a block starts outside every readable mapping of the latest
//! snapshot (a library mapped since). Snapshots go into the block log, so a
//! block is classified by the map in force when it was translated.

/// One mapping, in guest addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapEntry {
    /// First guest address.
    pub start: u64,
    /// One past the last guest address.
    pub end: u64,
    /// `rwxp`-style permissions as the host sees them (QEMU maps guest code
    /// readable, never host-executable).
    pub perms: String,
    /// Offset in the file.
    pub offset: u64,
    /// Path of the mapped file, a pseudo-name (`[heap]`) or empty.
    pub path: String,
}

impl MapEntry {
    /// True when the guest can read (and so may execute) the mapping.
    pub fn readable(&self) -> bool {
        self.perms.starts_with('r')
    }
}

/// Highest guest address + 1 for a QEMU target (32-bit guests live below 4 GiB).
pub fn guest_limit(target: &str) -> u64 {
    match target {
        "arm" | "armeb" | "mips" | "mipsel" | "i386" | "ppc" | "sparc" => 1 << 32,
        _ => u64::MAX,
    }
}

/// Parses host `/proc/self/maps` text into guest mappings: entries are
/// shifted down by `guest_base`; those outside `[guest_base, guest_base +
/// limit)` are dropped, those straddling an edge clipped. Malformed lines are
/// skipped (the kernel writes this file; nothing here is guest-controlled).
pub fn parse_host_maps(text: &str, guest_base: u64, limit: u64) -> Vec<MapEntry> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut f = line.splitn(6, ' ');
        let (Some(range), Some(perms), Some(offset)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let (_dev, _inode) = (f.next(), f.next());
        let path = f.next().unwrap_or("").trim_start().to_owned();
        let Some((a, b)) = range.split_once('-') else { continue };
        let (Ok(a), Ok(b), Ok(offset)) = (
            u64::from_str_radix(a, 16),
            u64::from_str_radix(b, 16),
            u64::from_str_radix(offset, 16),
        ) else {
            continue;
        };
        if b <= guest_base || b <= a {
            continue;
        }
        let start = a.saturating_sub(guest_base);
        let end = (b - guest_base).min(limit);
        if start >= end {
            continue;
        }
        let skipped = guest_base.saturating_sub(a);
        out.push(MapEntry {
            start,
            end,
            perms: perms.to_owned(),
            offset: offset + if path.is_empty() { 0 } else { skipped },
            path,
        });
    }
    out
}

/// Readable ranges of a snapshot, for the "is this block inside a known
/// mapping?" test made at every new translation.
#[derive(Clone, Debug, Default)]
pub struct Coverage {
    ranges: Vec<(u64, u64)>,
}

impl Coverage {
    /// The readable entries of `entries`.
    pub fn of(entries: &[MapEntry]) -> Coverage {
        let mut ranges: Vec<(u64, u64)> = entries
            .iter()
            .filter(|e| e.readable())
            .map(|e| (e.start, e.end))
            .collect();
        ranges.sort_unstable();
        Coverage { ranges }
    }

    /// True when `addr` lies in one of the ranges.
    pub fn covers(&self, addr: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.0 <= addr);
        i > 0 && addr < self.ranges[i - 1].1
    }
}

/// Writes a snapshot as log records: `S <count>` then one
/// `M <start> <end> <perms> <offset> <path>` line per entry (hex numbers).
pub fn write_snapshot(out: &mut String, entries: &[MapEntry]) {
    use std::fmt::Write as _;
    let _ = writeln!(out, "S {}", entries.len());
    for e in entries {
        let path: String = e.path.chars().map(|c| if c == '\n' { ' ' } else { c }).collect();
        let _ = writeln!(out, "M {:x} {:x} {} {:x} {}", e.start, e.end, e.perms, e.offset, path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAPS: &str = "\
5500000000-5500010000 r--p 00000000 fe:01 123 /usr/lib/jvm/java-17-openjdk-arm64/bin/java
5500010000-5500020000 r--p 00010000 fe:01 123 /usr/lib/jvm/java-17-openjdk-arm64/bin/java
5501000000-5510000000 rw-p 00000000 00:00 0 
7f0000000000-7f0000001000 r-xp 00000000 fe:01 9 /usr/bin/qemu-aarch64
garbage line
";

    #[test]
    fn host_maps_become_guest_maps() {
        let e = parse_host_maps(MAPS, 0, u64::MAX);
        assert_eq!(e.len(), 4);
        assert_eq!(e[0].path, "/usr/lib/jvm/java-17-openjdk-arm64/bin/java");
        assert_eq!(
            (e[1].start, e[1].end, e[1].offset),
            (0x5500010000, 0x5500020000, 0x10000)
        );
        assert_eq!(e[2].path, "");
        let shifted = parse_host_maps(MAPS, 0x5500000000, 1 << 32);
        assert_eq!(shifted.len(), 3, "the host-only mapping past 4 GiB is dropped");
        assert_eq!((shifted[0].start, shifted[0].end), (0, 0x10000));
        assert_eq!(shifted[2].end, 0x1000_0000);
        let clipped = parse_host_maps(MAPS, 0x5500000000, 0x800_0000);
        assert_eq!(clipped.last().unwrap().end, 0x800_0000, "clipped at the guest limit");
    }

    #[test]
    fn coverage_uses_readable_entries_only() {
        let mut e = parse_host_maps(MAPS, 0, u64::MAX);
        e[2].perms = "---p".into();
        let c = Coverage::of(&e);
        assert!(c.covers(0x5500000000) && c.covers(0x550001ffff));
        assert!(!c.covers(0x5500020000));
        assert!(!c.covers(0x5501000000), "PROT_NONE reservations do not count");
        assert!(!c.covers(0));
    }

    #[test]
    fn snapshots_are_written_one_record_per_line() {
        let mut s = String::new();
        write_snapshot(&mut s, &parse_host_maps(MAPS, 0, u64::MAX)[..2]);
        assert_eq!(
            s,
            "S 2\nM 5500000000 5500010000 r--p 0 /usr/lib/jvm/java-17-openjdk-arm64/bin/java\n\
             M 5500010000 5500020000 r--p 10000 /usr/lib/jvm/java-17-openjdk-arm64/bin/java\n"
        );
    }
}
