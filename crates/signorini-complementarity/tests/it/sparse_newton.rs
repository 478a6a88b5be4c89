//! The sparse semismooth Newton solver (`newton_sparse.rs`): against Lemke on the Siconos
//! files, on a large random sparse SPD LCP, on a contact-like mixed LCP with a known answer
//! (a resting stack), warm starts and determinism.

use crate::generators::contact_like_mixed;
use crate::{assert_solves, params};
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use signorini_complementarity::siconos::{detect_kind, read_problem};
use signorini_complementarity::{
    BUDGET_SPENT, CscMatrix, Lcp, SolveError, SolveInfo, SolveParams, SolverKind, SparseMcp,
    solve_lcp, solve_mcp, solve_sparse,
};
use std::path::PathBuf;
use std::time::Instant;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/lcp/siconos")
}

fn siconos_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for kind in ["LCP", "MLCP", "Relay"] {
        let dir = data_dir().join(kind).join("test/data");
        for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "dat") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// Problems whose natural-map residual Lemke and the sparse solver should both bring within
/// tolerance, in files of at most `MAX_SICONOS_N` unknowns.
const MAX_SICONOS_N: usize = 100;

#[test]
fn sparse_newton_agrees_with_lemke_on_the_siconos_files() {
    // Sizes ≤ 100 (the deltasigma circuits, n = 221, are left out: Lemke needs its fallback
    // polish on one of them). Where Lemke solves the file, the sparse solver must too, except
    // for the files listed here (semismooth Newton fails on them: tobenna is indefinite and
    // degenerate, FB-Newton stalls; Buck2's merit has a non-solution stationary region).
    const SPARSE_FAILS: [&str; 2] = ["lcp_tobenna", "Buck2_mlcp"];
    let (mut solved, mut same_z) = (0, 0);
    for path in siconos_files() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let kind = detect_kind(&text);
        let Ok(mcp) = read_problem(kind, &text) else {
            continue; // the rectangular MLCP
        };
        if mcp.dim() > MAX_SICONOS_N {
            continue;
        }
        let Ok(lemke) = solve_mcp(&mcp, &params(SolverKind::Lemke)) else {
            continue; // CPS_3 and the perturbed Pang problem end in a ray
        };
        let sparse = SparseMcp::from_dense(&mcp).unwrap();
        let result = solve_sparse(&sparse, &SolveParams::default());
        if SPARSE_FAILS.contains(&stem.as_str()) {
            assert!(result.is_err(), "{stem} is now solved: update the list");
            continue;
        }
        let info = result.unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(info.solver, SolverKind::SparseNewton);
        assert_solves(&mcp, &info, &stem);
        // The same solution where the problem has one w (and z) in common: compare w always
        // (both residuals are tiny and w is unique for these files), z where they agree.
        let scale = mcp.q.amax().max(1.0);
        assert!(
            (&info.w - &lemke.w).amax() <= 1e-8 * scale,
            "{stem}: w differs by {:e}",
            (&info.w - &lemke.w).amax()
        );
        if (&info.z - &lemke.z).amax() <= 1e-8 * scale {
            same_z += 1;
        }
        // Through solve_mcp (dense input converted) the answer is the same.
        let via_dense = solve_mcp(&mcp, &params(SolverKind::SparseNewton)).unwrap();
        assert_eq!(via_dense.z, info.z, "{stem}");
        solved += 1;
    }
    // 17 LCP files (20 minus CPS_3, the unsolvable perturbed one and tobenna), 15 MLCPs (18
    // minus the rectangular one, the two deltasigma (n = 221) and Buck2), 7 Relay files.
    assert_eq!(solved, 17 + 14 + 7, "files solved by the sparse solver");
    // CPS_1 has a continuum of solutions (same w, different z).
    assert_eq!(same_z, solved - 1, "files with the same z as Lemke");
}

