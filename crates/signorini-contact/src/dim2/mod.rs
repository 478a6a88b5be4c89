//! Contacts between rigid convex polygons (paper §2–§5, Eqs. 11–24, 28–35): vertex–edge contact
//! records with 3-dof Jacobians and the applicability test ([`contact`]), potential contacts
//! ([`potential`]), the PEG constraint builder ([`peg`]), the standard ε-distance detector
//! ([`standard`]) and the corrective detector ([`corrective`]), and constraint sets
//! ([`constraints`]). The 3D counterparts are in [`crate::dim3`]; the formulation into an
//! LCP/MCP is shared by both (`formulate.rs`).
//!
//! The crate root re-exports what the stepper uses, so `signorini_contact::Contact` and
//! `signorini_contact::dim2::contact::Contact` name the same type.

pub mod constraints;
pub mod contact;
pub mod corrective;
pub mod peg;
pub mod potential;
pub mod standard;
