//! The gyroscopic term of the 3D free-flight step (issue 22 item 4): a free asymmetric body
//! spinning near its intermediate principal axis (the Dzhanibekov flip).

use signorini_dynamics::{Gyroscopic, RigidBody3};
use signorini_math::{Mat3, Quat, Vec3};

/// Principal moments 1, 2, 3 kg m².
fn inertia() -> Mat3 {
    Mat3::from_diagonal(&Vec3::new(1.0, 2.0, 3.0))
}

/// Spin rate about the intermediate (body y) axis, rad/s.
const SPIN: f64 = 2.0;

/// A body spinning at [`SPIN`] about its intermediate axis, perturbed by 0.01 rad/s about the
/// other two, in a general orientation (so the world and body frames differ).
fn spinner() -> RigidBody3 {
    let q = Quat::from_scaled_axis(Vec3::new(0.3, -0.5, 0.7));
    let wb = Vec3::new(0.01, SPIN, 0.01);
    RigidBody3::dynamic(1.0, inertia())
        .unwrap()
        .with_pose(Vec3::zeros(), q)
        .with_velocity(Vec3::zeros(), q * wb)
}

/// What a free-flight run records.
struct Run {
    /// max over the steps of | |L| − |L₀| | / |L₀| (world frame).
    l_norm_drift: f64,
    /// |L_end − L₀| / |L₀| (the world-frame vector).
    l_vector_drift: f64,
    /// max over the steps of (E − E₀)/E₀.
    energy_growth: f64,
    /// (E_end − E₀)/E₀.
    energy_change: f64,
    /// min over the steps of the body-frame angular velocity about the intermediate axis.
    min_wy: f64,
    /// Steps at which that component changed sign.
    sign_changes: usize,
    /// Largest |ω| seen.
    max_w: f64,
}

fn run(gyro: Gyroscopic, h: f64, steps: usize, mut b: RigidBody3) -> Run {
    let l0 = b.angular_momentum();
    let e0 = b.kinetic_energy();
    let body_w = |b: &RigidBody3| b.orientation.inverse_transform_vector(&b.angular_velocity);
    let mut r = Run {
        l_norm_drift: 0.0,
        l_vector_drift: 0.0,
        energy_growth: f64::NEG_INFINITY,
        energy_change: 0.0,
        min_wy: body_w(&b).y,
        sign_changes: 0,
        max_w: b.angular_velocity.norm(),
    };
    let mut last_sign = body_w(&b).y > 0.0;
    for _ in 0..steps {
        let nu = b.free_velocity(h, gyro);
        b.set_velocity(&nu);
        b.integrate_position(h);
        let l = b.angular_momentum();
        let e = b.kinetic_energy();
        r.l_norm_drift = r.l_norm_drift.max((l.norm() - l0.norm()).abs() / l0.norm());
        r.energy_growth = r.energy_growth.max((e - e0) / e0);
        let wy = body_w(&b).y;
        r.min_wy = r.min_wy.min(wy);
        if (wy > 0.0) != last_sign {
            r.sign_changes += 1;
            last_sign = wy > 0.0;
        }
        r.max_w = r.max_w.max(b.angular_velocity.norm());
    }
    r.l_vector_drift = (b.angular_momentum() - l0).norm() / l0.norm();
    r.energy_change = (b.kinetic_energy() - e0) / e0;
    r
}

fn report(name: &str, r: &Run) {
    eprintln!(
        "{name}: max | |L| - |L0| |/|L0| = {:.3e}, |L_end - L0|/|L0| = {:.3e}, max (E - E0)/E0 = {:.3e}, (E_end - E0)/E0 = {:.3e}, min body w_y = {:.4}, sign changes = {}, max |w| = {:.4}",
        r.l_norm_drift,
        r.l_vector_drift,
        r.energy_growth,
        r.energy_change,
        r.min_wy,
        r.sign_changes,
        r.max_w
    );
}

#[test]
fn midpoint_keeps_angular_momentum_and_energy_through_the_flip() {
    // 10 s at h = 0.01.
    let r = run(Gyroscopic::Midpoint, 0.01, 1000, spinner());
    report("midpoint, h = 0.01, 10 s", &r);
    assert!(r.l_norm_drift <= 1e-9, "|L| drift {:e}", r.l_norm_drift);
    assert!(
        r.energy_growth <= 1e-12,
        "energy grew by {:e}",
        r.energy_growth
    );
    // The flip: the spin about the intermediate axis reverses (to about −SPIN) and back.
    assert!(r.min_wy < -0.9 * SPIN, "no flip: min w_y = {}", r.min_wy);
    assert!(r.sign_changes >= 1, "{} sign changes", r.sign_changes);
}

