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

/// Basic values at or above `−FEASIBLE_TOL · max(1, ‖q/s‖∞)` count as non-negative (the same
/// relative level as Lemke's pivot tolerance).
///
/// Unit: dimensionless, relative to max(1, ‖q/s‖∞). Used in `signorini-complementarity/src/basis_reuse.rs` (as `FEASIBLE_TOL`).
pub const LCP_FEASIBLE_TOL: Real = 1e-11;

/// Entries of the entering column at or below `PIVOT_TOL · max(1, ‖a‖∞)` are treated as
/// zero in the ratio test (dimensionless). Drake uses ≈ n·ε·max|M|; 1e-11 relative to the
/// column keeps `lcp_tobenna` (cond 1.8e6) and the Siconos MLCPs on the right path.
///
/// Unit: dimensionless, relative to max(1, ‖a‖∞). Used in `signorini-complementarity/src/lemke.rs` (as `PIVOT_TOL`).
pub const LCP_PIVOT_TOL: Real = 1e-11;

/// Relative tolerance of the row-by-row acceptance (`rows_within` in signorini-complementarity; PATH's default 1e-6).
///
/// Unit: dimensionless, relative to each row's magnitude. Used in `signorini-complementarity/src/solve/mod.rs` (as `ROW_TOL`).
pub const LCP_ROW_TOL: Real = 1e-6;

/// Relative tolerance of the validation (times the bounding-box diagonal): 1e-9 only rejects
/// what is wrong beyond rounding.
///
/// Unit: dimensionless, times the bounding-box diagonal (m). Used in `signorini-geometry/src/dim3/polyhedron.rs` (as `REL_TOL`).
pub const POLYHEDRON_REL_TOL: Real = 1e-9;

/// Relative plane tolerance of the hull (times the bounding-box diagonal).
///
/// Unit: dimensionless, times the bounding-box diagonal (m). Used in `signorini-geometry/src/dim3/hull.rs`.
pub const HULL_REL_TOL: Real = 1e-10;

/// Intersection volume (m³) of a body pair at a gap-correction trial pose above which the
/// pair gets a whole-body contact (see `Spatial::refresh`); 1000× below the 1e-6 m³ target.
///
/// Unit: m³. Used in `signorini-world/src/spatial.rs` (as `TRIAL_OVERLAP_TOLERANCE`).
pub const TRIAL_OVERLAP_VOLUME_TOL: Real = 1e-9;

/// Overlap area above which two polygons that no PEG constraint reads as penetrating get
/// whole-body contacts in the position projection (2D counterpart of
/// [`TRIAL_OVERLAP_VOLUME_TOL`]; pour2d's worst step overlaps are 2e-8 m²).
///
/// Unit: m². Used in `signorini-world/src/planar.rs` (`Planar::unseen`).
pub const UNSEEN_OVERLAP_AREA_TOL: Real = 1e-9;

/// Natural-map residual (scaled by max(1, ‖q‖∞)) below which a solver's best iterate is
/// accepted when no solver reached its own tolerance: PATH's default convergence tolerance,
/// which the reference runs used (docs/formulation-notes.md §6).
///
/// Unit: natural-map residual, scaled by max(1, ‖q‖∞) (m/s for velocity LCPs). Used in `signorini-world/src/stepper/` (as `APPROXIMATE_TOLERANCE`: `solve.rs`, `large.rs`).
pub const APPROXIMATE_RESIDUAL_TOL: Real = 1e-6;

/// Natural-map residual (scaled like the solvers' tolerance) within which an answer from an
/// earlier solve's basis is accepted: the level of a Lemke answer (the solvers' own 1e-8
/// would let a reused answer be 10⁶ times less exact than the cold solve it replaces).
///
/// Unit: natural-map residual, scaled by max(1, ‖q‖∞). Used in `signorini-world/src/stepper/solve.rs` (as `REUSE_TOLERANCE`).
pub const BASIS_REUSE_RESIDUAL_TOL: Real = 1e-12;

/// Violation (m) of a re-measured constraint that triggers a gap correction.
///
/// Unit: m. Used in `signorini-world/src/stepper/` (as `CORRECTION_TOLERANCE`: `mod.rs`, `corrections.rs`).
pub const GAP_CORRECTION_TOL: Real = 1e-7;

/// Relative change of the solution below which the sweeps stop.
///
/// Unit: dimensionless, relative change of the solution. Used in `signorini-world/src/penalty/implicit.rs` (as `TOLERANCE`).
pub const IMPLICIT_CONTACT_REL_TOL: Real = 1e-10;
