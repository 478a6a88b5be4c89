//! The deformable penalty stepper: a cloth draped over a sphere, a cloth folding onto itself.

use signorini_deformable::{Deformable, Material};
use signorini_geometry::mesh::query::inside;
use signorini_geometry::mesh::{TriMesh, shapes};
use signorini_math::{Real, Vec3};
use signorini_penalty::{ForceModel, Friction};
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

fn rigid_cube(half: Real, density: Real, at: Vec3) -> signorini_world::penalty::MeshBody {
    let m = shapes::cuboid(Vec3::repeat(half)).unwrap();
    signorini_world::penalty::MeshBody::dynamic(&m, density, at).unwrap()
}

fn momentum(w: &DeformableWorld) -> Vec3 {
    let d: Vec3 = w
        .deformables
        .iter()
        .flat_map(|d| d.v.iter().zip(d.inverse_masses()).map(|(v, wi)| v / *wi))
        .sum();
    let r: Vec3 = w
        .rigid
        .iter()
        .map(|b| b.state.linear_velocity * b.state.mass)
        .sum();
    d + r
}

/// A rigid cube thrown at a free soft torus, no gravity, with friction: the contact impulses
/// act on the torus's vertices and on the cube's centre of mass with equal and opposite sums,
/// so the total linear momentum stays what it was, for CPF and both discrete models.
#[test]
fn rigid_and_deformable_exchange_momentum_exactly() {
    for model in [ForceModel::Cpf, ForceModel::DpfCcd, ForceModel::Dpf] {
        let torus = shapes::torus(0.1, 0.04, 16, 8).unwrap();
        let material = Material {
            drag: 0.0,
            pressure: 200.0,
            ..Material::CLOTH
        };
        let mut soft = Deformable::new(torus, material).unwrap();
        soft.gravity = Vec3::zeros();
        let mut cube = rigid_cube(0.05, 200.0, Vec3::new(0.0, 0.0, 0.12));
        cube.state.linear_velocity = Vec3::new(0.05, 0.0, -1.0);
        cube.state.angular_velocity = Vec3::new(0.0, 2.0, 0.0);
        let mut w = DeformableWorld::new(vec![soft], Vec::new(), params(model, 5e-4, 500.0))
            .unwrap()
            .with_rigid(vec![cube])
            .unwrap();
        let p0 = momentum(&w);
        let mut touched = false;
        for step in 0..400 {
            let r = w.step();
            touched |= r.contact_force > 0.0;
            let p = momentum(&w);
            assert!(
                (p - p0).norm() <= 1e-12 * (1.0 + p0.norm()),
                "{model:?} step {step}: momentum {p:?} vs {p0:?}"
            );
        }
        assert!(touched, "{model:?}: the cube never touched the torus");
        // The torus was pushed down.
        let vz: Real = w.deformables[0].v.iter().map(|v| v.z).sum();
        assert!(vz < 0.0, "{model:?}: torus not pushed: {vz}");
    }
}

/// Mechanical energy of the world: deformables' (springs, pressure, gravity, kinetic) plus the
/// rigid bodies' kinetic energy and the potential of their constant external force.
fn energy(w: &DeformableWorld) -> Real {
    let d: Real = w.deformables.iter().map(|d| d.energy()).sum();
    let r: Real = w
        .rigid
        .iter()
        .map(|b| b.state.kinetic_energy() - b.state.external_force.dot(&b.state.position))
        .sum();
    d + r
}

