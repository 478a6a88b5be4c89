use super::*;
use crate::lemke_sparse::lemke_sparse;
use nalgebra::DMatrix;

fn csc(m: &DMatrix<Real>) -> CscMatrix {
    CscMatrix::from_dense(m).unwrap()
}

/// A box resting on a plane on four coplanar corners, μ = 0.5, four friction directions per
/// corner (Stewart & Trinkle 1996, Eq. 26's matrix for one body): the redundant corner rows
/// make M rank-deficient (its normal block has rank 3 of 4), the kind of problem on which
/// the unregularised path is fragile.
fn resting_box(push: Real) -> (DMatrix<Real>, DVector<Real>) {
    let (nc, nd) = (4, 4);
    let corners = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)];
    // Generalised velocity (vx, vy, vz, wx, wy, wz), unit mass and inertia 1/6.
    let inv_mass =
        DMatrix::from_diagonal(&DVector::from_column_slice(&[1.0, 1.0, 1.0, 6.0, 6.0, 6.0]));
    let n_rows = nc + nc * nd;
    let mut g = DMatrix::zeros(6, n_rows);
    for (c, &(x, y)) in corners.iter().enumerate() {
        let r = nalgebra::Vector3::new(x, y, -0.5);
        let put = |g: &mut DMatrix<Real>, col: usize, d: nalgebra::Vector3<Real>| {
            let t = r.cross(&d);
            for k in 0..3 {
                g[(k, col)] = d[k];
                g[(3 + k, col)] = t[k];
            }
        };
        put(&mut g, c, nalgebra::Vector3::z());
        for k in 0..nd {
            let a = k as Real * std::f64::consts::FRAC_PI_2;
            put(
                &mut g,
                nc + c * nd + k,
                nalgebra::Vector3::new(a.cos(), a.sin(), 0.0),
            );
        }
    }
    let n = n_rows + nc;
    let a = g.transpose() * &inv_mass * &g;
    let mut m = DMatrix::zeros(n, n);
    m.view_mut((0, 0), (n_rows, n_rows)).copy_from(&a);
    for c in 0..nc {
        for k in 0..nd {
            m[(nc + c * nd + k, n_rows + c)] = 1.0; // E
            m[(n_rows + c, nc + c * nd + k)] = -1.0; // −Eᵀ
        }
        m[(n_rows + c, c)] = 0.5; // μ
    }
    // Free velocity: falling at 0.1 m/s and pushed sideways.
    let v = DVector::from_column_slice(&[push, 0.0, -0.1, 0.0, 0.0, 0.0]);
    let mut q = DVector::zeros(n);
    q.rows_mut(0, n_rows).copy_from(&(g.transpose() * v));
    (m, q)
}

#[test]
fn the_rounds_remove_the_regularisations_error() {
    // Singular PSD: every z with z₀ + z₁ = 1 solves it; the regularised problem's answer
    // has z₀ + z₁ = 2/(2 + ε), off by ε/2.
    let m = csc(&DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0]));
    let q = DVector::from_column_slice(&[-1.0, -1.0]);
    let mut p = ProximalLemkeParams::new(2, 1e-13);
    p.max_rounds = 0;
    let first = lemke_proximal(&m, &q, None, &p).unwrap();
    assert!(first.residual > 1e-5, "residual {:e}", first.residual);
    p.max_rounds = 200;
    let done = lemke_proximal(&m, &q, None, &p).unwrap();
    assert!(done.rounds >= 1);
    assert!(done.residual <= 1e-13, "residual {:e}", done.residual);
    assert_eq!(
        done.residual.to_bits(),
        lcp_natural_residual(&m, &q, &done.z).to_bits()
    );
}

#[test]
fn it_solves_a_resting_box_with_friction_to_lemkes_accuracy() {
    for push in [0.0, 0.02, 0.3] {
        let (m, q) = resting_box(push);
        let m = csc(&m);
        let n = q.len();
        let info = lemke_proximal(&m, &q, None, &ProximalLemkeParams::new(n, 1e-12)).unwrap();
        assert!(
            info.residual <= 1e-12,
            "push {push}: residual {:e} after {} rounds",
            info.residual,
            info.rounds
        );
        // It carries the weight: the normal impulses sum to the 0.1 m/s the box loses.
        let normal: Real = info.z.rows(0, 4).sum();
        assert!((normal - 0.1).abs() <= 1e-9, "push {push}: {normal}");
        // Sticking (push 0.02 < μ · 0.1) or sliding (0.3): the impulse along −x is
        // min(push, μ · normal), the friction cone's bound.
        let tangential: Real = (0..4)
            .map(|c| info.z[4 + 4 * c + 2] - info.z[4 + 4 * c])
            .sum();
        let want = push.min(0.5 * 0.1);
        assert!(
            (tangential - want).abs() <= 1e-9,
            "push {push}: {tangential}"
        );
    }
}

