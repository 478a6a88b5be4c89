//! The 3D world (`World3`): free flight and free rotation against analytic answers, a cube
//! resting on a floor, a cube on an incline at the friction threshold, determinism.

use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_world::{ContactModel, Gyroscopic, PolyBody, World3, WorldParams};

fn world3(model: ContactModel, h: Real) -> World3 {
    World3::new(WorldParams::new(model, h)).unwrap()
}

fn cube(half: Real) -> ConvexPolyhedron {
    ConvexPolyhedron::cuboid(Vec3::repeat(half)).unwrap()
}

/// A static slab whose top face is the plane z = 0 (rotated by `tilt` about y through the
/// origin).
fn floor(tilt: Real) -> PolyBody {
    let slab = ConvexPolyhedron::cuboid(Vec3::new(5.0, 5.0, 0.5))
        .unwrap()
        .translated(&Vec3::new(0.0, 0.0, -0.5));
    PolyBody::fixed(slab).with_pose(Vec3::zeros(), Quat::from_axis_angle(&Vec3::y_axis(), tilt))
}

/// World-frame angular momentum `R J Rᵀ ω`.
fn angular_momentum(b: &PolyBody) -> Vec3 {
    b.state.world_inertia() * b.state.angular_velocity
}

#[test]
fn free_fall_and_spin_about_a_principal_axis_match_the_analytic_solution() {
    // A 0.2 × 0.4 × 0.6 box of density 1000: exact inertia m (b² + c²)/12 etc.
    let shape = ConvexPolyhedron::cuboid(Vec3::new(0.1, 0.2, 0.3)).unwrap();
    let body = PolyBody::from_density(&shape, 1000.0).unwrap();
    let m = 1000.0 * 0.2 * 0.4 * 0.6;
    assert!((body.state.mass - m).abs() < 1e-9 * m);
    let expect = Mat3::from_diagonal(&Vec3::new(
        m * (0.16 + 0.36) / 12.0,
        m * (0.04 + 0.36) / 12.0,
        m * (0.04 + 0.16) / 12.0,
    ));
    assert!((body.state.inertia - expect).amax() < 1e-12 * m);
    for model in [
        ContactModel::Peg,
        ContactModel::Standard,
        ContactModel::Corrective,
    ] {
        let (h, n) = (0.01, 100usize);
        let mut w = world3(model, h);
        // Spin about the body's y axis, which the tilt maps to a world principal axis.
        let q0 = Quat::from_axis_angle(&Vec3::x_axis(), 0.4);
        let omega = q0 * Vec3::new(0.0, 3.0, 0.0);
        w.add_body(
            body.clone()
                .with_pose(Vec3::new(0.0, 0.0, 10.0), q0)
                .with_velocity(Vec3::new(1.0, -0.5, 2.0), omega)
                .with_gravity(Vec3::new(0.0, 0.0, -9.81)),
        )
        .unwrap();
        let l0 = angular_momentum(&w.bodies[0]);
        for _ in 0..n {
            let r = w.step();
            assert_eq!(r.counts.contacts, 0);
            assert!(!r.failed);
        }
        let b = &w.bodies[0];
        let nf = n as Real;
        let z = 10.0 + 2.0 * h * nf - 9.81 * h * h * nf * (nf + 1.0) / 2.0;
        let x = Vec3::new(h * nf, -0.5 * h * nf, z);
        assert!(
            (b.state.position - x).norm() < 1e-11,
            "{model:?}: {:?}",
            b.state.position
        );
        let q = Quat::from_scaled_axis(omega * h * nf) * q0;
        assert!(b.state.orientation.angle_to(&q) < 1e-12, "{model:?}");
        assert!((b.state.orientation.norm() - 1.0).abs() < 1e-14);
        let l = angular_momentum(b);
        assert!(
            (l - l0).norm() < 1e-12 * l0.norm(),
            "{model:?}: {l:?} vs {l0:?}"
        );
    }
}

