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

/// A factored Lemke basis and the constraint set it solved.
#[derive(Debug, Clone)]
pub(crate) struct StoredBasis<K> {
    pub(crate) signature: Signature<K>,
    pub(crate) factor: Arc<LemkeFactor>,
}
