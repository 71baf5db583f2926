//! The plugin's files of a run, wherever they are: loose in `raw/` (a run
//! written straight there, an older run, a test fixture) or in the run's
//! pack ([`crate::pack`]). Every reader of `raw/` finds its files here, so
//! the two layouts read the same.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use tracekit_emu_format::{parse_raw_file, PACK_FILE};

pub use tracekit_emu_format::RawFile;

use crate::error::{EmuError, Result};
use crate::pack::Pack;

/// The plugin's files found in one directory.
#[derive(Debug)]
pub struct RawFiles {
    dir: PathBuf,
    loose: BTreeMap<RawFile, PathBuf>,
    pack: Option<Pack>,
}

impl RawFiles {
    /// Lists `dir` and reads its pack, if it has one. A run whose files
    /// are still staged, or a file that is both loose and packed, is an
    /// error.
    pub fn open(dir: &Path) -> Result<RawFiles> {
        let io = |e| EmuError::Io {
            path: dir.to_owned(),
            error: e,
        };
        crate::stage::check_not_staged(dir)?;
        let mut loose = BTreeMap::new();
        let mut pack = None;
        for entry in std::fs::read_dir(dir).map_err(io)? {
            let entry = entry.map_err(io)?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name == PACK_FILE {
                pack = Some(Pack::open(&entry.path())?);
            } else if let Some(kind) = parse_raw_file(&name) {
                loose.insert(kind, entry.path());
            }
        }
        if let Some(pack) = &pack {
            if let Some(e) = pack.entries().iter().find(|e| loose.contains_key(&e.kind)) {
                return Err(EmuError::Invalid(format!(
                    "{}: {} is both in {} and loose beside it; remove one of them",
                    dir.display(),
                    e.name,
                    PACK_FILE
                )));
            }
        }
        Ok(RawFiles {
            dir: dir.to_owned(),
            loose,
            pack,
        })
    }

    /// Every file present, loose or packed, in order (by kind, then pid).
    pub fn kinds(&self) -> Vec<RawFile> {
        let mut kinds: Vec<RawFile> = self.loose.keys().copied().collect();
        if let Some(pack) = &self.pack {
            kinds.extend(pack.entries().iter().map(|e| e.kind));
        }
        kinds.sort_unstable();
        kinds
    }

    /// True when the file `kind` is present.
    pub fn has(&self, kind: RawFile) -> bool {
        self.loose.contains_key(&kind) || self.pack.as_ref().is_some_and(|p| p.entry(kind).is_some())
    }

    /// How the file `kind` is named in messages, and its text (a packed
    /// file is borrowed from the pack). A missing file is an error.
    pub fn text(&self, kind: RawFile) -> Result<(PathBuf, Cow<'_, str>)> {
        if let Some(path) = self.loose.get(&kind) {
            return Ok((path.clone(), Cow::Owned(tracekit_safeio::read_text(path)?)));
        }
        let (pack, entry) = self.packed(kind)?;
        let name = pack.describe(entry);
        let bytes = pack.stored(entry);
        let text = std::str::from_utf8(bytes).map_err(|e| EmuError::Io {
            error: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                tracekit_safeio::utf8_message(bytes, &e),
            ),
            path: name.clone(),
        })?;
        Ok((name, Cow::Borrowed(text)))
    }

    /// How the file `kind` is named in messages, its first `want` bytes
    /// (fewer when it is shorter) and its whole length.
    pub fn prefix(&self, kind: RawFile, want: u64) -> Result<(PathBuf, Vec<u8>, u64)> {
        if let Some(path) = self.loose.get(&kind) {
            let io = |e| EmuError::Io {
                path: path.clone(),
                error: e,
            };
            let file = tracekit_safeio::open_regular(path)?;
            let len = file.metadata().map_err(io)?.len();
            // One read of the known size (a size table of a killed process
            // is a 32 MiB sparse file of which only the head is wanted).
            let mut bytes = vec![0u8; want.min(len) as usize];
            let mut got = 0;
            while got < bytes.len() {
                match file.read_at(&mut bytes[got..], got as u64) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(io(e)),
                }
            }
            bytes.truncate(got);
            return Ok((path.clone(), bytes, len));
        }
        let (pack, entry) = self.packed(kind)?;
        let stored = pack.stored(entry);
        let want = want.min(entry.length);
        let mut bytes = stored[..stored.len().min(want as usize)].to_vec();
        bytes.resize(want as usize, 0);
        Ok((pack.describe(entry), bytes, entry.length))
    }

    fn packed(&self, kind: RawFile) -> Result<(&Pack, &crate::pack::PackEntry)> {
        self.pack
            .as_ref()
            .and_then(|p| p.entry(kind).map(|e| (p, e)))
            .ok_or_else(|| EmuError::Io {
                path: self.dir.join(kind.file_name()),
                error: std::io::Error::new(std::io::ErrorKind::NotFound, "missing: the plugin did not write it"),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::PackWriter;

    #[test]
    fn loose_and_packed_files_read_the_same() {
        let loose = tempfile::tempdir().unwrap();
        std::fs::write(loose.path().join("pid-3.blocks"), "log\n").unwrap();
        std::fs::write(
            loose.path().join("pid-3.counts"),
            [5u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        )
        .unwrap();
        let packed = tempfile::tempdir().unwrap();
        let mut w = PackWriter::create(&packed.path().join(PACK_FILE)).unwrap();
        w.add("pid-3.blocks", b"log\n", 4).unwrap();
        w.add("pid-3.counts", &[5], 12).unwrap();
        drop(w);
        for dir in [loose.path(), packed.path()] {
            let raw = RawFiles::open(dir).unwrap();
            assert_eq!(raw.kinds(), [RawFile::Counts(3), RawFile::Blocks(3)]);
            assert_eq!(raw.text(RawFile::Blocks(3)).unwrap().1, "log\n");
            let (_, bytes, len) = raw.prefix(RawFile::Counts(3), 8).unwrap();
            assert_eq!((bytes, len), (vec![5, 0, 0, 0, 0, 0, 0, 0], 12));
            assert_eq!(raw.prefix(RawFile::Counts(3), 99).unwrap().1.len(), 12);
            let e = raw.text(RawFile::Blocks(4)).unwrap_err().to_string();
            assert!(e.contains("pid-4.blocks") && e.contains("missing"), "{e}");
        }
        std::fs::write(packed.path().join("pid-3.blocks"), "log\n").unwrap();
        let e = RawFiles::open(packed.path()).unwrap_err().to_string();
        assert!(e.contains("pid-3.blocks is both in"), "{e}");
    }
}
