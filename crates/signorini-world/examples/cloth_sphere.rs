//! Embedding example: a cloth falls onto a sphere and drapes over it (deformable, CPF).
//! `cargo run -p signorini-world --example cloth_sphere` prints the cloth's centre and lowest
//! vertex every 0.1 s and checks that the centre ends on top of the sphere, none inside it.
use signorini_deformable::{Deformable, Material};
use signorini_geometry::mesh::shapes;
use signorini_math::Vec3;
use signorini_penalty::ForceModel;
use signorini_world::penalty::{DeformableWorld, Obstacle, PenaltyParams};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A 0.8 m square cloth of 10 × 10 cells, 5 cm above a sphere of radius 0.3 m.
    let sheet = shapes::grid(0.8, 0.8, 10, 10)?.map(|p| p + Vec3::new(0.0, 0.0, 0.35))?;
    let material = Material {
        damping: 0.2,
        drag: 2.0,
        ..Material::CLOTH
    };
    let cloth = Deformable::new(sheet, material)?.with_gravity(Vec3::new(0.0, 0.0, -9.81));
    // The sphere's collision surface is offset by 3 mm (the contact's resting depth stays out).
    let ball = Obstacle::with_offset(&shapes::sphere(0.3, 16, 12)?, 3e-3)?;
    let mut params = PenaltyParams::new(ForceModel::Cpf, 5e-4, 500.0);
    params.friction.mu = 0.5;
    let mut world = DeformableWorld::new(vec![cloth], vec![ball], params)?;
    println!("time s  centre z m  lowest z m  pairs");
    for step in 1..=2000 {
        let report = world.step();
        assert!(!report.diverged, "step {step} diverged");
        if step % 200 == 0 {
            let x = &world.deformables[0].x;
            let lowest = x.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
            let centre = x[x.len() / 2].z;
            println!(
                "{:6.2}  {centre:9.5}  {lowest:10.5}  {}",
                world.time(),
                report.pairs
            );
        }
    }
    let x = &world.deformables[0].x;
    let centre = x[x.len() / 2];
    assert!(
        (centre.z - 0.303).abs() < 5e-3,
        "centre at {centre:?}, not on the sphere"
    );
    assert!(
        x.iter().all(|p| p.norm() > 0.29),
        "a vertex is inside the sphere"
    );
    println!(
        "draped: centre at z = {:.4} m on a sphere of radius 0.3 m",
        centre.z
    );
    Ok(())
}
