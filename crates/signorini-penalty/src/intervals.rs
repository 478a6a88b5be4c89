//! Penetration time intervals (CPF §3.2, Fig. 3): the pieces of `[0, 1]` where a tracked pair's
//! cubic `g(t) = m(t)·s(t)` has the sign opposite to its outside sign `σ`.
//!
//! Owns: [`Intervals`] (at most two pieces, no allocation) and [`penetration_intervals`]. The
//! roots are found in floating point: `[0, 1]` is cut at the critical points of `g` (roots of
//! the quadratic `g'`) into monotone pieces, each sign change is bracketed and refined by
//! safeguarded Newton–bisection to 1e-15. Every root splits the step, including for a pair that
//! is already penetrating at `t = 0` (intervals `[0, t′]` and `[t″, 1]` of Fig. 3b). The
//! certified first-contact test is the CCD crate's; here the pair is already known to collide,
//! so only the sign pattern matters (docs/formulation-notes.md §14: after detection, no inside test
//! is needed).

use signorini_math::Real;

/// Up to two disjoint intervals `[lo, hi] ⊂ [0, 1]` in increasing order (a cubic has at most
/// three roots, so at most two pieces of one sign).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Intervals {
    items: [[Real; 2]; 2],
    len: usize,
}

impl Intervals {
    /// The intervals.
    pub fn as_slice(&self) -> &[[Real; 2]] {
        &self.items[..self.len]
    }

    /// `true` if there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Total length.
    pub fn measure(&self) -> Real {
        self.as_slice().iter().map(|i| i[1] - i[0]).sum()
    }

    /// Append `[lo, hi]`, merging with the last one when they touch; ignores empty ones.
    pub fn push(&mut self, lo: Real, hi: Real) {
        if hi <= lo {
            return;
        }
        if self.len > 0 && self.items[self.len - 1][1] >= lo {
            self.items[self.len - 1][1] = hi;
        } else if self.len < 2 {
            self.items[self.len] = [lo, hi];
            self.len += 1;
        } else {
            // Cannot happen for a cubic; keep the union conservative.
            self.items[1][1] = hi;
        }
    }
}

/// Evaluate the power-basis cubic `g` at `t`.
#[inline]
pub fn eval_cubic(g: &[Real; 4], t: Real) -> Real {
    ((g[3] * t + g[2]) * t + g[1]) * t + g[0]
}

/// Roots of `g` in the open interval `(0, 1)`, increasing; returns the count.
pub fn cubic_roots(g: &[Real; 4]) -> ([Real; 3], usize) {
    // Block: monotone pieces between the critical points of g.
    let mut cuts = [0.0, 1.0, 1.0, 1.0];
    let mut nc = 1;
    let (a, b, c) = (3.0 * g[3], 2.0 * g[2], g[1]);
    let mut add = |t: Real| {
        if t > 0.0 && t < 1.0 {
            cuts[nc] = t;
            nc += 1;
        }
    };
    if a != 0.0 {
        let disc = b * b - 4.0 * a * c;
        if disc > 0.0 {
            let q = -0.5 * (b + b.signum() * disc.sqrt());
            let (r1, r2) = (q / a, if q != 0.0 { c / q } else { 0.0 });
            add(r1.min(r2));
            add(r1.max(r2));
        }
    } else if b != 0.0 {
        add(-c / b);
    }
    cuts[nc] = 1.0;
    nc += 1;
    // Block: one bracketed root per monotone piece with a sign change.
    let mut roots = [0.0; 3];
    let mut n = 0;
    for k in 0..nc - 1 {
        let (lo, hi) = (cuts[k], cuts[k + 1]);
        let (flo, fhi) = (eval_cubic(g, lo), eval_cubic(g, hi));
        if flo == 0.0 && lo > 0.0 && (n == 0 || roots[n - 1] < lo) {
            roots[n] = lo;
            n += 1;
            continue;
        }
        if (flo < 0.0) != (fhi < 0.0) && flo != 0.0 && fhi != 0.0 && n < 3 {
            roots[n] = refine(g, lo, hi, flo);
            n += 1;
        }
    }
    (roots, n)
}

/// Safeguarded Newton–bisection on a bracket with a sign change: Newton steps inside the
/// bracket, bisection otherwise; stops when the step or the bracket falls below 1e-15.
fn refine(g: &[Real; 4], mut lo: Real, mut hi: Real, flo: Real) -> Real {
    let neg_lo = flo < 0.0;
    let mut t = 0.5 * (lo + hi);
    for _ in 0..60 {
        let f = eval_cubic(g, t);
        if f == 0.0 {
            return t;
        }
        if (f < 0.0) == neg_lo {
            lo = t;
        } else {
            hi = t;
        }
        let df = (3.0 * g[3] * t + 2.0 * g[2]) * t + g[1];
        let newton = t - f / df;
        let next = if df != 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - t).abs() <= 1e-15 || hi - lo <= 1e-15 {
            return next;
        }
        t = next;
    }
    t
}

/// The pieces of `[0, 1]` where `σ·g < 0` (penetrating), `σ = ±1` the outside sign.
pub fn penetration_intervals(g: &[Real; 4], outside: i8) -> Intervals {
    let (roots, n) = cubic_roots(g);
    let sigma = outside as Real;
    let mut out = Intervals::default();
    let mut lo = 0.0;
    for k in 0..=n {
        let hi = roots.get(k).copied().filter(|_| k < n).unwrap_or(1.0);
        if hi > lo && sigma * eval_cubic(g, 0.5 * (lo + hi)) < 0.0 {
            out.push(lo, hi);
        }
        lo = hi;
    }
    out
}
