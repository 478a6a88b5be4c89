//! Issue #22 item 3: the 3D vertex–vertex constraints (our reconstruction of the paper's
//! Eq. 38, lost from its text) against a brute-force reference.
//!
//! Generated configurations: a dynamic cube A and a static cube B, both turned at random, B
//! placed so that A's vertex farthest along a random direction `d` faces B's vertex nearest
//! along `d`, a gap of ε/4 apart (a vertex–vertex configuration: both vertices are extreme by
//! a margin, so no face or edge of either is nearer). Each configuration is offered random
//! small motions of A over one step `h`. The reference classifies a motion by moving A
//! (`RigidBody3::integrate_position`) and measuring the overlap volume with B; a motion counts
//! as *free* if A still does not overlap B when the motion is 25 % larger, and as
//! *penetrating* if A overlaps B when it is 20 % smaller (the motions in between are too close
//! to the boundary for a linearised constraint to be judged, and are left out). The
//! constraints *admit* a motion if every U-constraint's gap at the end of the step
//! `ψ + h Gᵀν` is ≥ 0 and every I/X group has a member with a non-negative end gap (the
//! disjunction their complementarity construction encodes).

use signorini_contact::dim3::*;
use signorini_dynamics::RigidBody3;
use signorini_geometry::dim3::{ConvexPolyhedron, intersection_volume};
use signorini_math::{Mat3, Quat, Real, Vec3, Vec6};

/// A small deterministic generator (SplitMix64): the test is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> Real {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as Real / (1u64 << 53) as Real
    }

    fn unit(&mut self) -> Vec3 {
        loop {
            let p = Vec3::new(self.next(), self.next(), self.next()) * 2.0 - Vec3::repeat(1.0);
            let n = p.norm();
            if n > 0.1 && n <= 1.0 {
                return p / n;
            }
        }
    }

    fn in_ball(&mut self, r: Real) -> Vec3 {
        self.unit() * r * self.next().cbrt()
    }

    fn rotation(&mut self) -> Quat {
        Quat::from_scaled_axis(self.unit() * std::f64::consts::PI * self.next())
    }
}

/// Index of the extreme vertex along `d` (max) if it leads the runner-up by `margin`.
fn extreme(p: &ConvexPolyhedron, d: &Vec3, margin: Real) -> Option<usize> {
    let mut s: Vec<(Real, usize)> = p
        .vertices()
        .iter()
        .enumerate()
        .map(|(i, x)| (d.dot(x), i))
        .collect();
    s.sort_by(|a, b| b.0.total_cmp(&a.0));
    (s[0].0 - s[1].0 >= margin).then_some(s[0].1)
}

struct Config {
    bodies: Vec<RigidBody3>,
    now: Vec<ConvexPolyhedron>,
    shape: ConvexPolyhedron,
}

fn config(rng: &mut Rng, gap: Real) -> Config {
    let shape = ConvexPolyhedron::cuboid(Vec3::repeat(0.5)).unwrap();
    loop {
        let (ra, rb, d) = (rng.rotation(), rng.rotation(), rng.unit());
        let a_world = shape.transformed(&Vec3::zeros(), &ra);
        let b_at_origin = shape.transformed(&Vec3::zeros(), &rb);
        let (Some(va), Some(vb)) = (
            extreme(&a_world, &d, 0.05),
            extreme(&b_at_origin, &(-d), 0.05),
        ) else {
            continue;
        };
        let pos_b = a_world.vertices()[va] + d * gap - b_at_origin.vertices()[vb];
        let a = RigidBody3::dynamic(1.0, Mat3::identity() * (1.0 / 6.0))
            .unwrap()
            .with_pose(Vec3::zeros(), ra);
        let b = RigidBody3::fixed().with_pose(pos_b, rb);
        let now = vec![a_world, shape.transformed(&pos_b, &rb)];
        return Config {
            bodies: vec![a, b],
            now,
            shape,
        };
    }
}

