//! Exact intersection volume of two convex polyhedra (the overlap metric of pour3d, paper
//! Fig. 24; docs/formulation-notes.md §9).
//!
//! Owns: [`intersection_volume`], its cheap upper bound [`intersection_volume_bound`] and
//! [`clip_by_halfspaces`]. The faces of A (as polygons) are
//! clipped successively by every face half-space of B (Sutherland–Hodgman per face polygon;
//! the points created on the cutting plane form the cap polygon that closes the cut), and the
//! volume of the remaining convex polytope is `Σ_faces area · height / 3` from an interior
//! point. Exact up to rounding, unlike the reference code's `volume_of_overlap.m` (hull of edge
//! – triangle intersection points). Does not own: contacts built from overlaps
//! (`signorini-contact`).

use super::polyhedron::{ConvexPolyhedron, newell};
use signorini_math::{Real, Vec3};

/// The boundary polygons of `A ∩ {x : n̂·x ≤ d for every (n̂, d) in planes}` (empty when the
/// intersection is empty or flat).
pub fn clip_by_halfspaces(a: &ConvexPolyhedron, planes: &[(Vec3, Real)]) -> Vec<Vec<Vec3>> {
    let mut polys: Vec<Vec<Vec3>> = (0..a.faces().len()).map(|f| a.face_points(f)).collect();
    for (n, d) in planes {
        polys = clip_polys(polys, n, *d);
        if polys.len() < 4 {
            return Vec::new();
        }
    }
    polys
}

