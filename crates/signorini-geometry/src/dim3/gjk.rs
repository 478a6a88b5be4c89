//! A certified separation test for two convex polyhedra: [`separated`], by the
//! Gilbert–Johnson–Keerthi iteration on the Minkowski difference (Gilbert, Johnson & Keerthi,
//! IEEE J. Robotics and Automation 4(2), 1988; the boolean form of van den Bergen,
//! *Collision Detection in Interactive 3D Environments*, §4.3).
//!
//! Owns: [`separated`]. Does not own: distances or contact features (`distance.rs`, the
//! detectors), volumes (`clip.rs`), penetration depth (`sat.rs`).
//!
//! Why: the gap corrections ask, at every round, whether each candidate pair overlaps by more
//! than a volume tolerance (`signorini-world`'s `overlaps_beyond_tolerance`). The face-plane
//! bound (`clip::intersection_volume_bound`) answers for pairs that a face plane separates or
//! that rest face on face; pairs that only an edge–edge axis separates went to the clipping,
//! which then returned exactly 0 — 73 % of the clippings of the 125-body pile (session 29).
//! GJK finds a separating direction in a few O(V_A + V_B) support queries, where the
//! separating-axis test needs E_A·E_B axes.
//!
//! Soundness does not rest on the simplex logic: `true` is returned only with a certificate,
//! a direction d whose support point p of A − B has p·d < 0, so that the plane x·d = 0 has
//! all of A − B strictly on one side and the bodies are disjoint (up to the rounding of one
//! dot product, i.e. bodies that touch within round-off). Every other outcome — the origin
//! enclosed, a degenerate simplex, the iteration limit — returns `false`: "not shown
//! separated", and the caller clips.

use super::polyhedron::ConvexPolyhedron;
use signorini_math::{Real, Vec3};

/// Support queries before the test gives up (answers `false`). Polytopes of a few dozen
/// vertices separate in well under ten.
const MAX_ITERATIONS: usize = 48;

/// The vertex of `a` farthest along `d`.
fn farthest(a: &ConvexPolyhedron, d: &Vec3) -> Vec3 {
    let v = a.vertices();
    let mut best = (v[0].dot(d), 0);
    for (k, p) in v.iter().enumerate().skip(1) {
        let x = p.dot(d);
        if x > best.0 {
            best = (x, k);
        }
    }
    v[best.1]
}

fn centroid(a: &ConvexPolyhedron) -> Vec3 {
    let v = a.vertices();
    v.iter().fold(Vec3::zeros(), |s, p| s + p) / v.len() as Real
}

