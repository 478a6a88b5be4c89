//! The warm band (`WorldParams::sparse_warm_from`, docs/peg3d.md item 31): islands smaller
//! than `sparse_lemke_from` whose set changed since the last solve start the sparse Lemke from
//! the last basis instead of a cold dense Lemke run; a factored basis of the same unknowns
//! (a resting stack, a gap-correction re-solve that only moved q) still answers first.
//! Here the band is widened to every size (`sparse_warm_from = 0`) so that small stacks fall
//! in it, and compared with the band off (`usize::MAX`).

use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_world::{ContactModel, PolyBody, World3, WorldParams};

fn floor() -> PolyBody {
    let slab = ConvexPolyhedron::cuboid(Vec3::new(20.0, 20.0, 0.5))
        .unwrap()
        .translated(&Vec3::new(0.0, 0.0, -0.5));
    PolyBody::fixed(slab)
}

/// Three 0.2 m cubes, frictionless, gap corrections and split impulse on (the pile's
/// stepper). `drop`: released 2 cm apart with a tilt (their contact sets change as they
/// land); else stacked exactly touching (the same set every step).
fn stack(warm_from: usize, drop: bool) -> World3 {
    let mut p = WorldParams::new(ContactModel::Peg, 0.01);
    p.gap_corrections = 8;
    p.split_penetration = true;
    p.sparse_warm_from = warm_from;
    let mut w = World3::new(p).unwrap();
    w.add_body(floor()).unwrap();
    for k in 0..3 {
        let k = k as Real;
        let (at, tilt) = if drop {
            (
                Vec3::new(0.02 * k, 0.01 * k, 0.12 + 0.22 * k),
                Quat::from_axis_angle(&Vec3::x_axis(), 0.05 * (k + 1.0)),
            )
        } else {
            (Vec3::new(0.0, 0.0, 0.1 + 0.2 * k), Quat::identity())
        };
        let shape = ConvexPolyhedron::cuboid(Vec3::repeat(0.1)).unwrap();
        let cube = PolyBody::dynamic(shape, 1.0, Mat3::identity() * (0.04 / 6.0))
            .unwrap()
            .with_pose(at, tilt)
            .with_gravity(Vec3::new(0.0, 0.0, -9.81));
        w.add_body(cube).unwrap();
    }
    w
}

fn poses(w: &World3) -> Vec<[Real; 7]> {
    w.bodies
        .iter()
        .skip(1)
        .map(|b| {
            let (p, q) = (b.state.position, b.state.orientation);
            [p.x, p.y, p.z, q.w, q.i, q.j, q.k]
        })
        .collect()
}

/// On a resting stack the band changes no bit: each step's set is the last one's, so its
/// factored basis answers (a basis reuse) before the sparse Lemke could run. (Were the sparse
/// Lemke tried first from that basis, its answer would be another factorisation's rounding:
/// the 8-cube tower took 2.4 times as long that way, docs/peg3d.md item 31.)
#[test]
fn a_resting_stack_in_the_warm_band_is_answered_by_its_factored_basis() {
    let (mut on, mut off) = (stack(0, false), stack(usize::MAX, false));
    let mut reuses = 0;
    for step in 0..40 {
        let (a, b) = (on.step(), off.step());
        assert!(!a.failed && !b.failed, "{:?} {:?}", a.failure, b.failure);
        assert_eq!(a.basis_reuses, b.basis_reuses, "step {step}");
        assert_eq!(poses(&on), poses(&off), "step {step}");
        reuses += a.basis_reuses;
    }
    assert!(reuses >= 30, "only {reuses} basis reuses in 40 steps");
}

/// Where the set changes (a tilted stack landing), the band's solves start from the last
/// basis and pivot less than the cold dense Lemke runs they replace (measured: 275 pivots
/// against 499 over these 80 steps); without friction
/// the velocities of an LCP solution are unique, so the two runs agree to round-off.
#[test]
fn a_changing_set_in_the_warm_band_starts_the_sparse_lemke_from_the_last_basis() {
    let (mut on, mut off) = (stack(0, true), stack(usize::MAX, true));
    let (mut warm, mut cold, mut worst): (usize, usize, Real) = (0, 0, 0.0);
    for step in 0..80 {
        let (a, b) = (on.step(), off.step());
        assert!(!a.failed && !b.failed, "{:?} {:?}", a.failure, b.failure);
        // The sparse Lemke answered every solve of the band (a failure says so and falls
        // back to the dense chain).
        assert!(
            a.fallbacks.iter().all(|f| !f.contains("sparse Lemke")),
            "step {step}: {:?}",
            a.fallbacks
        );
        (warm, cold) = (warm + a.iterations, cold + b.iterations);
        for (x, y) in poses(&on).iter().zip(&poses(&off)) {
            for (u, v) in x.iter().zip(y) {
                worst = worst.max((u - v).abs());
            }
        }
    }
    assert!(cold > 0, "no pivots: the stack never landed");
    assert!(worst < 1e-9, "the runs differ by {worst}");
    assert!(warm * 4 <= cold * 3, "warm band {warm} pivots, cold {cold}");
}
