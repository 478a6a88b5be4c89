//! Disjoint sets over `0..n` (union–find with path halving), for grouping: contact islands of
//! bodies (`signorini-world`), blocks of unknowns (`signorini-contact`).
//!
//! Owns: [`UnionFind`]. Deterministic: a union keeps the smaller root, so every set's root is
//! its smallest member whatever the order of the unions.

/// Disjoint sets over `0..n`.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    /// `n` singletons.
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    /// The root of `i`'s set (its smallest member).
    pub fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    /// Join the sets of `i` and `j`; the smaller root stays the root.
    pub fn union(&mut self, i: usize, j: usize) {
        let (a, b) = (self.find(i), self.find(j));
        if a != b {
            self.parent[a.max(b)] = a.min(b);
        }
    }

    /// The sets of `members` (each in ascending order), ordered by their smallest member.
    pub fn groups(&mut self, members: impl Iterator<Item = usize>) -> Vec<Vec<usize>> {
        let mut by_root: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for i in members {
            by_root.entry(self.find(i)).or_default().push(i);
        }
        let mut out: Vec<Vec<usize>> = by_root.into_values().collect();
        for g in &mut out {
            g.sort_unstable();
        }
        out.sort_by_key(|g| g[0]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unions_are_transitive_and_groups_sorted() {
        let mut u = UnionFind::new(6);
        u.union(4, 5);
        u.union(0, 5);
        u.union(1, 2);
        assert_eq!(u.find(4), 0);
        assert_eq!(u.groups(0..6), vec![vec![0, 4, 5], vec![1, 2], vec![3]]);
        assert_eq!(u.groups([5, 2].into_iter()), vec![vec![2], vec![5]]);
    }
}