/// A rigid cube (35 g) dropped from 5 mm onto a taut cloth pinned at its corners, under CPF:
/// no cloth edge passes through the cube's faces at any step end, the cube stays above the
/// sagging cloth's lowest point, and the mechanical energy never rises above its initial value
/// (contact and cloth damping only take energy out; the cube bounces on the cloth).
#[test]
fn a_rigid_cube_dropped_on_a_pinned_cloth_stays_on_it_without_gaining_energy() {
    let grid = shapes::grid(0.8, 0.8, 12, 12).unwrap();
    let taut = Material {
        stretch: 2000.0,
        shear: 500.0,
        damping: 0.5,
        drag: 2.0,
        ..Material::CLOTH
    };
    let mut c = Deformable::new(grid, taut).unwrap();
    c.pin(&[0, 12, 13 * 12, 13 * 13 - 1]).unwrap();
    c.gravity = Vec3::new(0.0, 0.0, -9.81);
    let mut cube = rigid_cube(0.06, 20.0, Vec3::new(0.0, 0.0, 0.065));
    cube.state.external_force = Vec3::new(0.0, 0.0, -9.81 * cube.state.mass);
    let mut p = params(ForceModel::Cpf, 5e-4, 500.0);
    p.thickness = 2e-3;
    let mut w = DeformableWorld::new(vec![c], Vec::new(), p)
        .unwrap()
        .with_rigid(vec![cube])
        .unwrap();
    w.substeps = 8;
    let faces = shapes::cuboid(Vec3::repeat(0.06)).unwrap();
    let cloth_mesh = w.deformables[0].mesh().clone();
    let e0 = energy(&w);
    let mut touched = false;
    for step in 0..3000 {
        touched |= w.step().contact_force > 0.0;
        let e = energy(&w);
        assert!(e <= e0 + 1e-9, "step {step}: energy {e} > initial {e0}");
        let b = &w.rigid[0];
        let xb = b.world_vertices();
        let x = &w.deformables[0].x;
        for e in cloth_mesh.edges() {
            let (p, q) = (x[e[0] as usize], x[e[1] as usize]);
            for t in faces.triangles() {
                let [a, bb, cc] = t.map(|i| xb[i as usize]);
                assert!(
                    !segment_crosses_triangle(&p, &q, &a, &bb, &cc),
                    "step {step}: cloth edge {e:?} through the cube"
                );
            }
        }
        let lowest = x.iter().map(|p| p.z).fold(Real::INFINITY, Real::min);
        let bottom = xb.iter().map(|p| p.z).fold(Real::INFINITY, Real::min);
        assert!(
            bottom > lowest,
            "step {step}: cube {bottom} below the cloth {lowest}"
        );
    }
    assert!(touched, "the cube never reached the cloth");
    // Measured: 0.0220 J → −0.0189 J (the cube sinks into the sagging cloth, damping dissipates).
    assert!(energy(&w) < e0 - 1e-2, "no energy dissipated");
}

/// A fine UV sphere (52 × 26, radius 7.5 cm: the pole fan's vertices are ≈ 1 mm apart) with
/// self-collision and a 2 mm contact thickness, floating at rest: no self pair is made, because
/// features within `SELF_REST_EXCLUSION` thicknesses of each other at rest are neighbours on
/// the surface, not contacts. Without the rule this shell had 2080 self pairs in its first step
/// (1348 of them counted as penetrating), which pushed against each other and used up the
/// per-vertex stiffness budget of the vertices next to the poles.
#[test]
fn a_finely_meshed_shell_at_rest_has_no_self_pairs() {
    let ball = shapes::sphere(0.075, 52, 26).unwrap();
    let mut d = Deformable::new(ball, Material::CLOTH).unwrap();
    d.gravity = Vec3::zeros();
    let mut p = params(ForceModel::Cpf, 1.0 / 30.0, 2.0);
    p.thickness = 2e-3;
    let mut w = DeformableWorld::new(vec![d], vec![], p).unwrap();
    w.self_collision = true;
    for step in 0..5 {
        let r = w.step();
        assert_eq!(r.pairs, 0, "step {step}: {} self pairs", r.pairs);
    }
}

/// A 10 cm deformable box shell (1 kg, no gravity) above a static 40 × 40 × 2 cm slab whose
/// top, at `z = 0`, is the top of the slab's bounding box; CPF, k = 1000 N/m, h = 1 ms,
/// contact thickness 2 mm. `gap` is the height of the box's bottom face, `vz` its speed, `xy`
/// its centre (the slab's top face is split along its diagonal `x = y`).
fn box_over_slab(gap: Real, vz: Real, xy: (Real, Real)) -> DeformableWorld {
    box_on_slab(
        gap,
        Vec3::new(0.0, 0.0, vz),
        xy,
        ForceModel::Cpf,
        Friction::NONE,
    )
}

