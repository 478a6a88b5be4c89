//! Lemke bases kept from one solve to the next ([`WorldParams::reuse_basis`]).
//!
//! Owns: [`StoredBasis`] (a factored basis with the signature of the constraint set it was
//! solved for) and the signature itself. Does not own: using it (`stepper/solve.rs::solve` tries a
//! stored basis first and certifies its answer by the residual; see
//! [`signorini_complementarity::LemkeFactor`]).
//!
//! Within a step, the gap-correction and split re-solves differ from the solve before them
//! only in q. From one step to the next, a pile at rest has the same contacts (the same
//! feature pairs, in the same order, grouped into the same I/X constraints), so its problem
//! has the same unknowns and a matrix that moved by the bodies' small motion: the previous
//! step's basis, refined against the new matrix, usually still solves it.
//!
//! [`WorldParams::reuse_basis`]: crate::WorldParams::reuse_basis

use serde::{Deserialize, Serialize};
use signorini_complementarity::LemkeFactor;
use signorini_contact::{ConstraintSet, Formulation, UnknownRole as Role};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// What makes two constraint sets formulate to problems with the same unknowns in the same
/// order: the feature-pair key of every contact, and the U/I/X structure over them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Signature<K> {
    keys: Vec<K>,
    structure: Vec<usize>,
}

impl<K: Clone> Signature<K> {
    /// The signature of `set`, with `key` the space's feature-pair key of a contact.
    pub(crate) fn of<C>(set: &ConstraintSet<C>, key: impl Fn(&C) -> K) -> Self {
        let mut structure = Vec::with_capacity(set.unilateral.len() + 4 * set.contacts.len());
        structure.push(set.unilateral.len());
        structure.extend_from_slice(&set.unilateral);
        for group in [&set.inter, &set.cross] {
            structure.push(group.len());
            for p in group.iter() {
                structure.push(p.primary);
                structure.push(p.secondaries.len());
                structure.extend_from_slice(&p.secondaries);
                // The general form's co-primaries add unknowns (none by default, so the
                // default signature is unchanged).
                if !p.co_primaries.is_empty() {
                    structure.push(usize::MAX);
                    structure.extend_from_slice(&p.co_primaries);
                }
            }
        }
        Signature {
            keys: set.contacts.iter().map(key).collect(),
            structure,
        }
    }
}

/// What one unknown of a formulated problem stands for ([`UnknownRole`]), by the
/// feature-pair keys of its contacts instead of their indices in one set, with an occurrence
/// number for an unknown that stands for the same thing as an earlier one (a contact grouped
/// twice).
pub(crate) type KeyedUnknown<K> = (UnknownRole<K>, usize);

/// The unknowns of `form` (formulated from `set`) by contact key, in order.
pub(crate) fn keyed_unknowns<C, K: Clone + Ord, const D: usize>(
    form: &Formulation<D>,
    set: &ConstraintSet<C>,
    key: impl Fn(&C) -> K,
) -> Vec<KeyedUnknown<K>> {
    let k = |i: usize| key(&set.contacts[i]);
    let mut seen: BTreeMap<UnknownRole<K>, usize> = BTreeMap::new();
    form.unknowns()
        .iter()
        .map(|&u| {
            let role = match u {
                Role::Normal(i) => UnknownRole::Normal(k(i)),
                Role::CoPrimary { primary, contact } => {
                    UnknownRole::CoPrimary(k(primary), k(contact))
                }
                Role::Slack { primary, secondary } => UnknownRole::Slack(k(primary), k(secondary)),
                Role::Friction { contact, direction } => {
                    UnknownRole::Friction(k(contact), direction)
                }
                Role::FrictionSlack(i) => UnknownRole::FrictionSlack(k(i)),
            };
            let count = seen.entry(role.clone()).or_insert(0);
            *count += 1;
            (role, *count - 1)
        })
        .collect()
}

/// [`signorini_contact::UnknownRole`] with contact keys for contact indices.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) enum UnknownRole<K> {
    Normal(K),
    CoPrimary(K, K),
    Slack(K, K),
    Friction(K, usize),
    FrictionSlack(K),
}

impl<K> UnknownRole<K> {
    /// The contact keys this unknown names (one or two).
    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        let (a, b) = match self {
            UnknownRole::Normal(a)
            | UnknownRole::Friction(a, _)
            | UnknownRole::FrictionSlack(a) => (a, None),
            UnknownRole::CoPrimary(a, b) | UnknownRole::Slack(a, b) => (a, Some(b)),
        };
        std::iter::once(a).chain(b)
    }
}

impl<K> StoredBasis<K> {
    /// Every contact key the stored basis names: its set's, then its unknowns'.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        let unknowns = self.unknowns.iter().flat_map(|(role, _)| role.keys());
        self.signature.keys.iter().chain(unknowns)
    }
}

/// Where each of the `old` unknowns sits among the `new` ones, found by what each stands for:
/// `None` unless every old unknown is still there. A gap-correction round only adds contacts
/// (feature pairs that come near at the trial pose): in 3D they are appended as U-constraints,
/// and the grown problem restricted to the old unknowns is the old one entry for entry; in 2D
/// the rebuild regroups the pool into PEG's constraints, so an I- or X-constraint that gained a
/// member has other slack rows, and a basis grown over this map is only near the new one (the
/// pivoting's drift check refactors it then).
pub(crate) fn embedding<K: Ord>(
    old: &[KeyedUnknown<K>],
    new: &[KeyedUnknown<K>],
) -> Option<Vec<usize>> {
    if new.len() < old.len() {
        return None;
    }
    let at: BTreeMap<&KeyedUnknown<K>, usize> =
        new.iter().enumerate().map(|(i, u)| (u, i)).collect();
    old.iter().map(|u| at.get(u).copied()).collect()
}

