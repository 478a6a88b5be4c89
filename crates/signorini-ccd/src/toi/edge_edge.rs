//! Edge–edge CCD kernel: edge `(a, b)` against edge `(c, d)`, all moving linearly.
//!
//! Owns: the edge–edge coplanarity function `f(t) = (c−a)·((b−a)×(d−c))` (Provot 1997; CPF paper
//! §3.2, whose EE normal is the normalised cross product of the edge vectors) and the
//! conservative inside test. Does not own: the root search or result types.
//!
//! Inside test: with `U = b−a`, `V = d−c`, `W = c−a`, `n = U×V`, the coplanar lines meet at
//! `a + uU = c + vV` with `u|n|² = (W×V)·n` and `v|n|² = (W×U)·n`. The closed segments meet iff
//! `g₁ = (W×V)·n ≥ 0`, `g₂ = −((c−b)×V)·n ≥ 0` (that is `(1−u)|n|²`), `g₃ = (W×U)·n ≥ 0` and
//! `g₄ = −((d−a)×U)·n ≥ 0` (`(1−v)|n|²`). Parallel edges (`n = 0`) make all four zero, so they
//! are never excluded by this test (conservative); two necessary conditions then still exclude
//! apart pairs: the projections on `U` must overlap, and so must the per-axis extents.

use super::cubic::{Bernstein, coplanarity_cubic, sub3};
use super::filter::{FILTER_MAX_WIDTH, Verdict, classify, cross, dot, relative_at};
use super::quartic::{Quartic, cross_q, dot_qq, neg};
use super::search::Feature;
use crate::interval::{IVec3, Interval, icross, idot, ilerp_iv};

/// An edge–edge pair: positions at `t = 0` and `t = 1`, order `[a, b, c, d]` (edges `ab`, `cd`).
#[derive(Clone, Copy, Debug)]
pub struct EdgeEdge {
    /// `[a, b, c, d]` at the start of the step.
    pub start: [[f64; 3]; 4],
    /// `[a, b, c, d]` at the end of the step.
    pub end: [[f64; 3]; 4],
}

/// Interval enclosure of `x - y` for exact doubles.
#[inline]
fn idiff(x: &[f64; 3], y: &[f64; 3]) -> IVec3 {
    [0, 1, 2].map(|k| Interval::point(x[k]) - Interval::point(y[k]))
}

impl Feature for EdgeEdge {
    fn cubic(&self) -> Bernstein {
        let [a0, b0, c0, d0] = &self.start;
        let [a1, b1, c1, d1] = &self.end;
        coplanarity_cubic(
            (&sub3(c0, a0), &sub3(c1, a1)),
            (&sub3(b0, a0), &sub3(b1, a1)),
            (&sub3(d0, c0), &sub3(d1, c1)),
        )
    }

    fn inside_quartics(&self) -> ([Quartic; 4], usize) {
        let [a0, b0, c0, d0] = &self.start;
        let [a1, b1, c1, d1] = &self.end;
        let lv = |x0: &[f64; 3], y0: &[f64; 3], x1: &[f64; 3], y1: &[f64; 3]| {
            (idiff(x0, y0), idiff(x1, y1))
        };
        let (u, v, w) = (lv(b0, a0, b1, a1), lv(d0, c0, d1, c1), lv(c0, a0, c1, a1));
        let (cb, da) = (lv(c0, b0, c1, b1), lv(d0, a0, d1, a1));
        let n = cross_q(&u, &v);
        let g = [
            dot_qq(&cross_q(&w, &v), &n),
            neg(dot_qq(&cross_q(&cb, &v), &n)),
            dot_qq(&cross_q(&w, &u), &n),
            neg(dot_qq(&cross_q(&da, &u), &n)),
        ];
        (g, 4)
    }

    fn may_touch(&self, t: Interval) -> bool {
        // Block: fast floating-point filter on narrow intervals (`filter.rs`).
        let w = t.hi - t.lo;
        if w <= FILTER_MAX_WIDTH {
            // U = b−a, V = d−c, W = c−a, c−b, d−a (indices into [a, b, c, d]).
            let pairs = [(1, 0), (3, 2), (2, 0), (2, 1), (3, 0)];
            let tm = 0.5 * (t.lo + t.hi);
            let ([u, v, w_, cb, da], l, v_max) = relative_at(&self.start, &self.end, pairs, tm);
            let n = cross(&u, &v);
            let g = [
                dot(&cross(&w_, &v), &n),
                -dot(&cross(&cb, &v), &n),
                dot(&cross(&w_, &u), &n),
                -dot(&cross(&da, &u), &n),
            ];
            match classify(&g, l, v_max, w) {
                Verdict::Outside => return false,
                Verdict::Inside => return true,
                Verdict::Unknown => {}
            }
        }
        self.may_touch_interval(t)
    }
}

impl EdgeEdge {
    /// The inside test by outward-rounded interval arithmetic (wide intervals, or when the
    /// filter is undecided). Kept out of line so the filter path stays small.
    #[inline(never)]
    fn may_touch_interval(&self, t: Interval) -> bool {
        let [a0, b0, c0, d0] = &self.start;
        let [a1, b1, c1, d1] = &self.end;
        let u = ilerp_iv(&idiff(b0, a0), &idiff(b1, a1), t);
        let v = ilerp_iv(&idiff(d0, c0), &idiff(d1, c1), t);
        let w = ilerp_iv(&idiff(c0, a0), &idiff(c1, a1), t);
        let n = icross(&u, &v);
        if idot(&icross(&w, &v), &n).certainly_neg() {
            return false;
        }
        let cb = ilerp_iv(&idiff(c0, b0), &idiff(c1, b1), t);
        if (-idot(&icross(&cb, &v), &n)).certainly_neg() {
            return false;
        }
        if idot(&icross(&w, &u), &n).certainly_neg() {
            return false;
        }
        let da = ilerp_iv(&idiff(d0, a0), &idiff(d1, a1), t);
        if (-idot(&icross(&da, &u), &n)).certainly_neg() {
            return false;
        }
        // Block: parallel (or nearly) edges: all four tests may be undecided. Project everything
        // on U: the segments can only meet if their projections overlap. With s_x = U·(x − a):
        // [0, |U|²] must meet [min(s_c, s_d), max(s_c, s_d)].
        let uu = idot(&u, &u);
        let sc = idot(&u, &w);
        let sd = idot(&u, &da);
        let below = sc.certainly_neg() && sd.certainly_neg();
        let above = (sc - uu).certainly_pos() && (sd - uu).certainly_pos();
        if below || above {
            return false;
        }
        // Block: per-axis bounding-interval separation of the two segments (also valid for
        // degenerate, zero-length edges): c and d both certainly beyond a and b on one axis.
        let db = ilerp_iv(&idiff(d0, b0), &idiff(d1, b1), t);
        !(0..3).any(|k| {
            let rel = [w[k], cb[k], da[k], db[k]];
            rel.iter().all(|x| x.certainly_pos()) || rel.iter().all(|x| x.certainly_neg())
        })
    }
}
