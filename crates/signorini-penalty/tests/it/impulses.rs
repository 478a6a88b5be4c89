//! Each impulse formula against an independent numerical quadrature of CPF Eq. 8 on seeded
//! random linear trajectories.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use signorini_math::{Real, Vec3};
use signorini_penalty::pair::{Kind, Trajectory, l_k_squared, separation_coeffs};
use signorini_penalty::{
    ForceModel, Tracked, continuous_exact, continuous_lk, detect, discrete, penetration_intervals,
    tracked_impulse,
};

fn rv(r: &mut ChaCha8Rng, s: Real) -> Vec3 {
    Vec3::new(
        r.random_range(-s..s),
        r.random_range(-s..s),
        r.random_range(-s..s),
    )
}

/// A pair whose vertex / first edge moves through the second feature's plane region.
fn random_pair(r: &mut ChaCha8Rng, kind: Kind) -> (Trajectory, [Real; 4], i8) {
    let x0 = [
        Vec3::new(0.0, 0.0, 0.3) + rv(r, 0.2),
        Vec3::new(-1.0, -1.0, 0.0) + rv(r, 0.2),
        Vec3::new(1.0, -0.5, 0.0) + rv(r, 0.2),
        Vec3::new(0.0, 1.0, 0.0) + rv(r, 0.2),
    ];
    let mut x0 = x0;
    if kind == Kind::EdgeEdge {
        x0 = [
            Vec3::new(-1.0, 0.0, 0.3) + rv(r, 0.2),
            Vec3::new(1.0, 0.0, 0.3) + rv(r, 0.2),
            Vec3::new(0.0, -1.0, 0.0) + rv(r, 0.2),
            Vec3::new(0.0, 1.0, 0.0) + rv(r, 0.2),
        ];
    }
    let dive = Vec3::new(0.0, 0.0, -r.random_range(0.4..1.2));
    let mut x1 = x0;
    let firsts = if kind == Kind::VertexFace { 1 } else { 2 };
    for (i, x) in x1.iter_mut().enumerate() {
        *x += rv(r, 0.3);
        if i < firsts {
            *x += dive;
        }
    }
    let w = match kind {
        Kind::VertexFace => {
            let (a, b) = (r.random_range(0.0..1.0), r.random_range(0.0..1.0));
            let (a, b) = if a + b > 1.0 {
                (1.0 - a, 1.0 - b)
            } else {
                (a, b)
            };
            [a, b, 1.0 - a - b]
        }
        Kind::EdgeEdge => [r.random_range(0.0..1.0), r.random_range(0.0..1.0), 0.0],
    };
    let traj = Trajectory { kind, x0, x1 };
    let c = separation_coeffs(kind, &w);
    // Outside: the side at t = 0 (first feature above).
    let (p, q) = traj.points(&c, 0.0);
    let outside = traj.normal_at(0.0).dot(&(p - q)).signum() as i8;
    (traj, c, outside)
}

/// Eq. 8 directly: `k ∫ max(0, δ) n dt` with `n = σ m̂` and `δ = −σ m̂·(P − Q)`, the normal from
/// the cross product of the interpolated vertices, `norm(t)` the normalisation used (`|m|` for
/// the exact formula, `L_k` for the approximation). Roots by dense sampling and bisection,
/// pieces by 16 × 8-point Gauss–Legendre (independent of the crate's root finder).
fn reference(traj: &Trajectory, c: &[Real; 4], sigma: i8, lk: Option<Real>) -> Vec3 {
    reference_thick(traj, c, sigma, lk, 0.0)
}

