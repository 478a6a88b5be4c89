//! The sparse (revised) Lemke against the dense tableau Lemke: on every Siconos LCP file and
//! on the generated contact families, each problem the dense Lemke solves the sparse one
//! solves too (its answer checked by the natural map and complementarity directly), and
//! where the solution is unique (P-matrices) the two answers agree.

use crate::generators::{contact_like, p_matrix, peg_like, psd};
use crate::{assert_solves, params};
use nalgebra::{DMatrix, DVector};
use signorini_complementarity::siconos::read_lcp;
use signorini_complementarity::{
    CscMatrix, Lcp, SolveInfo, SolverKind, SparseLemkeMatrix, SparseMcp, lcp_natural_residual,
    lemke_sparse, solve_lcp,
};

/// Sparse Lemke on a dense LCP, as a `SolveInfo` for `assert_solves` (None if it failed).
fn sparse(m: &DMatrix<f64>, q: &DVector<f64>) -> Option<(SolveInfo, Vec<bool>)> {
    let lcp = Lcp::new(m.clone(), q.clone()).unwrap();
    let csc = CscMatrix::from_dense(m).unwrap();
    // The dense Lemke's default pivot limit.
    let info = lemke_sparse(&csc, q, None, 50 * q.len() + 100, None).ok()?;
    let mcp = lcp.to_mcp();
    let residual = mcp.residual(&info.z);
    Some((
        SolveInfo {
            w: mcp.w(&info.z),
            z: info.z,
            solver: SolverKind::Lemke,
            iterations: info.pivots,
            residual,
            seconds: 0.0,
            fallbacks: Vec::new(),
            basis: None,
            factor: None,
            work: 0.0,
        },
        info.basis,
    ))
}

/// Whether the dense Lemke solves it.
fn dense_solves(m: &DMatrix<f64>, q: &DVector<f64>) -> Option<SolveInfo> {
    let lcp = Lcp::new(m.clone(), q.clone()).unwrap();
    solve_lcp(&lcp, &params(SolverKind::Lemke)).ok()
}

fn check_pair(m: &DMatrix<f64>, q: &DVector<f64>, what: &str, unique: bool) -> bool {
    let Some(dense) = dense_solves(m, q) else {
        return false;
    };
    let (info, _) = sparse(m, q).unwrap_or_else(|| panic!("{what}: sparse Lemke failed"));
    let mcp = Lcp::new(m.clone(), q.clone()).unwrap().to_mcp();
    assert_solves(&mcp, &info, what);
    if unique {
        let d = (&info.z - &dense.z).amax();
        assert!(
            d <= 1e-9 * dense.z.amax().max(1.0),
            "{what}: answers differ by {d:e}"
        );
    }
    true
}

#[test]
fn sparse_lemke_solves_every_siconos_lcp_the_dense_lemke_solves() {
    let paths = crate::siconos_files::files("LCP");
    let mut solved = 0;
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(lcp) = read_lcp(&text) else { continue };
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        solved += usize::from(check_pair(&lcp.m, &lcp.q, &name, false));
    }
    assert!(solved >= 10, "only {solved} Siconos LCPs compared");
}

#[test]
fn sparse_lemke_agrees_with_the_dense_lemke_on_p_matrices() {
    for (n, seed) in [(5, 1), (20, 2), (60, 3), (150, 4)] {
        let (m, q) = p_matrix(n, seed);
        assert!(check_pair(&m, &q, &format!("P-matrix n={n}"), true));
    }
}

#[test]
fn sparse_lemke_solves_the_contact_families() {
    let mut compared = 0;
    for seed in 0..6 {
        let (m, q) = contact_like(8 + 6 * seed as usize, seed);
        compared += usize::from(check_pair(
            &m,
            &q,
            &format!("contact_like seed {seed}"),
            false,
        ));
        let (m, q) = peg_like(10 + 4 * seed as usize, 3 + seed as usize, seed);
        compared += usize::from(check_pair(&m, &q, &format!("peg_like seed {seed}"), false));
        let (m, q) = psd(30 + 10 * seed as usize, seed);
        compared += usize::from(check_pair(&m, &q, &format!("psd seed {seed}"), false));
    }
    assert!(compared >= 12, "only {compared} problems compared");
}

