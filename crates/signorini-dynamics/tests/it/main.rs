//! Integration tests of rigid bodies: mass properties, validation, free flight.

use signorini_dynamics::*;
use signorini_geometry::dim2::ConvexPolygon;
use signorini_math::{Vec2, Vec3};

#[test]
fn density_gives_rectangle_mass_and_inertia() {
    let r = ConvexPolygon::rectangle(1.0, 1.0, 3.0, 2.0).unwrap(); // 2 × 1, off-origin
    let (m, j) = mass_properties_from_density(&r, 3.0).unwrap();
    assert!((m - 6.0).abs() < 1e-14);
    assert!((j - 6.0 * (4.0 + 1.0) / 12.0).abs() < 1e-12, "{j}");
    let b = RigidBody2::from_density(&r, 3.0).unwrap();
    assert!(b.shape.centroid().norm() < 1e-14);
    assert!(mass_properties_from_density(&r, -1.0).is_err());
}

#[test]
fn invalid_mass_and_state_are_named() {
    let r = ConvexPolygon::rectangle(0.0, 0.0, 1.0, 1.0).unwrap();
    assert_eq!(
        RigidBody2::dynamic(r.clone(), 0.0, 1.0),
        Err(BodyError::Mass(0.0))
    );
    assert!(matches!(
        RigidBody2::dynamic(r.clone(), 1.0, f64::NAN),
        Err(BodyError::Inertia(_))
    ));
    let b = RigidBody2::dynamic(r, 1.0, 1.0)
        .unwrap()
        .with_velocity(Vec3::new(f64::INFINITY, 0.0, 0.0));
    assert_eq!(
        b.validate(),
        Err(BodyError::NonFinite { field: "velocity" })
    );
}

#[test]
fn free_flight_is_symplectic_euler() {
    let r = ConvexPolygon::rectangle(-0.5, -0.5, 0.5, 0.5).unwrap();
    let mut b = RigidBody2::dynamic(r, 2.0, 0.5)
        .unwrap()
        .with_gravity(Vec2::new(0.0, -9.8))
        .with_velocity(Vec3::new(1.0, 0.0, 0.5));
    let h = 0.01;
    for _ in 0..100 {
        b.velocity = b.free_velocity(h);
        b.integrate_position(h);
    }
    // y_n = −g h² n(n+1)/2 with velocity updated first.
    let y = -9.8 * h * h * 100.0 * 101.0 / 2.0;
    assert!((b.position - Vec2::new(1.0, y)).norm() < 1e-12);
    assert!((b.angle - 0.5).abs() < 1e-12);
    let s = RigidBody2::fixed(ConvexPolygon::rectangle(0.0, 0.0, 1.0, 1.0).unwrap())
        .with_gravity(Vec2::new(0.0, -9.8));
    assert_eq!(s.inverse_mass(), Vec3::zeros());
    assert_eq!(s.external_force, Vec3::zeros());
}

mod gyro;

mod body3 {
    use signorini_dynamics::{BodyError, Gyroscopic, RigidBody3};
    use signorini_math::{Mat3, Quat, Vec3};

    fn box_inertia(m: f64, a: f64, b: f64, c: f64) -> Mat3 {
        Mat3::from_diagonal(&Vec3::new(b * b + c * c, a * a + c * c, a * a + b * b)) * (m / 12.0)
    }

    #[test]
    fn free_fall_matches_symplectic_euler_closed_form() {
        let (h, g, n) = (0.01, 9.81, 100);
        let mut b = RigidBody3::dynamic(2.0, box_inertia(2.0, 1.0, 2.0, 3.0))
            .unwrap()
            .with_pose(Vec3::new(0.0, 0.0, 10.0), Quat::identity())
            .with_velocity(Vec3::new(1.0, 0.0, 0.0), Vec3::zeros())
            .with_gravity(Vec3::new(0.0, 0.0, -g));
        for _ in 0..n {
            let nu = b.free_velocity(h, Gyroscopic::default());
            b.set_velocity(&nu);
            b.integrate_position(h);
        }
        // v_k = −k g h, z_n = z0 − g h² n(n+1)/2.
        let nf = n as f64;
        let z = 10.0 - g * h * h * nf * (nf + 1.0) / 2.0;
        assert!((b.position.z - z).abs() < 1e-12, "{} vs {z}", b.position.z);
        assert!((b.position.x - 1.0).abs() < 1e-12);
        assert!((b.linear_velocity.z + g * h * nf).abs() < 1e-12);
    }

