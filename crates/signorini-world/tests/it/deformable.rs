//! The deformable penalty stepper: a cloth draped over a sphere, a cloth folding onto itself.

use signorini_deformable::{Deformable, Material};
use signorini_geometry::mesh::{TriMesh, shapes};
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
/// at 120° and falls onto it (tip speed ≈ 2.6 m/s).
fn fold(self_collision: bool, thickness: Real) -> (Real, usize, Option<usize>, DeformableWorld) {
    let flat = shapes::grid(0.8, 0.2, 16, 4).unwrap();
    let (c, s) = (120f64.to_radians().cos(), 120f64.to_radians().sin());
    let mesh = flat
        .map(|p| {
            if p.x > 0.0 {
                Vec3::new(p.x * c, p.y, p.x * s)
            } else {
                *p
            }
        })
        .unwrap();
    // Rest shape flat (bending springs want the strip flat, so the fold is rounded, not a
    // sharp hinge); start folded.
    let mut d = Deformable::new(flat.clone(), Material::CLOTH).unwrap();
    d.x = mesh.vertices().to_vec();
    let near: Vec<usize> = (0..flat.vertices().len())
        .filter(|&i| flat.vertices()[i].x <= 0.0)
        .collect();
    d.pin(&near).unwrap();
    let mut p = params(ForceModel::Cpf, 5e-4, 500.0);
    p.thickness = thickness;
    let mut w = DeformableWorld::new(vec![d], vec![], p).unwrap();
    w.self_collision = self_collision;
    let (mut lowest, mut worst, mut first_bad): (Real, usize, Option<usize>) = (0.0, 0, None);
    for step in 0..1200 {
        w.step();
        let x = &w.deformables[0].x;
        let free_z = (0..x.len()).filter(|i| !near.contains(i)).map(|i| x[i].z);
        lowest = lowest.min(free_z.fold(Real::INFINITY, Real::min));
        let n = edges_through_triangles(&mesh, x);
        if std::env::var("SIGNORINI_FOLD_LOG").is_ok() && n > 0 {
            eprintln!("thickness {thickness}: step {step}: {n} edges through triangles");
        }
        if n > 0 && first_bad.is_none() {
            first_bad = Some(step);
        }
        worst = worst.max(n);
    }
    (lowest, worst, first_bad, w)
}

/// With CPF self-collision and a 4 mm contact thickness (above the impact depth `v √(m/k)`
/// ≈ 2.3 mm), no cloth edge passes through a cloth triangle at the end of any of the 1200 steps
/// (orientation tests), and the far edge ends lying on the pinned half. Deterministic.
#[test]
fn a_folding_cloth_never_passes_through_itself() {
    let (_, worst, first_bad, w) = fold(true, 4e-3);
    assert_eq!(
        worst, 0,
        "edge through triangle first at step {first_bad:?}"
    );
    // The far edge (vertices 16, 33, … at flat x = 0.4; it started 0.35 m up) came down onto the
    // pinned half; the rounded fold stays a few centimetres high.
    let x = &w.deformables[0].x;
    for i in (16..x.len()).step_by(17) {
        assert!(x[i].z < 0.02, "far-edge vertex {i} at {:?}", x[i]);
    }
    let (_, _, _, w2) = fold(true, 4e-3);
    assert_eq!(w.deformables[0].x, w2.deformables[0].x, "not deterministic");
}

/// The check can fail: without self-collision the far half falls through the pinned half, and
/// with zero thickness the penalty impulses act only after the layers have crossed, so edges
/// pass through triangles.
#[test]
fn without_self_collision_or_thickness_the_fold_crosses_itself() {
    let (lowest, worst, _, _) = fold(false, 4e-3);
    assert!(
        lowest < -0.1 && worst > 0,
        "lowest {lowest}, crossings {worst}"
    );
    let (_, worst, _, _) = fold(true, 0.0);
    assert!(worst > 0, "zero thickness: crossings {worst}");
}

/// Does segment `pq` properly cross triangle `abc`? Orientation signs, with volumes below
/// `1e-12 L³` (`L` = 5 cm, the cloth's cell size) counted as zero: features that are coplanar up
/// to round-off (a flat cloth) do not cross.
fn segment_crosses_triangle(p: &Vec3, q: &Vec3, a: &Vec3, b: &Vec3, c: &Vec3) -> bool {
    let tol = 1e-12 * 0.05f64.powi(3);
    let orient = |a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3| {
        let v = (b - a).cross(&(c - a)).dot(&(d - a));
        if v.abs() <= tol { 0.0 } else { v }
    };
    let (sp, sq) = (orient(a, b, c, p), orient(a, b, c, q));
    if sp * sq >= 0.0 {
        return false;
    }
    let s1 = orient(p, q, a, b);
    let s2 = orient(p, q, b, c);
    let s3 = orient(p, q, c, a);
    (s1 > 0.0 && s2 > 0.0 && s3 > 0.0) || (s1 < 0.0 && s2 < 0.0 && s3 < 0.0)
}

/// Cloth edges properly crossing cloth triangles they do not touch.
fn edges_through_triangles(m: &TriMesh, x: &[Vec3]) -> usize {
    let mut n = 0;
    for e in m.edges() {
        for t in m.triangles() {
            if t.contains(&e[0]) || t.contains(&e[1]) {
                continue;
            }
            let [a, b, c] = t.map(|i| x[i as usize]);
            if segment_crosses_triangle(&x[e[0] as usize], &x[e[1] as usize], &a, &b, &c) {
                if std::env::var("DEBUG_FOLD").is_ok() && n == 0 {
                    eprintln!(
                        "edge {e:?} {:?} {:?} through {t:?} {a:?} {b:?} {c:?}",
                        x[e[0] as usize], x[e[1] as usize]
                    );
                }
                n += 1;
            }
        }
    }
    n
}
