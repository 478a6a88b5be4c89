//! Property tests: whatever a solver reports as solved satisfies complementarity.

use crate::{assert_solves, params};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use signorini_complementarity::{Lcp, Mcp, SolverKind, solve_lcp, solve_mcp};

fn lcp_strategy() -> impl Strategy<Value = (DMatrix<f64>, DVector<f64>)> {
    (1usize..8).prop_flat_map(|n| {
        (
            proptest::collection::vec(-3.0f64..3.0, n * n),
            proptest::collection::vec(-3.0f64..3.0, n),
        )
            .prop_map(move |(m, q)| (DMatrix::from_vec(n, n, m), DVector::from_vec(q)))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn any_solved_lcp_is_complementary((m, q) in lcp_strategy(), which in 0usize..4) {
        let solver = [SolverKind::Lemke, SolverKind::FbNewton, SolverKind::Pgs, SolverKind::Auto][which];
        let lcp = Lcp::new(m, q).unwrap();
        if let Ok(info) = solve_lcp(&lcp, &params(solver)) {
            assert_solves(&lcp.to_mcp(), &info, &format!("{solver:?}"));
        }
    }

    #[test]
    fn any_solved_box_mcp_is_complementary(
        (m, q) in lcp_strategy(),
        bounds in proptest::collection::vec((0usize..4, -2.0f64..0.0, 0.0f64..2.0), 8),
    ) {
        let n = q.len();
        let lo = DVector::from_fn(n, |i, _| match bounds[i].0 { 0 => f64::NEG_INFINITY, 1 | 2 => bounds[i].1, _ => 0.0 });
        let up = DVector::from_fn(n, |i, _| match bounds[i].0 { 0 | 1 => f64::INFINITY, _ => bounds[i].2 });
        // Add the identity to keep a chance of solvability with free variables.
        let mcp = Mcp::new(m + DMatrix::identity(n, n) * 3.0, q, lo, up).unwrap();
        for solver in [SolverKind::Lemke, SolverKind::FbNewton, SolverKind::Auto] {
            if let Ok(info) = solve_mcp(&mcp, &params(solver)) {
                assert_solves(&mcp, &info, &format!("{solver:?}"));
            }
        }
    }
}