/// A 10 cm, 1 kg deformable box shell centred at `at`, moving at `v`, without gravity.
fn box_shell(at: Vec3, v: Vec3) -> Deformable {
    let m = shapes::cuboid(Vec3::repeat(0.05))
        .unwrap()
        .map(|p| p + at)
        .unwrap();
    let material = Material {
        areal_density: 1.0 / 0.06,
        stretch: 1e4,
        shear: 1e4,
        bend: 1e3,
        damping: 1.0,
        pressure: 0.0,
        drag: 0.0,
    };
    let mut b = Deformable::new(m, material).unwrap();
    b.gravity = Vec3::zeros();
    b.v = vec![v; b.x.len()];
    b
}

/// [`box_over_slab`] with a velocity `v`, force model and friction of choice.
fn box_on_slab(
    gap: Real,
    v: Vec3,
    xy: (Real, Real),
    model: ForceModel,
    friction: Friction,
) -> DeformableWorld {
    let b = box_shell(Vec3::new(xy.0, xy.1, 0.05 + gap), v);
    let mut p = params(model, 1e-3, 1000.0);
    p.friction = friction;
    p.thickness = 2e-3;
    DeformableWorld::new(vec![b], vec![slab()], p).unwrap()
}

/// A static 40 × 40 × 2 cm slab whose top, at `z = 0`, is the top of its bounding box.
fn slab() -> Obstacle {
    let m = shapes::cuboid(Vec3::new(0.2, 0.2, 0.01))
        .unwrap()
        .map(|p| p - Vec3::new(0.0, 0.0, 0.01))
        .unwrap();
    Obstacle::new(m)
}

/// Energy of the box before, and after one bounce on the slab (the first step after its last
/// contact pair is released); thrown down at 5 cm/s from 3 mm above the slab.
fn bounce(xy: (Real, Real)) -> (Real, Real) {
    let mut w = box_over_slab(3e-3, -0.05, xy);
    let e0 = w.deformables[0].energy();
    let (mut touched, mut released) = (false, false);
    for _ in 0..300 {
        let pairs = w.step().pairs;
        touched |= pairs > 0;
        if touched && pairs == 0 {
            released = true;
            break;
        }
    }
    assert!(touched && released, "no complete bounce in 0.3 s");
    assert!(
        w.deformables[0].v.iter().all(|v| v.z > 0.0),
        "not bouncing back"
    );
    (e0, w.deformables[0].energy())
}

/// A body at rest 1 mm above a slab, inside the 2 mm contact thickness but outside the slab's
/// bounding box, is in contact: its bottom vertices get pairs and are pushed up in the first
/// step. (The collision stage used to pair objects only when their bounding boxes overlapped,
/// so the skin of a slab's top face acted only once the surfaces had crossed.)
#[test]
fn a_body_within_the_thickness_above_a_slab_is_pushed_before_touching_it() {
    let mut w = box_over_slab(1e-3, 0.0, (0.1, -0.1));
    let rep = w.step();
    assert!(rep.pairs >= 4, "{} pairs: the skin was not seen", rep.pairs);
    let p: Vec3 = w.deformables[0]
        .v
        .iter()
        .zip(w.deformables[0].masses())
        .map(|(v, m)| *m * v)
        .sum();
    assert!(p.z > 0.0, "momentum {p:?}: not pushed up");
}

/// The box bounces on the slab away from the top face's diagonal edge (vertex–face pairs
/// only): the contact may only take energy out over the bounce. With the slab's skin seen only
/// once the surfaces had crossed, but pairs kept until they left it, every pair gained `k d²/2`.
#[test]
fn a_body_bouncing_through_the_thickness_gains_no_energy() {
    let (e0, e1) = bounce((0.1, -0.1));
    assert!(e1 <= e0, "energy {e0} J before, {e1} J after the bounce");
}

