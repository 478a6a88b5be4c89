//! Closed floating-point intervals with outward rounding.
//!
//! Owns: the [`Interval`] type used by the CCD kernels to bound the exact value of a polynomial
//! expression of exact `f64` inputs. Every arithmetic result is rounded to nearest and then moved
//! outward by `2ε|x| + 2⁻¹⁰⁷⁴` (ε = 2⁻⁵², see [`down`] / [`up`]): round-to-nearest errs by at
//! most half an ulp `≤ ε|x|/2` (or `2⁻¹⁰⁷⁵` for subnormals), and the widening step itself rounds
//! by at most another half ulp, so the exact real result of the operation on any reals inside the
//! operands always lies inside the result. This is branch-free, unlike `f64::next_up`, which
//! matters for speed. Does not own: the polynomials themselves.
//!
//! Non-finite values propagate as infinite or NaN bounds; [`Interval::certainly_neg`] and
//! [`Interval::certainly_pos`] are `false` for them, so callers treat them as "undecided", which is
//! the conservative answer for collision detection.

use std::ops::{Add, Mul, Neg, Sub};

/// Smallest positive subnormal, `2⁻¹⁰⁷⁴`.
const TINY: f64 = f64::from_bits(1);

/// A value `≤` every real within half an ulp of `x` (see the module docs).
#[inline(always)]
pub fn down(x: f64) -> f64 {
    x - (x.abs() * (2.0 * f64::EPSILON) + TINY)
}

/// A value `≥` every real within half an ulp of `x`.
#[inline(always)]
pub fn up(x: f64) -> f64 {
    x + (x.abs() * (2.0 * f64::EPSILON) + TINY)
}

/// A closed interval `[lo, hi]` of reals, `lo <= hi` for finite bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

impl Interval {
    /// The degenerate interval `[x, x]` (exact).
    #[inline]
    pub const fn point(x: f64) -> Self {
        Interval { lo: x, hi: x }
    }

    /// The interval `[lo, hi]`.
    #[inline]
    pub const fn new(lo: f64, hi: f64) -> Self {
        Interval { lo, hi }
    }

    /// `true` if every value in the interval is `< 0`.
    #[inline]
    pub fn certainly_neg(self) -> bool {
        self.hi < 0.0
    }

    /// `true` if every value in the interval is `> 0`.
    #[inline]
    pub fn certainly_pos(self) -> bool {
        self.lo > 0.0
    }

    /// `true` unless the interval certainly excludes zero (NaN bounds count as containing it).
    #[inline]
    pub fn may_be_zero(self) -> bool {
        !(self.certainly_neg() || self.certainly_pos())
    }

    /// The midpoint (rounded), used only for floating-point estimates.
    #[inline]
    pub fn mid(self) -> f64 {
        0.5 * self.lo + 0.5 * self.hi
    }

    /// Interval of the average `(self + other) / 2`, rounded outward.
    #[inline]
    pub fn avg(self, other: Interval) -> Interval {
        Interval {
            lo: down((self.lo + other.lo) * 0.5),
            hi: up((self.hi + other.hi) * 0.5),
        }
    }

    /// Interval of `self² ` (non-negative), rounded outward.
    #[inline]
    pub fn sqr(self) -> Interval {
        let a = self.lo * self.lo;
        let b = self.hi * self.hi;
        if self.lo >= 0.0 {
            Interval::new(down(a).max(0.0), up(b))
        } else if self.hi <= 0.0 {
            Interval::new(down(b).max(0.0), up(a))
        } else {
            Interval::new(0.0, up(a.max(b)))
        }
    }
}

impl Add for Interval {
    type Output = Interval;
    #[inline(always)]
    fn add(self, o: Interval) -> Interval {
        Interval {
            lo: down(self.lo + o.lo),
            hi: up(self.hi + o.hi),
        }
    }
}

impl Sub for Interval {
    type Output = Interval;
    #[inline(always)]
    fn sub(self, o: Interval) -> Interval {
        Interval {
            lo: down(self.lo - o.hi),
            hi: up(self.hi - o.lo),
        }
    }
}

impl Neg for Interval {
    type Output = Interval;
    #[inline(always)]
    fn neg(self) -> Interval {
        Interval {
            lo: -self.hi,
            hi: -self.lo,
        }
    }
}

impl Mul for Interval {
    type Output = Interval;
    #[inline(always)]
    fn mul(self, o: Interval) -> Interval {
        let a = self.lo * o.lo;
        let b = self.lo * o.hi;
        let c = self.hi * o.lo;
        let d = self.hi * o.hi;
        Interval {
            lo: down(a.min(b).min(c.min(d))),
            hi: up(a.max(b).max(c.max(d))),
        }
    }
}

/// A 3-vector of intervals.
pub type IVec3 = [Interval; 3];

/// Componentwise difference of two interval vectors.
#[inline(always)]
pub fn isub(a: &IVec3, b: &IVec3) -> IVec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Cross product of two interval vectors.
#[inline(always)]
pub fn icross(a: &IVec3, b: &IVec3) -> IVec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Dot product of two interval vectors.
#[inline(always)]
pub fn idot(a: &IVec3, b: &IVec3) -> Interval {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Enclosure of the linear trajectory `x0 + t (x1 - x0)` for all `t` in `t` (exact inputs).
#[inline(always)]
pub fn ilerp(x0: &[f64; 3], x1: &[f64; 3], t: Interval) -> IVec3 {
    let one = |k: usize| {
        let d = Interval::point(x1[k]) - Interval::point(x0[k]);
        Interval::point(x0[k]) + t * d
    };
    [one(0), one(1), one(2)]
}

/// Enclosure of `(x0 + t (x1 - x0))` where `x0`, `x1` are themselves interval vectors.
#[inline(always)]
pub fn ilerp_iv(x0: &IVec3, x1: &IVec3, t: Interval) -> IVec3 {
    [
        x0[0] + t * (x1[0] - x0[0]),
        x0[1] + t * (x1[1] - x0[1]),
        x0[2] + t * (x1[2] - x0[2]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encloses_exact_third() {
        // 1/3 is not representable; the enclosure of 1 * (1/3 computed) must straddle it.
        let a = Interval::point(1.0);
        let b = Interval::point(3.0);
        let s = a + b;
        assert!(s.lo < 4.0 && s.hi > 4.0);
        let p = Interval::point(0.1) * Interval::point(0.1);
        assert!(p.lo <= 0.1 * 0.1 && p.hi >= 0.1 * 0.1 && p.lo < p.hi);
    }

    #[test]
    fn signs_and_nan() {
        assert!(Interval::new(-2.0, -1.0).certainly_neg());
        assert!(Interval::new(1.0, 2.0).certainly_pos());
        assert!(Interval::new(-1.0, 2.0).may_be_zero());
        assert!(Interval::new(f64::NAN, f64::NAN).may_be_zero());
        assert_eq!(Interval::new(-3.0, 2.0).sqr().lo, 0.0);
    }
}
