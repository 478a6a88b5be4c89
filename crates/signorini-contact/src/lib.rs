//! Contacts between rigid polygons, the three contact models, and their complementarity
//! formulation.
//!
//! Owns:
//! - [`Contact`]: a vertex–edge feature pair with signed gap ψ, normal n̂ (from A into B),
//!   gap-rate Jacobian and applicability (docs/formulation-notes.md §2, paper Eqs. 28–30);
//! - detectors: the PEG potential-contact search (docs/formulation-notes.md §5.3), the standard ε-distance
//!   detector and the "corrective" separating-axis detector (docs/formulation-notes.md §5.6);
//! - [`ConstraintSet`]: U-, I- and X-constraints; [`peg::build_peg_constraints`] builds them with
//!   the single-primary heuristic (paper §2–§5, Eqs. 11–24, 35; docs/formulation-notes.md §4, §5.4);
//! - [`Formulation`]: the time-stepping subproblem (paper Eqs. 8–9 / 48–49 with ψ/h) as a
//!   reduced LCP or a mixed LCP (MCP), frictionless or with a friction pyramid (docs/formulation-notes.md §3–§4).
//!
//! - [`dim3`]: the same for convex polyhedra with 6-dof Jacobians (paper §4–§5.2, Eqs. 25–38).
//!
//! Does not own: solving (`signorini-complementarity`), the step loop (`signorini-world`).

#![warn(missing_docs)]

mod block_gs;
pub mod dim2;
pub mod dim3;
mod formulate;

pub use block_gs::{BlockGsParams, BlockGsResult};
pub use dim2::constraints::{ConstraintCounts, ConstraintSet, PairConstraint};
pub use dim2::contact::{Contact, Jacobian, MassBlock, applicability, vertex_edge_contact};
pub use dim2::corrective::corrective_contacts;
pub use dim2::peg;
pub use dim2::potential::{
    DEEP_APPLICABILITY, PEG_APPLICABILITY_RELAXATION, PotentialRules, crosses_edge,
    peg_detection_distance, potential_contacts, potential_contacts_with,
};
pub use dim2::standard::{SM_DETECTION_DISTANCE, standard_contacts};
pub use formulate::{
    ContactRow, DEFAULT_FRICTION_DIRECTIONS, DofBody, Formulation, FormulationError, MixedTriplets,
};

use serde::{Deserialize, Serialize};

/// Which contact model turns detected contacts into constraints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ContactModel {
    /// Polytopal exact geometry: U-, I- and X-constraints (paper §2–§5).
    Peg,
    /// Stewart–Trinkle with the ε-distance detector: every contact is a U-constraint.
    Standard,
    /// One contact per already-overlapping pair from a separating-axis test (docs/formulation-notes.md §5.6).
    Corrective,
}

impl ContactModel {
    /// Lower-case name used in file names and CSVs (`peg`, `standard`, `corrective`).
    pub fn name(self) -> &'static str {
        match self {
            ContactModel::Peg => "peg",
            ContactModel::Standard => "standard",
            ContactModel::Corrective => "corrective",
        }
    }

    /// Parse a lower-case model name.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "peg" => Some(ContactModel::Peg),
            "standard" | "st" | "sm" => Some(ContactModel::Standard),
            "corrective" | "pen" => Some(ContactModel::Corrective),
            _ => None,
        }
    }
}