/// The same bounce over the slab top face's diagonal edge (`x = y`), where the box's bottom
/// edges pass within the contact thickness of the slab's diagonal and of its own edge ends:
/// edge–edge proximity pairs whose closest point is an end of an edge are distance pairs
/// (`signorini_penalty::distance`), whose force is the gradient of `k (d − dist)²/2`, so the
/// bounce may only lose energy. As the paper's tracked pairs (edge–edge normal, fixed collision
/// points) they switched on with a finite force and pushed farther out than they were made:
/// 1.25 mJ before, 1.72 mJ after.
#[test]
fn a_body_bouncing_over_an_edge_gains_no_energy() {
    for xy in [(0.0, 0.0), (0.03, 0.03), (-0.02, -0.02)] {
        let (e0, e1) = bounce(xy);
        assert!(
            e1 <= e0,
            "at {xy:?}: energy {e0} J before, {e1} J after the bounce"
        );
    }
}

/// Friction acts under every force model, the discrete baselines included: the box, thrown
/// down and sideways at the slab, keeps its sideways momentum exactly without friction and
/// loses some of it with μ = 0.5 (the discrete closest-point forces on the slab's top face are
/// vertical). Before 26 Nov the discrete model of the deformable stepper had no friction.
#[test]
fn friction_acts_under_every_force_model() {
    let px = |w: &DeformableWorld| -> Real {
        let d = &w.deformables[0];
        d.v.iter().zip(d.masses()).map(|(v, m)| m * v.x).sum()
    };
    for model in [ForceModel::Cpf, ForceModel::DpfCcd, ForceModel::Dpf] {
        let mut lost = [0.0; 2];
        for (k, mu) in [0.0, 0.5].into_iter().enumerate() {
            let f = Friction { mu, viscous: 0.0 };
            let v = Vec3::new(0.05, 0.0, -0.05);
            let mut w = box_on_slab(1e-3, v, (0.1, -0.1), model, f);
            let p0 = px(&w);
            let mut touched = false;
            for _ in 0..60 {
                touched |= w.step().pairs > 0;
            }
            assert!(touched, "{model:?}: no contact");
            lost[k] = (p0 - px(&w)) / p0;
        }
        assert!(lost[0].abs() < 1e-9, "{model:?}: μ = 0 lost {}", lost[0]);
        assert!(lost[1] > 0.01, "{model:?}: μ = 0.5 lost only {}", lost[1]);
    }
}

/// The collision stage keeps one BVH per object from step to step and refits it
/// (`collide::BvhCache`): over steps in which a torus sinks through a wavy, self-colliding
/// cloth's contact skin while sliding and tilting, it finds exactly the pairs (keys, collision
/// weights, outsides) that freshly built trees find.
#[test]
fn refitted_bvhs_find_the_same_pairs_as_rebuilt_ones() {
    use signorini_penalty::Tracker;
    use signorini_world::penalty::PenaltyReport;
    use signorini_world::penalty::collide::{self, BvhCache, Object};
    let cloth = shapes::grid(1.0, 1.0, 8, 8).unwrap();
    let torus = shapes::torus(0.2, 0.07, 12, 6).unwrap();
    let (ce, te) = (cloth.edges(), torus.edges());
    let tn = collide::edge_normals(torus.vertices(), torus.triangles(), &te);
    let wavy = |s: Real| -> Vec<Vec3> {
        let w = |p: &Vec3| p + Vec3::new(0.0, 0.0, 0.02 * (7.0 * p.x + s).sin());
        cloth.vertices().iter().map(w).collect()
    };
    let placed = |s: Real| -> Vec<Vec3> {
        let r = signorini_math::Quat::from_euler_angles(0.1 * s, 0.05 * s, 0.0);
        let at = Vec3::new(0.03 * s, 0.0, 0.12 - 0.03 * s);
        torus.vertices().iter().map(|p| r * p + at).collect()
    };
    let mut cache = BvhCache::default();
    let mut found = 0;
    for step in 0..8 {
        let s = step as Real;
        let (c0, c1, t0, t1) = (wavy(s), wavy(s + 1.0), placed(s), placed(s + 1.0));
        let objs = [
            Object {
                x0: &c0,
                x1: &c1,
                triangles: cloth.triangles(),
                edges: &ce,
                sharp: None,
                closed: false,
                is_static: false,
                self_collide: true,
                edge_normals: None,
                rest: Some(cloth.vertices()),
            },
            Object {
                x0: &t0,
                x1: &t1,
                triangles: torus.triangles(),
                edges: &te,
                sharp: None,
                closed: true,
                is_static: false,
                self_collide: false,
                edge_normals: Some(&tn),
                rest: None,
            },
        ];
        let none = Tracker::new();
        let mut rep = PenaltyReport::default();
        let kept = collide::gather(&objs, &none, 0.02, &mut cache, &mut rep);
        let fresh = collide::gather(&objs, &none, 0.02, &mut BvhCache::default(), &mut rep);
        assert_eq!(kept, fresh, "step {step}");
        found += kept.len();
    }
    assert!(
        found > 100,
        "only {found} pairs: the torus never reached the cloth"
    );
}