    #[test]
    fn spin_about_principal_axis_is_exact_rotation() {
        let j = box_inertia(1.0, 1.0, 2.0, 3.0);
        let w = 3.0;
        let mut b = RigidBody3::dynamic(1.0, j)
            .unwrap()
            .with_velocity(Vec3::zeros(), Vec3::new(0.0, 0.0, w));
        let e0 = b.kinetic_energy();
        let (h, n) = (0.013, 500);
        for _ in 0..n {
            let nu = b.free_velocity(h, Gyroscopic::default());
            b.set_velocity(&nu);
            b.integrate_position(h);
        }
        let expected = Quat::from_scaled_axis(Vec3::new(0.0, 0.0, w * h * n as f64));
        assert!(b.orientation.angle_to(&expected) < 1e-11);
        assert!((b.orientation.quaternion().norm() - 1.0).abs() < 1e-14);
        assert!((b.kinetic_energy() - e0).abs() < 1e-12 * e0);
        assert!((e0 - 0.5 * j[(2, 2)] * w * w).abs() < 1e-12);
    }

    #[test]
    fn world_inertia_follows_orientation_and_inverts() {
        let q = Quat::from_scaled_axis(Vec3::new(0.3, -0.2, 0.9));
        let b = RigidBody3::dynamic(1.5, box_inertia(1.5, 1.0, 2.0, 0.5))
            .unwrap()
            .with_pose(Vec3::zeros(), q);
        let prod = b.world_inertia() * b.world_inverse_inertia();
        assert!((prod - Mat3::identity()).amax() < 1e-12);
        // A body-frame principal axis stays an eigenvector in the world frame.
        let axis = q * Vec3::x();
        let jw = b.world_inertia() * axis;
        assert!((jw - axis * b.inertia[(0, 0)]).norm() < 1e-12);
    }

    #[test]
    fn off_centre_impulse_changes_linear_and_angular_momentum() {
        let j = box_inertia(2.0, 1.0, 1.0, 1.0);
        let mut b = RigidBody3::dynamic(2.0, j).unwrap();
        let p = Vec3::new(0.0, 0.0, 4.0);
        let at = Vec3::new(0.5, 0.0, 0.0);
        b.apply_impulse_at(&p, &at);
        assert!((b.linear_velocity - Vec3::new(0.0, 0.0, 2.0)).norm() < 1e-14);
        // L = r × p = (0, −2, 0); ω = J⁻¹ L.
        let w = j.try_inverse().unwrap() * Vec3::new(0.0, -2.0, 0.0);
        assert!((b.angular_velocity - w).norm() < 1e-14);
        // Static bodies ignore impulses and have no free velocity.
        let mut s = RigidBody3::fixed().with_gravity(Vec3::new(0.0, 0.0, -9.81));
        s.apply_impulse_at(&p, &at);
        assert_eq!(s.velocity(), signorini_math::Vec6::zeros());
        assert_eq!(
            s.free_velocity(0.1, Gyroscopic::default()),
            signorini_math::Vec6::zeros()
        );
    }

    #[test]
    fn invalid_mass_properties_and_state_are_named() {
        assert_eq!(
            RigidBody3::dynamic(-1.0, Mat3::identity()),
            Err(BodyError::Mass(-1.0))
        );
        let mut asym = Mat3::identity();
        asym[(0, 1)] = 0.5;
        assert_eq!(
            RigidBody3::dynamic(1.0, asym),
            Err(BodyError::InertiaTensor)
        );
        let indefinite = Mat3::from_diagonal(&Vec3::new(1.0, 1.0, -1.0));
        assert_eq!(
            RigidBody3::dynamic(1.0, indefinite),
            Err(BodyError::InertiaTensor)
        );
        let mut b = RigidBody3::dynamic(1.0, Mat3::identity()).unwrap();
        b.angular_velocity.y = f64::NAN;
        assert_eq!(
            b.validate(),
            Err(BodyError::NonFinite { field: "velocity" })
        );
    }
}
