//! Control inputs between steps: `set_velocity` and `apply_wrench` on every world kind, and
//! what they refuse.

use signorini_deformable::{Deformable, Material};
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::ConvexPolygon;
use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_geometry::mesh::shapes;
use signorini_math::{Vec3, Vec6};
use signorini_penalty::ForceModel;
use signorini_world::penalty::{
    DeformableWorld, MeshBody, PenaltyError, PenaltyParams, PenaltyWorld,
};
use signorini_world::{ContactModel, PolyBody, World, World3, WorldError, WorldParams};

/// A 2 kg body alone in space under a constant wrench applied before every step reaches
/// `v = n h F / m` and `ω = n h τ / J` after `n` steps, as under a constant external force.
#[test]
fn a_wrench_applied_before_every_step_acts_as_a_constant_force_in_2d() {
    let h = 0.01;
    let mut w = World::new(WorldParams::signorini(ContactModel::Peg, h)).unwrap();
    let square = ConvexPolygon::rectangle(-0.5, -0.5, 0.5, 0.5).unwrap();
    let id = w
        .add_body(RigidBody2::dynamic(square, 2.0, 0.5).unwrap())
        .unwrap();
    for _ in 0..100 {
        w.apply_wrench(id, Vec3::new(4.0, -2.0, 1.0)).unwrap();
        w.step();
    }
    let v = w.velocity(id).unwrap();
    let expected = Vec3::new(4.0 / 2.0, -2.0 / 2.0, 1.0 / 0.5) * (100.0 * h);
    assert!((v - expected).norm() < 1e-12, "{v} != {expected}");
    w.set_velocity(id, Vec3::zeros()).unwrap();
    w.step();
    assert_eq!(w.velocity(id), Some(Vec3::zeros()));
}

/// Refused: a static body, a missing body, a non-finite value; the world is unchanged.
#[test]
fn control_inputs_refuse_static_missing_and_non_finite() {
    let mut w = World::new(WorldParams::paper(ContactModel::Peg, 0.01)).unwrap();
    let floor = RigidBody2::fixed(ConvexPolygon::rectangle(-1.0, -1.0, 1.0, 0.0).unwrap());
    let s = w.add_body(floor).unwrap();
    let refused = |r: Result<(), WorldError>, why: &str| match r {
        Err(WorldError::Control { reason, .. }) => assert_eq!(reason, why),
        other => panic!("{other:?}"),
    };
    refused(w.apply_wrench(s, Vec3::x()), "static body");
    refused(w.set_velocity(7, Vec3::x()), "no such body");
    let sq = ConvexPolygon::rectangle(-0.1, -0.1, 0.1, 0.1).unwrap();
    let d = w
        .add_body(RigidBody2::from_density(&sq, 10.0).unwrap())
        .unwrap();
    refused(
        w.set_velocity(d, Vec3::new(f64::NAN, 0.0, 0.0)),
        "non-finite velocity",
    );
    refused(
        w.apply_wrench(d, Vec3::new(0.0, f64::INFINITY, 0.0)),
        "non-finite wrench",
    );
    assert_eq!(w.velocity(d), Some(Vec3::zeros()));
}

/// 3D: a torque about z spins a cube at `ω = h τ / J` per step (cube: J = m a²/6 for side a).
#[test]
fn a_torque_spins_a_cube_in_3d() {
    let h = 0.01;
    let mut w = World3::new(WorldParams::signorini(ContactModel::Peg, h)).unwrap();
    let cube = ConvexPolyhedron::cuboid(Vec3::repeat(0.5)).unwrap();
    let body = PolyBody::from_density(&cube, 6.0).unwrap(); // 6 kg, J = 1 kg m²
    let id = w.add_body(body).unwrap();
    for _ in 0..10 {
        w.apply_wrench(id, Vec6::new(0.0, 0.0, 3.0, 0.0, 0.0, 2.0))
            .unwrap();
        w.step();
    }
    let v = w.velocity(id).unwrap();
    let expected = Vec6::new(0.0, 0.0, 0.05, 0.0, 0.0, 0.2);
    assert!((v - expected).norm() < 1e-12, "{v}");
}

/// Penalty worlds: the same for a mesh body; a static mesh is refused.
#[test]
fn penalty_world_bodies_take_wrenches_and_velocities() {
    let h = 0.01;
    let m = shapes::cuboid(Vec3::repeat(0.5)).unwrap();
    let body = MeshBody::dynamic(&m, 6.0, Vec3::new(0.0, 0.0, 5.0)).unwrap();
    let ground = MeshBody::fixed(m.clone());
    let params = PenaltyParams::new(ForceModel::Cpf, h, 1e4);
    let mut w = PenaltyWorld::new(vec![ground, body], params).unwrap();
    for _ in 0..10 {
        w.apply_wrench(1, Vec3::new(0.0, 6.0, 0.0), Vec3::new(1.0, 0.0, 0.0))
            .unwrap();
        w.step();
    }
    let s = &w.bodies[1].state;
    assert!((s.linear_velocity - Vec3::new(0.0, 0.1, 0.0)).norm() < 1e-12);
    assert!((s.angular_velocity - Vec3::new(0.1, 0.0, 0.0)).norm() < 1e-12);
    w.set_velocity(1, Vec3::z(), Vec3::zeros()).unwrap();
    assert_eq!(w.bodies[1].state.linear_velocity, Vec3::z());
    assert!(matches!(
        w.set_velocity(0, Vec3::z(), Vec3::zeros()),
        Err(PenaltyError::Control {
            reason: "static body",
            ..
        })
    ));
}

/// Deformables: a vertex force changes only that vertex's velocity (`h f / m`), pinned
/// vertices are refused.
#[test]
fn deformable_vertices_take_forces_and_velocities() {
    let h = 1e-3;
    let grid = shapes::grid(1.0, 1.0, 2, 2).unwrap();
    let mut cloth = Deformable::new(grid, Material::CLOTH)
        .unwrap()
        .with_gravity(Vec3::zeros());
    cloth.pin(&[0]).unwrap();
    let params = PenaltyParams::new(ForceModel::Cpf, h, 100.0);
    let mut w = DeformableWorld::new(vec![cloth], vec![], params).unwrap();
    let m = w.deformables[0].masses()[4];
    w.apply_vertex_force(0, 4, Vec3::new(0.0, 0.0, 2.0))
        .unwrap();
    let dv = w.deformables[0].v[4] - Vec3::new(0.0, 0.0, 2.0 * h / m);
    assert!(dv.norm() < 1e-12, "{dv}");
    w.set_vertex_velocity(0, 3, Vec3::x()).unwrap();
    assert_eq!(w.deformables[0].v[3], Vec3::x());
    assert!(matches!(
        w.apply_vertex_force(0, 0, Vec3::z()),
        Err(PenaltyError::Control {
            reason: "pinned vertex",
            ..
        })
    ));
    assert!(matches!(
        w.set_vertex_velocity(1, 0, Vec3::z()),
        Err(PenaltyError::Control {
            reason: "no such deformable",
            ..
        })
    ));
    assert!(w.set_rigid_velocity(0, Vec3::z(), Vec3::zeros()).is_err());
}