#[test]
fn tumbling_icosahedron_conserves_angular_momentum_and_energy() {
    // Isotropic inertia (docs/formulation-notes.md §9: 0.1309 I for circumradius 0.5, mass 0.5):
    // L = J ω for any axis, so ω × Jω = 0: the gyroscopic update changes ω only by round-off
    // (the inertia from the polyhedral integrals is isotropic to 1e-12, not bit for bit).
    let ico = ConvexPolyhedron::icosahedron(0.5).unwrap();
    let b = PolyBody::from_density(&ico, 1.0).unwrap();
    let scale = 0.5 / b.state.mass;
    let body = PolyBody::dynamic(ico, 0.5, b.state.inertia * scale).unwrap();
    assert!((body.state.inertia - Mat3::identity() * body.state.inertia[(0, 0)]).amax() < 1e-12);
    let mut w = world3(ContactModel::Peg, 0.005);
    w.add_body(body.with_velocity(Vec3::zeros(), Vec3::new(1.0, -2.0, 3.0)))
        .unwrap();
    let (l0, e0) = (angular_momentum(&w.bodies[0]), w.total_kinetic_energy());
    for _ in 0..200 {
        w.step();
    }
    let (l, e) = (angular_momentum(&w.bodies[0]), w.total_kinetic_energy());
    assert!((l - l0).norm() < 1e-12 * l0.norm());
    assert!((e - e0).abs() < 1e-12 * e0);
}

/// A free box with three different principal moments spinning near its intermediate axis
/// (the Dzhanibekov flip), stepped by `World3` for 10 s at h = 0.01 with `gyroscopic`:
/// (max relative | |L| − |L₀| |, max relative energy growth, min body-frame ω about the
/// intermediate axis / initial spin).
fn dzhanibekov(gyroscopic: Gyroscopic) -> (Real, Real, Real) {
    let shape = ConvexPolyhedron::cuboid(Vec3::new(0.1, 0.2, 0.3)).unwrap();
    let body = PolyBody::from_density(&shape, 1000.0).unwrap();
    let q0 = Quat::from_scaled_axis(Vec3::new(0.3, -0.5, 0.7));
    // Moments: x largest, z smallest; y is the intermediate axis.
    let spin = 2.0;
    let wb = Vec3::new(0.01, spin, 0.01);
    let mut p = WorldParams::signorini(ContactModel::Peg, 0.01);
    p.gyroscopic = gyroscopic;
    let mut w = World3::new(p).unwrap();
    w.add_body(
        body.with_pose(Vec3::zeros(), q0)
            .with_velocity(Vec3::zeros(), q0 * wb),
    )
    .unwrap();
    let (l0, e0) = (
        angular_momentum(&w.bodies[0]).norm(),
        w.total_kinetic_energy(),
    );
    let (mut dl, mut de, mut min_wy) = (0.0 as Real, Real::NEG_INFINITY, spin);
    for _ in 0..1000 {
        let r = w.step();
        assert!(!r.failed && r.counts.contacts == 0);
        let b = &w.bodies[0].state;
        dl = dl.max((angular_momentum(&w.bodies[0]).norm() - l0).abs() / l0);
        de = de.max((w.total_kinetic_energy() - e0) / e0);
        min_wy = min_wy.min(
            b.orientation
                .inverse_transform_vector(&b.angular_velocity)
                .y,
        );
    }
    (dl, de, min_wy / spin)
}

#[test]
fn world3_carries_the_gyroscopic_term_and_keeps_angular_momentum() {
    let (dl, de, flip) = dzhanibekov(Gyroscopic::Midpoint);
    assert!(dl <= 1e-9, "|L| drift {dl:e}");
    assert!(de <= 1e-12, "energy grew by {de:e}");
    assert!(flip < -0.9, "no flip: min w_y / spin = {flip}");
    // The option reaches the stepper: without the term the body never flips.
    let (_, de, flip) = dzhanibekov(Gyroscopic::Off);
    assert!(flip > 0.99, "{flip}");
    assert!(de <= 1e-12, "{de:e}");
}

#[test]
fn resting_cube_normal_impulses_sum_to_m_g_h_without_drift() {
    for model in [ContactModel::Peg, ContactModel::Standard] {
        let (h, m) = (0.005, 0.7);
        let mut w = world3(model, h);
        w.add_body(floor(0.0)).unwrap();
        let cube = PolyBody::dynamic(cube(0.1), m, Mat3::identity() * (m * 0.04 / 6.0))
            .unwrap()
            .with_pose(Vec3::new(0.3, -0.2, 0.1), Quat::identity())
            .with_gravity(Vec3::new(0.0, 0.0, -9.81));
        let i = w.add_body(cube).unwrap();
        for _ in 0..60 {
            let r = w.step();
            assert!(!r.failed, "{model:?}: {:?}", r.failure);
            assert!(
                (r.normal_impulse - m * 9.81 * h).abs() < 1e-9,
                "{model:?}: impulse {} vs {}",
                r.normal_impulse,
                m * 9.81 * h
            );
        }
        let b = &w.bodies[i].state;
        assert!(
            (b.position - Vec3::new(0.3, -0.2, 0.1)).norm() < 1e-9,
            "{model:?}: drifted to {:?}",
            b.position
        );
        assert!(b.velocity().norm() < 1e-9, "{model:?}: {:?}", b.velocity());
        assert!(b.orientation.angle() < 1e-9);
    }
}

