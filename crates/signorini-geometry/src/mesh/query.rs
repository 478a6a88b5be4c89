//! Closest-point and inside queries on triangles, segments and whole triangle meshes: the
//! closest point of a triangle (Ericson, *Real-Time Collision Detection* §5.1.5) and of two
//! segments (§5.1.9), the generalised winding number of a closed mesh (solid angles by Van
//! Oosterom & Strackee 1983), the closest surface point, and a point set's bounds. Used by the
//! penalty models' pair tracking, the penalty steppers' penetration measures and scene runs.
//!
//! Meshes are given as vertex positions `x` and triangles `tris` (indices into `x`), so the
//! same queries serve [`super::TriMesh`], swept meshes at any time, and deformables.

use signorini_math::{Real, Vec3};
use std::f64::consts::PI;

/// Closest point on triangle `(a, b, c)` to `p`, as barycentric weights `[w_a, w_b, w_c]`
/// (Voronoi-region walk; Ericson, *Real-Time Collision Detection* §5.1.5).
pub fn closest_on_triangle(p: &Vec3, a: &Vec3, b: &Vec3, c: &Vec3) -> [Real; 3] {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return [0.0, 1.0, 0.0];
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return [1.0 - v, v, 0.0];
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return [0.0, 0.0, 1.0];
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return [1.0 - w, 0.0, w];
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return [0.0, 1.0 - w, w];
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    [1.0 - v - w, v, w]
}

/// Closest points of segments `(a, b)` and `(c, d)` as the weights `[w_a, w_c]` of `a` and `c`
/// (`P = w_a a + (1−w_a) b`, `Q = w_c c + (1−w_c) d`); parallel segments take the middle of
/// the overlap (Ericson §5.1.9, clamped).
pub fn closest_on_segments(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> [Real; 3] {
    let (d1, d2, r) = (b - a, d - c, a - c);
    let (aa, ee, f) = (d1.dot(&d1), d2.dot(&d2), d2.dot(&r));
    let tiny = 1e-300;
    let (s, t);
    if aa <= tiny && ee <= tiny {
        (s, t) = (0.0, 0.0);
    } else if aa <= tiny {
        (s, t) = (0.0, (f / ee).clamp(0.0, 1.0));
    } else {
        let cc = d1.dot(&r);
        if ee <= tiny {
            (s, t) = ((-cc / aa).clamp(0.0, 1.0), 0.0);
        } else {
            let bb = d1.dot(&d2);
            let den = aa * ee - bb * bb;
            let s0 = if den > 1e-14 * aa * ee {
                ((bb * f - cc * ee) / den).clamp(0.0, 1.0)
            } else {
                // Parallel: the middle of the projection of cd onto ab, clamped.
                let p0 = (-cc / aa).clamp(0.0, 1.0);
                let p1 = ((-cc + bb) / aa).clamp(0.0, 1.0);
                0.5 * (p0 + p1)
            };
            let t0 = (bb * s0 + f) / ee;
            if t0 < 0.0 {
                (s, t) = ((-cc / aa).clamp(0.0, 1.0), 0.0);
            } else if t0 > 1.0 {
                (s, t) = (((bb - cc) / aa).clamp(0.0, 1.0), 1.0);
            } else {
                (s, t) = (s0, t0);
            }
        }
    }
    [1.0 - s, 1.0 - t, 0.0]
}

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