fn overlaps(c: &Config, nu: &Vec6, h: Real) -> bool {
    let mut a = c.bodies[0].clone();
    a.set_velocity(nu);
    a.integrate_position(h);
    intersection_volume(&c.shape.transformed(&a.position, &a.orientation), &c.now[1]) > 0.0
}

fn admits(set: &ConstraintSet3, nu: &Vec6, h: Real) -> bool {
    let end = |k: usize| {
        let c = &set.contacts[k];
        c.gap
            + h * c
                .jacobian
                .dot_velocity(|b| if b == 0 { *nu } else { Vec6::zeros() })
    };
    set.unilateral.iter().all(|&u| end(u) >= -1e-12)
        && set.inter.iter().chain(&set.cross).all(|p| {
            std::iter::once(p.primary)
                .chain(p.secondaries.iter().copied())
                .any(|k| end(k) >= -1e-12)
        })
}

/// Counts over the generated motions: (free, free admitted, penetrating, penetrating
/// forbidden, configurations with a vertex–vertex X-constraint).
fn census(vertex_vertex_cross: bool, cone: bool) -> [usize; 5] {
    census_of(vertex_vertex_cross, cone, config, |_| {})
}

/// [`census`] over the configurations `make(rng, gap)`; `inspect` sees each constraint set.
fn census_of(
    vertex_vertex_cross: bool,
    cone: bool,
    make: impl Fn(&mut Rng, Real) -> Config,
    mut inspect: impl FnMut(&ConstraintSet3),
) -> [usize; 5] {
    let h = 0.01;
    let mut params = Peg3Params::for_step(h);
    params.sweep = false;
    params.vertex_vertex_cross = vertex_vertex_cross;
    params.vertex_vertex_cone = cone;
    let gap = params.eps / 4.0;
    let mut rng = Rng(22);
    let mut n = [0; 5];
    for _ in 0..150 {
        let c = make(&mut rng, gap);
        let set = peg_constraints3(&c.bodies, &c.now, &c.now, &[(0, 1)], &params);
        inspect(&set);
        n[4] += usize::from(!set.cross.is_empty());
        for _ in 0..40 {
            // The vertex moves up to 4 gaps in a step; rotations up to 0.004 rad (second-order
            // error ≈ 1e-5 m, under the gap).
            let lin = rng.in_ball(4.0 * gap / h);
            let ang = rng.in_ball(0.4);
            let nu = Vec6::new(lin.x, lin.y, lin.z, ang.x, ang.y, ang.z);
            if !overlaps(&c, &(nu * 1.25), h) {
                n[0] += 1;
                n[1] += usize::from(admits(&set, &nu, h));
            } else if overlaps(&c, &(nu * 0.8), h) {
                n[2] += 1;
                n[3] += usize::from(!admits(&set, &nu, h));
            }
        }
    }
    n
}

#[test]
fn vertex_vertex_constraints_against_brute_force() {
    let n = census(true, false);
    let (free, pen) = (n[0] as Real, n[2] as Real);
    println!(
        "vertex–vertex (Eq. 38 on): {} configurations with X; free motions admitted {}/{} ({:.4}), penetrating motions forbidden {}/{} ({:.4})",
        n[4],
        n[1],
        n[0],
        n[1] as Real / free,
        n[3],
        n[2],
        n[3] as Real / pen
    );
    let off = census(false, false);
    println!(
        "vertex–vertex (Eq. 38 off): free admitted {}/{}, penetrating forbidden {}/{}",
        off[1], off[0], off[3], off[2]
    );
    assert!(
        n[0] > 500 && n[2] > 500,
        "too few classified motions: {n:?}"
    );
    assert_eq!(
        n[4], 150,
        "every configuration builds a vertex–vertex X-constraint"
    );
    // Without Eq. 38 the I-constraints alone never forbid a free motion, but they let
    // penetrating ones through: the X-constraints are needed.
    assert_eq!(off[1], off[0], "I-constraints alone forbade a free motion");
    assert!(
        off[3] < off[2],
        "I-constraints alone forbade every penetration"
    );
    // With Eq. 38 (nearly) every penetrating motion is forbidden.
    assert!(
        n[3] as Real >= 0.99 * pen,
        "penetrating motions admitted: {n:?}"
    );
    // Known and not yet fixed (issue #22 item 3; measured 27 Nov 2026: 3,117 of 5,203 free
    // motions admitted): our Eq. 38 builds several X groups, each a disjunction over a subset
    // of the facets of the cone of forbidden displacements (B's vertex cone plus A's
    // reflected), and their conjunction forbids free motions. The exact condition is one
    // disjunction over that cone's facets. Until then, at least this much is admitted:
    assert!(n[1] as Real >= 0.5 * free, "free motions admitted: {n:?}");
}

