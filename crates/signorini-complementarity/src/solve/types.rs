//! What a solve is asked and what it reports: the algorithm ([`SolverKind`]), its parameters
//! ([`SolveParams`], [`work_estimate`]), the answer ([`SolveInfo`]) or the failure
//! ([`SolveError`]), and what one algorithm hands back to the dispatcher ([`Attempt`]).

use crate::basis_reuse::LemkeFactor;
use nalgebra::DVector;
use signorini_math::Real;
use std::sync::Arc;

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
    /// Sparse semismooth Newton (`newton_sparse.rs`, [`crate::solve_sparse`]). Through
    /// [`solve_mcp`](crate::solve_mcp) / [`solve_lcp`](crate::solve_lcp) the dense problem is converted to CSC first (exact zeros
    /// dropped); large sparse problems should call [`crate::solve_sparse`] directly.
    SparseNewton,
}

/// Knobs for a solve.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SolveParams {
    /// Algorithm.
    pub solver: SolverKind,
    /// Natural-map residual tolerance, scaled by `max(1, ‖q‖∞)`.
    pub tolerance: Real,
    /// Iteration (or pivot) limit; `None` picks a size-dependent default (`SparseNewton`:
    /// [`crate::SPARSE_NEWTON_DEFAULT_ITERATIONS`]).
    pub max_iterations: Option<usize>,
    /// Optional starting point (length n). Lemke turns it into a starting complementary
    /// basis (z_i basic where l_i < z_i, box multiplier basic where z_i = u_i); FB-Newton and
    /// PGS start from it. A wrong length is ignored.
    pub warm_start: Option<DVector<Real>>,
    /// Lemke warm start from a basis: pass `SolveInfo::basis` of a previous solve of a
    /// problem with the same structure (size and bounds). Wins over `warm_start` for Lemke;
    /// a basis of the wrong length is ignored. A singular basis falls back to a cold start.
    pub warm_basis: Option<Vec<bool>>,
    /// Lemke restart from the final basis of an earlier solve of the *same* matrix
    /// (`SolveInfo::factor`, e.g. a time step's gap-correction re-solve after
    /// [`LemkeFactor::resolve`] found the new q outside the basis's invariance region): the
    /// stored inverse is installed as it is and the pivots start there, instead of a cold
    /// run. Used only by plain LCPs of at least 400 unknowns (below, a cold run is cheap);
    /// wins over `warm_basis` and `warm_start`.
    pub warm_factor: Option<Arc<LemkeFactor>>,
    /// PGS/SOR relaxation ω ∈ (0, 2); 1 is plain projected Gauss–Seidel.
    pub relaxation: Real,
    /// Deterministic work budget of a `Lemke` or `Auto` solve, in multiply–adds as
    /// [`work_estimate`] counts them (a Lemke pivot costs n², n the size of the LCP it pivots
    /// on: free variables, which the Schur complement eliminates, do not count; a dense
    /// FB-Newton iteration n³/3, n the problem size); `None` = unlimited. Pivot and iteration limits are cut so that the
    /// whole chain stays within it, and the chain stops (with its best iterate, as an
    /// [`SolveError::Infeasible`]) when it is spent. Counting work instead of wall time keeps
    /// results bit-identical from machine to machine. `SparseNewton` counts its work in
    /// stored matrix entries touched instead (`newton_sparse.rs` module docs).
    pub work_limit: Option<Real>,
    /// `SparseNewton`: follow a run that ends above tolerance with the proximal continuation
    /// (`newton_sparse.rs` module docs). On by default; the world turns it off without
    /// friction (docs/peg3d.md, item 20).
    pub proximal: bool,
}

/// Work (multiply–adds) charged for `pivots` Lemke pivots and `newton` dense FB-Newton
/// iterations on a problem of size `n` (see [`SolveParams::work_limit`]).
pub fn work_estimate(n: usize, pivots: usize, newton: usize) -> Real {
    let n = n as Real;
    pivots as Real * n * n + newton as Real * n * n * n / 3.0
}

