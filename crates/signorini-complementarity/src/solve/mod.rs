//! The entry points [`solve_lcp`] and [`solve_mcp`]: validate, time, dispatch to one
//! algorithm file, and accept an answer only if its residual is within tolerance (overall and
//! row by row). The types they take and return are in `types.rs`.
//!
//! Does not own any algorithm: those live in `lemke.rs`, `fischer_burmeister.rs`, `pgs.rs`,
//! `newton_sparse.rs` and the fallback chain in `auto.rs`.

use std::time::Instant;

use crate::{Lcp, Mcp};

pub(crate) mod accept;
pub(crate) mod types;
use accept::{check_tolerance, rows_within_w, scaled_tolerance};
pub use types::{SolveError, SolveInfo, SolveParams, SolverKind, work_estimate};

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
    // Validated in place: a copy of M would cost a dense n² allocation per solve (page faults
    // of tens of MB on large islands).
    mcp.validate()
        .map_err(|e| SolveError::InvalidInput(e.to_string()))?;
    check_tolerance(params)?;
    let tol = scaled_tolerance(mcp, params.tolerance);
    let mut attempt = match params.solver {
        SolverKind::Lemke => crate::auto::run_lemke(mcp, params, tol)?,
        SolverKind::FbNewton => crate::fischer_burmeister::solve_fb(mcp, params, tol)?,
        SolverKind::Pgs => crate::pgs::solve_pgs(mcp, params, tol)?,
        SolverKind::Auto => crate::auto::solve_auto(mcp, params, tol)?,
        SolverKind::SparseNewton => {
            let sparse = crate::SparseMcp::from_dense(mcp)
                .map_err(|e| SolveError::InvalidInput(e.to_string()))?;
            crate::newton_sparse::run(&sparse, params, tol)?
        }
    };
    // An answer the algorithm accepted by this same test comes with its w: the row check
    // (a dense pass over M) is not repeated.
    let accepted = attempt.accepted_w.is_some();
    let w = match attempt.accepted_w.take() {
        Some(w) => w,
        None => mcp.w(&attempt.z),
    };
    let residual = mcp.residual_with(&attempt.z, &w);
    if residual.is_nan() || residual > tol || (!accepted && !rows_within_w(mcp, &attempt.z, &w)) {
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