#[test]
fn it_agrees_with_lemke_where_the_solution_is_unique() {
    // A diagonally dominant M (a P-matrix: one solution).
    let n = 30;
    let mut state = 12345_u64;
    let mut rand = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as Real / (1u64 << 53) as Real) * 2.0 - 1.0
    };
    let mut m = DMatrix::from_fn(n, n, |_, _| 0.0);
    for i in 0..n {
        for j in 0..n {
            m[(i, j)] = if i == j {
                0.0
            } else {
                0.5 * rand() / n as Real
            };
        }
        m[(i, i)] = 1.0 + rand().abs();
    }
    let q = DVector::from_fn(n, |_, _| rand());
    let m = csc(&m);
    let lemke = lemke_sparse(&m, &q, None, 10 * n, None).unwrap();
    let info = lemke_proximal(&m, &q, None, &ProximalLemkeParams::new(n, 1e-13)).unwrap();
    assert!(info.residual <= 1e-13, "residual {:e}", info.residual);
    assert!((&info.z - &lemke.z).amax() <= 1e-11);
}

#[test]
fn a_zero_matrix_is_refused() {
    let m = CscMatrix::from_triplets(2, 2, &[]).unwrap();
    let q = DVector::from_column_slice(&[-1.0, 1.0]);
    let e = lemke_proximal(&m, &q, None, &ProximalLemkeParams::new(2, 1e-12)).unwrap_err();
    assert!(matches!(e, SolveError::InvalidInput(_)), "{e}");
}

/// M = R diag(1, 1e-7) Rᵀ (R: a turn by 0.5 rad) and q = −M z* for z* = (1, 1), with w = 0:
/// a problem with one soft direction.
fn soft_direction() -> (CscMatrix, DVector<Real>) {
    let (c, s) = (0.5_f64.cos(), 0.5_f64.sin());
    let rot = DMatrix::from_row_slice(2, 2, &[c, -s, s, c]);
    let diag = DMatrix::from_diagonal(&DVector::from_column_slice(&[1.0, 1e-7]));
    let dense = &rot * diag * rot.transpose();
    let q = -(&dense * DVector::from_column_slice(&[1.0, 1.0]));
    (csc(&dense), q)
}

#[test]
fn shrinking_epsilon_converges_where_a_fixed_epsilon_stalls() {
    // The soft-direction problem (z* = (1, 1)). At a fixed ε = 1e-4 the error along the soft direction shrinks by ε / (ε + 1e-7) ≈ 0.999
    // a round: the residual stalls near 1e-7, as the 2D pile of 2,500's islands did at
    // 1.4e-5 … 9.0e-5 (docs/peg3d.md, item 32). The continuation lowers ε until the soft
    // direction converges.
    let (m, q) = soft_direction();
    let mut fixed = ProximalLemkeParams::new(2, 1e-14);
    fixed.shrink = 1.0;
    let stalled = lemke_proximal(&m, &q, None, &fixed).unwrap();
    assert!(
        stalled.residual > 1e-9,
        "fixed ε: residual {:e} after {} rounds",
        stalled.residual,
        stalled.rounds
    );
    assert_eq!(stalled.last_epsilon.to_bits(), stalled.epsilon.to_bits());
    let info = lemke_proximal(&m, &q, None, &ProximalLemkeParams::new(2, 1e-14)).unwrap();
    assert!(
        info.residual <= 1e-14,
        "continuation: residual {:e} after {} rounds",
        info.residual,
        info.rounds
    );
    assert!(
        info.last_epsilon < 0.1 * info.epsilon,
        "ε {:e} … {:e}, {} rounds",
        info.epsilon,
        info.last_epsilon,
        info.rounds
    );
    assert!(
        (info.z[0] - 1.0).abs() <= 1e-6 && (info.z[1] - 1.0).abs() <= 1e-6,
        "{}",
        info.z
    );
}