/// Whether `a` and `b` are certainly disjoint, by GJK on A − B: `true` only with a certificate,
/// a direction d whose support point p of A − B has p·d < 0 (the plane x·d = 0 then separates
/// them strictly); `false` when they intersect, touch, or the iteration cannot tell (the caller
/// then clips). Why and where it is used: `signorini-world`'s `overlaps_beyond_tolerance`.
pub fn separated(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> bool {
    if a.vertices().is_empty() || b.vertices().is_empty() {
        return false;
    }
    let support = |d: &Vec3| farthest(a, d) - farthest(b, &-d);
    let mut d = centroid(a) - centroid(b);
    if d.norm_squared() == 0.0 {
        d = Vec3::x();
    }
    // The simplex, newest point last.
    let mut s = Simplex {
        p: [Vec3::zeros(); 4],
        len: 0,
    };
    for _ in 0..MAX_ITERATIONS {
        let length2 = d.norm_squared();
        if length2.is_nan() || length2 <= 0.0 {
            return false; // the origin lies on the simplex (or d is not finite)
        }
        let p = support(&d);
        if p.dot(&d) < 0.0 {
            return true; // the certificate
        }
        s.push(p);
        match next_direction(&mut s) {
            Some(next) => d = next,
            None => return false, // the tetrahedron encloses the origin
        }
    }
    false
}

/// The simplex's points, newest last: at most four, kept inline (no allocation per query on
/// the gap corrections' hot path).
struct Simplex {
    p: [Vec3; 4],
    len: usize,
}

impl Simplex {
    fn push(&mut self, x: Vec3) {
        self.p[self.len] = x;
        self.len += 1;
    }

    fn set(&mut self, points: &[Vec3]) {
        self.p[..points.len()].copy_from_slice(points);
        self.len = points.len();
    }
}

impl std::ops::Index<usize> for Simplex {
    type Output = Vec3;
    fn index(&self, k: usize) -> &Vec3 {
        &self.p[..self.len][k]
    }
}

/// Reduce the simplex `s` (newest point last) to its feature closest to the origin and return
/// the direction from that feature towards the origin; `None` if `s` is a tetrahedron that
/// encloses the origin.
fn next_direction(s: &mut Simplex) -> Option<Vec3> {
    match s.len {
        1 => Some(-s[0]),
        2 => Some(line(s)),
        3 => Some(triangle(s)),
        _ => tetrahedron(s),
    }
}

/// Segment [b, a] (a newest).
fn line(s: &mut Simplex) -> Vec3 {
    let (b, a) = (s[0], s[1]);
    let (ab, ao) = (b - a, -a);
    if ab.dot(&ao) > 0.0 {
        ab.cross(&ao).cross(&ab)
    } else {
        s.set(&[a]);
        ao
    }
}

/// Triangle [c, b, a] (a newest).
fn triangle(s: &mut Simplex) -> Vec3 {
    let (c, b, a) = (s[0], s[1], s[2]);
    let (ab, ac, ao) = (b - a, c - a, -a);
    let n = ab.cross(&ac);
    if n.cross(&ac).dot(&ao) > 0.0 {
        if ac.dot(&ao) > 0.0 {
            s.set(&[c, a]);
            return ac.cross(&ao).cross(&ac);
        }
        s.set(&[b, a]);
        return line(s);
    }
    if ab.cross(&n).dot(&ao) > 0.0 {
        s.set(&[b, a]);
        return line(s);
    }
    if n.dot(&ao) > 0.0 {
        n
    } else {
        // The origin is below the plane: flip the winding so that the normal faces it.
        s.set(&[b, c, a]);
        -n
    }
}

/// Tetrahedron [d, c, b, a] (a newest; the triangle [d, c, b] has its normal towards a's side
/// reversed by `triangle`'s winding, so each face through a is tested outward).
fn tetrahedron(s: &mut Simplex) -> Option<Vec3> {
    let (d, c, b, a) = (s[0], s[1], s[2], s[3]);
    let ao = -a;
    let (ab, ac, ad) = (b - a, c - a, d - a);
    // Outward normals of the three faces through a (oriented away from the fourth vertex).
    let faces = [
        (ab.cross(&ac), d, [c, b, a]),
        (ac.cross(&ad), b, [d, c, a]),
        (ad.cross(&ab), c, [b, d, a]),
    ];
    for (n, other, tri) in faces {
        let n = if n.dot(&(other - a)) > 0.0 { -n } else { n };
        if n.dot(&ao) > 0.0 {
            s.set(&tri);
            return Some(triangle(s));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dim3::{intersection_volume, intersection_volume_bound, penetration_depth};
    use proptest::prelude::*;
    use signorini_math::Quat;

    fn cube() -> ConvexPolyhedron {
        ConvexPolyhedron::cuboid(Vec3::new(0.5, 0.5, 0.5)).unwrap()
    }

    #[test]
    fn cubes_apart_are_separated_and_overlapping_or_touching_ones_are_not() {
        let c = cube();
        assert!(separated(&c, &c.translated(&Vec3::new(1.1, 0.3, -0.2))));
        assert!(!separated(&c, &c.translated(&Vec3::new(0.9, 0.3, -0.2))));
        assert!(!separated(&c, &c));
        // Face to face, touching: no strict separation, so no certificate.
        assert!(!separated(&c, &c.translated(&Vec3::new(1.0, 0.0, 0.0))));
    }

    #[test]
    fn an_edge_edge_gap_that_no_face_plane_shows_is_separated() {
        // Two cubes, each rotated 45° about a different axis, their edges crossed above one
        // another with a 1 mm gap: every face plane of either cuts the other, so the face-plane
        // bound cannot decide and only an edge–edge axis separates them.
        let half = 0.5 * 2f64.sqrt();
        let qa = Quat::from_euler_angles(std::f64::consts::FRAC_PI_4, 0.0, 0.0);
        let qb = Quat::from_euler_angles(0.0, std::f64::consts::FRAC_PI_4, 0.0);
        let a = cube().transformed(&Vec3::zeros(), &qa);
        let b = cube().transformed(&Vec3::new(0.0, 0.0, 2.0 * half + 1e-3), &qb);
        assert!(
            intersection_volume_bound(&a, &b) > 0.0,
            "the face planes do not separate"
        );
        assert_eq!(penetration_depth(&a, &b), None);
        assert!(separated(&a, &b));
        // 1 mm the other way they cross: not separated, and a volume to clip.
        let c = cube().transformed(&Vec3::new(0.0, 0.0, 2.0 * half - 1e-3), &qb);
        assert!(!separated(&a, &c));
        assert!(intersection_volume(&a, &c) > 0.0);
    }

    fn body(kind: u8, scale: Real) -> ConvexPolyhedron {
        match kind % 3 {
            0 => ConvexPolyhedron::cuboid(Vec3::new(0.5, 0.3, 0.2) * scale).unwrap(),
            1 => ConvexPolyhedron::icosahedron(0.5 * scale).unwrap(),
            _ => ConvexPolyhedron::cuboid(Vec3::new(0.4, 0.4, 0.1) * scale).unwrap(),
        }
    }

    proptest! {
        /// Sound: a pair shown separated has no overlap volume and no SAT overlap. Complete
        /// for pairs with a margin: a pair that SAT separates, each body then shrunk by 2 %
        /// about its centre (each inside its old self, so a gap opens), is shown separated.
        #[test]
        fn separation_agrees_with_the_clipping_and_the_separating_axes(
            ka in 0..3u8, kb in 0..3u8,
            ea in proptest::collection::vec(-3.2..3.2f64, 3),
            eb in proptest::collection::vec(-3.2..3.2f64, 3),
            t in proptest::collection::vec(-1.2..1.2f64, 3),
        ) {
            let qa = Quat::from_euler_angles(ea[0], ea[1], ea[2]);
            let qb = Quat::from_euler_angles(eb[0], eb[1], eb[2]);
            let offset = Vec3::new(t[0], t[1], t[2]);
            let pose = |s: Real| {
                (body(ka, s).transformed(&Vec3::zeros(), &qa), body(kb, s).transformed(&offset, &qb))
            };
            let (a, b) = pose(1.0);
            if separated(&a, &b) {
                prop_assert_eq!(intersection_volume(&a, &b), 0.0);
                prop_assert_eq!(penetration_depth(&a, &b), None);
            }
            if penetration_depth(&a, &b).is_none() {
                let (a, b) = pose(0.98);
                prop_assert!(separated(&a, &b));
            }
        }
    }
}
