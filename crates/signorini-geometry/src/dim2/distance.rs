//! Point–segment distance queries (vertex–edge feature pairs).
//!
//! Owns: the squared distance from a point to a segment and the closest-point parameter.
//! Does not own: signed gaps along contact normals (that is `signorini-contact`).

use signorini_math::{Real, Vec2};

/// Squared distance from `p` to segment `[a, b]` and the parameter `t ∈ [0, 1]` of the closest
/// point `a + t (b − a)`. A degenerate segment (a = b) gives t = 0.
pub fn point_segment_sq_distance(p: &Vec2, a: &Vec2, b: &Vec2) -> (Real, Real) {
    let e = b - a;
    let ee = e.dot(&e);
    let t = if ee > 0.0 {
        ((p - a).dot(&e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let d = p - (a + e * t);
    (d.dot(&d), t)
}

/// Euclidean distance from `p` to segment `[a, b]`.
pub fn point_segment_distance(p: &Vec2, a: &Vec2, b: &Vec2) -> Real {
    point_segment_sq_distance(p, a, b).0.sqrt()
}
