//! The pack: every per-process file of a staged run in one file of `raw/`
//! ([`tracekit_emu_format::PACK_FILE`]).
//!
//! A fork-heavy guest leaves two files per process; creating them in
//! `raw/` and deleting them again at the next run cost `emu run` more than
//! reading them. So a staged run ends by writing one pack instead.
//!
//! ```text
//! tracekit-emu-pack 1\n
//! <name> <stored> <length>\n<stored bytes>      (once per file, any order)
//! ```
//! `name` is a plugin file name (`pid-<pid>.blocks`, `pid-<pid>.counts`,
//! …), each at most once; `stored ≤ length`, and the file's bytes past
//! `stored` up to `length` are zeros (a counter file of a killed process
//! is a sparse 64 MiB mapping with a few pages of counts). The pack ends
//! right after its last entry: a pack cut short is an error naming the
//! byte where it breaks, never a smaller run.

use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use tracekit_emu_format::{parse_raw_file, RawFile};

use crate::error::{EmuError, Result};
use crate::run::io_err;

/// First line of every pack.
pub const MAGIC: &[u8] = b"tracekit-emu-pack 1\n";

/// Longest entry header accepted (name, two numbers).
const MAX_HEADER: usize = 256;

/// Largest length an entry may claim (the plugin's files are far smaller;
/// this keeps a corrupt length from asking for unbounded zeros).
const MAX_LENGTH: u64 = 1 << 32;

/// Writes a pack, entry by entry.
#[derive(Debug)]
pub struct PackWriter {
    /// Unbuffered: a staged file's bytes are copied in the kernel right
    /// after its header, so a buffer would be flushed at every entry.
    file: File,
    path: PathBuf,
}

impl PackWriter {
    /// Creates (or truncates) the pack at `path` and writes its first line.
    pub fn create(path: &Path) -> Result<PackWriter> {
        let mut file = File::create(path).map_err(io_err(path))?;
        file.write_all(MAGIC).map_err(io_err(path))?;
        Ok(PackWriter {
            file,
            path: path.to_owned(),
        })
    }

    /// Appends the file `name`: `stored` bytes, then zeros up to `length`.
    pub fn add(&mut self, name: &str, stored: &[u8], length: u64) -> Result<()> {
        debug_assert!(parse_raw_file(name).is_some(), "{name}");
        debug_assert!(stored.len() as u64 <= length);
        let header = format!("{name} {} {length}\n", stored.len());
        self.file.write_all(header.as_bytes()).map_err(io_err(&self.path))?;
        self.file.write_all(stored).map_err(io_err(&self.path))
    }

    /// Appends the file `name` of `length` bytes, of which the first
    /// `stored` are copied from `file` (opened from `from`) and the rest
    /// are zeros. The bytes go from file to file in the kernel
    /// (`copy_file_range` or `sendfile`), never through this process.
    pub fn add_file(&mut self, name: &str, (from, file): (&Path, &File), stored: u64, length: u64) -> Result<()> {
        use std::io::{Read, Seek};
        debug_assert!(parse_raw_file(name).is_some(), "{name}");
        debug_assert!(stored <= length);
        let header = format!("{name} {stored} {length}\n");
        self.file.write_all(header.as_bytes()).map_err(io_err(&self.path))?;
        // From the start, whatever `SEEK_DATA`/`SEEK_HOLE` did to the position.
        let mut file = file;
        file.rewind().map_err(io_err(from))?;
        let copied = std::io::copy(&mut file.take(stored), &mut self.file).map_err(|e| {
            // Either side may have failed: both are named.
            EmuError::Invalid(format!(
                "{}: cannot be copied into {}: {e}",
                from.display(),
                self.path.display()
            ))
        })?;
        if copied < stored {
            return Err(EmuError::Invalid(format!(
                "{}: shrank while it was packed, at byte {copied}",
                from.display()
            )));
        }
        Ok(())
    }
}

