//! Whole-mesh queries used by the penalty step: point inside a closed mesh (generalised
//! winding number), closest surface point, and axis-aligned bounds.

use signorini_math::{Real, Vec3};
use signorini_penalty::pair::closest_on_triangle;
use std::f64::consts::PI;

/// Generalised winding number of a closed, outward mesh around `p` (1 inside, 0 outside;
/// solid angles by Van Oosterom & Strackee 1983).
pub fn winding_number(p: &Vec3, x: &[Vec3], tris: &[[u32; 3]]) -> Real {
    let mut sum = 0.0;
    for t in tris {
        let [a, b, c] = t.map(|i| x[i as usize] - p);
        let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
        let num = a.dot(&b.cross(&c));
        let den = la * lb * lc + a.dot(&b) * lc + a.dot(&c) * lb + b.dot(&c) * la;
        sum += 2.0 * num.atan2(den);
    }
    sum / (4.0 * PI)
}

/// `true` if `p` is inside the closed mesh (winding number above one half).
pub fn inside(p: &Vec3, x: &[Vec3], tris: &[[u32; 3]]) -> bool {
    winding_number(p, x, tris) > 0.5
}

/// Closest surface point to `p`: `(triangle, barycentric weights, point, distance)`.
pub fn closest_point(p: &Vec3, x: &[Vec3], tris: &[[u32; 3]]) -> (usize, [Real; 3], Vec3, Real) {
    let mut best = (0, [1.0, 0.0, 0.0], x[tris[0][0] as usize], Real::INFINITY);
    for (i, t) in tris.iter().enumerate() {
        let [a, b, c] = t.map(|k| x[k as usize]);
        let w = closest_on_triangle(p, &a, &b, &c);
        let q = w[0] * a + w[1] * b + w[2] * c;
        let d = (q - p).norm();
        if d < best.3 {
            best = (i, w, q, d);
        }
    }
    best
}

/// Bounds `(min, max)` of a point set.
pub fn bounds(x: &[Vec3]) -> (Vec3, Vec3) {
    let mut lo = Vec3::repeat(Real::INFINITY);
    let mut hi = Vec3::repeat(Real::NEG_INFINITY);
    for v in x {
        lo = lo.inf(v);
        hi = hi.sup(v);
    }
    (lo, hi)
}

/// `true` if `p` is inside the box `(lo, hi)`.
pub fn in_box(p: &Vec3, b: &(Vec3, Vec3)) -> bool {
    (0..3).all(|k| p[k] >= b.0[k] && p[k] <= b.1[k])
}
