//! Staging the plugin's files on a RAM file system while QEMU runs.
//!
//! The plugin writes its per-process files (counters, size tables, block
//! logs) through shared memory mappings, and a forked child creates three
//! of them before it runs a single block. On a disk file system every one
//! of those creations allocates an inode and every first write to a page
//! of a mapped hole allocates a block; on a fork-heavy program (a shell
//! script) that was most of the plugin's cost. So `emu run` points the
//! plugin at a private directory on tmpfs, where both are plain memory
//! operations, and once QEMU and every process it started have ended it
//! writes the counters and logs into one file of `raw/`, the pack
//! ([`crate::pack`]): creating two files per process in `raw/` (and
//! deleting them at the next run) had cost more than reading them. Only the
//! data a file holds is read (the counters of a process that never reached
//! its exit are a mostly empty 64 MiB sparse file, packed as the few pages
//! it used), and a block log is cut at the end of its text. The size
//! tables are not packed: only the run's totals read them, and those are
//! taken before.
//!
//! Kill safety is kept: the files are in the page cache of tmpfs whatever
//! way a guest process ends, the pack is written under a temporary name
//! and renamed when whole, and `raw/STAGED` names the staging directory
//! until then, so a run whose `tracekit` was itself killed says where its
//! data is instead of looking empty.
//!
//! `TRACEKIT_STAGE_DIR` picks the RAM directory (`none` writes straight
//! into `raw/`, file by file, as the plugin made them); by default it is
//! `$XDG_RUNTIME_DIR` or `/dev/shm`, when that is a writable tmpfs with at
//! least 1 GiB free and `raw/` is not on tmpfs already.

use std::ffi::CString;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use tracekit_emu_format::RawFile;

use crate::error::{EmuError, Result};
use crate::pack::PackWriter;
use crate::run::io_err;

/// Name of the marker file in `raw/` while the run's files are staged.
pub const MARKER: &str = "STAGED";

/// Environment variable naming the staging parent directory, or `none`.
pub const STAGE_DIR_ENV: &str = "TRACEKIT_STAGE_DIR";

const TMPFS_MAGIC: i64 = 0x0102_1994;

/// A private staging directory for one run, and the `raw/` it feeds.
#[derive(Debug)]
pub struct Stage {
    dir: PathBuf,
    raw: PathBuf,
}

/// Free space a RAM directory needs before a run is staged in it: a
/// mapped file that cannot grow kills QEMU with SIGBUS, and containers
/// often give `/dev/shm` only 64 MiB.
const MIN_FREE: u64 = 1 << 30;

fn statfs(path: &Path) -> Option<libc::statfs> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statfs fills the zeroed struct for a NUL-terminated path.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    (unsafe { libc::statfs(c.as_ptr(), &mut st) } == 0).then_some(st)
}

// `statfs`'s field types differ between targets, so the casts are kept.
#[allow(clippy::unnecessary_cast)]
fn on_tmpfs(path: &Path) -> bool {
    statfs(path).is_some_and(|st| st.f_type as i64 == TMPFS_MAGIC)
}

/// A tmpfs with at least [`MIN_FREE`] bytes free.
#[allow(clippy::unnecessary_cast)]
fn roomy_tmpfs(path: &Path) -> bool {
    statfs(path).is_some_and(|st| {
        st.f_type as i64 == TMPFS_MAGIC && (st.f_bavail as u64).saturating_mul(st.f_bsize as u64) >= MIN_FREE
    })
}

/// The parent directory to stage in, if any (see the module docs).
fn stage_parent(raw: &Path) -> Option<PathBuf> {
    match std::env::var_os(STAGE_DIR_ENV) {
        Some(v) if v == "none" => return None,
        Some(v) if !v.is_empty() => return Some(PathBuf::from(v)),
        _ => {}
    }
    if on_tmpfs(raw) {
        return None;
    }
    let candidates = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from("/dev/shm")]);
    candidates.into_iter().find(|d| roomy_tmpfs(d) && writable(d))
}

