//! The constraint set handed to the formulation: U-, I- and X-constraints over a contact list.
//!
//! Owns: [`ConstraintSet`], [`PairConstraint`], [`ConstraintCounts`]. Does not own: how they are
//! chosen (`peg`, or "all U" for the standard and corrective models).

use super::contact::Contact;
use crate::XImpulse;

/// An I- or X-constraint with a primary contact that carries an impulse and secondary
/// contacts that only enter through slacks (paper Eq. 24 with the slack construction;
/// docs/formulation-notes.md §4.1). Enforces `max(ψ'_primary, ψ'_secondaries…) ≥ 0`.
/// In the general form ([`crate::PegForm::General`], paper Eqs. 20–23) some secondaries are
/// primaries too ([`PairConstraint::co_primaries`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairConstraint {
    /// Index of the primary contact (the general form's reference primary: the slack chain
    /// computes the max relative to it).
    pub primary: usize,
    /// Indices of the secondary contacts (one in 2D).
    pub secondaries: Vec<usize>,
    /// General form only (paper Eqs. 20–23, |C_ι| > 1): the members of `secondaries` that are
    /// also in C_ι and carry an impulse of their own. Empty in the single-primary form (the
    /// default) and for X-constraints.
    pub co_primaries: Vec<usize>,
}

/// Contacts plus the constraints built on them. Generic over the contact type (2D
/// [`Contact`] by default; 3D contacts use the same U/I/X structure).
#[derive(Debug, Clone, PartialEq)]
pub struct ConstraintSet<C = Contact> {
    /// All contacts referenced by the constraints.
    pub contacts: Vec<C>,
    /// U-constraints (paper Eq. 11): indices into `contacts`.
    pub unilateral: Vec<usize>,
    /// I-constraints (paper Eqs. 15, 20–24).
    pub inter: Vec<PairConstraint>,
    /// X-constraints (paper Eqs. 16, 35), written like I-constraints; as in the reference code
    /// (docs/formulation-notes.md §4.3) the primary carries an impulse, unless `x_impulse` is
    /// [`XImpulse::Paper`].
    pub cross: Vec<PairConstraint>,
    /// Whether the X-constraints' multipliers are impulses on their primaries (the default)
    /// or carry none (the paper's form).
    pub x_impulse: XImpulse,
}

/// Per-step constraint counts (for the Fig. 22 comparison, docs/formulation-notes.md §8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ConstraintCounts {
    /// Number of contacts.
    pub contacts: usize,
    /// Number of U-constraints.
    pub unilateral: usize,
    /// Number of I-constraints.
    pub inter: usize,
    /// Number of X-constraints.
    pub cross: usize,
}

impl<C> Default for ConstraintSet<C> {
    fn default() -> Self {
        ConstraintSet {
            contacts: Vec::new(),
            unilateral: Vec::new(),
            inter: Vec::new(),
            cross: Vec::new(),
            x_impulse: XImpulse::default(),
        }
    }
}

impl<C> ConstraintSet<C> {
    /// Every contact as a U-constraint (the standard and corrective models).
    pub fn all_unilateral(contacts: Vec<C>) -> Self {
        let unilateral = (0..contacts.len()).collect();
        ConstraintSet {
            contacts,
            unilateral,
            inter: Vec::new(),
            cross: Vec::new(),
            x_impulse: XImpulse::default(),
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
