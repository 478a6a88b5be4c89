//! Embedding example: a stack of five boxes on the ground (2D, PEG), stepped by hand.
//! `cargo run -p signorini-world --example stack2d` prints each box's pose and checks that
//! the stack stands: box k rests with its centre at height (k + ½)·0.2 m.
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::ConvexPolygon;
use signorini_math::Vec2;
use signorini_world::{ContactModel, World, WorldParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World::new(WorldParams::signorini(ContactModel::Peg, 0.005))?;
    world.add_body(RigidBody2::fixed(ConvexPolygon::rectangle(
        -2.0, -1.0, 2.0, 0.0,
    )?))?;
    let square = ConvexPolygon::rectangle(-0.1, -0.1, 0.1, 0.1)?;
    for k in 0..5 {
        // Dropped from 1 cm above their resting heights.
        let at = Vec2::new(0.0, 0.21 * k as f64 + 0.11);
        let body = RigidBody2::from_density(&square, 200.0)?.with_pose(at, 0.0);
        world.add_body(body.with_gravity(Vec2::new(0.0, -9.81)))?;
    }
    let mut contacts = 0;
    for _ in 0..400 {
        let report = world.step();
        assert!(!report.failed, "step {}: {:?}", report.step, report.failure);
        contacts = report.counts.contacts;
    }
    println!("2 s, {contacts} contacts in the last step; poses (x m, y m, angle rad):");
    for (k, b) in world.bodies.iter().skip(1).enumerate() {
        let (p, a) = (b.position, b.angle);
        println!("box {k}: {:+.5} {:+.5} {:+.5}", p.x, p.y, a);
        let rest = 0.2 * k as f64 + 0.1;
        assert!(
            (p.y - rest).abs() < 1e-3 && p.x.abs() < 1e-3,
            "box {k} not at rest height"
        );
    }
    println!("stack standing");
    Ok(())
}