/// A 1 kg box shell (8 vertices of 1/8 kg) resting on a static slab under gravity with a
/// contact far past explicit stability: `k h²/m` = 20 per pair (CPF's bound is 2). Without
/// the stiffness limit the explicit contact blows up; with the linearly implicit correction
/// (`PenaltyParams::implicit_contact`) the box comes to rest, its contact force equals its
/// weight (the correction leaves the equilibrium alone) and the solve's residual is tiny.
#[test]
fn implicit_contact_rests_a_box_far_past_the_explicit_stability_bound() {
    let settle = |implicit: bool| {
        let mut b = box_shell(Vec3::new(0.1, -0.1, 0.051), Vec3::zeros());
        b.gravity = Vec3::new(0.0, 0.0, -9.81);
        let mut p = params(ForceModel::Cpf, 1e-3, 20.0 * 0.125 / 1e-6);
        p.friction = Friction::NONE;
        p.thickness = 2e-3;
        p.vertex_stiffness_limit = 0.0;
        p.implicit_contact = implicit;
        let mut w = DeformableWorld::new(vec![b], vec![slab()], p).unwrap();
        let (mut force, mut residual, mut finite) = (0.0, 0.0 as Real, true);
        for n in 0..2000 {
            let r = w.step();
            finite &= !r.diverged;
            if !finite {
                break;
            }
            residual = residual.max(r.contact_residual);
            if n >= 1000 {
                force += r.contact_force / 1000.0;
            }
        }
        let speed = w.deformables[0]
            .v
            .iter()
            .map(|v| v.norm())
            .fold(0.0, Real::max);
        (finite, force, speed, residual)
    };
    let (ok, force, speed, residual) = settle(true);
    assert!(ok, "implicit contact diverged");
    assert!(
        (force - 9.81).abs() < 0.01 * 9.81,
        "mean contact force {force} N, weight 9.81 N"
    );
    assert!(speed < 1e-3, "still moving at {speed} m/s");
    assert!(residual < 1e-8, "implicit solve residual {residual}");
    let (ok, force, speed, _) = settle(false);
    assert!(
        !ok || speed > 0.1 || (force - 9.81).abs() > 1.0,
        "the explicit contact was stable: force {force}, speed {speed}"
    );
}

/// The implicit correction between two deformables conserves their total momentum (a box
/// shell thrown at another, no gravity, stiff contact): the solve's `Σ mᵢ Δvᵢ` equals the
/// sum of the pair impulses, which cancel.
#[test]
fn implicit_contact_between_deformables_conserves_momentum() {
    let a = box_shell(Vec3::zeros(), Vec3::new(0.2, 0.0, 0.0));
    let b = box_shell(Vec3::new(0.103, 0.02, 0.01), Vec3::zeros());
    let mut p = params(ForceModel::Cpf, 1e-3, 2e5);
    p.thickness = 2e-3;
    p.implicit_contact = true;
    let mut w = DeformableWorld::new(vec![a, b], vec![], p).unwrap();
    let momentum = |w: &DeformableWorld| -> Vec3 {
        w.deformables
            .iter()
            .flat_map(|d| d.v.iter().zip(d.masses()).map(|(v, m)| *m * v))
            .sum()
    };
    let p0 = momentum(&w);
    let mut touched = false;
    for _ in 0..200 {
        touched |= w.step().pairs > 0;
    }
    assert!(touched, "the boxes never met");
    let drift = (momentum(&w) - p0).norm() / p0.norm();
    assert!(drift < 1e-8, "momentum drift {drift}");
}
