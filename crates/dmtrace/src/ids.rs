//! Fast maps from a file's method ids to model ids.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Largest dense table (entries) kept for method ids; bigger ids (Dalvik
/// wrote pointers) go to the hash map.
const DENSE_LIMIT: usize = 1 << 20;
/// Dense slots hold value + 1, so 0 (calloc-cheap) means none.
const NONE: u32 = 0;

/// Multiplicative hasher for u32 keys: the default SipHash costs more than
/// the rest of record decoding.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// Method id (low two bits zero) → index, dense for small ids.
#[derive(Default)]
pub(crate) struct IdMap {
    dense: Vec<u32>,
    sparse: HashMap<u32, u32, BuildHasherDefault<IdHasher>>,
}

impl IdMap {
    /// A map whose dense part covers ids up to `max_id`, when that is small.
    pub(crate) fn with_max_id(max_id: u32) -> IdMap {
        let slots = (max_id as usize >> 2) + 1;
        let dense = if slots <= DENSE_LIMIT {
            vec![NONE; slots]
        } else {
            Vec::new()
        };
        IdMap {
            dense,
            sparse: HashMap::default(),
        }
    }

    #[inline(always)]
    pub(crate) fn get(&self, id: u32) -> Option<u32> {
        let slot = (id >> 2) as usize;
        if slot < self.dense.len() {
            let v = self.dense[slot];
            (v != NONE).then(|| v - 1)
        } else {
            self.sparse.get(&id).copied()
        }
    }

    /// Inserts unless present; returns false when `id` was already mapped.
    pub(crate) fn insert(&mut self, id: u32, value: u32) -> bool {
        let slot = (id >> 2) as usize;
        if slot < self.dense.len() {
            if self.dense[slot] != NONE {
                return false;
            }
            self.dense[slot] = value + 1;
            true
        } else {
            match self.sparse.entry(id) {
                std::collections::hash_map::Entry::Occupied(_) => false,
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(value);
                    true
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse() {
        let mut m = IdMap::with_max_id(0x40);
        assert!(m.insert(0x10, 1));
        assert!(!m.insert(0x10, 2));
        assert!(m.insert(0x4001_a2c8, 3));
        assert_eq!(m.get(0x10), Some(1));
        assert_eq!(m.get(0x14), None);
        assert_eq!(m.get(0x4001_a2c8), Some(3));
        assert_eq!(m.get(0x4001_a2cc), None);
        let big = IdMap::with_max_id(u32::MAX);
        assert!(big.dense.is_empty());
    }
}