#[test]
fn a_long_first_path_is_made_again_at_the_larger_epsilon() {
    // The resting box pushed past its friction bound: a cut first path (one pivot allowed) is
    // made again at ε = 1e-2 · max|M_ii|, its pivots are counted, and the rounds still reach
    // the answer; an uncut one keeps ε = 1e-4 · max|M_ii|.
    let (dense, q) = resting_box(0.3);
    let scale = (0..q.len()).fold(0.0, |a: Real, i| a.max(dense[(i, i)].abs()));
    let m = csc(&dense);
    let n = q.len();
    let mut uncut = ProximalLemkeParams::new(n, 1e-12);
    uncut.short_path_pivots = usize::MAX;
    let mut cut = uncut.clone();
    cut.short_path_pivots = 1;
    let mut direct = uncut.clone();
    direct.regularisation = 1e-2;
    let kept = lemke_proximal(&m, &q, None, &uncut).unwrap();
    let again = lemke_proximal(&m, &q, None, &cut).unwrap();
    let at_long = lemke_proximal(&m, &q, None, &direct).unwrap();
    assert_eq!(kept.epsilon.to_bits(), (1e-4 * scale).to_bits());
    assert_eq!(again.epsilon.to_bits(), (1e-2 * scale).to_bits());
    assert!(again.first_path_cut && !kept.first_path_cut && !at_long.first_path_cut);
    assert_eq!(
        again.pivots,
        at_long.pivots + 1,
        "the cut run's pivot is counted"
    );
    for info in [&kept, &again] {
        assert!(info.residual <= 1e-12, "residual {:e}", info.residual);
        let normal: Real = info.z.rows(0, 4).sum();
        assert!((normal - 0.1).abs() <= 1e-9, "{normal}");
    }
}

#[test]
fn a_broken_lowered_run_goes_back_to_the_first_epsilon_with_a_gentler_step() {
    // The soft-direction problem of the test above, with every run at a lowered ε cut at
    // once (no pivot allowed): each cut sends ε back to the first one and takes the square
    // root of the factor, 0.3 → 0.55 → 0.74 → 0.86 → 0.93; above 0.9 ε stays. So exactly four
    // breaks, the last rounds at the first ε, and the fixed-ε stall of the test above.
    let (m, q) = soft_direction();
    let mut p = ProximalLemkeParams::new(2, 1e-14);
    p.nearby_path_pivots = 0;
    p.long_path_regularisation = p.regularisation;
    p.stall_rounds = 30;
    let info = lemke_proximal(&m, &q, None, &p).unwrap();
    assert_eq!(info.breaks, 4, "{} rounds", info.rounds);
    // The first path's cut is another setting: cutting it to nothing changes no lowered run.
    let mut first_cut = ProximalLemkeParams::new(2, 1e-14);
    first_cut.short_path_pivots = 0;
    first_cut.long_path_regularisation = first_cut.regularisation;
    let kept = lemke_proximal(&m, &q, None, &first_cut).unwrap();
    assert_eq!(kept.breaks, 0, "{} rounds", kept.rounds);
    assert_eq!(info.last_epsilon.to_bits(), info.epsilon.to_bits());
    assert!(info.residual > 1e-9, "residual {:e}", info.residual);
    // Uncut, the same rounds shrink ε with no break and converge.
    let uncut = lemke_proximal(&m, &q, None, &ProximalLemkeParams::new(2, 1e-14)).unwrap();
    assert_eq!(uncut.breaks, 0);
    assert!(uncut.residual <= 1e-14, "residual {:e}", uncut.residual);
}

/// A first centre near the answer (`ProximalLemkeParams::start`: the last step's impulses)
/// takes fewer rounds and pivots than z_0 = 0, to the same tolerance; and a centre of the
/// wrong length is ignored (the same run as without one).
#[test]
fn a_start_near_the_answer_takes_fewer_rounds() {
    for push in [0.0, 0.02, 0.3] {
        let (m, q) = resting_box(push);
        let m = csc(&m);
        let n = q.len();
        let mut p = ProximalLemkeParams::new(n, 1e-12);
        p.regularisation = 1e-1; // far from the answer at z_0 = 0: many rounds
        let cold = lemke_proximal(&m, &q, None, &p).unwrap();
        assert!(cold.residual <= 1e-12, "push {push}: {:e}", cold.residual);
        assert!(cold.rounds >= 3, "push {push}: {} rounds cold", cold.rounds);
        // The answer, perturbed by 1 %: a centre near it.
        let mut warm = p.clone();
        warm.start = Some(cold.z.map(|x| x * 1.01));
        let near = lemke_proximal(&m, &q, None, &warm).unwrap();
        assert!(near.residual <= 1e-12, "push {push}: {:e}", near.residual);
        assert!(
            near.rounds < cold.rounds && near.pivots < cold.pivots,
            "push {push}: {} rounds / {} pivots from the centre, {} / {} cold",
            near.rounds,
            near.pivots,
            cold.rounds,
            cold.pivots
        );
        let mut wrong = p.clone();
        wrong.start = Some(DVector::zeros(n + 1));
        let same = lemke_proximal(&m, &q, None, &wrong).unwrap();
        assert_eq!((same.z, same.pivots), (cold.z.clone(), cold.pivots));
    }
}

