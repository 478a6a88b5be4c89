//! The 3D constraint set: the generic [`crate::ConstraintSet`] over [`Contact3`].
//!
//! Owns: the alias. Does not own: how constraints are chosen (`peg`, `standard`).

use super::contact::Contact3;

/// Contacts plus the U-, I- and X-constraints built on them (paper Eqs. 11, 15–16, 35–38); I-
/// and X-constraints may have any number of secondaries.
pub type ConstraintSet3 = crate::ConstraintSet<Contact3>;