/// A random sparse symmetric strictly diagonally dominant (so positive definite) matrix:
/// about `per_row` off-diagonal entries per row in [−1, 1], diagonal = 1 + Σ|off-diagonal|.
/// q ∈ [−1, 1]ⁿ. Seeded ChaCha8.
fn random_spd(n: usize, per_row: usize, seed: u64) -> SparseMcp {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let mut triplets = Vec::new();
    let mut diag = vec![1.0; n];
    for i in 0..n {
        for _ in 0..per_row / 2 {
            let j = r.random_range(0..n);
            if j == i {
                continue;
            }
            let v: f64 = r.random_range(-1.0..1.0);
            triplets.push((i, j, v));
            triplets.push((j, i, v));
            diag[i] += v.abs();
            diag[j] += v.abs();
        }
    }
    for (i, d) in diag.iter().enumerate() {
        triplets.push((i, i, *d));
    }
    let m = CscMatrix::from_triplets(n, n, &triplets).unwrap();
    let q = DVector::from_fn(n, |_, _| r.random_range(-1.0..1.0));
    SparseMcp::lcp(m, q).unwrap()
}

fn tight() -> SolveParams {
    let mut p = SolveParams::default();
    p.tolerance = 1e-10;
    p
}

#[test]
fn random_sparse_spd_lcp_n2000_is_solved_to_1e_10() {
    let mcp = random_spd(2000, 4, 11);
    let t = Instant::now();
    let info = solve_sparse(&mcp, &tight()).unwrap();
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "random SPD n = 2000, nnz = {}: {} iterations, residual {:e}, {secs:.3} s (single run)",
        mcp.m.nnz(),
        info.iterations,
        info.residual
    );
    assert!(info.residual <= 1e-10, "{:e}", info.residual);
    assert_eq!(info.residual, mcp.residual(&info.z));
    assert_solves(&mcp.to_dense(), &info, "random SPD n=2000");
    let active = info.z.iter().filter(|&&z| z > 0.0).count();
    assert!(
        active > 200 && active < 1800,
        "non-trivial active set: {active}"
    );
}

#[test]
fn random_sparse_spd_lcp_n200_matches_dense_lemke() {
    let mcp = random_spd(200, 4, 5);
    let sparse = solve_sparse(&mcp, &tight()).unwrap();
    let dense = Lcp::new(mcp.m.to_dense(), mcp.q.clone()).unwrap();
    let lemke = solve_lcp(&dense, &params(SolverKind::Lemke)).unwrap();
    // Positive definite: the solution is unique.
    let dz = (&sparse.z - &lemke.z).amax();
    assert!(dz <= 1e-10, "z differs from Lemke's by {dz:e}");
    assert!(sparse.residual <= 1e-10);
}

/// A 1-D stack of `n` boxes resting on the ground, as a PEG/Stewart–Trinkle mixed LCP with
/// free velocities: unknowns (v, λ), rows
///   −M v + G λ + M v* = 0            (v free; v* = v⁻ + h g, here v⁻ = 0)
///   w = Gᵀ v + ψ/h ≥ 0 ⟂ λ ≥ 0       (contact k between box k−1, or the ground, and box k)
/// with gaps ψ = 0. At rest v = 0 and λ_k = h g Σ_{j ≥ k} m_j (the weight above contact k).
fn box_stack(n: usize, h: f64, g: f64) -> (SparseMcp, Vec<f64>) {
    let mass: Vec<f64> = (0..n).map(|i| 1.0 + 0.1 * i as f64).collect();
    let mut t = Vec::new();
    for (i, m) in mass.iter().enumerate() {
        t.push((i, i, -m));
        // G: contact k pushes box k up (+1) and box k − 1 down (−1).
        t.push((i, n + i, 1.0));
        t.push((n + i, i, 1.0));
        if i > 0 {
            t.push((i - 1, n + i, -1.0));
            t.push((n + i, i - 1, -1.0));
        }
    }
    let m = CscMatrix::from_triplets(2 * n, 2 * n, &t).unwrap();
    let q = DVector::from_fn(2 * n, |i, _| if i < n { mass[i] * (-h * g) } else { 0.0 });
    let lambda = (0..n)
        .map(|k| h * g * mass[k..].iter().sum::<f64>())
        .collect();
    (SparseMcp::mixed(m, q, n).unwrap(), lambda)
}