/// Volume of `A ∩ B` (m³); `+0` when they do not overlap.
pub fn intersection_volume(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> Real {
    let planes: Vec<(Vec3, Real)> = b.faces().iter().map(|f| (f.normal, f.offset)).collect();
    // Quick reject: a face plane of B with all of A outside, or vice versa.
    for &(n, d) in &planes {
        if a.vertices().iter().all(|p| n.dot(p) >= d) {
            return 0.0;
        }
    }
    for f in a.faces() {
        if b.vertices().iter().all(|p| f.normal.dot(p) >= f.offset) {
            return 0.0;
        }
    }
    polytope_volume(&clip_by_halfspaces(a, &planes))
}

/// An upper bound on the volume of `A ∩ B` (m³), without clipping: O(faces × edges).
///
/// For a face plane n̂·x ≤ d of B, `A ∩ B` lies in the cap of A below the plane: the convex
/// hull of A's vertices below it and of the points where A's edges cross it. The cap is at
/// most δ = d − min over A's vertices of n̂·p thick along n̂, and its section lies in the
/// bounding rectangle of those points projected on the plane; so V ≤ δ × that rectangle's
/// area. The same holds with the bodies swapped. The bound returned is the lesser of the two
/// caps under the face of each body that the other reaches least deep under (0 when a face
/// plane separates them). A vertex or an edge resting on a face gives a cap of
/// round-off size, so the bound lets a caller that only asks whether the volume exceeds a
/// tolerance skip the clipping of [`intersection_volume`] for it.
pub fn intersection_volume_bound(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> Real {
    // Any face gives a bound; the one under which the other body reaches least deep gives
    // a thin cap, and the search stops at a separating face.
    let shallowest = |a: &ConvexPolyhedron, b: &ConvexPolyhedron| {
        let mut best = (0, Real::INFINITY);
        for (k, f) in b.faces().iter().enumerate() {
            let depth = f.offset - lowest_along(a, &f.normal);
            if depth < best.1 {
                best = (k, depth);
                if depth <= 0.0 {
                    break;
                }
            }
        }
        best
    };
    let (fb, db) = shallowest(a, b);
    if db <= 0.0 {
        return 0.0;
    }
    let (fa, da) = shallowest(b, a);
    if da <= 0.0 {
        return 0.0;
    }
    let (f, g) = (&b.faces()[fb], &a.faces()[fa]);
    cap_bound(a, &f.normal, f.offset, db).min(cap_bound(b, &g.normal, g.offset, da))
}

fn lowest_along(a: &ConvexPolyhedron, n: &Vec3) -> Real {
    a.vertices()
        .iter()
        .map(|p| n.dot(p))
        .fold(Real::INFINITY, Real::min)
}

/// δ × (bounding-rectangle area) of the cap of `a` in n̂·x ≤ d, whose depth δ > 0 the caller
/// has measured (see [`intersection_volume_bound`]).
fn cap_bound(a: &ConvexPolyhedron, n: &Vec3, d: Real, depth: Real) -> Real {
    let (u, w) = plane_basis(n);
    let (mut lo, mut hi) = ([Real::INFINITY; 2], [Real::NEG_INFINITY; 2]);
    let mut add = |x: &Vec3| {
        for (k, axis) in [u, w].iter().enumerate() {
            let c = axis.dot(x);
            lo[k] = lo[k].min(c);
            hi[k] = hi[k].max(c);
        }
    };
    let verts = a.vertices();
    for p in verts.iter().filter(|p| n.dot(p) <= d) {
        add(p);
    }
    // Each edge is met twice (once per face); harmless for a bounding rectangle.
    for f in a.faces() {
        let m = f.vertices.len();
        for k in 0..m {
            let (p, q) = (verts[f.vertices[k]], verts[f.vertices[(k + 1) % m]]);
            let (sp, sq) = (n.dot(&p) - d, n.dot(&q) - d);
            if (sp < 0.0) != (sq < 0.0) && sp != sq {
                add(&(p + (q - p) * (sp / (sp - sq))));
            }
        }
    }
    depth * (hi[0] - lo[0]).max(0.0) * (hi[1] - lo[1]).max(0.0)
}

/// Volume of a convex polytope given by its boundary polygons (any orientation).
pub fn polytope_volume(polys: &[Vec<Vec3>]) -> Real {
    let count: usize = polys.iter().map(Vec::len).sum();
    if polys.len() < 4 || count == 0 {
        return 0.0;
    }
    let centre: Vec3 = polys.iter().flatten().sum::<Vec3>() / count as Real;
    let mut vol = 0.0;
    for p in polys {
        let nn = newell(p.iter().copied());
        let len = nn.norm();
        if len == 0.0 {
            continue;
        }
        let height = (nn / len).dot(&(p[0] - centre)).abs();
        vol += 0.5 * len * height / 3.0;
    }
    vol.max(0.0) + 0.0
}

/// Clip every polygon by `n̂·x ≤ d` and close the cut with a cap polygon.
fn clip_polys(polys: Vec<Vec<Vec3>>, n: &Vec3, d: Real) -> Vec<Vec<Vec3>> {
    let mut out = Vec::with_capacity(polys.len() + 1);
    let mut cap: Vec<Vec3> = Vec::new();
    let mut cut = false;
    for poly in polys {
        let m = poly.len();
        let mut clipped = Vec::with_capacity(m + 1);
        for i in 0..m {
            let (p, q) = (poly[i], poly[(i + 1) % m]);
            let (sp, sq) = (n.dot(&p) - d, n.dot(&q) - d);
            cut |= sp > 0.0;
            if sp <= 0.0 {
                clipped.push(p);
                if sp == 0.0 {
                    cap.push(p);
                }
            }
            if (sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0) {
                let x = p + (q - p) * (sp / (sp - sq));
                clipped.push(x);
                cap.push(x);
            }
        }
        if clipped.len() >= 3 {
            out.push(clipped);
        }
    }
    // A cap only where something was cut away (a face lying on a supporting plane is kept
    // as it is and must not be doubled).
    if cut && cap.len() >= 3 {
        out.push(order_in_plane(cap, n));
    }
    out
}

/// Two unit vectors (u, w) with (u, w, n̂) a right-handed orthonormal frame.
fn plane_basis(n: &Vec3) -> (Vec3, Vec3) {
    let helper = if n.x.abs() < 0.9 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let u = n.cross(&helper).normalize();
    (u, n.cross(&u))
}

/// Order coplanar points counter-clockwise about `n` around their mean.
fn order_in_plane(points: Vec<Vec3>, n: &Vec3) -> Vec<Vec3> {
    let c: Vec3 = points.iter().sum::<Vec3>() / points.len() as Real;
    let (u, w) = plane_basis(n);
    let mut keyed: Vec<(Real, Vec3)> = points
        .into_iter()
        .map(|p| ((p - c).dot(&w).atan2((p - c).dot(&u)), p))
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    keyed.into_iter().map(|(_, p)| p).collect()
}