fn writable(dir: &Path) -> bool {
    let Ok(c) = CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: access on a NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

impl Stage {
    /// Creates a staging directory for `raw` (already created and emptied
    /// of earlier pid files) and writes the marker into `raw`; `None` when
    /// staging is off or no RAM file system is at hand.
    pub fn create(raw: &Path) -> Result<Option<Stage>> {
        match stage_parent(raw) {
            Some(parent) => Stage::create_in(raw, &parent).map(Some),
            None => Ok(None),
        }
    }

    /// Creates a staging directory under `parent` for `raw`.
    pub fn create_in(raw: &Path, parent: &Path) -> Result<Stage> {
        let template = parent.join("tracekit-emu-XXXXXX");
        let mut bytes = template.as_os_str().as_bytes().to_vec();
        bytes.push(0);
        // SAFETY: mkdtemp rewrites the XXXXXX of our NUL-terminated buffer.
        let made = unsafe { libc::mkdtemp(bytes.as_mut_ptr().cast()) };
        if made.is_null() {
            return Err(EmuError::Io {
                path: template,
                error: std::io::Error::last_os_error(),
            });
        }
        bytes.pop();
        let dir = PathBuf::from(std::ffi::OsStr::from_bytes(&bytes));
        let marker = raw.join(MARKER);
        let note = format!("{}\n", dir.display());
        if let Err(e) = std::fs::write(&marker, note) {
            let _ = std::fs::remove_dir(&dir);
            return Err(io_err(&marker)(e));
        }
        Ok(Stage {
            dir,
            raw: raw.to_owned(),
        })
    }

    /// The directory the plugin writes into.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes every staged counter file and block log into the pack of
    /// `raw/` ([`crate::pack`]), then removes the staging directory and
    /// the marker, and returns the pids that left a log. The pack is
    /// written under a temporary name and renamed when whole; on an error
    /// the staged files and the marker stay, so nothing is lost and the
    /// marker still says where the files are.
    pub fn finish(self) -> Result<Vec<u32>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(io_err(&self.dir))? {
            names.push(entry.map_err(io_err(&self.dir))?.file_name());
        }
        names.sort();
        let partial = self.raw.join(tracekit_emu_format::PACK_PARTIAL);
        let mut pack = PackWriter::create(&partial)?;
        let mut pids = Vec::new();
        for name in names {
            let from = self.dir.join(&name);
            match (kind(&from), name.to_str()) {
                // Only the totals at the end of the run read the size
                // tables, and they are taken before the pack is written.
                (Some(RawFile::Sizes(_)), _) => {}
                (Some(kind @ (RawFile::Blocks(_) | RawFile::Counts(_))), Some(packed_name)) => {
                    let file = File::open(&from).map_err(io_err(&from))?;
                    let len = file.metadata().map_err(io_err(&from))?.len();
                    // A log keeps only its text (a killed process's zero
                    // tail goes); counters end in a long run of zeros
                    // (unused slots, or a sparse mapping), left out.
                    let (stored, length) = match kind {
                        RawFile::Blocks(pid) => {
                            pids.push(pid);
                            let end = crate::run::text_end(&file, len).map_err(io_err(&from))?;
                            (end, end)
                        }
                        _ => (zeros_from(&file, len).map_err(io_err(&from))?, len),
                    };
                    pack.add_file(packed_name, (&from, &file), stored, length)?;
                }
                _ => {
                    let mut copy_buf = vec![0u8; 256 << 10];
                    copy_data(&from, &self.raw.join(&name), &mut copy_buf)?;
                }
            }
        }
        drop(pack);
        let whole = self.raw.join(tracekit_emu_format::PACK_FILE);
        std::fs::rename(&partial, &whole).map_err(io_err(&whole))?;
        // The run is whole in `raw/` from here: the marker goes first, so a
        // staging directory that cannot be removed never hides the pack.
        let marker = self.raw.join(MARKER);
        std::fs::remove_file(&marker).map_err(io_err(&marker))?;
        std::fs::remove_dir_all(&self.dir).map_err(io_err(&self.dir))?;
        pids.sort_unstable();
        Ok(pids)
    }
}

