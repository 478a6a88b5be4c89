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
use signorini_contact::ConstraintSet;
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
        Signature {
            keys: set.contacts.iter().map(key).collect(),
            structure,
        }
    }
}

impl<K: Clone + PartialEq> Signature<K> {
    /// Where the unknowns of a problem with this signature (`n_old` of them) sit in the problem
    /// of `new` (`n_new`), when `new` is this set with contacts appended as U-constraints — what
    /// a gap-correction round's rebuild does when feature pairs come near at the trial pose —
    /// and the same structure otherwise (no general-form co-primaries). `None` for any other
    /// change.
    ///
    /// The formulation's unknowns are the normals (U, then the I and X primaries), the
    /// secondaries' slacks, and with friction `d` directions per normal then one friction slack
    /// per normal (`Formulation::build_with_directions`): the new contacts' normals come after
    /// the old U's, their friction rows after the old U's friction rows. The counts are checked
    /// against `n_old` and `n_new`; a set whose friction rows do not follow every normal (the
    /// paper's X form) fails the count and gets `None`.
    pub(crate) fn embedding(
        &self,
        new: &Signature<K>,
        n_old: usize,
        n_new: usize,
    ) -> Option<Vec<usize>> {
        let (old_len, new_len) = (self.keys.len(), new.keys.len());
        if new_len < old_len || new.keys[..old_len] != self.keys[..] {
            return None;
        }
        let added = new_len - old_len;
        let u_old = *self.structure.first()?;
        let mut expected = Vec::with_capacity(new.structure.len());
        expected.push(u_old + added);
        expected.extend_from_slice(&self.structure[1..=u_old]);
        expected.extend(old_len..new_len);
        expected.extend_from_slice(&self.structure[u_old + 1..]);
        if expected != new.structure || self.structure.contains(&usize::MAX) {
            return None;
        }
        // Normals: U + I + X; slacks: Σ secondaries, read from the structure.
        let rest = &self.structure[u_old + 1..];
        let (mut at, mut pairs, mut slacks) = (0, 0, 0);
        for _ in 0..2 {
            let count = *rest.get(at)?;
            at += 1;
            for _ in 0..count {
                let secondaries = *rest.get(at + 1)?;
                slacks += secondaries;
                at += 2 + secondaries;
            }
            pairs += count;
        }
        let normals = u_old + pairs;
        let fixed = normals + slacks;
        let friction = n_old.checked_sub(fixed)?;
        let per_normal = if friction == 0 {
            0
        } else if normals > 0 && friction % normals == 0 {
            friction / normals // d directions + 1 slack
        } else {
            return None;
        };
        if n_new != n_old + added * (1 + per_normal) {
            return None;
        }
        let shift_normal = |k: usize| if k < u_old { k } else { k + added };
        let d = per_normal.saturating_sub(1);
        let (base_f, base_f_new) = (fixed, fixed + added);
        let (base_s, base_s_new) = (base_f + d * normals, base_f_new + d * (normals + added));
        Some(
            (0..n_old)
                .map(|i| {
                    if i < normals {
                        shift_normal(i)
                    } else if i < fixed {
                        i + added
                    } else if i < base_s {
                        let (k, dir) = ((i - base_f) / d, (i - base_f) % d);
                        base_f_new + d * shift_normal(k) + dir
                    } else {
                        base_s_new + shift_normal(i - base_s)
                    }
                })
                .collect(),
        )
    }
}

/// A factored Lemke basis and the constraint set it solved.
#[derive(Debug, Clone)]
pub(crate) struct StoredBasis<K> {
    pub(crate) signature: Signature<K>,
    pub(crate) factor: Arc<LemkeFactor>,
}
