//! The deformable penalty stepper: a cloth draped over a sphere, a cloth folding onto itself.

use signorini_deformable::{Deformable, Material};
use signorini_geometry::mesh::shapes;
use signorini_math::{Real, Vec3};
use signorini_penalty::{ForceModel, Friction};
use signorini_world::penalty::query::inside;
use signorini_world::penalty::{DeformableWorld, Obstacle, PenaltyParams};

fn cloth(size: Real, cells: usize, at: Vec3, damping: Real) -> Deformable {
    let m = shapes::grid(size, size, cells, cells)
        .unwrap()
        .map(|p| p + at)
        .unwrap();
    let material = Material {
        damping,
        drag: 2.0,
        ..Material::CLOTH
    };
    Deformable::new(m, material).unwrap()
}

fn params(model: ForceModel, h: Real, k: Real) -> PenaltyParams {
    let mut p = PenaltyParams::new(model, h, k);
    p.friction = Friction {
        mu: 0.5,
        viscous: 0.0,
    };
    p
}

/// A 0.8 m cloth falls 5 cm onto a sphere of radius 0.3 m (collision surface offset by 3 mm)
/// under CPF: at no step end is any cloth vertex inside the sphere, and after 3 s it has
/// come to rest on it (every vertex slower than 1 cm/s, the centre on top of the sphere).
#[test]
fn cloth_draped_over_a_sphere_rests_outside_it() {
    let ball = shapes::sphere(0.3, 16, 12).unwrap();
    let obstacle = Obstacle::with_offset(&ball, 3e-3).unwrap();
    let c = cloth(0.8, 10, Vec3::new(0.0, 0.0, 0.35), 0.2);
    let mut w = DeformableWorld::new(
        vec![c],
        vec![obstacle],
        params(ForceModel::Cpf, 5e-4, 500.0),
    )
    .unwrap();
    let mut deepest: Real = 0.0;
    for step in 0..6000 {
        let r = w.step();
        deepest = deepest.max(r.max_depth);
        let d = &w.deformables[0];
        for (i, p) in d.x.iter().enumerate() {
            // The mesh sphere is inscribed in the radius-0.3 sphere: |p| ≥ 0.3 is outside it.
            assert!(
                p.norm() >= 0.3 || !inside(p, ball.vertices(), ball.triangles()),
                "step {step}: vertex {i} at {p:?} is inside the sphere"
            );
        }
    }
    let d = &w.deformables[0];
    let fastest = d.v.iter().map(|v| v.norm()).fold(0.0, Real::max);
    assert!(fastest < 1e-2, "not at rest: fastest vertex {fastest} m/s");
    assert!(deepest > 0.0, "the cloth never touched the sphere");
    assert!(
        deepest < 3e-3,
        "penetration of the offset surface {deepest} ≥ the offset"
    );
    let centre = &d.x[d.x.len() / 2];
    assert!(
        (centre.z - 0.303).abs() < 5e-3,
        "centre vertex at {centre:?}"
    );
}

/// A cloth strip's near half (x < 0) is pinned flat at z = 0; its far half starts folded over it
/// at 120° and falls onto it. With CPF self-collision the far half stops on the near half: at no
/// step end is any vertex below it by more than twice the impact depth `v √(m/k)`. (Zero-
/// thickness penalty contact lets a vertex dip through during an impact and pushes it back; at
/// rest a vertex sits `m g / k` below — see docs/deformable.md.) Without self-collision it falls
/// through (so the check can fail). The run is deterministic.
#[test]
fn a_folding_cloth_stops_on_itself() {
    let run = |self_collision: bool| {
        let (nx, ny) = (16, 4);
        let flat = shapes::grid(0.8, 0.2, nx, ny).unwrap();
        let fold = |p: &Vec3| {
            let (c, s) = (120f64.to_radians().cos(), 120f64.to_radians().sin());
            if p.x > 0.0 {
                Vec3::new(p.x * c, p.y, p.x * s)
            } else {
                *p
            }
        };
        let mesh = flat.map(fold).unwrap();
        let mut d = Deformable::new(mesh, Material::CLOTH).unwrap();
        let near: Vec<usize> = (0..flat.vertices().len())
            .filter(|&i| flat.vertices()[i].x <= 0.0)
            .collect();
        d.pin(&near).unwrap();
        let mut w =
            DeformableWorld::new(vec![d], vec![], params(ForceModel::Cpf, 5e-4, 500.0)).unwrap();
        w.self_collision = self_collision;
        let mut lowest: Real = 0.0;
        for _ in 0..1200 {
            w.step();
            let z = w.deformables[0].x.iter().map(|p| p.z).fold(0.0, Real::min);
            lowest = lowest.min(z);
        }
        (lowest, w)
    };
    let (lowest, w) = run(true);
    // Impact depth bound: twice v √(m/k), with v = √(2 g · 0.35 m) the tip's speed after its
    // fall and m the heaviest vertex mass.
    let m = w.deformables[0]
        .masses()
        .iter()
        .fold(0.0, |a: Real, b| a.max(*b));
    let bound = 2.0 * (2.0 * 9.81 * 0.35f64).sqrt() * (m / 500.0).sqrt();
    assert!(
        lowest > -bound,
        "a vertex went {lowest} m below the pinned half (bound {bound})"
    );
    let top = w.deformables[0].x.iter().map(|p| p.z).fold(0.0, Real::max);
    assert!(top < 0.05, "the far half did not fall: top at {top} m");
    let (again, w2) = run(true);
    assert_eq!(again, lowest);
    assert_eq!(w.deformables[0].x, w2.deformables[0].x, "not deterministic");
    let (lowest_off, _) = run(false);
    assert!(
        lowest_off < -0.1,
        "without self-collision it falls through: lowest {lowest_off}"
    );
}
