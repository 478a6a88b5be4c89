//! Vertex–face CCD kernel: a point `p` against a triangle `(a, b, c)`, all moving linearly.
//!
//! Owns: the vertex–face coplanarity function `f(t) = (p−a)·((b−a)×(c−a))` (Provot 1997; CPF
//! paper §3.2, whose normal for a VF pair is the triangle normal) and the conservative inside
//! test. Does not own: the root search (`search.rs`) or result types (`mod.rs`).
//!
//! Inside test: with `n = (b−a)×(c−a)`, the point is in the (closed) triangle at a coplanar time
//! iff `gₐ = n·((b−p)×(c−p)) ≥ 0`, `g_b = n·((c−p)×(a−p)) ≥ 0`, `g_c = n·((a−p)×(b−p)) ≥ 0`
//! (each is `|n|²` times a barycentric coordinate). All three are enclosed over a time interval
//! with outward-rounded interval arithmetic. A degenerate triangle (`n = 0`) makes them all zero,
//! so it is never excluded (conservative).

use super::cubic::{Bernstein, coplanarity_cubic, sub3};
use super::filter::{FILTER_MAX_WIDTH, Verdict, classify, cross, dot, relative_at};
use super::quartic::{Quartic, cross_q, dot_qq};
use super::search::Feature;
use crate::interval::{IVec3, Interval, icross, idot, ilerp_iv};

/// A vertex–face pair: positions at `t = 0` and `t = 1`, order `[p, a, b, c]`.
#[derive(Clone, Copy, Debug)]
pub struct VertexFace {
    /// `[p, a, b, c]` at the start of the step.
    pub start: [[f64; 3]; 4],
    /// `[p, a, b, c]` at the end of the step.
    pub end: [[f64; 3]; 4],
}

/// Interval enclosure of `x - y` for exact doubles.
#[inline]
fn idiff(x: &[f64; 3], y: &[f64; 3]) -> IVec3 {
    [0, 1, 2].map(|k| Interval::point(x[k]) - Interval::point(y[k]))
}

impl Feature for VertexFace {
    fn cubic(&self) -> Bernstein {
        let [p0, a0, b0, c0] = &self.start;
        let [p1, a1, b1, c1] = &self.end;
        coplanarity_cubic(
            (&sub3(p0, a0), &sub3(p1, a1)),
            (&sub3(b0, a0), &sub3(b1, a1)),
            (&sub3(c0, a0), &sub3(c1, a1)),
        )
    }

    fn inside_quartics(&self) -> ([Quartic; 4], usize) {
        let [p0, a0, b0, c0] = &self.start;
        let [p1, a1, b1, c1] = &self.end;
        let lv = |x0: &[f64; 3], y0: &[f64; 3], x1: &[f64; 3], y1: &[f64; 3]| {
            (idiff(x0, y0), idiff(x1, y1))
        };
        let (pa, pb, pc) = (lv(a0, p0, a1, p1), lv(b0, p0, b1, p1), lv(c0, p0, c1, p1));
        let n = cross_q(&lv(b0, a0, b1, a1), &lv(c0, a0, c1, a1));
        let g = [
            dot_qq(&n, &cross_q(&pb, &pc)),
            dot_qq(&n, &cross_q(&pc, &pa)),
            dot_qq(&n, &cross_q(&pa, &pb)),
        ];
        ([g[0], g[1], g[2], g[2]], 3)
    }

    fn may_touch(&self, t: Interval) -> bool {
        // Block: fast floating-point filter on narrow intervals (`filter.rs`).
        let w = t.hi - t.lo;
        if w <= FILTER_MAX_WIDTH {
            // a−p, b−p, c−p, b−a, c−a (indices into [p, a, b, c]).
            let pairs = [(1, 0), (2, 0), (3, 0), (2, 1), (3, 1)];
            let tm = 0.5 * (t.lo + t.hi);
            let ([pa, pb, pc, ab, ac], l, v_max) = relative_at(&self.start, &self.end, pairs, tm);
            let n = cross(&ab, &ac);
            let g = [
                dot(&n, &cross(&pb, &pc)),
                dot(&n, &cross(&pc, &pa)),
                dot(&n, &cross(&pa, &pb)),
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

impl VertexFace {
    /// The inside test by outward-rounded interval arithmetic (wide intervals, or when the
    /// filter is undecided). Kept out of line so the filter path stays small.
    #[inline(never)]
    fn may_touch_interval(&self, t: Interval) -> bool {
        let [p0, a0, b0, c0] = &self.start;
        let [p1, a1, b1, c1] = &self.end;
        // Vectors from p to the triangle corners and two triangle edges, as trajectories.
        let pa = ilerp_iv(&idiff(a0, p0), &idiff(a1, p1), t);
        let pb = ilerp_iv(&idiff(b0, p0), &idiff(b1, p1), t);
        let pc = ilerp_iv(&idiff(c0, p0), &idiff(c1, p1), t);
        let ab = ilerp_iv(&idiff(b0, a0), &idiff(b1, a1), t);
        let ac = ilerp_iv(&idiff(c0, a0), &idiff(c1, a1), t);
        let n = icross(&ab, &ac);
        let ga = idot(&n, &icross(&pb, &pc));
        if ga.certainly_neg() {
            return false;
        }
        let gb = idot(&n, &icross(&pc, &pa));
        if gb.certainly_neg() {
            return false;
        }
        let gc = idot(&n, &icross(&pa, &pb));
        if gc.certainly_neg() {
            return false;
        }
        // Block: a necessary condition that still works for degenerate triangles (n = 0): on
        // every axis, p lies between the smallest and largest corner coordinate.
        !(0..3).any(|k| {
            let all_above = pa[k].certainly_neg() && pb[k].certainly_neg() && pc[k].certainly_neg();
            let all_below = pa[k].certainly_pos() && pb[k].certainly_pos() && pc[k].certainly_pos();
            all_above || all_below
        })
    }
}
