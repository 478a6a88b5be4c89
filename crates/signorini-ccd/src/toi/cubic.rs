//! The coplanarity cubic in Bernstein form, with rigorous coefficient enclosures.
//!
//! Owns: building the four Bernstein coefficients of `f(t) = det(A(t), B(t), C(t))` for three
//! linearly moving vectors (Provot 1997; CPF paper §3.2, the "cubic polynomial" of linear
//! trajectories), their floating-point error bound, de Casteljau subdivision at the midpoint and
//! interval point evaluation. Does not own: root search (see `search.rs`) or inside tests.
//!
//! ## Error bound
//! With `A(t) = A₀(1−t) + A₁t` (same for `B`, `C`), the blossom of the trilinear determinant gives
//! the Bernstein coefficients on `[0, 1]`:
//! `β₀ = det(A₀,B₀,C₀)`, `β₁ = (det(A₁,B₀,C₀)+det(A₀,B₁,C₀)+det(A₀,B₀,C₁))/3`, `β₂` symmetric,
//! `β₃ = det(A₁,B₁,C₁)`. Each vector component is one rounded difference of exact doubles, each
//! determinant term passes through at most 8 roundings, and `β₁`, `β₂` add three more, so with
//! `u = 2⁻⁵³` the computed `β̂ₖ` satisfies `|β̂ₖ − βₖ| ≤ 11u·Mₖ + O(u²)` where `Mₖ` is the same
//! expression evaluated with absolute values (the "permanent"). We use `16u·M̂ₖ + 2⁻¹⁰²²` (slack
//! for the `O(u²)` terms, the rounding of `M̂ₖ` itself, and underflow), so the exact `βₖ` lies in
//! the returned interval. Subdivision and evaluation then use outward-rounded interval arithmetic.

use crate::interval::{Interval, down, up};

/// `u = 2⁻⁵³`, the unit roundoff of `f64`.
const UNIT_ROUNDOFF: f64 = f64::EPSILON * 0.5;
/// Relative error factor on the permanent (see the module docs): 16 u.
pub const COEFF_ERR_FACTOR: f64 = 16.0 * UNIT_ROUNDOFF;
/// Absolute slack for underflow in the coefficient bound.
const COEFF_ERR_ABS: f64 = f64::MIN_POSITIVE;

/// Bernstein coefficient enclosures of a cubic on some parameter interval.
pub type Bernstein = [Interval; 4];

