//! The 3D constraint set (stand-in with the field names of the 2D [`crate::ConstraintSet`]).
//!
//! Owns: [`ConstraintSet3`]. Does not own: how constraints are chosen (`peg`, `standard`).

use super::contact::Contact3;
use crate::{ConstraintCounts, PairConstraint};

/// Contacts plus the U-, I- and X-constraints built on them (paper Eqs. 11, 15–16, 35–38).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConstraintSet3 {
    /// All contacts referenced by the constraints.
    pub contacts: Vec<Contact3>,
    /// U-constraints: indices into `contacts`.
    pub unilateral: Vec<usize>,
    /// I-constraints: one feature of one body against several features of the other; any
    /// number of secondaries.
    pub inter: Vec<PairConstraint>,
    /// X-constraints (vertex–edge Eq. 36, vertex–vertex Eq. 38), written like I-constraints.
    pub cross: Vec<PairConstraint>,
}

impl ConstraintSet3 {
    /// Every contact as a U-constraint (the standard and corrective models).
    pub fn all_unilateral(contacts: Vec<Contact3>) -> Self {
        let unilateral = (0..contacts.len()).collect();
        ConstraintSet3 {
            contacts,
            unilateral,
            inter: Vec::new(),
            cross: Vec::new(),
        }
    }

    /// The counts.
    pub fn counts(&self) -> ConstraintCounts {
        ConstraintCounts {
            contacts: self.contacts.len(),
            unilateral: self.unilateral.len(),
            inter: self.inter.len(),
            cross: self.cross.len(),
        }
    }

    /// True when there is nothing to enforce.
    pub fn is_empty(&self) -> bool {
        self.unilateral.is_empty() && self.inter.is_empty() && self.cross.is_empty()
    }
}