/// [`reference`] with a contact thickness `d`: `δ = d − σ m̂·(P − Q)`.
fn reference_thick(traj: &Trajectory, c: &[Real; 4], sigma: i8, lk: Option<Real>, d: Real) -> Vec3 {
    let sg = sigma as Real;
    let force = |t: Real| {
        let m = traj.normal_at(t);
        let l = lk.unwrap_or_else(|| m.norm());
        let (p, q) = traj.points(c, t);
        let delta = d - sg * m.dot(&(p - q)) / l;
        (delta, delta * sg * m / l)
    };
    let mut cuts = vec![0.0];
    let n = 4000;
    for i in 0..n {
        let (a, b) = (i as Real / n as Real, (i + 1) as Real / n as Real);
        if (force(a).0 > 0.0) != (force(b).0 > 0.0) {
            let (mut lo, mut hi) = (a, b);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if (force(mid).0 > 0.0) == (force(lo).0 > 0.0) {
                    lo = mid
                } else {
                    hi = mid
                }
            }
            cuts.push(0.5 * (lo + hi));
        }
    }
    cuts.push(1.0);
    let gl: [(Real, Real); 4] = [
        (-0.861_136_311_594_052_6, 0.347_854_845_137_453_9),
        (-0.339_981_043_584_856_3, 0.652_145_154_862_546_1),
        (0.339_981_043_584_856_3, 0.652_145_154_862_546_1),
        (0.861_136_311_594_052_6, 0.347_854_845_137_453_9),
    ];
    let mut j = Vec3::zeros();
    for w in cuts.windows(2) {
        let (lo, hi) = (w[0], w[1]);
        if force(0.5 * (lo + hi)).0 <= 0.0 {
            continue;
        }
        let pieces = 64;
        let dw = (hi - lo) / pieces as Real;
        for p in 0..pieces {
            let mid = lo + (p as Real + 0.5) * dw;
            for (x, wt) in gl {
                j += 0.5 * dw * wt * force(mid + 0.5 * dw * x).1;
            }
        }
    }
    j
}

fn rel(a: &Vec3, b: &Vec3) -> Real {
    (a - b).norm() / b.norm().max(1e-300)
}

#[test]
fn closed_forms_match_quadrature_of_eq8() {
    let mut r = ChaCha8Rng::seed_from_u64(6);
    let (k, h) = (1.0e4, 1.0);
    let mut tested = [0usize; 2];
    for case in 0..400 {
        let kind = if case % 2 == 0 {
            Kind::VertexFace
        } else {
            Kind::EdgeEdge
        };
        let (traj, c, sigma) = random_pair(&mut r, kind);
        let m = signorini_penalty::pair::normal_power(&traj.normal_bernstein());
        let g = signorini_penalty::pair::gap_cubic(&m, &traj.separation(&c));
        let iv = penetration_intervals(&g, sigma);
        let want_exact = k * h * reference(&traj, &c, sigma, None);
        if want_exact.norm() < 1e-6 * k {
            continue;
        }
        tested[case % 2] += 1;
        let exact = continuous_exact(&traj, &c, &iv, k, h).j;
        assert!(
            rel(&exact, &want_exact) < 1e-8,
            "case {case} exact {exact} vs {want_exact}"
        );
        let lk = l_k_squared(&traj.normal_bernstein()).sqrt();
        let want_lk = k * h * reference(&traj, &c, sigma, Some(lk));
        let approx = continuous_lk(&traj, &c, &iv, k, h).j;
        assert!(
            rel(&approx, &want_lk) < 1e-8,
            "case {case} L_k {approx} vs {want_lk}"
        );
        // Vertex impulses sum to zero (linear momentum, Eqs. 13/17).
        let imp = continuous_lk(&traj, &c, &iv, k, h);
        let sum: Vec3 = imp.vertex.iter().sum();
        assert!(sum.norm() <= 1e-12 * imp.j.norm());
    }
    assert!(tested[0] > 100 && tested[1] > 100, "{tested:?}");
}

