//! Hostile inputs: NaN, infinities, huge/tiny scales, singular and empty problems never
//! panic; errors name the problem.

use crate::params;
use nalgebra::{DMatrix, DVector};
use signorini_complementarity::siconos::{read_lcp, read_mlcp, read_relay};
use signorini_complementarity::{Lcp, Mcp, SolveError, SolverKind, solve_lcp, solve_mcp};

const ALL: [SolverKind; 4] = [
    SolverKind::Lemke,
    SolverKind::FbNewton,
    SolverKind::Pgs,
    SolverKind::Auto,
];

#[test]
fn diverged_entries_are_invalid_input_with_the_index() {
    let mut mcp = Lcp {
        m: DMatrix::identity(2, 2),
        q: DVector::from_element(2, -1.0),
    }
    .to_mcp();
    mcp.m[(1, 0)] = f64::NAN;
    for s in ALL {
        match solve_mcp(&mcp, &params(s)) {
            Err(SolveError::InvalidInput(msg)) => assert!(msg.contains("M at index 1"), "{msg}"),
            other => panic!("{other:?}"),
        }
    }
    let lcp = Lcp {
        m: DMatrix::identity(2, 2),
        q: DVector::from_column_slice(&[1.0, f64::INFINITY]),
    };
    assert!(matches!(
        solve_lcp(&lcp, &params(SolverKind::Auto)),
        Err(SolveError::InvalidInput(_))
    ));
}

#[test]
fn empty_problem_is_solved_trivially() {
    let lcp = Lcp::new(DMatrix::zeros(0, 0), DVector::zeros(0)).unwrap();
    for s in ALL {
        let info = solve_lcp(&lcp, &params(s)).unwrap();
        assert_eq!(info.z.len(), 0);
    }
}

#[test]
fn wrong_sizes_are_invalid_input() {
    let mcp = Mcp {
        m: DMatrix::identity(3, 2),
        q: DVector::zeros(3),
        lower: DVector::zeros(3),
        upper: DVector::zeros(3),
    };
    assert!(matches!(
        solve_mcp(&mcp, &params(SolverKind::Auto)),
        Err(SolveError::InvalidInput(_))
    ));
}

#[test]
fn singular_and_zero_matrices_do_not_panic() {
    for s in ALL {
        // M = 0, q < 0: no solution.
        let lcp = Lcp::new(DMatrix::zeros(3, 3), DVector::from_element(3, -1.0)).unwrap();
        assert!(solve_lcp(&lcp, &params(s)).is_err(), "{s:?}");
        // M = 0, q ≥ 0: z = 0.
        let lcp = Lcp::new(DMatrix::zeros(3, 3), DVector::from_element(3, 1.0)).unwrap();
        if s != SolverKind::Pgs {
            assert!(solve_lcp(&lcp, &params(s)).is_ok(), "{s:?}");
        }
        // Mixed LCP with a singular free block.
        let m = DMatrix::from_row_slice(3, 3, &[0., 0., 1., 0., 0., 1., -1., -1., 0.]);
        let mcp = Mcp::mixed(m, DVector::from_column_slice(&[1., 1., -1.]), 2).unwrap();
        let _ = solve_mcp(&mcp, &params(s));
    }
}

#[test]
fn huge_and_tiny_scales_are_solved() {
    for scale in [1e-150, 1e-20, 1e20, 1e150] {
        let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]) * scale;
        let q = DVector::from_column_slice(&[-5.0, -6.0]) * scale;
        let lcp = Lcp::new(m, q).unwrap();
        for s in [SolverKind::Lemke, SolverKind::Auto] {
            let info =
                solve_lcp(&lcp, &params(s)).unwrap_or_else(|e| panic!("{scale:e} {s:?}: {e}"));
            assert!(
                (info.z[0] - 4.0 / 3.0).abs() < 1e-9,
                "{scale:e} {s:?}: {}",
                info.z
            );
        }
    }
    // Overflowing products: no panic, and nothing non-finite reported as solved.
    let lcp = Lcp::new(
        DMatrix::from_element(2, 2, 1e300),
        DVector::from_element(2, -1e300),
    )
    .unwrap();
    for s in ALL {
        if let Ok(info) = solve_lcp(&lcp, &params(s)) {
            assert!(info.z.iter().all(|x| x.is_finite()) && info.residual.is_finite());
        }
    }
}

#[test]
fn bad_parameters_are_invalid_input() {
    let lcp = Lcp::new(DMatrix::identity(1, 1), DVector::from_element(1, -1.0)).unwrap();
    let mut p = params(SolverKind::Auto);
    p.tolerance = f64::NAN;
    assert!(matches!(
        solve_lcp(&lcp, &p),
        Err(SolveError::InvalidInput(_))
    ));
    let mut p = params(SolverKind::Pgs);
    p.relaxation = 2.5;
    assert!(matches!(
        solve_lcp(&lcp, &p),
        Err(SolveError::InvalidInput(_))
    ));
    let mut p = params(SolverKind::Lemke);
    p.max_iterations = Some(0);
    assert!(solve_lcp(&lcp, &p).is_err());
}

#[test]
fn malformed_files_are_parse_errors_not_panics() {
    let cases = [
        "",
        "x",
        "2",
        "2\n0\n2\n2\n2 2\n1 nan 0 1\n1 1",
        "99999999\n0",
        "1\n7\n1\n1\n",
        "2\n1\n2\n2\n1\n1\n1\n3\n2\n2\n1\n0 1\n0\n0\n1 2 3 4\n1 1\n",
    ];
    for text in cases {
        assert!(read_lcp(text).is_err(), "{text:?}");
        assert!(read_relay(text).is_err(), "{text:?}");
        assert!(read_mlcp(text).is_err(), "{text:?}");
    }
    let e = read_relay("1\n0\n1\n1\n1 1\n1\n-1\n2\n1\n").unwrap_err();
    assert!(e.reason.contains("bounds"), "{e}");
}