/// The unknowns whose z is basic in a stored basis, by what each stands for: the sparse
/// Lemke's warm start for the next step, whose set may differ (`GenericWorld::basic`).
pub(crate) fn basic_unknowns<K: Clone + Ord>(b: &StoredBasis<K>) -> BTreeSet<KeyedUnknown<K>> {
    if b.unknowns.len() != b.factor.dim() {
        return BTreeSet::new();
    }
    b.unknowns
        .iter()
        .zip(b.factor.z_basic())
        .filter(|(_, basic)| *basic)
        .map(|(u, _)| u.clone())
        .collect()
}

/// A complementary basis for a problem with unknowns `new`: z basic where the same unknown
/// is in `basic`, w basic for every other one (new unknowns, or not basic before). The sparse
/// Lemke factors it and starts cold if it is singular.
pub(crate) fn flags_by_key<K: Ord>(
    basic: &BTreeSet<KeyedUnknown<K>>,
    new: &[KeyedUnknown<K>],
) -> Vec<bool> {
    new.iter().map(|u| basic.contains(u)).collect()
}

/// A keyed unknown with every contact key mapped by `f` (`None` if `f` drops one): from an
/// island's local body indices to the world's, and back.
pub(crate) fn map_unknown<K, L>(
    u: &KeyedUnknown<K>,
    f: impl Fn(&K) -> Option<L>,
) -> Option<KeyedUnknown<L>> {
    let role = match &u.0 {
        UnknownRole::Normal(a) => UnknownRole::Normal(f(a)?),
        UnknownRole::CoPrimary(a, b) => UnknownRole::CoPrimary(f(a)?, f(b)?),
        UnknownRole::Slack(a, b) => UnknownRole::Slack(f(a)?, f(b)?),
        UnknownRole::Friction(a, d) => UnknownRole::Friction(f(a)?, *d),
        UnknownRole::FrictionSlack(a) => UnknownRole::FrictionSlack(f(a)?),
    };
    Some((role, u.1))
}

/// A factored Lemke basis and the constraint set it solved (`serde` for a checkpoint:
/// [`crate::SolverMemory`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StoredBasis<K> {
    pub(crate) signature: Signature<K>,
    /// What each of the factor's unknowns stands for ([`keyed_unknowns`]).
    pub(crate) unknowns: Vec<KeyedUnknown<K>>,
    pub(crate) factor: Arc<LemkeFactor>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2D rebuild regroups the pool: the old unknowns are found by what they stand for
    /// wherever they moved, a contact grouped twice keeps its occurrences apart, and a lost
    /// unknown means no embedding.
    #[test]
    fn unknowns_are_found_where_a_regrouped_set_put_them() {
        use UnknownRole::*;
        let old: Vec<KeyedUnknown<u32>> = vec![
            (Normal(10), 0),
            (Normal(20), 0),
            (Normal(20), 1),
            (Slack(20, 30), 0),
            (Slack(20, 40), 0),
            (Friction(20, 1), 1),
        ];
        let new: Vec<KeyedUnknown<u32>> = vec![
            (Normal(10), 0),
            (Normal(20), 0),
            (Normal(20), 1),
            (Slack(10, 15), 0),
            (Slack(20, 30), 0),
            (Slack(20, 40), 0),
            (Friction(20, 1), 0),
            (Friction(20, 1), 1),
        ];
        assert_eq!(embedding(&old, &new), Some(vec![0, 1, 2, 4, 5, 7]));
        let mut lost = new.clone();
        lost.remove(5);
        assert_eq!(embedding(&old, &lost), None);
        assert_eq!(embedding(&new, &old), None);
    }

    /// The sparse Lemke's warm start across steps: the unknowns basic in the last basis are
    /// basic again wherever the new problem put them; new unknowns, and a contact's second
    /// occurrence when only its first was basic, start with w basic. Keys survive the trip
    /// from an island's local body indices to the world's and back, and a key with a body
    /// outside the island is dropped.
    #[test]
    fn basic_unknowns_are_found_again_by_key_across_islands() {
        use UnknownRole::*;
        let basic: BTreeSet<KeyedUnknown<(usize, usize)>> = [
            (Normal((3, 4)), 0),
            (Slack((3, 4), (4, 5)), 0),
            (Normal((4, 5)), 1),
        ]
        .into_iter()
        .collect();
        let new = vec![
            (Normal((9, 9)), 0),
            (Normal((4, 5)), 0),
            (Normal((4, 5)), 1),
            (Slack((3, 4), (4, 5)), 0),
            (Normal((3, 4)), 0),
        ];
        assert_eq!(
            flags_by_key(&basic, &new),
            vec![false, false, true, true, true]
        );
        // World indices 3, 4, 5 are an island's 0, 1, 2; body 9 is not in it.
        let members = [3, 4, 5];
        let local = |k: &(usize, usize)| {
            let at = |g: usize| members.iter().position(|&m| m == g);
            Some((at(k.0)?, at(k.1)?))
        };
        let global = |k: &(usize, usize)| Some((members[k.0], members[k.1]));
        for u in &basic {
            let there = map_unknown(u, local).unwrap();
            assert_eq!(map_unknown(&there, global).as_ref(), Some(u));
        }
        assert_eq!(map_unknown(&new[0], local), None);
    }
}
