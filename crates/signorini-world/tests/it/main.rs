//! Integration tests of the stepper: analytic free fall and resting contact, corners, friction.

mod control;
mod deformable;
mod penalty;

use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::ConvexPolygon;
use signorini_math::{Vec2, Vec3};
use signorini_world::*;

mod basis_reuse;
mod checkpoint;
mod friction_rescue;
mod islands;
mod paper;
mod spatial;
mod warm_band;

/// A static floor and columns of three 0.2 m cubes at x = `xs`, each cube tilted a little
/// more about x and shifted a little, dropped onto it: the face-to-face contacts with friction give
/// rank-deficient Stewart–Trinkle problems (rank 42 of 120) on which dense Lemke loses its
/// path to round-off.
fn tilted_columns(xs: &[f64]) -> Vec<PolyBody> {
    let slab = signorini_geometry::dim3::ConvexPolyhedron::cuboid(Vec3::new(20.0, 20.0, 0.5))
        .unwrap()
        .translated(&Vec3::new(0.0, 0.0, -0.5));
    let mut out = vec![PolyBody::fixed(slab)];
    for &x in xs {
        for k in 0..3 {
            let k = k as f64;
            let tilt = signorini_math::Quat::from_axis_angle(&Vec3::x_axis(), 0.05 * (k + 1.0));
            let cube =
                signorini_geometry::dim3::ConvexPolyhedron::cuboid(Vec3::repeat(0.1)).unwrap();
            let b = PolyBody::dynamic(cube, 1.0, signorini_math::Mat3::identity() * (0.04 / 6.0))
                .unwrap()
                .with_pose(Vec3::new(x + 0.02 * k, 0.01 * k, 0.12 + 0.22 * k), tilt)
                .with_gravity(Vec3::new(0.0, 0.0, -9.81));
            out.push(b);
        }
    }
    out
}

fn world(model: ContactModel, h: f64) -> World {
    World::new(WorldParams::new(model, h)).unwrap()
}

fn square(half: f64) -> ConvexPolygon {
    ConvexPolygon::rectangle(-half, -half, half, half).unwrap()
}

fn floor() -> RigidBody2 {
    RigidBody2::fixed(ConvexPolygon::rectangle(-5.0, -1.0, 5.0, 0.0).unwrap())
}

#[test]
fn free_fall_matches_the_discrete_analytic_solution() {
    for model in [
        ContactModel::Peg,
        ContactModel::Standard,
        ContactModel::Corrective,
    ] {
        let mut w = world(model, 0.01);
        let b = RigidBody2::dynamic(square(0.1), 2.0, 0.01)
            .unwrap()
            .with_pose(Vec2::new(0.0, 10.0), 0.3)
            .with_gravity(Vec2::new(0.0, -9.8));
        w.add_body(b.with_velocity(Vec3::new(1.0, 2.0, 0.5)))
            .unwrap();
        for _ in 0..50 {
            let r = w.step();
            assert_eq!(r.counts.contacts, 0);
            assert!(!r.failed);
        }
        let (h, n) = (0.01, 50.0);
        let y = 10.0 + 2.0 * h * n - 9.8 * h * h * n * (n + 1.0) / 2.0;
        let b = &w.bodies[0];
        assert!(
            (b.position - Vec2::new(0.5, y)).norm() < 1e-12,
            "{model:?}: {:?}",
            b.position
        );
        assert!((b.angle - (0.3 + 0.25)).abs() < 1e-12);
    }
}

#[test]
fn resting_polygon_normal_impulse_equals_m_g_h() {
    for model in [ContactModel::Peg, ContactModel::Standard] {
        let h = 0.005;
        let mut w = world(model, h);
        w.add_body(floor()).unwrap();
        let m = 0.7;
        let b = RigidBody2::dynamic(square(0.1), m, 0.002)
            .unwrap()
            .with_pose(Vec2::new(0.0, 0.1), 0.0)
            .with_gravity(Vec2::new(0.0, -9.8));
        w.add_body(b).unwrap();
        for _ in 0..40 {
            let r = w.step();
            assert!(!r.failed, "{model:?}: {:?}", r.failure);
            assert!(
                (r.normal_impulse - m * 9.8 * h).abs() < 1e-9,
                "{model:?}: impulse {}",
                r.normal_impulse
            );
        }
        let b = &w.bodies[1];
        assert!(
            (b.position.y - 0.1).abs() < 1e-9 && b.velocity.norm() < 1e-9,
            "{model:?}: {:?}",
            b.position
        );
    }
}

