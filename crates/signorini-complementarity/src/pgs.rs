//! Projected Gauss–Seidel / SOR for box MCPs with a positive diagonal.
//!
//! Owns: [`solve_pgs`]. Does not own: block (per-contact) Gauss–Seidel or friction-cone
//! projection; those would be separate solvers.
//!
//! Sweep i = 0..n: z_i ← mid(l_i, u_i, z_i − ω (M_i z + q_i) / M_ii)
//! (Cryer 1971 for symmetric PD M, any ω ∈ (0, 2); Mangasarian 1977 and Luo–Tseng 1992 for
//! symmetric PSD with positive diagonal; `docs/formulation-notes.md` §12.4). It does
//! not apply to Stewart–Trinkle matrices (zero diagonal in the σ block): those are
//! rejected with `InvalidInput`.

use nalgebra::DVector;
use signorini_math::Real;

use crate::Mcp;
use crate::fischer_burmeister::start_point;
use crate::solve::types::{Attempt, SolveError, SolveParams, SolverKind};

/// Default sweep limit (each sweep costs n² flops).
const DEFAULT_SWEEPS: usize = 5000;
/// The residual is checked every this many sweeps (costs one extra sweep's worth).
const CHECK_EVERY: usize = 5;

/// Run PGS (ω = `params.relaxation`).
pub(crate) fn solve_pgs(mcp: &Mcp, params: &SolveParams, tol: Real) -> Result<Attempt, SolveError> {
    let n = mcp.dim();
    let omega = params.relaxation;
    if !(omega > 0.0 && omega < 2.0) {
        return Err(SolveError::InvalidInput(format!(
            "PGS relaxation ω must lie in (0, 2), got {omega}"
        )));
    }
    if let Some(i) =
        (0..n).find(|&i| mcp.m[(i, i)].partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater))
    {
        return Err(SolveError::InvalidInput(format!(
            "PGS needs a positive diagonal, but M[{i},{i}] = {} (use Lemke or FB-Newton)",
            mcp.m[(i, i)]
        )));
    }
    // Row-major copy so that each update reads a contiguous row.
    let rows: Vec<Real> = mcp.m.transpose().as_slice().to_vec();
    let mut z = start_point(mcp, params.warm_start.as_ref());
    let max_sweeps = params.max_iterations.unwrap_or(DEFAULT_SWEEPS);
    let mut best = (Real::INFINITY, z.clone());
    for sweep in 1..=max_sweeps {
        for i in 0..n {
            let row = &rows[i * n..(i + 1) * n];
            let wi: Real = row.iter().zip(z.iter()).map(|(a, b)| a * b).sum::<Real>() + mcp.q[i];
            z[i] = (z[i] - omega * wi / row[i]).clamp(mcp.lower[i], mcp.upper[i]);
        }
        if sweep % CHECK_EVERY == 0 || sweep == max_sweeps {
            let r = mcp.residual(&z);
            if r < best.0 {
                best = (r, z.clone());
            }
            if r <= tol {
                return Ok(Attempt {
                    z,
                    iterations: sweep,
                    solver: SolverKind::Pgs,
                    fallbacks: Vec::new(),
                    basis: None,
                    // A sweep costs about one n² matrix–vector product.
                    factor: None,
                    accepted_w: None,
                    work: crate::solve::types::work_estimate(mcp.dim(), sweep, 0),
                });
            }
            if !r.is_finite() {
                break;
            }
        }
    }
    Err(SolveError::MaxIterations {
        iterations: max_sweeps,
        residual: best.0,
        best: if best.1.iter().all(|x| x.is_finite()) {
            best.1
        } else {
            DVector::zeros(n)
        },
    })
}
