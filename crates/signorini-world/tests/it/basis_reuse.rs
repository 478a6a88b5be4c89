//! Solves answered by an earlier solve's Lemke basis
//! (`WorldParams::reuse_basis`): the answers are the cold solves' to the solver's tolerance,
//! and the reuse actually happens on a stack that lands and comes to rest.

use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_world::{ContactModel, PolyBody, World3, WorldParams};

fn world(reuse: bool) -> World3 {
    let mut p = WorldParams::new(ContactModel::Peg, 0.01);
    p.gap_corrections = 8;
    p.split_penetration = true;
    p.reuse_basis = reuse;
    let mut w = World3::new(p).unwrap();
    let slab = ConvexPolyhedron::cuboid(Vec3::new(5.0, 5.0, 0.5))
        .unwrap()
        .translated(&Vec3::new(0.0, 0.0, -0.5));
    w.add_body(PolyBody::fixed(slab)).unwrap();
    for k in 0..3 {
        let k = k as Real;
        let tilt = Quat::from_axis_angle(&Vec3::x_axis(), 0.05 * (k + 1.0));
        let cube = ConvexPolyhedron::cuboid(Vec3::repeat(0.1)).unwrap();
        let body = PolyBody::dynamic(cube, 1.0, Mat3::identity() * (0.04 / 6.0))
            .unwrap()
            .with_pose(Vec3::new(0.02 * k, 0.01 * k, 0.12 + 0.22 * k), tilt)
            .with_gravity(Vec3::new(0.0, 0.0, -9.81));
        w.add_body(body).unwrap();
    }
    w
}

/// From the same state, a step with basis reuse and one without end at the same poses and
/// velocities (to 1e-7: the same problems solved to 1e-8, possibly at other solutions of a
/// degenerate problem); over the run the reuse answers some re-solves, and never fails.
/// Frictionless three-cube stack dropped on a floor (the islands tests' stack).
#[test]
fn reused_bases_answer_re_solves_like_cold_solves() {
    let mut w = world(true);
    let (mut reuses, mut corrections, mut worst): (usize, usize, Real) = (0, 0, 0.0);
    for _ in 0..60 {
        let mut cold = w.clone();
        cold.params.reuse_basis = false;
        let rc = cold.step();
        let r = w.step();
        assert!(!r.failed && !rc.failed, "{:?} {:?}", r.failure, rc.failure);
        assert_eq!(rc.basis_reuses, 0);
        reuses += r.basis_reuses;
        corrections += r.corrections;
        for (a, b) in w.bodies.iter().zip(&cold.bodies) {
            worst = worst.max((a.state.position - b.state.position).amax());
            worst = worst.max((a.state.linear_velocity - b.state.linear_velocity).amax());
            worst = worst.max((a.state.angular_velocity - b.state.angular_velocity).amax());
        }
    }
    assert!(
        reuses > 0,
        "no re-solve reused a basis ({corrections} corrections)"
    );
    assert!(worst < 1e-7, "reuse and cold solves differ by {worst}");
    eprintln!(
        "{reuses} solves answered by a stored basis ({corrections} gap corrections); worst difference {worst:e}"
    );
}

/// A cube at rest on the floor has the same contacts at every step: from the second step on,
/// the first solve is answered by the previous step's basis (no gap correction is needed, so
/// every reuse is a first solve), and the cube stays at rest.
#[test]
fn a_resting_body_reuses_the_last_steps_basis() {
    let mut p = WorldParams::new(ContactModel::Peg, 0.01);
    p.gap_corrections = 8;
    let mut w = World3::new(p).unwrap();
    let slab = ConvexPolyhedron::cuboid(Vec3::new(5.0, 5.0, 0.5))
        .unwrap()
        .translated(&Vec3::new(0.0, 0.0, -0.5));
    w.add_body(PolyBody::fixed(slab)).unwrap();
    let cube = ConvexPolyhedron::cuboid(Vec3::repeat(0.1)).unwrap();
    let body = PolyBody::dynamic(cube, 1.0, Mat3::identity() * (0.04 / 6.0))
        .unwrap()
        .with_pose(Vec3::new(0.0, 0.0, 0.1), Quat::identity())
        .with_gravity(Vec3::new(0.0, 0.0, -9.81));
    w.add_body(body).unwrap();
    let mut first_reused = 0;
    for k in 0..20 {
        let r = w.step();
        assert!(!r.failed, "{:?}", r.failure);
        if r.corrections == 0 && r.basis_reuses == 1 {
            first_reused += 1;
        }
        if k == 0 {
            assert_eq!(r.basis_reuses, 0, "nothing to reuse at the first step");
        }
    }
    assert!(
        first_reused >= 15,
        "first solves reused: {first_reused} of 19"
    );
    let b = &w.bodies[1].state;
    assert!((b.position.z - 0.1).abs() < 1e-9, "{:?}", b.position);
    assert!(b.linear_velocity.norm() < 1e-9, "{:?}", b.linear_velocity);
}

/// The first solve and every gap-correction re-solve are in the step's report
/// (`StepReport::rounds`): one entry per round, the first solve numbered 0 and the
/// re-solves from 1, what answered each, and its residual. A round answered by a stored
/// basis says `basis`, and those rounds account for every reuse the step counts. Over the
/// stack's 60 steps some re-solves must run.
#[test]
fn each_gap_correction_round_is_reported_with_what_answered_it() {
    let mut w = world(true);
    let (mut rounds, mut basis_rounds) = (0, 0);
    for _ in 0..60 {
        let r = w.step();
        assert!(!r.failed, "{:?}", r.failure);
        let numbers: Vec<usize> = r.rounds.iter().map(|x| x.round).collect();
        if r.unknowns == 0 {
            assert!(numbers.is_empty(), "nothing to solve: {:?}", r.rounds);
            continue;
        }
        assert_eq!(numbers, (0..=r.corrections).collect::<Vec<_>>());
        // (`StepReport::unknowns` is the largest solve's: a round may add contacts.)
        assert!(r.rounds[0].unknowns <= r.unknowns, "{:?}", r.rounds);
        let by_basis = r.rounds.iter().filter(|x| x.answer == "basis").count();
        assert_eq!(
            r.basis_reuses, by_basis,
            "{} reuses, {by_basis} rounds by a basis: {:?}",
            r.basis_reuses, r.rounds
        );
        for x in &r.rounds {
            assert!(
                x.unknowns > 0 && x.answer != "failed" && x.answer != "none",
                "{x}"
            );
            assert!(x.residual <= 1e-6, "{x}");
            assert!(x.seconds >= 0.0);
            // A re-solve runs only where the last velocities left the set violated.
            assert!(x.round == 0 || x.unseen || x.depth > 0.0, "{x}");
            let line = x.to_string();
            assert!(!line.contains(',') && !line.contains('"'), "{line}");
        }
        rounds += r.corrections;
        basis_rounds += by_basis;
    }
    assert!(rounds > 0, "no gap-correction round in 60 steps");
    eprintln!("{rounds} rounds, {basis_rounds} answered by a stored basis");
}