#[test]
fn resting_box_stack_gets_the_weight_of_everything_above() {
    let (h, g) = (0.01, 9.81);
    let (mcp, lambda) = box_stack(50, h, g);
    let t = Instant::now();
    let info = solve_sparse(&mcp, &SolveParams::default()).unwrap();
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "50-box stack (n = 100): {} iterations, residual {:e}, {secs:.4} s (single run)",
        info.iterations, info.residual
    );
    assert_solves(&mcp.to_dense(), &info, "box stack");
    for (k, lk) in lambda.iter().enumerate() {
        assert!(info.z[k].abs() <= 1e-12, "v[{k}] = {}", info.z[k]);
        let err = (info.z[50 + k] - lk).abs();
        assert!(err <= 1e-12 * lk, "λ[{k}] = {} vs {lk}", info.z[50 + k]);
    }
    // The bottom contact carries the whole stack: h g Σ m = 0.01 · 9.81 · 172.5.
    assert!((lambda[0] - h * g * 172.5).abs() < 1e-12);
}

#[test]
#[ignore = "known limitation: the sparse Newton stalls on tall stacks (1000 boxes: iteration limit, residual ~1e-3)"]
fn a_tall_stack_of_1000_boxes_n2000_is_solved() {
    // Tall stacks (contact impulses spanning several decades, every contact active) are
    // not solved yet: the non-monotone line search makes short steps from the cold start
    // and the active-set polish never sees the all-active set. Kept as the target.
    let (h, g) = (0.01, 9.81);
    let (mcp, lambda) = box_stack(1_000, h, g);
    let t = Instant::now();
    let info = solve_sparse(&mcp, &SolveParams::default()).unwrap();
    eprintln!(
        "1000-box stack (n = 2000): {} iterations, residual {:e}, {:.3} s (single run)",
        info.iterations,
        info.residual,
        t.elapsed().as_secs_f64()
    );
    assert_solves(&mcp.to_dense(), &info, "1000-box stack");
    for (k, lk) in lambda.iter().enumerate() {
        let err = (info.z[1_000 + k] - lk).abs();
        assert!(err <= 1e-9 * lk, "λ[{k}] = {} vs {lk}", info.z[1_000 + k]);
    }
}

#[test]
fn a_warm_start_takes_fewer_iterations_than_a_cold_one() {
    let mcp = random_spd(2000, 4, 11);
    let first = solve_sparse(&mcp, &tight()).unwrap();
    let mut perturbed = mcp.clone();
    let mut r = ChaCha8Rng::seed_from_u64(99);
    for q in perturbed.q.iter_mut() {
        *q += 1e-3 * r.random_range(-1.0..1.0);
    }
    let cold = solve_sparse(&perturbed, &tight()).unwrap();
    let mut warm_params = tight();
    warm_params.warm_start = Some(first.z.clone());
    let warm = solve_sparse(&perturbed, &warm_params).unwrap();
    eprintln!(
        "warm start: {} iterations warm vs {} cold",
        warm.iterations, cold.iterations
    );
    assert!(
        warm.iterations < cold.iterations,
        "{} vs {}",
        warm.iterations,
        cold.iterations
    );
    assert!((&warm.z - &cold.z).amax() <= 1e-9);
    // A warm start of the wrong length is ignored.
    let mut wrong = tight();
    wrong.warm_start = Some(DVector::zeros(3));
    let ignored = solve_sparse(&perturbed, &wrong).unwrap();
    assert_eq!(ignored.z, cold.z);
    assert_eq!(ignored.iterations, cold.iterations);
}