/// One file held in a pack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackEntry {
    /// What the file is.
    pub kind: RawFile,
    /// Its name, as the plugin wrote it.
    pub name: String,
    /// Where its stored bytes are in the pack.
    pub bytes: Range<usize>,
    /// Its length; the bytes past the stored ones are zeros.
    pub length: u64,
}

/// A pack read into memory, with its entries.
#[derive(Debug)]
pub struct Pack {
    path: PathBuf,
    data: Vec<u8>,
    entries: Vec<PackEntry>,
}

fn bad(path: &Path, at: usize, msg: impl std::fmt::Display) -> EmuError {
    EmuError::Invalid(format!("{}: byte {at}: {msg}", path.display()))
}

impl Pack {
    /// Reads and checks the pack at `path` (a regular file).
    pub fn open(path: &Path) -> Result<Pack> {
        let data = tracekit_safeio::read_bytes(path)?;
        Pack::parse(path, data)
    }

    /// Checks `data` as a pack; `path` names it in errors.
    pub fn parse(path: &Path, data: Vec<u8>) -> Result<Pack> {
        if !data.starts_with(MAGIC) {
            return Err(bad(path, 0, "not a tracekit-emu pack (expected 'tracekit-emu-pack 1')"));
        }
        let mut entries: Vec<PackEntry> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut at = MAGIC.len();
        while at < data.len() {
            let window = &data[at..data.len().min(at + MAX_HEADER)];
            let Some(nl) = window.iter().position(|&b| b == b'\n') else {
                return Err(bad(path, at, "entry header cut short or longer than 256 bytes"));
            };
            let header = std::str::from_utf8(&window[..nl]).map_err(|_| bad(path, at, "entry header is not text"))?;
            let fields: Vec<&str> = header.split(' ').collect();
            let [name, stored, length] = fields[..] else {
                return Err(bad(
                    path,
                    at,
                    format!("expected '<name> <stored> <length>', found {header:?}"),
                ));
            };
            let kind =
                parse_raw_file(name).ok_or_else(|| bad(path, at, format!("{name:?} is not a plugin file name")))?;
            let number = |s: &str| {
                s.parse::<u64>()
                    .ok()
                    .filter(|&n| n <= MAX_LENGTH)
                    .ok_or_else(|| bad(path, at, format!("{name}: bad length {s:?}")))
            };
            let (stored, length) = (number(stored)?, number(length)?);
            if stored > length {
                return Err(bad(
                    path,
                    at,
                    format!("{name}: stores {stored} bytes of a {length}-byte file"),
                ));
            }
            if !seen.insert(kind) {
                return Err(bad(path, at, format!("{name} is in the pack twice")));
            }
            let start = at + nl + 1;
            let end = start as u64 + stored;
            if end > data.len() as u64 {
                return Err(bad(
                    path,
                    data.len(),
                    format!("truncated: {name} needs {stored} bytes from byte {start}"),
                ));
            }
            let end = end as usize;
            entries.push(PackEntry {
                kind,
                name: name.to_owned(),
                bytes: start..end,
                length,
            });
            at = end;
        }
        Ok(Pack {
            path: path.to_owned(),
            data,
            entries,
        })
    }

    /// The files held, in pack order.
    pub fn entries(&self) -> &[PackEntry] {
        &self.entries
    }

    /// The entry of `kind`, if the pack holds it.
    pub fn entry(&self, kind: RawFile) -> Option<&PackEntry> {
        self.entries.iter().find(|e| e.kind == kind)
    }

    /// The stored bytes of `entry`.
    pub fn stored(&self, entry: &PackEntry) -> &[u8] {
        &self.data[entry.bytes.clone()]
    }

