//! The entry points [`solve_lcp`] and [`solve_mcp`]: validate, time, dispatch to one
//! algorithm file, and accept an answer only if its residual is within tolerance (overall and
//! row by row). The types they take and return are in `types.rs`.
//!
//! Does not own any algorithm: those live in `lemke.rs`, `fischer_burmeister.rs`, `pgs.rs`,
//! `newton_sparse.rs` and the fallback chain in `auto.rs`.

use nalgebra::DVector;
use signorini_math::Real;
use std::time::Instant;

use crate::{Lcp, Mcp};

mod types;
pub(crate) use types::Attempt;
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

pub(crate) use signorini_math::tolerance::LCP_ROW_TOL as ROW_TOL;

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