fn bits(info: &SolveInfo) -> Vec<u64> {
    info.z.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn repeated_runs_are_bit_identical() {
    let mcp = random_spd(2000, 4, 3);
    let a = solve_sparse(&mcp, &tight()).unwrap();
    let b = solve_sparse(&mcp, &tight()).unwrap();
    // And on another thread (faer runs sequentially: the thread does not matter).
    let mcp2 = mcp.clone();
    let c = std::thread::spawn(move || solve_sparse(&mcp2, &tight()).unwrap())
        .join()
        .unwrap();
    for other in [&b, &c] {
        assert_eq!(bits(&a), bits(other));
        assert_eq!(a.iterations, other.iterations);
        assert_eq!(a.work.to_bits(), other.work.to_bits());
    }
    let (stack, _) = box_stack(50, 0.01, 9.81);
    let x = solve_sparse(&stack, &SolveParams::default()).unwrap();
    let y = solve_sparse(&stack, &SolveParams::default()).unwrap();
    assert_eq!(bits(&x), bits(&y));
}

#[test]
fn failures_carry_the_best_iterate() {
    // lcp_tobenna (n = 40, indefinite, degenerate): semismooth Newton does not solve it.
    let path = data_dir().join("LCP/test/data/lcp_tobenna.dat");
    let text = std::fs::read_to_string(&path).unwrap();
    let dense = read_problem(detect_kind(&text), &text).unwrap();
    let mcp = SparseMcp::from_dense(&dense).unwrap();
    let mut p = SolveParams::default();
    p.max_iterations = Some(3);
    match solve_sparse(&mcp, &p) {
        Err(SolveError::MaxIterations {
            iterations,
            residual,
            best,
        }) => {
            assert_eq!(iterations, 3);
            assert_eq!(best.len(), 40);
            assert_eq!(residual, mcp.residual(&best));
            assert!(residual > 0.0 && residual.is_finite());
        }
        other => panic!("{other:?}"),
    }
    let mut p = SolveParams::default();
    p.work_limit = Some(20.0 * mcp.m.nnz() as f64);
    match solve_sparse(&mcp, &p) {
        Err(SolveError::Infeasible {
            reason,
            best: Some(best),
            residual,
        }) => {
            assert!(reason.contains(BUDGET_SPENT), "{reason}");
            assert_eq!(residual, mcp.residual(&best));
        }
        other => panic!("{other:?}"),
    }
    // A budget large enough changes nothing on a problem that is solved.
    let spd = random_spd(300, 4, 8);
    let free = solve_sparse(&spd, &tight()).unwrap();
    let mut p = tight();
    p.work_limit = Some(free.work);
    let limited = solve_sparse(&spd, &p).unwrap();
    assert_eq!(bits(&free), bits(&limited));
    let mut p = tight();
    p.tolerance = -1.0;
    assert!(matches!(
        solve_sparse(&spd, &p),
        Err(SolveError::InvalidInput(_))
    ));
}

/// Stewart–Trinkle mixed problems on which the Newton iterations stall (at natural
/// residuals 1.4e-2 and 4.4e-4, the same with 1000 iterations) are solved by the proximal
/// continuation that follows them (`newton_sparse.rs`, module docs).
#[test]
fn stalled_contact_problems_are_solved_by_the_proximal_continuation() {
    for (nc, seed) in [(8, 17), (16, 38)] {
        let (m, q, n_free) = contact_like_mixed(nc, seed);
        let mcp = SparseMcp::mixed(CscMatrix::from_dense(&m).unwrap(), q, n_free).unwrap();
        let mut p = SolveParams::default();
        p.max_iterations = Some(1000);
        let info = solve_sparse(&mcp, &p).unwrap_or_else(|e| panic!("nc {nc}, seed {seed}: {e}"));
        assert_solves(&mcp.to_dense(), &info, &format!("nc {nc}, seed {seed}"));
        assert!(
            info.fallbacks
                .iter()
                .any(|(_, why)| why.contains("proximal continuation")),
            "nc {nc}, seed {seed}: solved without the proximal continuation ({:?}): the \
             problem no longer tests it",
            info.fallbacks
        );
        // Without it (`SolveParams::proximal = false`, as the world runs without friction)
        // the same solve fails.
        p.proximal = false;
        assert!(
            solve_sparse(&mcp, &p).is_err(),
            "nc {nc}, seed {seed}: solved without the proximal continuation"
        );
    }
}

#[test]
fn dense_input_through_solve_lcp_matches_the_sparse_entry() {
    let m = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.0, 1.0, 3.0, -1.0, 0.0, -1.0, 2.0]);
    let q = DVector::from_column_slice(&[-1.0, 2.0, -3.0]);
    let lcp = Lcp::new(m, q).unwrap();
    let dense = solve_lcp(&lcp, &params(SolverKind::SparseNewton)).unwrap();
    let sparse = solve_sparse(
        &SparseMcp::from_dense(&lcp.to_mcp()).unwrap(),
        &SolveParams::default(),
    )
    .unwrap();
    assert_eq!(dense.solver, SolverKind::SparseNewton);
    assert_eq!(dense.z, sparse.z);
    assert_solves(&lcp.to_mcp(), &dense, "3×3");
}
