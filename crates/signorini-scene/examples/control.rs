//! Embedding example: a scene file loaded, its world built and stepped by hand, with a control
//! input between steps.
//!
//! `scenes/triangle_drop.toml` drops a triangle onto another one's apex. Here a PD controller
//! (`World::apply_wrench` before every step) cancels gravity and flies the falling triangle to a
//! point beside the apex, holding its angle: it must end there, at rest, having never touched.
//!
//! ```sh
//! cargo run -p signorini-scene --example control [-- path/to/2d-scene.toml]
//! ```
use signorini_math::{Vec2, Vec3};
use signorini_scene::{SceneKind, load_scene, world_params};
use signorini_world::World;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let default = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenes/triangle_drop.toml"
    );
    let path = std::env::args().nth(1).unwrap_or_else(|| default.into());
    let scene = load_scene(path.as_ref())?;
    assert_eq!(
        scene.kind(),
        SceneKind::Planar,
        "this example steps 2D scenes"
    );
    // The scene's parameters (the CLI's defaults plus its [contact] settings) and bodies;
    // every body enters at once here (the scene's drop times are ignored).
    let mut world = World::new(world_params(&scene, scene.contact.model, scene.h)?)?;
    for b in scene.bodies.planar() {
        world.add_body(b.body.clone())?;
    }
    let id = world
        .bodies
        .iter()
        .rposition(|b| !b.is_static)
        .ok_or("no dynamic body")?;
    let (target, angle) = (Vec2::new(3.0, 4.0), world.bodies[id].angle);
    let (kp, kd) = (16.0, 8.0); // critically damped, ω = 4 rad/s
    println!("time s   x m      y m      angle rad  contacts");
    let mut touched = 0;
    for step in 1..=300 {
        let b = &world.bodies[id];
        let (p, v) = (b.position, b.velocity);
        let a = kp * (target - p) - kd * Vec2::new(v.x, v.y);
        let alpha = kp * (angle - b.angle) - kd * v.z;
        // Cancel the body's constant force (gravity), then accelerate by `a` and `alpha`.
        let wrench = Vec3::new(b.mass * a.x, b.mass * a.y, b.inertia * alpha) - b.external_force;
        world.apply_wrench(id, wrench)?;
        let report = world.step();
        touched += report.counts.contacts;
        if step % 50 == 0 {
            let b = &world.bodies[id];
            let (x, y, t) = (b.position.x, b.position.y, report.counts.contacts);
            println!(
                "{:5.2}  {x:7.4}  {y:7.4}  {:9.6}  {t}",
                step as f64 * scene.h,
                b.angle
            );
        }
    }
    let b = &world.bodies[id];
    assert!(
        (b.position - target).norm() < 1e-2,
        "not at the target: {}",
        b.position
    );
    assert!((b.angle - angle).abs() < 1e-6 && b.velocity.norm() < 5e-2);
    assert_eq!(touched, 0, "the controlled triangle touched the other one");
    println!(
        "held at ({:.4}, {:.4}) without touching",
        b.position.x, b.position.y
    );
    Ok(())
}