/// A nearby problem (q moved a little, as between gap-correction rounds) started at the ε,
/// basis and answer of the last one (`start_epsilon`, `warm`, `start`) is answered to the
/// same tolerance in fewer rounds and pivots than from that basis and answer through the
/// schedule, which comes down from 1e-4 · max|M_ii| again; and the answer says at which ε its
/// basis was found. The soft-direction problem: its rounds must lower ε to converge.
#[test]
fn a_nearby_problem_resumes_at_the_last_answers_epsilon() {
    let (m, q) = soft_direction();
    let p = ProximalLemkeParams::new(2, 1e-14);
    let last = lemke_proximal(&m, &q, None, &p).unwrap();
    assert!(last.residual <= 1e-14, "{:e}", last.residual);
    assert!(
        last.basis_epsilon < 0.1 * last.epsilon,
        "basis ε {:e}, first ε {:e}",
        last.basis_epsilon,
        last.epsilon
    );
    // The next round's problem: z* = 1.02 · (1, 1).
    let next = &q * 1.02;
    let mut schedule = p.clone();
    schedule.start = Some(last.z.clone());
    let through = lemke_proximal(&m, &next, Some(&last.basis), &schedule).unwrap();
    let mut resume = schedule.clone();
    resume.start_epsilon = Some(last.basis_epsilon);
    let resumed = lemke_proximal(&m, &next, Some(&last.basis), &resume).unwrap();
    assert!(resumed.residual <= 1e-14, "{:e}", resumed.residual);
    assert!((&resumed.z - DVector::from_element(2, 1.02)).amax() <= 1e-6);
    assert!(
        resumed.rounds < through.rounds && resumed.pivots <= through.pivots,
        "{} rounds / {} pivots resumed, {} / {} through the schedule",
        resumed.rounds,
        resumed.pivots,
        through.rounds,
        through.pivots
    );
    assert_eq!(resumed.epsilon.to_bits(), last.basis_epsilon.to_bits());
    assert!(!resumed.first_path_cut);
}

/// The resumed first run (`start_epsilon`) is a run from a nearby basis: it gets
/// `nearby_path_pivots`. Cut to nothing, it fails, its pivots are counted, and the schedule
/// runs as without it (the same answer and ε as a call with no `start_epsilon`).
#[test]
fn a_resumed_run_beyond_the_nearby_cut_falls_back_to_the_schedule() {
    let (m, q) = soft_direction();
    let p = ProximalLemkeParams::new(2, 1e-14);
    let last = lemke_proximal(&m, &q, None, &p).unwrap();
    let next = &q * 1.02;
    // The schedule with the same cut (its lowered runs are cut too) but no resumed run.
    let mut schedule = p.clone();
    schedule.start = Some(last.z.clone());
    schedule.nearby_path_pivots = 0;
    let through = lemke_proximal(&m, &next, Some(&last.basis), &schedule).unwrap();
    let mut resume = schedule.clone();
    resume.start_epsilon = Some(last.basis_epsilon);
    let fell_back = lemke_proximal(&m, &next, Some(&last.basis), &resume).unwrap();
    assert_eq!(fell_back.epsilon.to_bits(), through.epsilon.to_bits());
    assert_eq!(fell_back.z, through.z);
    assert!(
        fell_back.pivots >= through.pivots,
        "{} pivots after the cut resumed run, {} without it",
        fell_back.pivots,
        through.pivots
    );
    // With the default cut the resumed run answers at the last ε.
    resume.nearby_path_pivots = ProximalLemkeParams::new(2, 1e-14).nearby_path_pivots;
    let resumed = lemke_proximal(&m, &next, Some(&last.basis), &resume).unwrap();
    assert_eq!(resumed.epsilon.to_bits(), last.basis_epsilon.to_bits());
}
