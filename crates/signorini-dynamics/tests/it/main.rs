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
        .with_gravity(9.8)
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
    let s =
        RigidBody2::fixed(ConvexPolygon::rectangle(0.0, 0.0, 1.0, 1.0).unwrap()).with_gravity(9.8);
    assert_eq!(s.inverse_mass(), Vec3::zeros());
    assert_eq!(s.external_force, Vec3::zeros());
}