#[test]
fn a_warm_start_from_the_last_basis_solves_a_nearby_problem_in_fewer_pivots() {
    let (m, q) = contact_like(40, 7);
    let csc = CscMatrix::from_dense(&m).unwrap();
    let cold = lemke_sparse(&csc, &q, None, 10 * q.len(), None).expect("cold run");
    // The next step of a resting contact set: the same matrix, q moved a little.
    let q2 = q.map(|x| x * 1.001 + 1e-6);
    let cold2 = lemke_sparse(&csc, &q2, None, 10 * q.len(), None).expect("cold run 2");
    let warm2 = lemke_sparse(&csc, &q2, Some(&cold.basis), 10 * q.len(), None).expect("warm run");
    assert!(
        warm2.pivots < cold2.pivots,
        "warm {} pivots against cold {}",
        warm2.pivots,
        cold2.pivots
    );
    let lcp = Lcp::new(m, q2).unwrap().to_mcp();
    assert!(lcp.residual(&warm2.z) <= 1e-8 * lcp.q.amax().max(1.0));
}

/// q moved by 1e-6 everywhere but at its largest entry, so that the system's scale
/// s = max(|M|, |q|) is unchanged (the kept factors are of `[I | −M/s]`).
fn nudged(q: &DVector<f64>) -> DVector<f64> {
    let top = q.iamax();
    DVector::from_fn(q.len(), |i, _| if i == top { q[i] } else { q[i] + 1e-6 })
}

#[test]
fn a_held_matrix_starts_a_warm_run_from_the_last_answers_factors() {
    let (m, q) = contact_like(40, 7);
    let csc = CscMatrix::from_dense(&m).unwrap();
    let n = q.len();
    let mut held = SparseLemkeMatrix::new(csc.clone());
    let first = held.solve(&q, None, 10 * n, None).expect("first solve");
    let q2 = nudged(&q);
    let fresh = lemke_sparse(&csc, &q2, Some(&first.basis), 10 * n, None).expect("fresh warm");
    let reused = held
        .solve(&q2, Some(&first.basis), 10 * n, None)
        .expect("warm from the kept factors");
    // The warm basis is not factored again: one factorisation fewer, the same answer.
    assert_eq!(reused.factorisations + 1, fresh.factorisations);
    let lcp = Lcp::new(m.clone(), q2.clone()).unwrap().to_mcp();
    let tol = 1e-8 * lcp.q.amax().max(1.0);
    assert!(lcp.residual(&reused.z) <= tol);
    assert!((&reused.z - &fresh.z).amax() <= 1e-9 * fresh.z.amax().max(1.0));
    // A warm basis other than the last answer's is factored as usual.
    let cold_flags = vec![false; n];
    let other = held.solve(&q2, Some(&cold_flags), 10 * n, None).unwrap();
    let other_fresh = lemke_sparse(&csc, &q2, Some(&cold_flags), 10 * n, None).unwrap();
    assert_eq!(other.factorisations, other_fresh.factorisations);
    // A failed solve keeps nothing: the next warm run factors its basis again.
    let last = held.solve(&q2, None, 10 * n, None).unwrap();
    assert!(
        last.pivots > 1,
        "the cold run needs pivots for the failure below"
    );
    assert!(held.solve(&q, None, 1, None).is_err());
    let after = held.solve(&q2, Some(&last.basis), 10 * n, None).unwrap();
    let after_fresh = lemke_sparse(&csc, &q2, Some(&last.basis), 10 * n, None).unwrap();
    assert_eq!(after.factorisations, after_fresh.factorisations);
}

#[test]
fn the_lcp_residual_of_a_held_matrix_is_the_sparse_mcps_bit_for_bit() {
    for seed in 0..6 {
        let (m, q) = contact_like(12 + 5 * seed as usize, seed);
        let csc = CscMatrix::from_dense(&m).unwrap();
        let z = DVector::from_fn(q.len(), |i, _| ((i * 7 + seed as usize) % 5) as f64 * 0.3);
        let mcp = SparseMcp::lcp(csc.clone(), q.clone()).unwrap();
        let r = lcp_natural_residual(&csc, &q, &z);
        assert!(r > 0.0);
        assert_eq!(r.to_bits(), mcp.residual(&z).to_bits(), "seed {seed}");
    }
}