/// Where the trailing zeros of `file` (of `len` bytes) start: the end of
/// its last data range (holes read as zeros), then back over zero bytes,
/// read a chunk at a time from the end. A counter file's used slots are at
/// its start, so one read of its last data usually finds the answer.
fn zeros_from(file: &File, len: u64) -> std::io::Result<u64> {
    let mut end = 0;
    while end < len {
        match next_data(file, end, len)? {
            Some((_, data_end)) if data_end > end => end = data_end,
            _ => break,
        }
    }
    let mut buf = vec![0u8; 16 << 10];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        file.read_exact_at(chunk, start)?;
        if let Some(i) = chunk.iter().rposition(|&b| b != 0) {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Copies `from` to a new `to` of the same length, writing only the
/// ranges that hold data (holes stay holes). A block log is cut at the end
/// of its text: a process that did not reach its exit leaves the zeros of
/// its mapping's unwritten tail.
fn copy_data(from: &Path, to: &Path, buf: &mut [u8]) -> Result<()> {
    let src = File::open(from).map_err(io_err(from))?;
    let mut len = src.metadata().map_err(io_err(from))?.len();
    if is_log(from) {
        len = crate::run::text_end(&src, len).map_err(io_err(from))?;
    }
    let dst = File::create(to).map_err(io_err(to))?;
    let mut at = 0u64;
    while at < len {
        let Some((start, end)) = next_data(&src, at, len).map_err(io_err(from))? else {
            break;
        };
        let mut pos = start;
        while pos < end {
            let want = ((end - pos) as usize).min(buf.len());
            let got = src.read_at(&mut buf[..want], pos).map_err(io_err(from))?;
            if got == 0 {
                break;
            }
            dst.write_all_at(&buf[..got], pos).map_err(io_err(to))?;
            pos += got as u64;
        }
        at = end;
    }
    dst.set_len(len).map_err(io_err(to))
}

fn kind(path: &Path) -> Option<RawFile> {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(tracekit_emu_format::parse_raw_file)
}

fn is_log(path: &Path) -> bool {
    matches!(kind(path), Some(RawFile::Blocks(_)))
}

/// The next data range at or after `at`: `SEEK_DATA`/`SEEK_HOLE`, or the
/// rest of the file where the file system cannot tell.
fn next_data(file: &File, at: u64, len: u64) -> std::io::Result<Option<(u64, u64)>> {
    let fd = file.as_raw_fd();
    // SAFETY: lseek on our own descriptor.
    let start = unsafe { libc::lseek(fd, at as libc::off_t, libc::SEEK_DATA) };
    if start < 0 {
        let e = std::io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENXIO) => Ok(None),
            Some(libc::EINVAL) => Ok(Some((at, len))),
            _ => Err(e),
        };
    }
    // SAFETY: as above.
    let end = unsafe { libc::lseek(fd, start, libc::SEEK_HOLE) };
    if end < 0 {
        return Ok(Some((start as u64, len)));
    }
    Ok(Some((start as u64, (end as u64).min(len))))
}

