//! The contact pool of one step's gap corrections: [`ContactPool`].
//!
//! Owns: the contacts a step's re-solves are built from, keyed by feature pair (every
//! contact of the first set, with its gap lowered round by round, plus those the rounds add).
//! Does not own: what joins it or how gaps are lowered (`stepper/corrections.rs::correct_gaps`,
//! `Space::refresh`), or the set rebuilt from it (`Space::rebuild`).
//!
//! Why not a `BTreeMap`: each round looks every contact of the set up by its key (to lower its
//! gap, to see whether it is new), and the ordered map's lookups — a dozen comparisons of
//! tuple keys each — were 5 % of the 125-body pile's run (`perf`, session 30; docs/peg3d.md,
//! item 28). Lookups here are hashed; the only walk whose order reaches the results,
//! [`ContactPool::sorted`], sorts by key, so every set is built in the order the ordered map
//! gave and trajectories are unchanged, bit for bit.

use std::collections::HashMap;
use std::hash::Hash;

// rustc-hash (the rust-lang project's Fx hash): a few multiply–rotate steps per word, where
// std's SipHash is built to resist chosen keys that a simulation's own feature pairs are not.
use rustc_hash::FxBuildHasher;

/// The contacts of one step's gap corrections by feature pair: hashed for lookup, walked in
/// key order ([`ContactPool::sorted`]) wherever the order reaches a result, so that a set
/// rebuilt from it comes out as from an ordered map, bit for bit.
#[derive(Debug, Clone)]
pub struct ContactPool<K, C> {
    keys: Vec<K>,
    contacts: Vec<C>,
    index: HashMap<K, usize, FxBuildHasher>,
}

impl<K: Clone + Eq + Hash + Ord, C> ContactPool<K, C> {
    /// An empty pool.
    pub fn new() -> Self {
        ContactPool {
            keys: Vec::new(),
            contacts: Vec::new(),
            index: HashMap::default(),
        }
    }

    /// The contact of `key`.
    pub fn get(&self, key: &K) -> Option<&C> {
        self.index.get(key).map(|&i| &self.contacts[i])
    }

    /// The contact of `key`, to change.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut C> {
        self.index.get(key).map(|&i| &mut self.contacts[i])
    }

    /// Whether `key` has a contact.
    pub fn contains_key(&self, key: &K) -> bool {
        self.index.contains_key(key)
    }

    /// Put `contact` under `key`, replacing the one there (as `BTreeMap::insert`).
    pub fn insert(&mut self, key: K, contact: C) {
        match self.index.get(&key) {
            Some(&i) => self.contacts[i] = contact,
            None => {
                self.index.insert(key.clone(), self.keys.len());
                self.keys.push(key);
                self.contacts.push(contact);
            }
        }
    }

    /// Every contact, to change, in no particular order (for changes that do not depend on
    /// each other).
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut C> {
        self.contacts.iter_mut()
    }

    /// Every (key, contact) in ascending key order.
    pub fn sorted(&self) -> impl Iterator<Item = (&K, &C)> {
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        // Keys are unique, so an unstable sort gives one order.
        order.sort_unstable_by(|&a, &b| self.keys[a].cmp(&self.keys[b]));
        order
            .into_iter()
            .map(|i| (&self.keys[i], &self.contacts[i]))
    }
}

impl<K: Clone + Eq + Hash + Ord, C> Default for ContactPool<K, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Clone + Eq + Hash + Ord, C> FromIterator<(K, C)> for ContactPool<K, C> {
    /// As `BTreeMap`'s: a later contact under a key replaces an earlier one.
    fn from_iter<I: IntoIterator<Item = (K, C)>>(iter: I) -> Self {
        let mut pool = ContactPool::new();
        for (k, c) in iter {
            pool.insert(k, c);
        }
        pool
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn behaves_as_an_ordered_map_under_inserts_replacements_and_changes() {
        // A fixed pseudo-random sequence of operations on both; every read agrees.
        let mut pool: ContactPool<(usize, usize), i64> = ContactPool::new();
        let mut map: BTreeMap<(usize, usize), i64> = BTreeMap::new();
        let mut x: u64 = 12345;
        for step in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = (((x >> 33) % 17) as usize, ((x >> 45) % 13) as usize);
            match step % 3 {
                0 => {
                    pool.insert(key, step);
                    map.insert(key, step);
                }
                1 => {
                    if let Some(v) = pool.get_mut(&key) {
                        *v -= 7;
                    }
                    if let Some(v) = map.get_mut(&key) {
                        *v -= 7;
                    }
                }
                _ => assert_eq!(pool.contains_key(&key), map.contains_key(&key)),
            }
            assert_eq!(pool.get(&key), map.get(&key));
        }
        let walked: Vec<_> = pool.sorted().map(|(k, v)| (*k, *v)).collect();
        let expected: Vec<_> = map.into_iter().collect();
        assert_eq!(walked, expected);
        pool.values_mut().for_each(|v| *v = 0);
        assert!(pool.sorted().all(|(_, v)| *v == 0));
    }
}
