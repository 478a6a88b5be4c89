//! Solver selection, parameters, and what a solve reports.
//!
//! The entry points `solve_lcp(&Lcp, &SolveParams)` and `solve_mcp(&Mcp, &SolveParams)`
//! return `Result<SolveInfo, SolveError>`.

use nalgebra::DVector;
use signorini_math::Real;

/// Which algorithm to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SolverKind {
    /// Lemke's complementary pivoting method (lexicographic, tolerance-aware ties).
    Lemke,
    /// Semismooth Newton on the (penalized) Fischer–Burmeister reformulation.
    FbNewton,
    /// Projected Gauss–Seidel / SOR (positive semidefinite problems).
    Pgs,
    /// A fallback chain; the report says which solver produced the answer.
    Auto,
}

/// Knobs for a solve.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SolveParams {
    /// Algorithm.
    pub solver: SolverKind,
    /// Natural-map residual tolerance, scaled by `max(1, ‖q‖∞)`.
    pub tolerance: Real,
    /// Iteration (or pivot) limit; `None` picks a size-dependent default.
    pub max_iterations: Option<usize>,
    /// Optional starting point (length n).
    pub warm_start: Option<DVector<Real>>,
}

impl Default for SolveParams {
    fn default() -> Self {
        SolveParams {
            solver: SolverKind::Auto,
            tolerance: signorini_math::tolerance::LCP_RESIDUAL_TOL,
            max_iterations: None,
            warm_start: None,
        }
    }
}

/// What a successful solve reports.
#[derive(Debug, Clone)]
pub struct SolveInfo {
    /// The solution z (length n).
    pub z: DVector<Real>,
    /// w = M z + q at the solution.
    pub w: DVector<Real>,
    /// The solver that produced `z` (never `Auto`).
    pub solver: SolverKind,
    /// Pivots (Lemke) or iterations (Newton, PGS) of the solver that produced `z`.
    pub iterations: usize,
    /// Natural-map residual ‖z − mid(l, u, z − w)‖∞ (unscaled).
    pub residual: Real,
    /// Wall time of the whole solve, seconds.
    pub seconds: Real,
    /// Solvers tried before the one that succeeded, with why each failed.
    pub fallbacks: Vec<(SolverKind, String)>,
}

/// Why a solve failed, and where.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SolveError {
    /// Lemke's method hit a secondary ray.
    #[error("ray termination at pivot {pivot}")]
    Ray {
        /// Pivot count when the ray was found.
        pivot: usize,
    },
    /// The iteration or pivot limit was reached.
    #[error("iteration limit {iterations} reached; best residual {residual:e}")]
    MaxIterations {
        /// Iterations performed.
        iterations: usize,
        /// Best natural-map residual seen.
        residual: Real,
        /// Best iterate seen.
        best: DVector<Real>,
    },
    /// The problem was shown (or is believed, after every fallback) to have no solution.
    #[error("infeasible: {reason}")]
    Infeasible {
        /// Why.
        reason: String,
        /// Best iterate seen, if any.
        best: Option<DVector<Real>>,
        /// Its residual.
        residual: Real,
    },
    /// The input is unusable (non-finite entry, wrong size, algorithm precondition).
    #[error("invalid input: {0}")]
    InvalidInput(String),
}
