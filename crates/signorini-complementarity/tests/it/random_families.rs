//! Seeded random families (`generators.rs`): P-matrix, PSD, contact-like (Stewart–Trinkle
//! with zero σ diagonal) and PEG-like, up to n = 500.

use crate::generators::{contact_like, contact_like_mixed, p_matrix, peg_like, psd};
use crate::{assert_solves, params};
use signorini_complementarity::{Lcp, Mcp, SolveError, SolverKind, solve_lcp, solve_mcp};

fn check(
    m: nalgebra::DMatrix<f64>,
    q: nalgebra::DVector<f64>,
    solver: SolverKind,
    what: &str,
) -> usize {
    let lcp = Lcp::new(m, q).unwrap();
    let info =
        solve_lcp(&lcp, &params(solver)).unwrap_or_else(|e| panic!("{what} {solver:?}: {e}"));
    assert_solves(&lcp.to_mcp(), &info, what);
    info.iterations
}

#[test]
fn p_matrix_problems_are_solved_by_every_pivoting_and_newton_solver() {
    for (n, seeds) in [(5, 0..20), (30, 0..5), (120, 0..2)] {
        for seed in seeds {
            for s in [SolverKind::Lemke, SolverKind::FbNewton, SolverKind::Auto] {
                let (m, q) = p_matrix(n, seed);
                check(m, q, s, &format!("P n={n} seed={seed}"));
            }
        }
    }
}

#[test]
fn p_matrix_n500_lemke() {
    let (m, q) = p_matrix(500, 7);
    check(m, q, SolverKind::Lemke, "P n=500");
}

#[test]
fn psd_problems_lemke_and_pgs() {
    for (n, seeds) in [(6, 0..20), (40, 0..4), (200, 0..1)] {
        for seed in seeds {
            let (m, q) = psd(n, seed);
            check(
                m.clone(),
                q.clone(),
                SolverKind::Lemke,
                &format!("PSD n={n} seed={seed}"),
            );
            check(m, q, SolverKind::Auto, &format!("PSD n={n} seed={seed}"));
        }
    }
    // PGS on a well-conditioned symmetric PD matrix (PSD + I).
    let (m, q) = psd(30, 3);
    let m = m + nalgebra::DMatrix::identity(30, 30);
    check(m, q, SolverKind::Pgs, "PD n=30 PGS");
}

#[test]
fn contact_like_problems_have_a_zero_sigma_diagonal_and_are_solved_by_lemke() {
    for (nc, seeds) in [(2, 0..20), (10, 0..10), (40, 0..3), (100, 0..1)] {
        for seed in seeds {
            let (m, q) = contact_like(nc, seed);
            let n = m.nrows();
            assert_eq!(n, 5 * nc);
            assert!(
                (4 * nc..n).all(|i| m[(i, i)] == 0.0),
                "σ block diagonal is zero"
            );
            check(
                m.clone(),
                q.clone(),
                SolverKind::Lemke,
                &format!("contact nc={nc} seed={seed}"),
            );
            check(
                m,
                q,
                SolverKind::Auto,
                &format!("contact nc={nc} seed={seed}"),
            );
        }
    }
}

#[test]
fn pgs_rejects_the_zero_diagonal_of_contact_problems() {
    let (m, q) = contact_like(3, 1);
    let r = solve_lcp(&Lcp::new(m, q).unwrap(), &params(SolverKind::Pgs));
    match r {
        Err(SolveError::InvalidInput(msg)) => assert!(msg.contains("M[12,12] = 0"), "{msg}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn peg_like_problems_are_solved_by_auto() {
    let mut lemke_solved = 0;
    let total = 30;
    for seed in 0..total {
        let (m, q) = peg_like(4, 3, seed);
        check(
            m.clone(),
            q.clone(),
            SolverKind::Auto,
            &format!("PEG seed={seed}"),
        );
        if let Ok(info) = solve_lcp(
            &Lcp::new(m.clone(), q.clone()).unwrap(),
            &params(SolverKind::Lemke),
        ) {
            assert_solves(&Lcp::new(m, q).unwrap().to_mcp(), &info, "PEG Lemke");
            lemke_solved += 1;
        }
    }
    eprintln!("PEG-like: Lemke alone solved {lemke_solved}/{total}");
    for seed in 0..2 {
        let (m, q) = peg_like(60, 40, 100 + seed);
        check(m, q, SolverKind::Auto, &format!("PEG n=140 seed={seed}"));
    }
}

#[test]
fn contact_like_n500_lemke_and_fb() {
    let (m, q) = contact_like(100, 42);
    check(
        m.clone(),
        q.clone(),
        SolverKind::Lemke,
        "contact n=500 Lemke",
    );
    check(m, q, SolverKind::Auto, "contact n=500 auto");
}

#[test]
fn warm_start_from_the_previous_solution_needs_no_pivots() {
    let (m, q) = contact_like(20, 5);
    let lcp = Lcp::new(m, q).unwrap();
    let cold = solve_lcp(&lcp, &params(SolverKind::Lemke)).unwrap();
    assert!(cold.iterations > 0);
    let mut p = params(SolverKind::Lemke);
    p.warm_basis = cold.basis.clone();
    let warm = solve_lcp(&lcp, &p).unwrap();
    assert_eq!(warm.iterations, 0);
    assert!((&warm.z - &cold.z).amax() < 1e-9);
    // From the previous z alone (basis guessed from z > 0): still solved.
    let mut pz = params(SolverKind::Lemke);
    pz.warm_start = Some(cold.z.clone());
    let warm_z = solve_lcp(&lcp, &pz).unwrap();
    assert_solves(&lcp.to_mcp(), &warm_z, "warm from z");
    // A slightly perturbed problem (next time step) from the old basis.
    let lcp2 = Lcp::new(lcp.m.clone(), &lcp.q * 1.01).unwrap();
    let warm2 = solve_lcp(&lcp2, &p).unwrap();
    assert_solves(&lcp2.to_mcp(), &warm2, "perturbed warm start");
    assert!(
        warm2.iterations < cold.iterations,
        "{} vs {}",
        warm2.iterations,
        cold.iterations
    );
}

#[test]
fn stepper_mixed_form_with_free_velocities_matches_the_reduced_lcp() {
    // The mixed LCP (free velocities, mass block) is solved by Lemke through the Schur
    // complement, by FB-Newton directly and by auto; the impulses it finds solve the
    // reduced contact LCP too (same problem, velocities eliminated).
    for (nc, seed) in [(3, 1), (12, 2), (40, 3)] {
        let (m, q, n_free) = contact_like_mixed(nc, seed);
        let mcp = Mcp::mixed(m, q, n_free).unwrap();
        let (mr, qr) = contact_like(nc, seed);
        let reduced = Lcp::new(mr, qr).unwrap().to_mcp();
        for s in [SolverKind::Lemke, SolverKind::FbNewton, SolverKind::Auto] {
            let info = solve_mcp(&mcp, &params(s)).unwrap_or_else(|e| panic!("nc={nc} {s:?}: {e}"));
            assert_solves(&mcp, &info, &format!("mixed nc={nc} {s:?}"));
            let impulses = info.z.rows(n_free, info.z.len() - n_free).into_owned();
            let r = reduced.residual(&impulses);
            assert!(
                r <= 1e-7 * reduced.q.amax().max(1.0),
                "nc={nc} {s:?}: reduced residual {r:e}"
            );
        }
    }
}
