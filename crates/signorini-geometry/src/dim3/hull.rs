//! Convex hull of a small point set, with coplanar hull triangles merged into polygonal faces.
//!
//! Owns: [`ConvexPolyhedron::from_points`] and [`MAX_HULL_POINTS`].
//!
//! Method: brute-force supporting planes. Every non-degenerate triple of points spans a plane;
//! it is a hull plane when all points lie on one side of it (within a tolerance). The points on
//! a hull plane form a face whose corners are their 2D convex hull in that plane (Andrew's
//! monotone chain), which merges coplanar triangles into one polygon and drops points that lie
//! inside a face or on an edge. This is O(n⁴) but exact in its combinatorics and dependency-free;
//! the bodies of the PEG experiments have 12–15 points (docs/formulation-notes.md §9), so we chose
//! it over pulling in parry3d (a large dependency whose hull returns triangles that we would have
//! to merge anyway). Larger sets are refused with [`PolyhedronError::TooManyPoints`].

use super::polyhedron::{ConvexPolyhedron, PolyhedronError, check_finite, diameter};
use signorini_math::{Real, Vec3};
use std::collections::{BTreeMap, BTreeSet};

/// Largest point set [`ConvexPolyhedron::from_points`] accepts (the method is O(n⁴)).
pub const MAX_HULL_POINTS: usize = 96;

use signorini_math::tolerance::HULL_REL_TOL;

impl ConvexPolyhedron {
    /// The convex hull of `points` (interior points and points on faces or edges are dropped;
    /// coplanar hull triangles are merged into polygonal faces).
    ///
    /// # Errors
    /// [`PolyhedronError::TooFewVertices`], [`PolyhedronError::TooManyPoints`],
    /// [`PolyhedronError::NonFinite`], [`PolyhedronError::Flat`] (all points on one plane or
    /// line), [`PolyhedronError::OutOfRange`] (a size, volume or inertia not finite in f64),
    /// or a validation error of [`ConvexPolyhedron::from_vertices_faces`] if rounding
    /// defeats the tolerance.
    pub fn from_points(points: &[Vec3]) -> Result<Self, PolyhedronError> {
        let n = points.len();
        if n < 4 {
            return Err(PolyhedronError::TooFewVertices { count: n });
        }
        if n > MAX_HULL_POINTS {
            return Err(PolyhedronError::TooManyPoints {
                count: n,
                max: MAX_HULL_POINTS,
            });
        }
        check_finite(points)?;
        let diam = diameter(points);
        if !diam.is_finite() {
            return Err(PolyhedronError::OutOfRange {
                scale: points.iter().map(|p| p.amax()).fold(0.0, Real::max),
                quantity: "diameter",
            });
        }
        let tol = HULL_REL_TOL * diam;
        if diam == 0.0 {
            return Err(PolyhedronError::Flat { tolerance: tol });
        }
        // Supporting planes, keyed by the (sorted) set of points on them.
        let mut planes: BTreeMap<Vec<usize>, Vec3> = BTreeMap::new();
        for i in 0..n {
            for j in i + 1..n {
                for k in j + 1..n {
                    let nn = (points[j] - points[i]).cross(&(points[k] - points[i]));
                    let len = nn.norm();
                    if len <= tol * diam {
                        continue;
                    }
                    let normal = nn / len;
                    let d = normal.dot(&points[i]);
                    let (mut lo, mut hi) = (Real::INFINITY, Real::NEG_INFINITY);
                    for p in points {
                        let s = normal.dot(p) - d;
                        lo = lo.min(s);
                        hi = hi.max(s);
                    }
                    if hi <= tol && lo >= -tol {
                        return Err(PolyhedronError::Flat { tolerance: tol });
                    }
                    let outward = if hi <= tol {
                        normal
                    } else if lo >= -tol {
                        -normal
                    } else {
                        continue;
                    };
                    let on: Vec<usize> = (0..n)
                        .filter(|&m| (normal.dot(&points[m]) - d).abs() <= tol)
                        .collect();
                    planes.entry(on).or_insert(outward);
                }
            }
        }
        if planes.len() < 4 {
            return Err(PolyhedronError::Flat { tolerance: tol });
        }
        let mut faces: Vec<Vec<usize>> = planes
            .iter()
            .map(|(on, normal)| face_corners(points, on, normal))
            .collect();
        // Keep only points that are corners of some face, renumbered in input order.
        let corners: BTreeSet<usize> = faces.iter().flatten().copied().collect();
        let renumber: BTreeMap<usize, usize> =
            corners.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        for f in &mut faces {
            for i in f.iter_mut() {
                *i = renumber[i];
            }
        }
        let vertices = corners.iter().map(|&i| points[i]).collect();
        ConvexPolyhedron::from_vertices_faces(vertices, faces)
    }
}

/// Corners of the face spanned by the points `on` (all on one plane with outward `normal`),
/// counter-clockwise seen from outside: the 2D convex hull in the plane, collinear points
/// dropped.
fn face_corners(points: &[Vec3], on: &[usize], normal: &Vec3) -> Vec<usize> {
    let helper = if normal.x.abs() < 0.9 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let u = normal.cross(&helper).normalize();
    let w = normal.cross(&u); // (u, w, normal) is right-handed: CCW in (u, w) = CCW from outside
    let mut pts: Vec<(Real, Real, usize)> = on
        .iter()
        .map(|&i| (points[i].dot(&u), points[i].dot(&w), i))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let cross = |o: &(Real, Real, usize), a: &(Real, Real, usize), b: &(Real, Real, usize)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    // Turns smaller than this (relative to the face size squared) count as collinear.
    let scale = pts
        .iter()
        .map(|p| p.0.abs().max(p.1.abs()))
        .fold(0.0, Real::max)
        .max(Real::MIN_POSITIVE);
    let eps = 1e-12 * scale * scale;
    let mut hull: Vec<(Real, Real, usize)> = Vec::with_capacity(pts.len() + 1);
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &(Real, Real, usize)>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for p in iter {
            while hull.len() >= start + 2
                && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], p) <= eps
            {
                hull.pop();
            }
            hull.push(*p);
        }
        hull.pop();
    }
    hull.into_iter().map(|p| p.2).collect()
}
