//! Integration tests of `signorini-complementarity`, one binary (`tests/it/`, one module per topic).

mod fuzz;
#[path = "../../../signorini-scene/tests/it/fuzzing.rs"]
mod fuzzing;
mod generators;
mod hostile;
mod known_answers;
mod properties;
mod random_families;
mod recorded_piles;
mod siconos_files;
mod sparse_lemke;
mod sparse_newton;

use nalgebra::{DMatrix, DVector};
use signorini_complementarity::{
    Lcp, Mcp, SolveInfo, SolveParams, SolverKind, solve_lcp, solve_mcp,
};

/// Parameters for one solver with default tolerance.
pub fn params(solver: SolverKind) -> SolveParams {
    let mut p = SolveParams::default();
    p.solver = solver;
    p
}

/// The acceptance test of the issue: residual ≤ 1e-8 · max(1, ‖q‖∞), z in the box, and the
/// complementarity of z and w checked directly (not only through the natural map).
pub fn assert_solves(mcp: &Mcp, info: &SolveInfo, what: &str) {
    let scale = mcp.q.amax().max(1.0);
    let r = mcp.residual(&info.z);
    assert!(
        r <= 1e-8 * scale,
        "{what}: residual {r:e} (scale {scale:e}), solver {:?}",
        info.solver
    );
    assert!(
        (r - info.residual).abs() <= 1e-12 * scale,
        "{what}: reported residual {} vs {r}",
        info.residual
    );
    let w = mcp.w(&info.z);
    for i in 0..mcp.dim() {
        let (l, u, z) = (mcp.lower[i], mcp.upper[i], info.z[i]);
        let tol = 1e-7 * scale;
        assert!(
            z >= l - tol && z <= u + tol,
            "{what}: z[{i}] = {z} outside [{l}, {u}]"
        );
        let gap_l = if l.is_finite() {
            (z - l).abs()
        } else {
            f64::INFINITY
        };
        let gap_u = if u.is_finite() {
            (u - z).abs()
        } else {
            f64::INFINITY
        };
        let ok =
            w[i].abs() <= tol || (gap_l <= tol && w[i] >= -tol) || (gap_u <= tol && w[i] <= tol);
        assert!(
            ok,
            "{what}: index {i}: z = {z}, w = {}, bounds [{l}, {u}]",
            w[i]
        );
    }
}

/// Solve an LCP given row-major M and q with a solver, and check it.
pub fn solve_rows(m: &[f64], q: &[f64], solver: SolverKind) -> (Lcp, SolveInfo) {
    let n = q.len();
    let lcp = Lcp::new(
        DMatrix::from_row_slice(n, n, m),
        DVector::from_column_slice(q),
    )
    .unwrap();
    let info = solve_lcp(&lcp, &params(solver)).unwrap_or_else(|e| panic!("{solver:?}: {e}"));
    assert_solves(&lcp.to_mcp(), &info, &format!("{solver:?}"));
    (lcp, info)
}

/// Convenience: solve an MCP with a solver.
pub fn solve(
    mcp: &Mcp,
    solver: SolverKind,
) -> Result<SolveInfo, signorini_complementarity::SolveError> {
    solve_mcp(mcp, &params(solver))
}