/// `a - b` for 3-vectors of doubles (rounded; the error is part of the bound above).
#[inline]
pub fn sub3(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `det(a, b, c) = a · (b × c)` and its permanent `|a| · (|b| ⊗ |c|)`.
#[inline]
fn det_perm(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> (f64, f64) {
    let (p0, p1) = (b[1] * c[2], b[2] * c[1]);
    let (q0, q1) = (b[2] * c[0], b[0] * c[2]);
    let (r0, r1) = (b[0] * c[1], b[1] * c[0]);
    let det = a[0] * (p0 - p1) + a[1] * (q0 - q1) + a[2] * (r0 - r1);
    let perm = a[0].abs() * (p0.abs() + p1.abs())
        + a[1].abs() * (q0.abs() + q1.abs())
        + a[2].abs() * (r0.abs() + r1.abs());
    (det, perm)
}

/// Enclosure `[v − e, v + e]` with `e = 16u·perm + tiny`, rounded outward.
#[inline]
fn enclose(v: f64, perm: f64) -> Interval {
    let e = COEFF_ERR_FACTOR * perm + COEFF_ERR_ABS;
    Interval::new(down(v - e), up(v + e))
}

/// Bernstein coefficient enclosures on `[0, 1]` of `det(A(t), B(t), C(t))` where each vector
/// moves linearly from its `*0` value at `t = 0` to its `*1` value at `t = 1`.
///
/// The vectors must be single rounded differences of exact positions (see the module docs).
pub fn coplanarity_cubic(
    a: (&[f64; 3], &[f64; 3]),
    b: (&[f64; 3], &[f64; 3]),
    c: (&[f64; 3], &[f64; 3]),
) -> Bernstein {
    let (a0, a1) = a;
    let (b0, b1) = b;
    let (c0, c1) = c;
    let (d000, m000) = det_perm(a0, b0, c0);
    let (d111, m111) = det_perm(a1, b1, c1);
    let (d100, m100) = det_perm(a1, b0, c0);
    let (d010, m010) = det_perm(a0, b1, c0);
    let (d001, m001) = det_perm(a0, b0, c1);
    let (d011, m011) = det_perm(a0, b1, c1);
    let (d101, m101) = det_perm(a1, b0, c1);
    let (d110, m110) = det_perm(a1, b1, c0);
    const THIRD: f64 = 1.0 / 3.0;
    [
        enclose(d000, m000),
        enclose((d100 + d010 + d001) * THIRD, (m100 + m010 + m001) * THIRD),
        enclose((d011 + d101 + d110) * THIRD, (m011 + m101 + m110) * THIRD),
        enclose(d111, m111),
    ]
}

/// The largest coefficient radius (half-width) of an enclosure: the documented absolute error
/// bound on `f` over the step.
pub fn max_radius(c: &Bernstein) -> f64 {
    c.iter().map(|x| 0.5 * (x.hi - x.lo)).fold(0.0, f64::max)
}

/// De Casteljau subdivision at the parameter midpoint: coefficients on the left and right halves.
#[inline]
pub fn split(c: &Bernstein) -> (Bernstein, Bernstein) {
    let m01 = c[0].avg(c[1]);
    let m12 = c[1].avg(c[2]);
    let m23 = c[2].avg(c[3]);
    let m012 = m01.avg(m12);
    let m123 = m12.avg(m23);
    let m = m012.avg(m123);
    ([c[0], m01, m012, m], [m, m123, m23, c[3]])
}

/// Enclosure of the cubic with coefficients `c` on `[0, 1]` at the exact parameter `t`.
pub fn eval(c: &Bernstein, t: f64) -> Interval {
    let t = Interval::point(t);
    let s = Interval::point(1.0) - t;
    let lerp = |x: Interval, y: Interval| x * s + y * t;
    let m01 = lerp(c[0], c[1]);
    let m12 = lerp(c[1], c[2]);
    let m23 = lerp(c[2], c[3]);
    let m012 = lerp(m01, m12);
    let m123 = lerp(m12, m23);
    lerp(m012, m123)
}

/// Floating-point view of a coefficient enclosure for fast evaluation: midpoints, power-basis
/// coefficients (for Newton) and the certified evaluation error bound.
#[derive(Clone, Copy, Debug)]
pub struct FastCubic {
    mid: [f64; 4],
    power: [f64; 4],
    /// Bound on `|computed − exact|` of [`FastCubic::value`] at any `t ∈ [0, 1]`.
    pub err: f64,
}

impl FastCubic {
    /// Prepare. The error bound: the value is computed by floating-point de Casteljau on the
    /// coefficient midpoints; it is off by at most the largest coefficient radius (Bernstein
    /// weights sum to one) plus the rounding of three levels of convex combinations, each
    /// `≤ 3u·M` with `M = max|βₖ|`; we use `16u·M` for the rounding part.
    pub fn new(c: &Bernstein) -> Self {
        let b = [c[0].mid(), c[1].mid(), c[2].mid(), c[3].mid()];
        let r = max_radius(c);
        let m = b.iter().fold(0.0f64, |a, x| a.max(x.abs())) + r;
        let power = [
            b[0],
            3.0 * (b[1] - b[0]),
            3.0 * (b[2] - 2.0 * b[1] + b[0]),
            b[3] - 3.0 * b[2] + 3.0 * b[1] - b[0],
        ];
        FastCubic {
            mid: b,
            power,
            err: r + COEFF_ERR_FACTOR * m + COEFF_ERR_ABS,
        }
    }

    /// Floating-point value at `t` (de Casteljau on the midpoints).
    #[inline]
    pub fn value(&self, t: f64) -> f64 {
        let b = &self.mid;
        let s = 1.0 - t;
        let l = |x: f64, y: f64| x * s + y * t;
        let (m01, m12, m23) = (l(b[0], b[1]), l(b[1], b[2]), l(b[2], b[3]));
        l(l(m01, m12), l(m12, m23))
    }

    /// Floating-point value and derivative at `t` (power basis, Horner), for Newton steps.
    #[inline]
    pub fn value_and_derivative(&self, t: f64) -> (f64, f64) {
        let a = &self.power;
        let v = ((a[3] * t + a[2]) * t + a[1]) * t + a[0];
        let d = (3.0 * a[3] * t + 2.0 * a[2]) * t + a[1];
        (v, d)
    }

    /// Half the second derivative at `t` (power basis), for the Newton error estimate.
    #[inline]
    pub fn half_second_derivative(&self, t: f64) -> f64 {
        3.0 * self.power[3] * t + self.power[2]
    }

    /// Certified sign at the exact parameter `t ∈ [0, 1]`: `+1`, `-1`, or `0` if undecided.
    #[inline]
    pub fn sign_at(&self, t: f64) -> i8 {
        let v = self.value(t);
        if v > self.err {
            1
        } else if v < -self.err {
            -1
        } else {
            0
        }
    }
}

/// Sign pattern summary of a coefficient enclosure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// All coefficients certainly of one sign: no root on the interval (convex-hull property).
    NoRoot,
    /// All coefficients certainly nonzero with exactly one sign change: exactly one simple root
    /// strictly inside (Descartes' rule of signs for the Bernstein basis). The field is the sign
    /// of `f` at the left end (`+1` or `-1`).
    OneRoot(i8),
    /// Every coefficient enclosure contains zero: `f` is zero on the interval within the error
    /// bound (for example coplanar motion for the whole step).
    Flat,
    /// Anything else: subdivide.
    Unknown,
}

/// Classify a coefficient enclosure.
#[inline]
pub fn pattern(c: &Bernstein) -> Pattern {
    let pos = c.iter().filter(|x| x.certainly_pos()).count();
    let neg = c.iter().filter(|x| x.certainly_neg()).count();
    if pos == 4 || neg == 4 {
        return Pattern::NoRoot;
    }
    if pos + neg == 0 {
        return Pattern::Flat;
    }
    if pos + neg == 4 {
        let s: [bool; 4] = [
            c[0].certainly_pos(),
            c[1].certainly_pos(),
            c[2].certainly_pos(),
            c[3].certainly_pos(),
        ];
        let changes = (s[0] != s[1]) as u8 + (s[1] != s[2]) as u8 + (s[2] != s[3]) as u8;
        if changes == 1 {
            return Pattern::OneRoot(if s[0] { 1 } else { -1 });
        }
    }
    Pattern::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(c: [f64; 4]) -> Bernstein {
        c.map(Interval::point)
    }

    #[test]
    fn split_reproduces_values() {
        // f(t) = (t - 1/4)(t - 3/4)(t - 1/2) in Bernstein form via sampling identities.
        let f = |t: f64| (t - 0.25) * (t - 0.75) * (t - 0.5);
        // Power to Bernstein: b0=f(0), b3=f(1), b1 = a0 + a1/3, b2 = a0 + 2a1/3 + a2/3.
        let (a0, a1, a2, a3) = (-0.09375, 0.6875, -1.5, 1.0);
        let b = exact([
            a0,
            a0 + a1 / 3.0,
            a0 + 2.0 * a1 / 3.0 + a2 / 3.0,
            a0 + a1 + a2 + a3,
        ]);
        for t in [0.0, 0.1, 0.3, 0.5, 0.9, 1.0] {
            let v = eval(&b, t);
            assert!(v.lo <= f(t) + 1e-15 && v.hi >= f(t) - 1e-15, "t={t} {v:?}");
        }
        let (l, r) = split(&b);
        let vl = eval(&l, 0.5);
        assert!((vl.mid() - f(0.25)).abs() < 1e-15);
        let vr = eval(&r, 0.5);
        assert!((vr.mid() - f(0.75)).abs() < 1e-15);
    }

    #[test]
    fn patterns() {
        assert_eq!(pattern(&exact([1.0, 2.0, 0.5, 3.0])), Pattern::NoRoot);
        assert_eq!(pattern(&exact([1.0, 2.0, -0.5, -3.0])), Pattern::OneRoot(1));
        assert_eq!(pattern(&exact([1.0, -2.0, 0.5, -3.0])), Pattern::Unknown);
        assert_eq!(pattern(&exact([0.0, 0.0, 0.0, 0.0])), Pattern::Flat);
    }
}
