//! Solver selection, parameters, what a solve reports, and the entry points
//! [`solve_lcp`] and [`solve_mcp`] (validate, time, dispatch to one algorithm file).
//!
//! Does not own any algorithm: those live in `lemke.rs`, `fischer_burmeister.rs`, `pgs.rs`
//! and the fallback chain in `auto.rs`.

use nalgebra::DVector;
use signorini_math::Real;
use std::time::Instant;

use crate::basis_reuse::LemkeFactor;
use crate::{Lcp, Mcp};
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
    /// [`solve_mcp`] / [`solve_lcp`] the dense problem is converted to CSC first (exact zeros
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
    /// PGS/SOR relaxation ω ∈ (0, 2); 1 is plain projected Gauss–Seidel.
    pub relaxation: Real,
    /// Deterministic work budget of a `Lemke` or `Auto` solve, in multiply–adds as
    /// [`work_estimate`] counts them (a Lemke pivot costs n², a dense FB-Newton iteration n³/3,
    /// n the problem size); `None` = unlimited. Pivot and iteration limits are cut so that the
    /// whole chain stays within it, and the chain stops (with its best iterate, as an
    /// [`SolveError::Infeasible`]) when it is spent. Counting work instead of wall time keeps
    /// results bit-identical from machine to machine. `SparseNewton` counts its work in
    /// stored matrix entries touched instead (`newton_sparse.rs` module docs).
    pub work_limit: Option<Real>,
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
            relaxation: 1.0,
            work_limit: None,
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
}

/// Solve LCP(M, q) (0 ≤ z ⟂ M z + q ≥ 0) with the solver chosen in `params`.
///
/// ```
/// use nalgebra::{DMatrix, DVector};
/// use signorini_complementarity::{solve_lcp, Lcp, SolveParams};
/// let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]);
/// let lcp = Lcp::new(m, DVector::from_column_slice(&[-5.0, -6.0])).unwrap();
/// let info = solve_lcp(&lcp, &SolveParams::default()).unwrap();
/// assert!((info.z[0] - 4.0 / 3.0).abs() < 1e-12 && info.residual < 1e-12);
/// ```
pub fn solve_lcp(lcp: &Lcp, params: &SolveParams) -> Result<SolveInfo, SolveError> {
    solve_mcp(&lcp.to_mcp(), params)
}

/// Solve the box MCP (l ≤ z ≤ u, w = M z + q, w ⟂ the box; free variables allowed).
///
/// Validates the input (square, finite, l ≤ u), then runs `params.solver`. A result counts
/// as solved when its natural-map residual is ≤ `tolerance · max(1, ‖q‖∞)` and every row's
/// is within 1e-6 of that row's own magnitude (`rows_within`); otherwise an error is returned
/// that carries the best iterate.
pub fn solve_mcp(mcp: &Mcp, params: &SolveParams) -> Result<SolveInfo, SolveError> {
    let start = Instant::now();
    let mcp = Mcp::new(
        mcp.m.clone(),
        mcp.q.clone(),
        mcp.lower.clone(),
        mcp.upper.clone(),
    )
    .map_err(|e| SolveError::InvalidInput(e.to_string()))?;
    check_tolerance(params)?;
    let tol = scaled_tolerance(&mcp, params.tolerance);
    let attempt = match params.solver {
        SolverKind::Lemke => crate::auto::run_lemke(&mcp, params, tol)?,
        SolverKind::FbNewton => crate::fischer_burmeister::solve_fb(&mcp, params, tol)?,
        SolverKind::Pgs => crate::pgs::solve_pgs(&mcp, params, tol)?,
        SolverKind::Auto => crate::auto::solve_auto(&mcp, params, tol)?,
        SolverKind::SparseNewton => {
            let sparse = crate::SparseMcp::from_dense(&mcp)
                .map_err(|e| SolveError::InvalidInput(e.to_string()))?;
            crate::newton_sparse::run(&sparse, params, tol)?
        }
    };
    let w = mcp.w(&attempt.z);
    let residual = mcp.residual(&attempt.z);
    if residual.is_nan() || residual > tol || !rows_within(&mcp, &attempt.z) {
        return Err(SolveError::Inaccurate {
            solver: attempt.solver,
            iterations: attempt.iterations,
            residual,
            best: attempt.z,
        });
    }
    Ok(SolveInfo {
        z: attempt.z,
        w,
        solver: attempt.solver,
        iterations: attempt.iterations,
        residual,
        seconds: start.elapsed().as_secs_f64(),
        fallbacks: attempt.fallbacks,
        basis: attempt.basis,
        factor: attempt.factor,
        work: attempt.work,
    })
}

/// `tolerance · max(1, ‖q‖∞)`.
/// The tolerance must be positive and finite (every entry point checks it).
pub(crate) fn check_tolerance(params: &SolveParams) -> Result<(), SolveError> {
    if params.tolerance.is_finite() && params.tolerance > 0.0 {
        Ok(())
    } else {
        Err(SolveError::InvalidInput(format!(
            "tolerance must be positive and finite, got {}",
            params.tolerance
        )))
    }
}

/// Relative tolerance of the row-by-row acceptance ([`rows_within`]; PATH's default 1e-6).
pub(crate) const ROW_TOL: Real = 1e-6;

/// Whether every row's natural-map residual |z_i − mid(l_i, u_i, z_i − w_i)| is within
/// [`ROW_TOL`] of that row's own magnitude max(|q_i|, ‖M_i·‖∞ ‖z‖∞), the largest term of
/// w_i = (M z + q)_i. Checked with the tolerance scaled by max(1, ‖q‖∞): that one alone let a
/// problem whose rows differ by 1e300 in scale (diagonal 1e150 and 1e-150) pass with a wrong
/// component, since the small row's whole value was below 1e-8 · max |q|.
pub(crate) fn rows_within(mcp: &Mcp, z: &DVector<Real>) -> bool {
    let zmax = z.amax();
    let w = mcp.w(z);
    // Row maxima |M_i·|∞ in one pass down the (column-major) storage: a strided walk along
    // each row costs a cache miss per entry on large problems.
    let mut row_max = vec![0.0; z.len()];
    for col in mcp.m.column_iter() {
        for (r, x) in row_max.iter_mut().zip(col.iter()) {
            *r = x.abs().max(*r);
        }
    }
    (0..z.len()).all(|i| {
        let p = (z[i] - w[i]).clamp(mcp.lower[i], mcp.upper[i]);
        let r = (z[i] - p).abs();
        r <= ROW_TOL * mcp.q[i].abs().max(row_max[i] * zmax)
    })
}

pub(crate) fn scaled_tolerance(mcp: &Mcp, tolerance: Real) -> Real {
    tolerance * mcp.q.amax().max(1.0)
}