/// A small square sliding right along the top of a static block, past its corner, falls off.
fn slide_past_corner(model: ContactModel) -> (World, usize) {
    let mut w = world(model, 0.005);
    w.add_body(RigidBody2::fixed(
        ConvexPolygon::rectangle(-2.0, -1.0, 0.0, 0.0).unwrap(),
    ))
    .unwrap();
    let b = RigidBody2::dynamic(square(0.05), 0.1, 0.1 * 0.01 / 6.0)
        .unwrap()
        .with_pose(Vec2::new(-0.3, 0.05), 0.0)
        .with_velocity(Vec3::new(1.0, 0.0, 0.0))
        .with_gravity(Vec2::new(0.0, -9.8));
    let i = w.add_body(b).unwrap();
    (w, i)
}

#[test]
fn vertex_sliding_past_a_corner_does_not_snag() {
    let (mut w, i) = slide_past_corner(ContactModel::Peg);
    for _ in 0..120 {
        assert!(!w.step().failed);
    }
    let b = &w.bodies[i];
    // Frictionless: it keeps (most of) its horizontal speed and falls past the corner.
    assert!(b.velocity.x > 0.8, "snagged: v = {:?}", b.velocity);
    assert!(
        b.position.x > 0.15 && b.position.y < 0.0,
        "pose {:?}",
        b.position
    );
    // Horizontal velocity never jumps down at the corner.
    let (mut w, i) = slide_past_corner(ContactModel::Peg);
    let mut min_vx = f64::INFINITY;
    for _ in 0..120 {
        w.step();
        min_vx = min_vx.min(w.bodies[i].velocity.x);
    }
    assert!(min_vx > 0.8, "min vx {min_vx}");
}

fn incline_slides(mu: f64, slope: f64) -> f64 {
    // A square resting on a static incline of angle `slope` (the incline's top surface passes
    // through the origin), gravity straight down. Returns the displacement along the slope.
    let mut params = WorldParams::new(ContactModel::Peg, 0.005);
    params.mu = mu;
    let mut w = World::new(params).unwrap();
    let incline = RigidBody2::fixed(ConvexPolygon::rectangle(-5.0, -1.0, 5.0, 0.0).unwrap())
        .with_pose(Vec2::zeros(), slope);
    w.add_body(incline).unwrap();
    let start = signorini_math::rotate2(&Vec2::new(0.0, 0.1), slope);
    let b = RigidBody2::dynamic(square(0.1), 1.0, 1.0 / 150.0)
        .unwrap()
        .with_pose(start, slope)
        .with_gravity(Vec2::new(0.0, -9.8));
    let i = w.add_body(b).unwrap();
    for _ in 0..100 {
        assert!(!w.step().failed);
    }
    let down_slope = Vec2::new(-slope.cos(), -slope.sin());
    (w.bodies[i].position - start).dot(&down_slope)
}

#[test]
fn friction_pyramid_sliding_threshold_is_mu_equals_tan_theta() {
    let slope: f64 = 0.3;
    let t = slope.tan();
    let stuck = incline_slides(1.05 * t, slope);
    let slides = incline_slides(0.95 * t, slope);
    assert!(stuck.abs() < 1e-6, "should stick: moved {stuck}");
    // Sliding acceleration g (sin θ − μ cos θ) over 0.5 s.
    let a = 9.8 * (slope.sin() - 0.95 * t * slope.cos());
    let expect = a * 0.5 * 0.5 / 2.0;
    assert!(
        slides > 0.5 * expect && slides < 1.5 * expect,
        "slid {slides}, expected ≈ {expect}"
    );
}

#[test]
fn invalid_settings_are_rejected() {
    assert_eq!(
        World::new(WorldParams::new(ContactModel::Peg, 0.0)).unwrap_err(),
        WorldError::StepSize(0.0)
    );
    let mut p = WorldParams::new(ContactModel::Peg, 0.01);
    p.mu = -1.0;
    assert!(matches!(World::new(p), Err(WorldError::Friction(_))));
    let mut w = world(ContactModel::Peg, 0.01);
    let bad = RigidBody2::dynamic(square(0.1), 1.0, 1.0)
        .unwrap()
        .with_pose(Vec2::new(f64::NAN, 0.0), 0.0);
    assert!(matches!(
        w.add_body(bad),
        Err(WorldError::Body { index: 0, .. })
    ));
}