    /// How an entry is named in messages: the pack, the file and where its
    /// bytes start.
    pub fn describe(&self, entry: &PackEntry) -> PathBuf {
        PathBuf::from(format!(
            "{} [{} from byte {}]",
            self.path.display(),
            entry.name,
            entry.bytes.start
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack_of(entries: &[(&str, &[u8], u64)]) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p");
        let mut w = PackWriter::create(&path).unwrap();
        for (name, bytes, len) in entries {
            w.add(name, bytes, *len).unwrap();
        }
        std::fs::read(&path).unwrap()
    }

    #[test]
    fn entries_round_trip() {
        let data = pack_of(&[("pid-7.blocks", b"text\n", 5), ("pid-7.counts", &[1, 2, 3], 64)]);
        let pack = Pack::parse(Path::new("p"), data).unwrap();
        let log = pack.entry(RawFile::Blocks(7)).unwrap();
        assert_eq!(pack.stored(log), b"text\n");
        let counts = pack.entry(RawFile::Counts(7)).unwrap();
        assert_eq!((pack.stored(counts), counts.length), (&[1u8, 2, 3][..], 64));
        assert!(pack.entry(RawFile::Counts(8)).is_none());
        assert!(pack
            .describe(counts)
            .to_string_lossy()
            .contains("pid-7.counts from byte"));
    }

    #[test]
    fn a_cut_pack_is_an_error_naming_the_byte() {
        let mut data = pack_of(&[("pid-7.blocks", b"some text\n", 10)]);
        data.truncate(data.len() - 3);
        let e = Pack::parse(Path::new("raw/x.pack"), data).unwrap_err().to_string();
        assert!(e.contains("raw/x.pack: byte ") && e.contains("truncated"), "{e}");
    }

    #[test]
    fn bad_headers_are_errors() {
        for (data, want) in [
            (b"tracekit-emu-pack 2\n".to_vec(), "not a tracekit-emu pack"),
            ([MAGIC, b"pid-1.blocks 1\n"].concat(), "expected"),
            ([MAGIC, b"run.json 0 0\n"].concat(), "not a plugin file"),
            ([MAGIC, b"pid-1.blocks 2 1\nab"].concat(), "stores 2 bytes"),
            ([MAGIC, b"pid-1.blocks x 1\n"].concat(), "bad length"),
            ([MAGIC, b"pid-1.blocks 0 0\npid-1.blocks 0 0\n"].concat(), "twice"),
            ([MAGIC, b"pid-1.blocks 0 0"].concat(), "cut short"),
            ([MAGIC, b"pid-1.counts 0 99999999999999999\n"].concat(), "bad length"),
        ] {
            let e = Pack::parse(Path::new("p"), data).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("byte "), "{want}: {e}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_give_a_pack_or_an_error(tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..96)) {
            let data = [MAGIC, &tail].concat();
            if let Ok(pack) = Pack::parse(Path::new("p"), data.clone()) {
                for e in pack.entries() {
                    proptest::prop_assert!(e.bytes.end <= data.len());
                    proptest::prop_assert!(e.bytes.len() as u64 <= e.length);
                }
            }
        }

        #[test]
        fn written_entries_read_back(files in proptest::collection::vec((0u32..50, proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40), 0u64..100), 0..6)) {
            let mut named = std::collections::BTreeMap::new();
            for (pid, bytes, extra) in files {
                named.insert(tracekit_emu_format::counts_file(pid), (bytes.clone(), bytes.len() as u64 + extra));
            }
            let list: Vec<(&str, &[u8], u64)> = named.iter().map(|(n, (b, l))| (n.as_str(), b.as_slice(), *l)).collect();
            let pack = Pack::parse(Path::new("p"), pack_of(&list)).unwrap();
            proptest::prop_assert_eq!(pack.entries().len(), named.len());
            for e in pack.entries() {
                let (bytes, len) = &named[&e.name];
                proptest::prop_assert_eq!(pack.stored(e), bytes.as_slice());
                proptest::prop_assert_eq!(e.length, *len);
            }
        }
    }
}
