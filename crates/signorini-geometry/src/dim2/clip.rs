//! Exact convex–convex intersection (Sutherland–Hodgman clipping) and the separating-axis
//! minimum-overlap query.
//!
//! Owns: the intersection polygon/area of two convex vertex loops (the overlap metric of the
//! pouring experiment, docs/formulation-notes.md §7) and the separating-axis test used by the
//! "corrective" detector (docs/formulation-notes.md §5.6). Does not own: contacts built from these
//! (`signorini-contact`).

use super::polygon::{polygon_area_signed, polygon_centroid};
use signorini_math::{Real, Vec2, cross2};

/// Intersection polygon of two counter-clockwise convex loops (possibly empty or degenerate).
/// Sutherland–Hodgman: clip `subject` successively by every edge half-plane of `clip`.
pub fn intersection_polygon(subject: &[Vec2], clip: &[Vec2]) -> Vec<Vec2> {
    let mut out: Vec<Vec2> = subject.to_vec();
    let m = clip.len();
    for k in 0..m {
        if out.is_empty() {
            break;
        }
        let (a, b) = (clip[k], clip[(k + 1) % m]);
        let e = b - a;
        // Inside = left of the directed edge (counter-clockwise clip polygon).
        let side = |p: &Vec2| cross2(&e, &(p - a));
        let input = std::mem::take(&mut out);
        let n = input.len();
        for i in 0..n {
            let (p, q) = (input[i], input[(i + 1) % n]);
            let (sp, sq) = (side(&p), side(&q));
            if sp >= 0.0 {
                out.push(p);
            }
            if (sp >= 0.0) != (sq >= 0.0) {
                let t = sp / (sp - sq);
                out.push(p + (q - p) * t);
            }
        }
    }
    out
}

/// Area of the intersection of two counter-clockwise convex loops (exact up to rounding; 0 when
/// they do not overlap).
pub fn intersection_area(a: &[Vec2], b: &[Vec2]) -> Real {
    let poly = intersection_polygon(a, b);
    if poly.len() < 3 {
        return 0.0;
    }
    polygon_area_signed(&poly).max(0.0) + 0.0 // `+ 0.0` turns −0 into +0
}

/// Result of a separating-axis test on two overlapping convex polygons.
#[derive(Debug, Clone, PartialEq)]
pub struct SatOverlap {
    /// Unit axis of minimum overlap, oriented from `a` toward `b`.
    pub normal: Vec2,
    /// Overlap depth along `normal` (> 0).
    pub depth: Real,
    /// Centroid of the intersection polygon (the contact point of the corrective detector).
    pub point: Vec2,
}

/// Separating-axis test over all edge normals of both polygons. `None` if some axis separates
/// them (touching counts as separated); otherwise the axis of minimum overlap.
pub fn min_overlap_axis(a: &[Vec2], b: &[Vec2]) -> Option<SatOverlap> {
    let mut best: Option<(Real, Vec2)> = None;
    for poly in [a, b] {
        let n = poly.len();
        for i in 0..n {
            let e = poly[(i + 1) % n] - poly[i];
            let len = e.norm();
            if len == 0.0 {
                continue;
            }
            let axis = Vec2::new(e.y, -e.x) / len;
            let (a0, a1) = project(a, &axis);
            let (b0, b1) = project(b, &axis);
            let overlap = a1.min(b1) - a0.max(b0);
            if overlap <= 0.0 {
                return None;
            }
            if best.is_none_or(|(d, _)| overlap < d) {
                best = Some((overlap, axis));
            }
        }
    }
    let (depth, mut normal) = best?;
    let ca: Vec2 = a.iter().sum::<Vec2>() / a.len() as Real;
    let cb: Vec2 = b.iter().sum::<Vec2>() / b.len() as Real;
    if normal.dot(&(cb - ca)) < 0.0 {
        normal = -normal;
    }
    let inter = intersection_polygon(a, b);
    let point = if inter.is_empty() {
        (ca + cb) * 0.5
    } else {
        polygon_centroid(&inter)
    };
    Some(SatOverlap {
        normal,
        depth,
        point,
    })
}

fn project(poly: &[Vec2], axis: &Vec2) -> (Real, Real) {
    poly.iter()
        .map(|p| p.dot(axis))
        .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), d| {
            (lo.min(d), hi.max(d))
        })
}
