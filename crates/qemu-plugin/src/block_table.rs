//! The blocks a process has translated, by identity (address, then each
//! instruction's length and bytes), with their counter slot.
//!
//! Every identity is appended to one byte arena and the index holds
//! offsets into it: a new block costs no allocation of its own. That
//! matters twice: a JVM translates hundreds of thousands of blocks, and in
//! a forked child every allocation from the parent's heap copies a page.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Where a known block counts, and how many of its instructions execute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    /// First counter slot.
    pub slot: u64,
    /// Logged (executed) instructions.
    pub insns: usize,
}

/// One known block in 16 bytes: where its identity lies in the arena,
/// its [`Known`] and its hash. Small entries matter: a JVM's table holds
/// 60,000–100,000 blocks and nearly every translation is a new block, so
/// each lookup and insert is a cache miss or two, fewer when the table is
/// smaller. The hash is kept (as the 32 bits [`hash_of`] is made from)
/// so growing the table never reads the arena.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// `start << (LEN_BITS + INSN_BITS) | len << INSN_BITS | insns`.
    at: u64,
    slot: u32,
    hash: u32,
}

const LEN_BITS: u32 = 16;
const INSN_BITS: u32 = 12;
const START_BITS: u32 = 64 - LEN_BITS - INSN_BITS;

impl Entry {
    fn range(self) -> std::ops::Range<usize> {
        let start = (self.at >> (LEN_BITS + INSN_BITS)) as usize;
        let len = ((self.at >> INSN_BITS) & ((1 << LEN_BITS) - 1)) as usize;
        start..start + len
    }

    fn known(self) -> Known {
        Known {
            slot: u64::from(self.slot),
            insns: (self.at & ((1 << INSN_BITS) - 1)) as usize,
        }
    }
}

/// Block identity → [`Known`], keys compared in full.
#[derive(Debug, Default)]
pub struct BlockTable {
    keys: Vec<u8>,
    index: HashTable<Entry>,
}

/// The hash a table files `key` under: computed once per translation and
/// handed to [`BlockTable::get_hashed`] of every table searched and to
/// [`BlockTable::insert_hashed`].
pub fn hash_of(key: &[u8]) -> u64 {
    widen(FxBuildHasher.hash_one(key) as u32)
}

/// A 32-bit hash as the table's 64: the table takes its tag from the top
/// bits and the bucket from the bottom ones, so both halves are the same
/// 32 bits, which an entry keeps.
fn widen(h: u32) -> u64 {
    u64::from(h) << 32 | u64::from(h)
}

impl BlockTable {
    /// The block with identity `key`, if known.
    pub fn get(&self, key: &[u8]) -> Option<Known> {
        self.get_hashed(hash_of(key), key)
    }

    /// [`BlockTable::get`] with `key`'s [`hash_of`] already computed.
    pub fn get_hashed(&self, hash: u64, key: &[u8]) -> Option<Known> {
        self.index
            .find(hash, |e| e.hash == hash as u32 && self.keys.get(e.range()) == Some(key))
            .map(|e| e.known())
    }

    /// Records a block not known before. A block that does not fit an
    /// entry is not recorded, and a retranslation logs it again: more than
    /// 2³² slots or 4,095 instructions (QEMU's blocks hold at most 512), an
    /// identity of 64 KiB or an arena of 1 TiB.
    pub fn insert(&mut self, key: &[u8], known: Known) {
        self.insert_hashed(hash_of(key), key, known);
    }

    /// [`BlockTable::insert`] with `key`'s [`hash_of`] already computed.
    pub fn insert_hashed(&mut self, hash: u64, key: &[u8], known: Known) {
        debug_assert!(self.get_hashed(hash, key).is_none());
        let start = self.keys.len() as u64;
        let Ok(slot) = u32::try_from(known.slot) else { return };
        let (len, insns) = (key.len() as u64, known.insns as u64);
        if len >> LEN_BITS != 0 || insns >> INSN_BITS != 0 || start >> START_BITS != 0 {
            return;
        }
        self.keys.extend_from_slice(key);
        let entry = Entry {
            at: start << (LEN_BITS + INSN_BITS) | len << INSN_BITS | insns,
            slot,
            hash: hash as u32,
        };
        self.index.insert_unique(hash, entry, |e| widen(e.hash));
    }

    /// Blocks known.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when no block is known.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_compared_in_full_and_found_again() {
        let mut t = BlockTable::default();
        let keys: Vec<Vec<u8>> = (0..2000u32)
            .map(|i| {
                let mut k = u64::from(i % 7).to_le_bytes().to_vec();
                k.extend(std::iter::repeat_n(i as u8, i as usize % 13));
                k.extend_from_slice(&i.to_le_bytes());
                k
            })
            .collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.get(k), None);
            t.insert(
                k,
                Known {
                    slot: i as u64 + 1,
                    insns: i % 5,
                },
            );
        }
        assert_eq!(t.len(), keys.len());
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(
                t.get(k),
                Some(Known {
                    slot: i as u64 + 1,
                    insns: i % 5
                })
            );
            assert_eq!(t.get(&k[..k.len() - 1]), None, "a prefix is another block");
        }
    }

    #[test]
    fn blocks_beyond_an_entry_are_left_out_and_the_rest_still_found() {
        let mut t = BlockTable::default();
        let known = |slot: u64, insns: usize| Known { slot, insns };
        t.insert(b"largest", known(u64::from(u32::MAX), (1 << INSN_BITS) - 1));
        t.insert(b"too many insns", known(2, 1 << INSN_BITS));
        t.insert(b"slot too big", known(1 << 32, 1));
        t.insert(&vec![7u8; 1 << LEN_BITS], known(3, 1));
        assert_eq!(t.len(), 1);
        assert_eq!(
            t.get(b"largest"),
            Some(known(u64::from(u32::MAX), (1 << INSN_BITS) - 1))
        );
        assert_eq!(t.get(b"too many insns"), None);
    }
}