/// Displacement along the slope of a cube resting on an incline of angle `slope` (rotation
/// about y) after `steps` steps, with friction `mu` and 8 pyramid directions. The incline's
/// normal n̂ = (sin θ, 0, cos θ) has the contact tangents (0, ±1, 0) and ±(cos θ, 0, −sin θ),
/// so the down-slope direction is one of the pyramid's directions and the pyramid's friction
/// limit along it is exactly μ p.
fn incline_slides(mu: Real, slope: Real, steps: usize) -> Real {
    let h = 0.005;
    let mut params = WorldParams::new(ContactModel::Peg, h);
    params.mu = mu;
    let mut w = World3::new(params).unwrap();
    w.add_body(floor(slope)).unwrap();
    let tilt = Quat::from_axis_angle(&Vec3::y_axis(), slope);
    let start = tilt * Vec3::new(0.0, 0.0, 0.1);
    let cube = PolyBody::dynamic(cube(0.1), 1.0, Mat3::identity() * (0.04 / 6.0))
        .unwrap()
        .with_pose(start, tilt)
        .with_gravity(Vec3::new(0.0, 0.0, -9.81));
    let i = w.add_body(cube).unwrap();
    for _ in 0..steps {
        let r = w.step();
        assert!(!r.failed, "{:?}", r.failure);
    }
    let down = tilt * Vec3::x(); // the slope descends towards +x after the tilt
    (w.bodies[i].state.position - start).dot(&down)
}

#[test]
fn friction_pyramid_cube_on_incline_sticks_below_tan_theta_and_slides_above() {
    let slope: Real = 0.3;
    let t = slope.tan();
    let steps = 100;
    let stuck = incline_slides(1.05 * t, slope, steps);
    assert!(stuck.abs() < 1e-6, "should stick: moved {stuck}");
    let mu = 0.95 * t;
    let slid = incline_slides(mu, slope, steps);
    // Discrete motion from rest with acceleration a = g (sin θ − μ cos θ): after n steps the
    // velocity is n h a and the displacement h² a n (n + 1)/2.
    let a = 9.81 * (slope.sin() - mu * slope.cos());
    let n = steps as Real;
    let expect = 0.005 * 0.005 * a * n * (n + 1.0) / 2.0;
    assert!(
        (slid - expect).abs() < 1e-6 * expect,
        "slid {slid}, expected {expect}"
    );
}

fn pile(model: ContactModel) -> Vec<(Vec3, Quat)> {
    // Poses after 60 steps of three icosahedra dropped on a floor.
    let mut w = world3(model, 0.01);
    w.add_body(floor(0.0)).unwrap();
    for k in 0..3 {
        let ico = PolyBody::dynamic(
            ConvexPolyhedron::icosahedron(0.5).unwrap(),
            0.5,
            Mat3::identity() * 0.1309,
        )
        .unwrap()
        .with_pose(
            Vec3::new(0.3 * k as Real, 0.1 * k as Real, 0.6 + 1.1 * k as Real),
            Quat::from_axis_angle(&Vec3::x_axis(), 0.2 * k as Real),
        )
        .with_gravity(Vec3::new(0.0, 0.0, -9.81));
        w.add_body(ico).unwrap();
    }
    for _ in 0..60 {
        w.step();
    }
    w.bodies
        .iter()
        .map(|b| (b.state.position, b.state.orientation))
        .collect()
}

#[test]
fn three_dimensional_steps_are_deterministic() {
    for model in [ContactModel::Peg, ContactModel::Standard] {
        let (a, b) = (pile(model), pile(model));
        for ((pa, qa), (pb, qb)) in a.iter().zip(&b) {
            assert_eq!(pa, pb);
            assert_eq!(qa.coords, qb.coords, "{model:?}");
        }
    }
}