/// A square placed 5 cm deep in the floor, at rest, h = 0.01 s. The paper's stepper removes the
/// penetration with ψ/h and keeps that velocity (≈ 5 m/s upward: the square is thrown up);
/// with the split impulse the position update is the same but the velocity carried on is the
/// one of the velocity problem with ψ⁺ = max(ψ, 0): at rest on the floor.
#[test]
fn split_impulse_removes_a_start_penetration_without_keeping_its_velocity() {
    let run = |split: bool| {
        let h = 0.01;
        let mut p = WorldParams::new(ContactModel::Peg, h);
        p.split_penetration = split;
        let mut w = World::new(p).unwrap();
        w.add_body(floor()).unwrap();
        let b = RigidBody2::dynamic(square(0.1), 1.0, 0.01)
            .unwrap()
            .with_pose(Vec2::new(0.0, 0.05), 0.0)
            .with_gravity(Vec2::new(0.0, -9.8));
        w.add_body(b).unwrap();
        let r = w.step();
        assert!(!r.failed, "{:?}", r.failure);
        (r, w.bodies[1].clone())
    };
    let (paper, thrown) = run(false);
    let (split, rested) = run(true);
    assert_eq!(paper.split, None);
    assert!(
        (split.split.unwrap() - 0.05).abs() < 1e-12,
        "{:?}",
        split.split
    );
    // Same position update: the square's bottom is at the floor after the step.
    for b in [&thrown, &rested] {
        assert!((b.position.y - 0.1).abs() < 1e-9, "{:?}", b.position);
    }
    assert!(
        (thrown.velocity.y - 5.0).abs() < 1e-9,
        "ψ/h kept: {:?}",
        thrown.velocity
    );
    assert!(rested.velocity.norm() < 1e-9, "{:?}", rested.velocity);
}

/// A work budget too small for any solve is raised to 3n Lemke pivots (`FLOOR_PIVOTS`): a
/// square between a floor and a ceiling that it overlaps both (no velocity removes both
/// penetrations within the step, so the problem has no solution) spends it, the chain stops,
/// and the report says so.
#[test]
fn a_spent_solve_budget_is_reported() {
    let h = 0.005;
    let mut p = WorldParams::new(ContactModel::Peg, h);
    p.solve_work_limit = Some(1.0);
    let mut w = World::new(p).unwrap();
    w.add_body(floor()).unwrap();
    let ceiling = ConvexPolygon::rectangle(-5.0, 0.19, 5.0, 1.19).unwrap();
    w.add_body(RigidBody2::fixed(ceiling)).unwrap();
    let b = RigidBody2::dynamic(square(0.1), 1.0, 0.01)
        .unwrap()
        .with_pose(Vec2::new(0.0, 0.095), 0.0);
    w.add_body(b).unwrap();
    let r = w.step();
    assert!(r.counts.contacts >= 4, "{r:?}");
    assert!(r.budget_exhausted, "{r:?}");
    assert!(
        r.fallbacks
            .iter()
            .any(|f| f.contains(signorini_complementarity::BUDGET_SPENT)),
        "{r:?}"
    );
}

/// The position projection solves the normal rows only (Cline & Pai's post-stabilisation
/// projects the non-penetration constraints). With friction μ = 0.5, two tilted squares
/// overlap on start, the lower one with the floor (2.0e-3 m²) and the upper one with it
/// (7.3e-3 m²). The step's eight gap corrections end still interpenetrating, and the
/// projection removes the rest in several passes. With the world's μ in the projection (as
/// before), its first pass was refused as too energetic and 6.8e-3 m² stayed: the same
/// pattern as the 125-body pile with μ = 0.5 at step 104 (docs/peg3d.md).
#[test]
fn the_position_projection_is_frictionless_in_a_frictional_scene() {
    let mut params = WorldParams::signorini(ContactModel::Peg, 0.005);
    params.mu = 0.5;
    let mut w = World::new(params).unwrap();
    w.add_body(floor()).unwrap();
    for (x, y, tilt) in [(0.0, 0.09, 0.2), (0.05, 0.24, -0.2)] {
        let b = RigidBody2::dynamic(square(0.1), 1.0, 1.0 / 150.0)
            .unwrap()
            .with_pose(Vec2::new(x, y), tilt)
            .with_gravity(Vec2::new(0.0, -9.8));
        w.add_body(b).unwrap();
    }
    let overlap = |w: &World| -> f64 {
        let verts: Vec<_> = w.bodies.iter().map(|b| b.world_vertices()).collect();
        (0..verts.len())
            .flat_map(|i| (i + 1..verts.len()).map(move |j| (i, j)))
            .map(|(i, j)| signorini_geometry::dim2::intersection_area(&verts[i], &verts[j]))
            .sum()
    };
    assert!(overlap(&w) > 9e-3, "{:e}", overlap(&w));
    let r = w.step();
    assert!(!r.failed, "{:?}", r.failure);
    assert_eq!(r.corrections, 8, "{r:?}");
    assert!(r.projections > 1, "{r:?}");
    assert!(r.projection_unknowns > 0, "{r:?}");
    let after = overlap(&w);
    assert!(after <= 1e-9, "overlap {after:e} m² after the projection");
    // The projection moves positions and keeps the velocities the step solved.
    for b in &w.bodies[1..] {
        assert!(b.velocity.xy().norm() < 5.0, "{:?}", b.velocity);
    }
}

