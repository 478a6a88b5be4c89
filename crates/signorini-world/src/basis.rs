//! Lemke bases kept from one solve to the next ([`WorldParams::reuse_basis`]).
//!
//! Owns: [`StoredBasis`] (a factored basis with the signature of the constraint set it was
//! solved for) and the signature itself. Does not own: using it (`stepper.rs::solve` tries a
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

use signorini_complementarity::LemkeFactor;
use signorini_contact::{ConstraintSet, XImpulse};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What makes two constraint sets formulate to problems with the same unknowns in the same
/// order: the feature-pair key of every contact, and the U/I/X structure over them.
#[derive(Debug, Clone, PartialEq, Eq)]
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
        // The paper's X form gives X primaries no impulse (and no friction rows).
        if set.x_impulse == XImpulse::Paper {
            structure.push(usize::MAX);
        }
        Signature {
            keys: set.contacts.iter().map(key).collect(),
            structure,
        }
    }
}

/// What one unknown of a formulated problem stands for, by the feature-pair keys of its
/// contacts: a normal impulse, a secondary's slack (primary, secondary), a friction direction
/// (normal, direction) or a friction slack (normal).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Unknown<K> {
    Normal(K),
    Slack(K, K),
    Friction(K, usize),
    FrictionSlack(K),
}

impl<K: Clone + Ord> Signature<K> {
    /// What each of the `n` unknowns of this set's problem stands for, in the formulation's
    /// order (`Formulation::build_with_directions`): the normals (U, then the I and X
    /// primaries), the secondaries' slacks pair by pair, and with friction `d` directions per
    /// normal then one friction slack per normal. `None` for what this does not describe
    /// (general-form co-primaries; friction rows that do not follow every normal, as in the
    /// paper's X form; counts that do not add up to `n`). An unknown that stands for the same
    /// thing as an earlier one (a contact grouped twice) carries its occurrence number.
    fn unknowns(&self, n: usize) -> Option<Vec<(Unknown<K>, usize)>> {
        let st = &self.structure;
        let key = |i: usize| self.keys.get(i).cloned();
        let u = *st.first()?;
        let mut normals: Vec<K> = st
            .get(1..=u)?
            .iter()
            .map(|&i| key(i))
            .collect::<Option<_>>()?;
        let mut slacks = Vec::new();
        let mut at = u + 1;
        for _ in 0..2 {
            let count = *st.get(at)?;
            at += 1;
            for _ in 0..count {
                let (primary, secondaries) = (key(*st.get(at)?)?, *st.get(at + 1)?);
                for &s in st.get(at + 2..at + 2 + secondaries)? {
                    slacks.push(Unknown::Slack(primary.clone(), key(s)?));
                }
                normals.push(primary);
                at += 2 + secondaries;
            }
        }
        if at != st.len() {
            return None; // co-primaries
        }
        let fixed = normals.len() + slacks.len();
        let friction = n.checked_sub(fixed)?;
        let per_normal = match friction {
            0 => 0,
            _ if !normals.is_empty() && friction % normals.len() == 0 => friction / normals.len(),
            _ => return None,
        };
        let mut out: Vec<Unknown<K>> = normals.iter().cloned().map(Unknown::Normal).collect();
        out.extend(slacks);
        if per_normal > 0 {
            for k in &normals {
                out.extend((0..per_normal - 1).map(|d| Unknown::Friction(k.clone(), d)));
            }
            out.extend(normals.into_iter().map(Unknown::FrictionSlack));
        }
        let mut seen: BTreeMap<Unknown<K>, usize> = BTreeMap::new();
        Some(
            out.into_iter()
                .map(|u| {
                    let count = seen.entry(u.clone()).or_insert(0);
                    *count += 1;
                    (u, *count - 1)
                })
                .collect(),
        )
    }

