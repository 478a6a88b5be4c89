//! Named tolerances, each with its unit, typical value and provenance.
//!
//! Touching these changes results; every value says where it comes from.

use crate::Real;

/// Relative tolerance for ties in Lemke's ratio test and lexicographic comparisons
/// (dimensionless). Exact comparison cycles on Siconos `lcp_tobenna`
/// (`docs/formulation-notes.md` §12.2); 1e-11 relative breaks the ties correctly.
pub const LCP_TIE_TOL: Real = 1e-11;

/// Default natural-map residual at which a complementarity solve counts as solved
/// (scaled by `max(1, ‖q‖∞)`). 1e-8 is what the project's acceptance tests require.
pub const LCP_RESIDUAL_TOL: Real = 1e-8;
