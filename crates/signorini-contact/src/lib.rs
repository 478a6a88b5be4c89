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
    UnknownRole,
};

/// How many contacts of an I-constraint may carry an impulse (paper §3, Eqs. 20–24; issue #22
/// item 2). Chosen when the constraints are built ([`peg::build_peg_constraints_with`],
/// `dim3::Peg3Params::form`), read by [`Formulation`] through [`PairConstraint::co_primaries`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PegForm {
    /// **Default.** One primary per I-constraint, |C_ι| = 1 (paper Eq. 24, the form the
    /// paper's experiments and the authors' code use): `0 ≤ λ_ι ⊥ max(ψ'_ι, ψ'_κ…) ≥ 0`; the
    /// other applicable members are secondaries without impulse.
    #[default]
    SinglePrimary,
    /// The general form, |C_ι| > 1 (paper Eqs. 20–23, whose text was lost in extraction; our
    /// reconstruction is documented on [`Formulation`] and in docs/peg2d.md): every applicable
    /// member of an I-constraint is a primary with its own impulse, which may be non-zero only
    /// on the primary at the top of the max, when the max is 0.
    General,
}

impl PegForm {
    /// `single-primary` or `general`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "single-primary" | "single" => Some(Self::SinglePrimary),
            "general" => Some(Self::General),
            _ => None,
        }
    }

    /// The name [`PegForm::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::SinglePrimary => "single-primary",
            Self::General => "general",
        }
    }
}

/// Whether an X-constraint's multiplier acts as an impulse (issue #22 item 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum XImpulse {
    /// **Default.** The X-constraint's primary carries an impulse, as in the authors' code
    /// (docs/formulation-notes.md §4.3, §13.3): `0 ≤ λ_x ⊥ max(ψ'_p, ψ'_s…) ≥ 0` with λ_x
    /// along the primary's normal.
    #[default]
    Primary,
    /// The paper's form (§3: "X-constraints may be represented mathematically as
    /// I-constraints with no impulses", before Eq. 49): the same row `max(ψ'_p, ψ'_s…) ≥ 0`,
    /// whose complementary multiplier σ_x has no velocity column. No impulse acts on the
    /// primary or on any member; the constraint is held by the impulses of the U- and
    /// I-constraints alone, and σ_x only closes the complementarity system (σ_x > 0 only when
    /// the X-constraint is active).
    Paper,
}

impl XImpulse {
    /// `primary` or `paper`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "primary" => Some(Self::Primary),
            "paper" | "none" => Some(Self::Paper),
            _ => None,
        }
    }

    /// The name [`XImpulse::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::Primary => "primary",
            Self::Paper => "paper",
        }
    }
}

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