/// A step whose solve fails still gets the position projection (`split_penetration`): a square
/// started tilted about 3 cm deep in the floor, with a solver that cannot solve the friction LCP (PGS on
/// Stewart–Trinkle's non-symmetric matrix) and no mixed-form retry, so every step fails and
/// continues from the best iterate. Without the projection on failed steps, the 2D pile of
/// 400 bodies sank into itself (docs/peg3d.md, "Scaling").
#[test]
fn a_failed_step_is_still_projected_out_of_penetration() {
    let run = |split: bool| {
        let mut params = WorldParams::signorini(ContactModel::Peg, 0.005);
        params.mu = 0.5;
        params.solver = signorini_complementarity::SolverKind::Pgs;
        params.mixed_fallback = false;
        params.split_penetration = split;
        let mut w = World::new(params).unwrap();
        w.add_body(floor()).unwrap();
        let b = RigidBody2::dynamic(square(0.1), 1.0, 1.0 / 150.0)
            .unwrap()
            .with_pose(Vec2::new(0.0, 0.09), 0.2)
            .with_gravity(Vec2::new(0.0, -9.8));
        let i = w.add_body(b).unwrap();
        let r = w.step();
        (r, w.bodies[i].clone())
    };
    let (r, b) = run(true);
    assert!(r.failed, "the solve was meant to fail: {:?}", r.residual);
    assert!(
        r.projections > 0,
        "no projection on a failed step: {:?}",
        r.fallbacks
    );
    let lowest = b
        .world_vertices()
        .iter()
        .map(|v| v.y)
        .fold(f64::INFINITY, f64::min);
    assert!(lowest > -1e-6, "still {lowest} m deep after the projection");
    // The same step without the split impulse (and so without the projection) stays deep.
    let (r, b) = run(false);
    assert!(r.failed && r.projections == 0);
    let lowest = b
        .world_vertices()
        .iter()
        .map(|v| v.y)
        .fold(f64::INFINITY, f64::min);
    assert!(lowest < -1e-3, "{lowest}");
}

/// The position projection also removes a 2D overlap that no vertex–edge constraint sees
/// (`Planar::unseen`): a bar crossing a static bar like a plus sign (1.6e-3 m², no vertex of
/// either inside the other) is pushed out in the projection that a square 1 mm deep in the
/// floor sets off (one problem: islands off). Without `unseen` the crossing stays.
#[test]
fn the_projection_removes_a_2d_overlap_without_a_vertex_inside() {
    let mut params = WorldParams::signorini(ContactModel::Peg, 0.005);
    params.islands = false;
    let mut w = World::new(params).unwrap();
    w.add_body(floor()).unwrap();
    let across = RigidBody2::fixed(ConvexPolygon::rectangle(-0.06, 0.28, 0.06, 0.32).unwrap());
    w.add_body(across).unwrap();
    let bar = ConvexPolygon::rectangle(-0.02, -0.06, 0.02, 0.06).unwrap();
    let i = w
        .add_body(
            RigidBody2::dynamic(bar, 1.0, 1.0 / 600.0)
                .unwrap()
                .with_pose(Vec2::new(0.0, 0.3), 0.0),
        )
        .unwrap();
    let sunk = RigidBody2::dynamic(square(0.1), 1.0, 1.0 / 150.0)
        .unwrap()
        .with_pose(Vec2::new(2.0, 0.099), 0.0);
    w.add_body(sunk).unwrap();
    let crossing = |w: &World| {
        intersection_area_of(&w.bodies[1].world_vertices(), &w.bodies[i].world_vertices())
    };
    assert!((crossing(&w) - 1.6e-3).abs() < 1e-12, "{:e}", crossing(&w));
    let r = w.step();
    assert!(!r.failed, "{:?}", r.failure);
    assert!(r.projections > 0, "{r:?}");
    assert!(crossing(&w) <= 1e-9, "crossing left: {:e} m²", crossing(&w));
}

fn intersection_area_of(a: &[Vec2], b: &[Vec2]) -> f64 {
    signorini_geometry::dim2::intersection_area(a, b)
}
