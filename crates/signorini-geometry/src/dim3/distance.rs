//! Closest-point queries between 3D features (vertex–face, edge–edge; paper §4 Eq. 34).
//!
//! Owns: point–segment, point–convex-polygon and segment–segment closest points. Does not own:
//! signed gaps along contact normals (`signorini-contact`).

use signorini_math::{Real, Vec3};

/// Closest point to `p` on segment `[a, b]` and its parameter `t ∈ [0, 1]`.
pub fn closest_on_segment(p: &Vec3, a: &Vec3, b: &Vec3) -> (Vec3, Real) {
    let e = b - a;
    let ee = e.dot(&e);
    let t = if ee > 0.0 {
        ((p - a).dot(&e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + e * t, t)
}

/// Closest point to `p` on the convex polygon `poly` (counter-clockwise about the unit
/// `normal`), and whether `p` projects inside the polygon.
pub fn closest_on_polygon(p: &Vec3, poly: &[Vec3], normal: &Vec3) -> (Vec3, bool) {
    let m = poly.len();
    let inside = (0..m).all(|k| {
        let (a, b) = (poly[k], poly[(k + 1) % m]);
        normal.cross(&(b - a)).dot(&(p - a)) >= 0.0
    });
    if inside {
        return (p - normal * normal.dot(&(p - poly[0])), true);
    }
    let mut best = (poly[0], Real::INFINITY);
    for k in 0..m {
        let (q, _) = closest_on_segment(p, &poly[k], &poly[(k + 1) % m]);
        let d = (q - p).norm_squared();
        if d < best.1 {
            best = (q, d);
        }
    }
    (best.0, false)
}

/// Closest points of segments `[p0, p1]` and `[q0, q1]`: `(s, t, on_p, on_q)` with
/// `on_p = p0 + s (p1 − p0)`, `on_q = q0 + t (q1 − q0)`, `s, t ∈ [0, 1]` (Ericson,
/// *Real-Time Collision Detection* §5.1.9, with the degenerate cases handled).
pub fn closest_segment_segment(
    p0: &Vec3,
    p1: &Vec3,
    q0: &Vec3,
    q1: &Vec3,
) -> (Real, Real, Vec3, Vec3) {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.dot(&d1);
    let e = d2.dot(&d2);
    let f = d2.dot(&r);
    let (s, t);
    if a <= Real::MIN_POSITIVE && e <= Real::MIN_POSITIVE {
        (s, t) = (0.0, 0.0);
    } else if a <= Real::MIN_POSITIVE {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(&r);
        if e <= Real::MIN_POSITIVE {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(&d2);
            let denom = a * e - b * b;
            let mut s0 = if denom > 1e-14 * a * e {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t) = (s0, t0);
        }
    }
    (s, t, p0 + d1 * s, q0 + d2 * t)
}