#[test]
fn vertex_vertex_cone_is_exact_against_brute_force() {
    let n = census(true, true);
    println!(
        "vertex–vertex (cone form): {} configurations with X; free motions admitted {}/{}, penetrating motions forbidden {}/{}",
        n[4], n[1], n[0], n[3], n[2]
    );
    assert!(
        n[0] > 500 && n[2] > 500,
        "too few classified motions: {n:?}"
    );
    assert_eq!(n[1], n[0], "the cone form forbade a free motion: {n:?}");
    assert_eq!(
        n[3], n[2],
        "the cone form admitted a penetrating motion: {n:?}"
    );
}

/// Cube A resting on cube B face to face with coincident corners (B static, A a gap above it,
/// shifted sideways by up to a tenth of the gap so the corners stay within ε).
fn stacked(rng: &mut Rng, gap: Real) -> Config {
    let shape = ConvexPolyhedron::cuboid(Vec3::repeat(0.5)).unwrap();
    let shift = Vec3::new(rng.next() - 0.5, rng.next() - 0.5, 0.0) * (0.2 * gap);
    let pos_b = Vec3::new(0.0, 0.0, -1.0 - gap) + shift;
    let a = RigidBody3::dynamic(1.0, Mat3::identity() * (1.0 / 6.0)).unwrap();
    let b = RigidBody3::fixed().with_pose(pos_b, Quat::identity());
    let now = vec![
        shape.transformed(&Vec3::zeros(), &Quat::identity()),
        shape.transformed(&pos_b, &Quat::identity()),
    ];
    Config {
        bodies: vec![a, b],
        now,
        shape,
    }
}

/// Issue #19 (the 8-cube tower): in the cone form two boxes face to face with coincident
/// corners get one U-constraint per corner (each corner's cone K is a half-space, its two
/// coincident facets kept once, and the corners' I-constraints are implied), and those four
/// still admit every free motion and forbid every penetrating one. The per-face-pair form
/// builds I- and X-groups at each corner.
#[test]
fn stacked_cubes_in_the_cone_form_are_four_exact_corner_units() {
    let mut shapes = std::collections::BTreeSet::new();
    let n = census_of(true, true, stacked, |set| {
        shapes.insert((set.unilateral.len(), set.inter.len(), set.cross.len()));
    });
    println!(
        "stacked cubes (cone form): constraint counts (U, I, X) {shapes:?}; free admitted {}/{}, penetrating forbidden {}/{}",
        n[1], n[0], n[3], n[2]
    );
    assert_eq!(shapes, [(4, 0, 0)].into(), "one U per corner");
    assert!(
        n[0] > 500 && n[2] > 500,
        "too few classified motions: {n:?}"
    );
    assert_eq!(n[1], n[0], "a free motion was forbidden: {n:?}");
    assert_eq!(n[3], n[2], "a penetrating motion was admitted: {n:?}");
    let mut pairs = std::collections::BTreeSet::new();
    census_of(true, false, stacked, |set| {
        pairs.insert((set.unilateral.len(), set.inter.len(), set.cross.len()));
    });
    println!("stacked cubes (per face pair): (U, I, X) {pairs:?}");
    assert!(pairs.iter().all(|&(_, i, x)| i == 8 && x > 4), "{pairs:?}");
}