    /// Where the `n_old` unknowns of this set's problem sit among the `n_new` of `new`'s, found
    /// by what each stands for ([`Signature::unknowns`]): `None` unless every old unknown is
    /// still there. A gap-correction round only adds contacts (feature pairs that come near at
    /// the trial pose): in 3D they are appended as U-constraints, and the grown problem
    /// restricted to the old unknowns is the old one entry for entry; in 2D the rebuild
    /// regroups the pool into PEG's constraints, so an I- or X-constraint that gained a member
    /// has other slack rows, and a basis grown over this map is only near the new one (the
    /// pivoting's drift check refactors it then).
    pub(crate) fn embedding(
        &self,
        new: &Signature<K>,
        n_old: usize,
        n_new: usize,
    ) -> Option<Vec<usize>> {
        if n_new < n_old {
            return None;
        }
        let (old, new) = (self.unknowns(n_old)?, new.unknowns(n_new)?);
        let at: BTreeMap<&(Unknown<K>, usize), usize> =
            new.iter().enumerate().map(|(i, u)| (u, i)).collect();
        old.iter().map(|u| at.get(u).copied()).collect()
    }
}

/// A factored Lemke basis and the constraint set it solved.
#[derive(Debug, Clone)]
pub(crate) struct StoredBasis<K> {
    pub(crate) signature: Signature<K>,
    pub(crate) factor: Arc<LemkeFactor>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use signorini_contact::PairConstraint;

    fn pair(primary: usize, secondaries: &[usize]) -> PairConstraint {
        PairConstraint {
            primary,
            secondaries: secondaries.to_vec(),
            co_primaries: Vec::new(),
        }
    }

    /// A 2D rebuild regroups the pool in key order: the old unknowns are found by what they
    /// stand for wherever they moved (normals, slacks, friction rows), a contact grouped twice
    /// keeps its occurrences apart, and a lost unknown means no embedding.
    #[test]
    fn unknowns_are_found_where_a_regrouped_set_put_them() {
        // Old: contacts keyed 10, 20, 30, 40; U = {10}; I = (20; 30); X = (20; 40): contact 20
        // is a primary twice.
        let old = ConstraintSet::<u32> {
            contacts: vec![10, 20, 30, 40],
            unilateral: vec![0],
            inter: vec![pair(1, &[2])],
            cross: vec![pair(1, &[3])],
            ..Default::default()
        };
        // New: 15 joined, the contacts in key order, 10 now an I primary with 15 as secondary.
        let new = ConstraintSet::<u32> {
            contacts: vec![10, 15, 20, 30, 40],
            unilateral: vec![],
            inter: vec![pair(0, &[1]), pair(2, &[3])],
            cross: vec![pair(2, &[4])],
            ..Default::default()
        };
        let (so, sn) = (Signature::of(&old, |c| *c), Signature::of(&new, |c| *c));
        // Frictionless. Old: normals 10, 20, 20; slacks (20,30), (20,40).
        // New: normals 10, 20, 20; slacks (10,15), (20,30), (20,40).
        assert_eq!(so.embedding(&sn, 5, 6), Some(vec![0, 1, 2, 4, 5]));
        // With 2 friction directions (3 unknowns per normal after the slacks): old 5 + 9,
        // new 6 + 9; friction rows follow their normal.
        let map = so.embedding(&sn, 14, 15).unwrap();
        assert_eq!(&map[..5], &[0, 1, 2, 4, 5]);
        assert_eq!(&map[5..], &[6, 7, 8, 9, 10, 11, 12, 13, 14]);
        // Counts that do not add up, or an unknown that is gone.
        assert_eq!(so.embedding(&sn, 5, 7), None);
        let lost = ConstraintSet::<u32> {
            inter: vec![pair(0, &[1]), pair(2, &[])],
            ..new.clone()
        };
        assert_eq!(so.embedding(&Signature::of(&lost, |c| *c), 5, 5), None);
        // The paper's X form is not described.
        let paper = ConstraintSet::<u32> {
            x_impulse: XImpulse::Paper,
            ..new.clone()
        };
        assert_eq!(so.embedding(&Signature::of(&paper, |c| *c), 5, 6), None);
    }
}