#[test]
fn without_the_term_there_is_no_flip() {
    // ω stays constant in the world frame and the body turns about it, so the body-frame ω is
    // constant: no flip, while the world-frame L = R J Rᵀ ω precesses about ω (J ω ∦ ω).
    let r = run(Gyroscopic::Off, 0.01, 1000, spinner());
    report("off, h = 0.01, 10 s", &r);
    assert!(r.min_wy > 0.99 * SPIN, "min w_y = {}", r.min_wy);
    assert_eq!(r.sign_changes, 0);
    assert!(
        r.l_vector_drift > 1e-3,
        "L vector drift {:e}",
        r.l_vector_drift
    );
}

#[test]
fn implicit_one_newton_step_flips_and_dissipates() {
    let mut b = spinner();
    let h = 0.01;
    let mut e_last = b.kinetic_energy();
    let mut l_last = b.angular_momentum().norm();
    for _ in 0..1000 {
        let nu = b.free_velocity(h, Gyroscopic::Implicit);
        b.set_velocity(&nu);
        b.integrate_position(h);
        let (e, l) = (b.kinetic_energy(), b.angular_momentum().norm());
        // Backward Euler: |L'|² = |L|² − h²|ω' × L'|² (to Newton's one-step accuracy).
        assert!(e <= e_last * (1.0 + 1e-12), "energy grew: {e} > {e_last}");
        assert!(l <= l_last * (1.0 + 1e-12), "|L| grew: {l} > {l_last}");
        (e_last, l_last) = (e, l);
    }
    let r = run(Gyroscopic::Implicit, h, 1000, spinner());
    report("implicit (one Newton step), h = 0.01, 10 s", &r);
    assert!(r.min_wy < -0.5 * SPIN, "no flip: min w_y = {}", r.min_wy);
    // It does not meet the 1e-9 bound: the reason the midpoint rule is the default.
    assert!(r.l_norm_drift > 1e-9, "{:e}", r.l_norm_drift);
}

#[test]
fn the_midpoint_rule_stays_bounded_at_large_steps() {
    // |hω| = 0.2 … 20: a fast spin at a coarse step.
    for (h, spin) in [(0.1, 2.0), (0.1, 20.0), (0.1, 200.0)] {
        for gyro in [Gyroscopic::Midpoint, Gyroscopic::Implicit] {
            let q = Quat::from_scaled_axis(Vec3::new(0.3, -0.5, 0.7));
            let b = RigidBody3::dynamic(1.0, inertia())
                .unwrap()
                .with_pose(Vec3::zeros(), q)
                .with_velocity(Vec3::zeros(), q * Vec3::new(0.02 * spin, spin, 0.03 * spin));
            let r = run(gyro, h, 200, b);
            report(&format!("{} at h = {h}, spin {spin}", gyro.name()), &r);
            assert!(r.max_w.is_finite(), "{gyro:?}");
            if gyro == Gyroscopic::Midpoint {
                assert!(
                    r.energy_growth <= 1e-12,
                    "energy grew {:e}",
                    r.energy_growth
                );
                assert!(r.l_norm_drift <= 1e-9, "|L| drift {:e}", r.l_norm_drift);
            }
        }
    }
}

#[test]
fn isotropic_and_principal_spins_are_unchanged() {
    // J = jI: ω × Jω ≡ 0 and the update returns ω bit for bit, whatever the orientation.
    let q = Quat::from_scaled_axis(Vec3::new(0.3, -0.5, 0.7));
    let w = Vec3::new(0.3, -1.2, 2.5);
    let b = RigidBody3::dynamic(2.0, Mat3::identity() * 0.4)
        .unwrap()
        .with_pose(Vec3::zeros(), q)
        .with_velocity(Vec3::zeros(), w);
    for g in Gyroscopic::ALL {
        assert_eq!(b.gyroscopic_velocity(0.01, g), w, "{g:?}");
    }
    // Names round-trip.
    for g in Gyroscopic::ALL {
        assert_eq!(Gyroscopic::parse(g.name()), Some(g));
    }
    assert_eq!(Gyroscopic::parse(" Midpoint "), Some(Gyroscopic::Midpoint));
    assert_eq!(Gyroscopic::parse("explicit"), None);
    assert_eq!(Gyroscopic::default(), Gyroscopic::Midpoint);
}
