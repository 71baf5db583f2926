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

#[derive(Clone, Copy, Debug)]
struct Entry {
    hash: u64,
    start: usize,
    len: usize,
    known: Known,
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
    FxBuildHasher.hash_one(key)
}

impl BlockTable {
    /// The block with identity `key`, if known.
    pub fn get(&self, key: &[u8]) -> Option<Known> {
        self.get_hashed(hash_of(key), key)
    }

    /// [`BlockTable::get`] with `key`'s [`hash_of`] already computed.
    pub fn get_hashed(&self, hash: u64, key: &[u8]) -> Option<Known> {
        self.index
            .find(hash, |e| e.hash == hash && &self.keys[e.start..e.start + e.len] == key)
            .map(|e| e.known)
    }

    /// Records a block not known before.
    pub fn insert(&mut self, key: &[u8], known: Known) {
        self.insert_hashed(hash_of(key), key, known);
    }

    /// [`BlockTable::insert`] with `key`'s [`hash_of`] already computed.
    pub fn insert_hashed(&mut self, hash: u64, key: &[u8], known: Known) {
        debug_assert!(self.get_hashed(hash, key).is_none());
        let start = self.keys.len();
        self.keys.extend_from_slice(key);
        let entry = Entry {
            hash,
            start,
            len: key.len(),
            known,
        };
        self.index.insert_unique(hash, entry, |e| e.hash);
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
}