/// With a contact thickness `d`, the closed form (Eq. 8 with the shifted cubic `g − σ d L_k`)
/// equals Eq. 8 integrated numerically with depth `d − σ m·s / L_k`; `d = 0` is the plain
/// impulse bit for bit.
#[test]
fn thickness_closed_form_matches_quadrature() {
    let mut r = ChaCha8Rng::seed_from_u64(9);
    let (k, h) = (1.0e4, 1.0);
    let mut tested = 0;
    for case in 0..200 {
        let kind = if case % 2 == 0 {
            Kind::VertexFace
        } else {
            Kind::EdgeEdge
        };
        let (traj, c, sigma) = random_pair(&mut r, kind);
        let tr = Tracked {
            coeffs: c,
            outside: sigma,
            distance: false,
        };
        let plain = tracked_impulse(ForceModel::Cpf, &traj, &tr, k, h).0;
        let zero =
            signorini_penalty::tracked_impulse_thick(ForceModel::Cpf, &traj, &tr, k, h, 0.0).0;
        assert_eq!(plain, zero);
        let d = 0.05;
        let lk = l_k_squared(&traj.normal_bernstein()).sqrt();
        let want = k * h * reference_thick(&traj, &c, sigma, Some(lk), d);
        if want.norm() < 1e-6 * k {
            continue;
        }
        tested += 1;
        let got = signorini_penalty::tracked_impulse_thick(ForceModel::Cpf, &traj, &tr, k, h, d).0;
        assert!(
            rel(&got.j, &want) < 1e-8,
            "case {case}: {} vs {want}",
            got.j
        );
        // The thicker contact pushes at least as hard along the outside normal.
        let n0 = traj.normal_at(0.5) * sigma as Real;
        assert!(got.j.dot(&n0) >= plain.j.dot(&n0) - 1e-9 * want.norm());
    }
    assert!(tested > 100, "{tested}");
}

#[test]
fn l_k_is_the_rms_of_the_normal_length() {
    let mut r = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..50 {
        let (traj, _, _) = random_pair(&mut r, Kind::VertexFace);
        let n = traj.normal_bernstein();
        let mean: Real = (0..10_000)
            .map(|i| traj.normal_at((i as Real + 0.5) / 10_000.0).norm_squared())
            .sum::<Real>()
            / 10_000.0;
        assert!((l_k_squared(&n) - mean).abs() < 1e-7 * mean);
        for t in [0.0, 0.3, 0.7, 1.0] {
            let exact = traj.normal_at(t).norm_squared();
            let sup = signorini_penalty::pair::l_squared_at(&n, t);
            assert!((sup - exact).abs() < 1e-12 * exact.max(1.0));
        }
    }
}

/// Rotate `v` about `axis` (unit) by `angle`.
fn rot(v: &Vec3, axis: &Vec3, angle: Real) -> Vec3 {
    let q = signorini_math::Quat::from_axis_angle(&nalgebra_unit(axis), angle);
    q * v
}

fn nalgebra_unit(a: &Vec3) -> signorini_math::nalgebra::Unit<Vec3> {
    signorini_math::nalgebra::Unit::new_normalize(*a)
}

/// Fig. 6: the constant `L_k` changes the contact impulse by 4.2–8.1 % on the Chain benchmark.
/// For rigidly rotating triangles (up to 30° per step) the error must stay below 10 %, and
/// vanish for pure translation.
#[test]
fn l_k_error_is_bounded_as_fig6() {
    let mut r = ChaCha8Rng::seed_from_u64(8);
    let (k, h) = (1.0, 1.0);
    let mut worst: Real = 0.0;
    let mut count = 0;
    for case in 0..400 {
        let angle = if case < 50 {
            0.0
        } else {
            r.random_range(0.0..30f64.to_radians())
        };
        let axis = rv(&mut r, 1.0);
        let (mut traj, c, sigma) = random_pair(&mut r, Kind::VertexFace);
        let shift = rv(&mut r, 0.2);
        for i in 1..4 {
            traj.x1[i] = rot(&traj.x0[i], &axis, angle) + shift;
        }
        traj.x1[0] = traj.x0[0] + Vec3::new(0.0, 0.0, -1.0) + shift;
        let m = signorini_penalty::pair::normal_power(&traj.normal_bernstein());
        let iv = penetration_intervals(
            &signorini_penalty::pair::gap_cubic(&m, &traj.separation(&c)),
            sigma,
        );
        let ex = continuous_exact(&traj, &c, &iv, k, h).j;
        if ex.norm() < 1e-3 {
            continue;
        }
        let e = rel(&continuous_lk(&traj, &c, &iv, k, h).j, &ex);
        if case < 50 {
            assert!(e < 1e-10, "translation: {e}");
        }
        worst = worst.max(e);
        count += 1;
    }
    assert!(count > 200);
    assert!(worst < 0.10, "worst L_k error {worst}");
    assert!(worst > 0.005, "rotations should show some error: {worst}");
}

