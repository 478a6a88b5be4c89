//! Embedding example: 27 tilted cubes dropped into a pile on a floor, stepped by hand.
//! `cargo run --release -p signorini-world --example pile3d`
use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_math::{Quat, Vec3};
use signorini_world::{ContactModel, PolyBody, World3, WorldParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World3::new(WorldParams::signorini(ContactModel::Peg, 0.01))?;
    let floor = ConvexPolyhedron::cuboid(Vec3::new(3.0, 3.0, 0.5))?;
    world.add_body(PolyBody::fixed(floor).with_pose(-0.5 * Vec3::z(), Quat::identity()))?;
    let cube = ConvexPolyhedron::cuboid(Vec3::repeat(0.2))?;
    for k in 0..27 {
        let at = Vec3::new((k % 3) as f64, (k / 3 % 3) as f64, (k / 9) as f64 + 0.5) * 0.6;
        let tilt = Quat::from_euler_angles(0.1 * k as f64, 0.2, 0.0);
        let body = PolyBody::from_density(&cube, 500.0)?.with_pose(at, tilt);
        world.add_body(body.with_gravity(Vec3::new(0.0, 0.0, -9.81)))?;
    }
    let failed = (0..150).filter(|_| world.step().failed).count();
    println!("150 steps, {failed} failed; poses (position m, roll/pitch/yaw rad):");
    for (i, b) in world.bodies.iter().enumerate().skip(1) {
        let (p, (r, y, w)) = (b.state.position, b.state.orientation.euler_angles());
        println!(
            "{i:2}: {:+.3} {:+.3} {:+.3}  {r:+.3} {y:+.3} {w:+.3}",
            p.x, p.y, p.z
        );
        assert!(p.z > 0.19, "body {i} sank into the floor");
    }
    Ok(())
}