/// An error when `raw` still has the marker of an unfinished move: the
/// run's files are in the staging directory it names.
pub fn check_not_staged(raw: &Path) -> Result<()> {
    let marker = raw.join(MARKER);
    let Ok(text) = std::fs::read_to_string(&marker) else {
        return Ok(());
    };
    let stage = text.trim();
    Err(EmuError::Invalid(format!(
        "{}: this run's files are still in {stage}: `tracekit emu run` was stopped before it could move them \
         (move them with `mv {stage}/* {}/ && rm {}`)",
        marker.display(),
        raw.display(),
        marker.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sparse_file_is_copied_with_its_data_and_length() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("a");
        let f = File::create(&from).unwrap();
        f.set_len(64 << 20).unwrap();
        f.write_all_at(b"head", 0).unwrap();
        f.write_all_at(b"middle", 20 << 20).unwrap();
        drop(f);
        let to = dir.path().join("b");
        copy_data(&from, &to, &mut [0u8; 4096]).unwrap();
        let (a, b) = (std::fs::read(&from).unwrap(), std::fs::read(&to).unwrap());
        assert_eq!(a.len(), b.len());
        assert!(a == b, "same bytes");
        use std::os::unix::fs::MetadataExt;
        assert!(
            std::fs::metadata(&to).unwrap().blocks() * 512 < 1 << 20,
            "holes stay holes"
        );
    }

    #[test]
    fn the_zero_tail_of_a_sparse_file_is_found_past_holes_and_zero_data() {
        let dir = tempfile::tempdir().unwrap();
        let rw = |name: &str| {
            let path = dir.path().join(name);
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(path)
                .unwrap()
        };
        let f = rw("c");
        f.set_len(64 << 20).unwrap();
        assert_eq!(zeros_from(&f, 64 << 20).unwrap(), 0, "all hole");
        f.write_all_at(&[1], 5).unwrap();
        f.write_all_at(&[7], 3 << 20).unwrap();
        // Zeros written as data after the last count, over two chunks.
        f.write_all_at(&vec![0u8; 40 << 10], (3 << 20) + 1).unwrap();
        assert_eq!(zeros_from(&f, 64 << 20).unwrap(), (3 << 20) + 1);
        let g = rw("d");
        g.write_all_at(b"\x01\0\0", 0).unwrap();
        assert_eq!(zeros_from(&g, 3).unwrap(), 1, "not sparse");
    }

    #[test]
    fn a_block_log_is_cut_at_the_end_of_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("pid-9.blocks");
        let mut text = b"tracekit-emu-blocks 3\n".to_vec();
        text.resize(1 << 20, 0);
        std::fs::write(&from, &text).unwrap();
        let to = dir.path().join("out.blocks");
        copy_data(&from, &to, &mut [0u8; 4096]).unwrap();
        assert_eq!(std::fs::read(&to).unwrap(), b"tracekit-emu-blocks 3\n");
    }

    #[test]
    fn staged_files_are_packed_into_raw_and_the_marker_goes() {
        let raw = tempfile::tempdir().unwrap();
        let ram = tempfile::tempdir().unwrap();
        let stage = Stage::create_in(raw.path(), ram.path()).unwrap();
        assert!(stage.dir().starts_with(ram.path()));
        let e = check_not_staged(raw.path()).unwrap_err().to_string();
        assert!(
            e.contains("STAGED") && e.contains(&stage.dir().display().to_string()),
            "{e}"
        );
        // A killed process's sparse counters and zero-tailed log.
        let counts = File::create(stage.dir().join("pid-1.counts")).unwrap();
        counts.set_len(64 << 20).unwrap();
        counts.write_all_at(&[1u8; 16], 0).unwrap();
        let mut log = b"tracekit-emu-blocks 3\n".to_vec();
        log.resize(4096, 0);
        std::fs::write(stage.dir().join("pid-1.blocks"), &log).unwrap();
        std::fs::write(stage.dir().join("pid-1.sizes"), [1u8; 8]).unwrap();
        let dir = stage.dir().to_owned();
        assert_eq!(stage.finish().unwrap(), [1]);
        let names: Vec<String> = std::fs::read_dir(raw.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, [tracekit_emu_format::PACK_FILE], "one file, no marker");
        let packed = std::fs::metadata(raw.path().join(tracekit_emu_format::PACK_FILE)).unwrap();
        assert!(packed.len() < 200, "only the data is packed: {} bytes", packed.len());
        let files = crate::raw_files::RawFiles::open(raw.path()).unwrap();
        assert_eq!(files.text(RawFile::Blocks(1)).unwrap().1, "tracekit-emu-blocks 3\n");
        let (_, bytes, len) = files.prefix(RawFile::Counts(1), 24).unwrap();
        assert_eq!(
            (&bytes[..16], &bytes[16..], len),
            (&[1u8; 16][..], &[0u8; 8][..], 64 << 20)
        );
        assert!(!files.has(RawFile::Sizes(1)), "size tables stay behind");
        assert!(!dir.exists());
        check_not_staged(raw.path()).unwrap();
    }
}