#[test]
fn vertex_falling_on_triangle_is_detected_with_its_weights() {
    let tri = [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
    ];
    let p0 = Vec3::new(0.25, 0.25, 0.5);
    let traj = Trajectory {
        kind: Kind::VertexFace,
        x0: [p0, tri[0], tri[1], tri[2]],
        x1: [p0 - Vec3::new(0.0, 0.0, 1.0), tri[0], tri[1], tri[2]],
    };
    let c = detect(&traj, None).unwrap();
    assert!((c.toi - 0.5).abs() < 1e-12);
    let want = [1.0, -0.5, -0.25, -0.25];
    for (got, want) in c.tracked.coeffs.iter().zip(want) {
        assert!((got - want).abs() < 1e-12);
    }
    assert_eq!(c.tracked.outside, 1);
    // Depth 0.5 at the end, penetrating over [0.5, 1]: J = k h ∫ (t − 0.5) dt ẑ = k h / 8 ẑ.
    let (imp, iv) = tracked_impulse(ForceModel::Cpf, &traj, &c.tracked, 100.0, 0.01);
    assert_eq!(iv.as_slice().len(), 1);
    assert!((iv.as_slice()[0][0] - 0.5).abs() < 1e-14);
    assert!((imp.j - Vec3::new(0.0, 0.0, 100.0 * 0.01 / 8.0)).norm() < 1e-14);
    // Fig. 8b: force k δ(1) at the end, times h.
    let d = discrete::tracked_end_impulse(&traj, &c.tracked.coeffs, 1, 100.0, 0.01);
    assert!((d.j - Vec3::new(0.0, 0.0, 0.5)).norm() < 1e-14);
    // A vertex passing beside the triangle is not detected.
    let mut beside = traj;
    beside.x0[0].x += 2.0;
    beside.x1[0].x += 2.0;
    assert!(detect(&beside, None).is_none());
}

/// Fig. 3b: a pair penetrating at t = 0 that leaves and re-enters gets [0, t′] and [t″, 1].
#[test]
fn intervals_split_at_every_root_including_penetration_at_start() {
    // g(t) = −(t − 0.2)(t − 0.7)·(−1)… choose g = (t − 0.2)(t − 0.7)(t − 2) → negative on
    // [0, 0.2) and (0.7, 1], positive between: with outside +1 the pieces are [0, .2], [.7, 1].
    let (a, b, c) = (0.2, 0.7, 2.0);
    let g = [-a * b * c, a * b + a * c + b * c, -(a + b + c), 1.0];
    let iv = penetration_intervals(&g, 1);
    let s = iv.as_slice();
    assert_eq!(s.len(), 2);
    assert!((s[0][0] - 0.0).abs() < 1e-15 && (s[0][1] - 0.2).abs() < 1e-14);
    assert!((s[1][0] - 0.7).abs() < 1e-14 && (s[1][1] - 1.0).abs() < 1e-15);
    let iv = penetration_intervals(&g, -1);
    assert_eq!(iv.as_slice().len(), 1);
    assert!((iv.measure() - 0.5).abs() < 1e-14);
    // Three roots in [0, 1].
    let (a, b, c) = (0.1, 0.5, 0.9);
    let g = [-a * b * c, a * b + a * c + b * c, -(a + b + c), 1.0];
    assert_eq!(penetration_intervals(&g, 1).as_slice().len(), 2);
    let _ = Tracked {
        coeffs: [0.0; 4],
        outside: 1,
        distance: false,
    };
}