/// An unsolvable LCP (M = 0 in the first row, q₁ < 0: w₁ = −1 whatever z) makes `Auto` run its
/// whole fallback chain; a work budget cuts it short, deterministically, with the best iterate.
#[test]
fn work_budget_stops_the_fallback_chain_of_an_unsolvable_problem() {
    let n = 40;
    let mut m = DMatrix::identity(n, n);
    m[(0, 0)] = 0.0;
    let mut q = DVector::from_element(n, 1.0);
    q[0] = -1.0;
    let lcp = Lcp { m, q };
    let unlimited = solve_lcp(&lcp, &params(SolverKind::Auto));
    let Err(SolveError::Infeasible { reason, .. }) = &unlimited else {
        panic!("{unlimited:?}");
    };
    assert!(!reason.contains(signorini_complementarity::BUDGET_SPENT));
    // One FB-Newton iteration costs n³/3 ≈ 21,000: this budget cannot run the chain.
    let mut p = params(SolverKind::Auto);
    p.work_limit = Some(5e4);
    let cut = solve_lcp(&lcp, &p);
    match &cut {
        Err(SolveError::Infeasible { reason, best, .. }) => {
            assert!(
                reason.contains(signorini_complementarity::BUDGET_SPENT),
                "{reason}"
            );
            assert!(best.is_some());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(format!("{cut:?}"), format!("{:?}", solve_lcp(&lcp, &p)));
    // A solvable problem within budget: same answer, work reported and within the limit.
    let easy = Lcp {
        m: DMatrix::identity(n, n) * 2.0,
        q: DVector::from_element(n, -1.0),
    };
    let mut p = params(SolverKind::Auto);
    p.work_limit = Some(1e6);
    let a = solve_lcp(&easy, &p).unwrap();
    let b = solve_lcp(&easy, &params(SolverKind::Auto)).unwrap();
    assert_eq!(a.z, b.z);
    assert!(a.work > 0.0 && a.work <= 1e6, "work {}", a.work);
    assert_eq!(
        a.work,
        signorini_complementarity::work_estimate(n, a.iterations, 0)
    );
}

/// Issue #20: a badly scaled problem, diagonal 1e150 and 1e-150, whose unique solution is
/// z = (1, 1e150). With one scale for the whole problem (max |q| or max |M|) the small row
/// rounded away and Lemke returned "solved" with z₂ = 0 (residual 1, within 1e-8 · 1e150).
/// Now no solver may call a wrong answer solved: each answer is either an error or right in
/// every component.
#[test]
fn badly_scaled_rows_are_never_solved_with_a_wrong_component() {
    let m = DMatrix::from_diagonal(&DVector::from_column_slice(&[1e150, 1e-150]));
    for q in [[-1e150, -1.0], [-1.0, -1.0], [-1e150, -1e-150]] {
        let lcp = Lcp {
            m: m.clone(),
            q: DVector::from_column_slice(&q),
        };
        let exact = [-q[0] / 1e150, -q[1] / 1e-150];
        for s in [SolverKind::Lemke, SolverKind::Auto, SolverKind::FbNewton] {
            if let Ok(info) = solve_lcp(&lcp, &params(s)) {
                for i in 0..2 {
                    let rel = (info.z[i] - exact[i]).abs() / exact[i].abs();
                    assert!(
                        rel <= 1e-8,
                        "{s:?}, q = {q:?}: z = {:?} is not {exact:?}",
                        info.z
                    );
                }
            }
        }
    }
}

/// The work budget charges a Lemke pivot by the size of the LCP it pivots on: a mixed
/// problem's free variables (the velocities of a contact problem) are eliminated by the
/// Schur complement first and do not count. Charged by the whole size, the 2D pile of 400
/// bodies' mixed-form Lemke runs got a third of the pivots the budget pays for and failed
/// (docs/peg3d.md, item 21). Here the budget pays for 1.5× the pivots the problem needs at
/// its LCP's size, less than it needs at the whole size.
#[test]
fn the_work_budget_counts_a_mixed_problems_pivots_at_its_lcp_size() {
    let (m, q, n_free) = crate::generators::contact_like_mixed(12, 7);
    let mcp = Mcp::mixed(m, q, n_free).unwrap();
    let (n, n_lcp) = (mcp.dim() as f64, (mcp.dim() - n_free) as f64);
    let free_run = solve_mcp(&mcp, &params(SolverKind::Lemke)).unwrap();
    let pivots = free_run.iterations as f64;
    assert!(pivots >= 5.0, "{pivots} pivots: too easy to test a budget");
    let limit = 1.5 * pivots * n_lcp * n_lcp;
    assert!(
        limit < pivots * n * n,
        "the whole size ({n}) must not fit the budget"
    );
    let mut p = params(SolverKind::Lemke);
    p.work_limit = Some(limit);
    let budgeted = solve_mcp(&mcp, &p).unwrap_or_else(|e| panic!("within budget: {e}"));
    assert_eq!(budgeted.z, free_run.z);
    assert_eq!(
        budgeted.work,
        signorini_complementarity::work_estimate(mcp.dim() - n_free, budgeted.iterations, 0)
    );
}
