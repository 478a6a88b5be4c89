//! When a solve's answer is accepted: a positive finite tolerance, scaled by max(1, ‖q‖∞), and
//! every row's natural-map residual within [`ROW_TOL`] of the row's own magnitude. Shared by
//! the dispatcher (`solve/mod.rs`) and the algorithms that check their own answers.

use crate::Mcp;
use crate::solve::types::{SolveError, SolveParams};
use nalgebra::DVector;
use signorini_math::Real;

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
    rows_within_w(mcp, z, &mcp.w(z))
}

/// [`rows_within`] with `w = M z + q` already computed ([`Mcp::w`]).
pub(crate) fn rows_within_w(mcp: &Mcp, z: &DVector<Real>, w: &DVector<Real>) -> bool {
    let zmax = z.amax();
    // Row maxima |M_i·|∞ in one pass down the (column-major) storage: a strided walk along
    // each row costs a cache miss per entry on large problems. (A compare-and-select, not
    // `f64::max`, whose NaN rule kept the loop from vectorising; M is finite here, and the
    // absolute values are never −0, so the maxima are the same.)
    // (Over the raw column slices: nalgebra's column iterators kept this loop scalar.)
    let n = z.len();
    let mut row_max = vec![0.0; n];
    for col in mcp.m.as_slice().chunks_exact(n.max(1)) {
        for (r, x) in row_max.iter_mut().zip(col) {
            let a = x.abs();
            if a > *r {
                *r = a;
            }
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