impl Default for SolveParams {
    fn default() -> Self {
        SolveParams {
            solver: SolverKind::Auto,
            tolerance: signorini_math::tolerance::LCP_RESIDUAL_TOL,
            max_iterations: None,
            warm_start: None,
            warm_basis: None,
            warm_factor: None,
            relaxation: 1.0,
            work_limit: None,
            proximal: true,
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
    /// Lemke's final complementary basis (of the problem's LCP reduction, see
    /// `SolveParams::warm_basis`), when Lemke produced `z`; `None` otherwise.
    pub basis: Option<Vec<bool>>,
    /// That basis with its inverse, when Lemke produced `z` on a plain LCP (every bound
    /// [0, ∞)): re-solves the same M with another q in O(n·k), see
    /// [`crate::LemkeFactor::resolve`].
    pub factor: Option<Arc<LemkeFactor>>,
    /// Work spent by the whole solve (all solvers tried), as [`work_estimate`] counts it.
    pub work: Real,
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
    /// The solver terminated normally but its answer misses the tolerance (numerical
    /// breakdown, or a stationary point of the merit function that is not a solution).
    #[error(
        "{solver:?} stopped after {iterations} iterations with residual {residual:e} above tolerance"
    )]
    Inaccurate {
        /// The solver.
        solver: SolverKind,
        /// Iterations or pivots performed.
        iterations: usize,
        /// Natural-map residual of `best`.
        residual: Real,
        /// The iterate it stopped at.
        best: DVector<Real>,
    },
}

impl SolveError {
    /// The best iterate carried by the error, if any.
    pub fn best(&self) -> Option<&DVector<Real>> {
        match self {
            SolveError::MaxIterations { best, .. } | SolveError::Inaccurate { best, .. } => {
                Some(best)
            }
            SolveError::Infeasible { best, .. } => best.as_ref(),
            _ => None,
        }
    }

    /// The natural-map residual of the iterate the error reports, if it reports one.
    pub fn residual(&self) -> Option<Real> {
        match self {
            SolveError::MaxIterations { residual, .. }
            | SolveError::Inaccurate { residual, .. }
            | SolveError::Infeasible { residual, .. } => Some(*residual),
            _ => None,
        }
    }

    /// Whether the solve stopped because its work budget was spent
    /// ([`SolveParams::work_limit`], `lemke_sparse`'s `work_limit`: reason
    /// [`crate::BUDGET_SPENT`]).
    pub fn spent_budget(&self) -> bool {
        matches!(self, SolveError::Infeasible { reason, .. } if reason.contains(crate::BUDGET_SPENT))
    }

    /// Iterations (Lemke: pivots) performed before the error; 0 where none are reported.
    pub fn iterations(&self) -> usize {
        match self {
            SolveError::Ray { pivot } => *pivot,
            SolveError::MaxIterations { iterations, .. }
            | SolveError::Inaccurate { iterations, .. } => *iterations,
            _ => 0,
        }
    }

    /// The same error with `extra` more iterations counted.
    pub(crate) fn with_more_iterations(mut self, extra: usize) -> Self {
        match &mut self {
            SolveError::Ray { pivot: count }
            | SolveError::MaxIterations {
                iterations: count, ..
            }
            | SolveError::Inaccurate {
                iterations: count, ..
            } => *count += extra,
            _ => {}
        }
        self
    }
}

/// What one algorithm hands back to the dispatcher: its iterate and iteration count.
#[derive(Debug, Clone)]
pub(crate) struct Attempt {
    pub z: DVector<Real>,
    pub iterations: usize,
    pub solver: SolverKind,
    pub fallbacks: Vec<(SolverKind, String)>,
    pub basis: Option<Vec<bool>>,
    pub work: Real,
    pub factor: Option<Arc<LemkeFactor>>,
    /// w = M z + q, when the algorithm has already accepted z by the dispatcher's own test
    /// (residual within the tolerance and every row within `rows_within_w`), so that the
    /// dispatcher does not repeat that dense pass (`auto.rs`, large problems).
    pub accepted_w: Option<DVector<Real>>,
}
