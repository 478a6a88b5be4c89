//! Conservative root search of the coplanarity cubic on the normalised step `[0, 1]`.
//!
//! Owns: the depth-first Bernstein subdivision that finds every root of `f` in `[0, 1]` in
//! increasing order, the certified narrowing of isolated roots, the inside-test pruning, and the
//! node budget. Does not own: the cubic's coefficients or the inside functions (those come from a
//! [`Feature`], see `vertex_face.rs` and `edge_edge.rs`).
//!
//! Algorithm (our own; the idea follows Provot 1997 / CPF §3.2 "roots of a cubic" with a rigorous
//! filter in the spirit of the inclusion-based methods of Wang et al. 2021):
//! 1. Enclose the Bernstein coefficients of `f` on `[0, 1]` (`cubic.rs`).
//! 2. Pop the leftmost pending interval. If its coefficients certainly share one sign, `f` has no
//!    root there. If they show exactly one sign change, there is exactly one simple root: narrow it
//!    by Newton + certified sign probes to width ≤ [`ROOT_WIDTH`] and run the feature's inside test
//!    on the narrowed enclosure. If every coefficient contains zero, `f` is zero within its error
//!    bound on the whole interval ("flat", e.g. coplanar motion): scan it with the inside test
//!    alone. Otherwise split at the midpoint (exact, dyadic), down to width 2⁻[`MAX_DEPTH`].
//! 3. A root enclosure counts as a contact unless the inside test *certainly* fails on all of it.
//!
//! Every step keeps the exact root inside the enclosures, so no contact is ever dropped; the only
//! approximations err towards reporting contact (false positives), including when the node budget
//! [`MAX_NODES`] runs out.

use super::cubic::{self, Bernstein, FastCubic, Pattern};
use crate::interval::Interval;

/// Deepest subdivision level: leaves are `2⁻⁴⁶ ≈ 1.4e-14` wide in `t`.
pub const MAX_DEPTH: u32 = 46;
/// Target width of the enclosure of an isolated simple root (`2⁻⁴⁴ ≈ 5.7e-14`).
pub const ROOT_WIDTH: f64 = 1.0 / 17_592_186_044_416.0;
/// Node budget per query (subdivision plus inside-test scans). When it runs out, the rest of the
/// step is reported as a possible contact (conservative).
pub const MAX_NODES: u32 = 1 << 14;
/// Depth from which the first-contact search prunes unresolved intervals by the inside test.
const PRUNE_DEPTH: u32 = 3;

/// A pair of features moving linearly over the step.
pub trait Feature {
    /// Enclosures of the Bernstein coefficients of the coplanarity function on `[0, 1]`.
    fn cubic(&self) -> Bernstein;
    /// `false` only if, for every `t` in `t`, the features certainly do not touch *assuming* they
    /// are coplanar at `t` (some inside function is certainly negative).
    fn may_touch(&self, t: Interval) -> bool;
}

/// What the search found on a piece of the step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// An enclosure `[lo, hi]` of one or more roots of `f`, and whether the features may touch.
    Root {
        /// Lower end of the enclosure.
        lo: f64,
        /// Upper end of the enclosure.
        hi: f64,
        /// `true` when exactly one simple root was isolated.
        isolated: bool,
        /// `false` only if the features certainly do not touch on the enclosure.
        touch: bool,
    },
    /// `f` is zero within its error bound on `[lo, hi]` (coplanar motion). `first_touch` is a
    /// lower bound of the first time the features may touch in it, if any.
    Flat {
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
        /// Earliest possible contact in `[lo, hi]`.
        first_touch: Option<f64>,
    },
}

/// Outcome of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completion {
    /// The whole step was examined.
    Complete,
    /// The node budget ran out; the unexamined rest was reported as a possible contact.
    BudgetExhausted,
}

/// One pending interval of the depth-first search.
#[derive(Clone, Copy)]
struct Node {
    lo: f64,
    hi: f64,
    depth: u32,
    coef: Bernstein,
}

/// Search `[0, 1]` left to right, calling `emit` for each event. `emit` returns `false` to stop.
/// With `first_only`, unresolved intervals are pruned by the inside test (only contacts matter).
pub fn search<F: Feature>(
    feat: &F,
    first_only: bool,
    mut emit: impl FnMut(Event) -> bool,
) -> Completion {
    let whole = feat.cubic();
    let fast = FastCubic::new(&whole);
    let mut stack = [Node {
        lo: 0.0,
        hi: 1.0,
        depth: 0,
        coef: whole,
    }; MAX_DEPTH as usize + 2];
    let mut top = 1usize;
    let mut nodes = 0u32;
    while top > 0 {
        top -= 1;
        let n = stack[top];
        nodes += 1;
        if nodes > MAX_NODES {
            emit(Event::Root {
                lo: n.lo,
                hi: 1.0,
                isolated: false,
                touch: true,
            });
            return Completion::BudgetExhausted;
        }
        // Block: classify this interval by the signs of its Bernstein coefficients.
        let ev = match cubic::pattern(&n.coef) {
            Pattern::NoRoot => continue,
            Pattern::OneRoot(s) => {
                let (lo, hi) = narrow_root(&fast, n.lo, n.hi, s);
                let touch = feat.may_touch(Interval::new(lo, hi));
                Event::Root {
                    lo,
                    hi,
                    isolated: true,
                    touch,
                }
            }
            Pattern::Flat => {
                let first_touch = scan_touch(feat, n.lo, n.hi, &mut nodes);
                Event::Flat {
                    lo: n.lo,
                    hi: n.hi,
                    first_touch,
                }
            }
            Pattern::Unknown if n.depth >= MAX_DEPTH => Event::Root {
                lo: n.lo,
                hi: n.hi,
                isolated: false,
                touch: feat.may_touch(Interval::new(n.lo, n.hi)),
            },
            Pattern::Unknown => {
                if first_only
                    && n.depth >= PRUNE_DEPTH
                    && !feat.may_touch(Interval::new(n.lo, n.hi))
                {
                    continue;
                }
                // Block: split at the (exact, dyadic) midpoint; push right first so the left
                // half is examined first.
                let mid = 0.5 * (n.lo + n.hi);
                let (l, r) = cubic::split(&n.coef);
                let d = n.depth + 1;
                stack[top] = Node {
                    lo: mid,
                    hi: n.hi,
                    depth: d,
                    coef: r,
                };
                stack[top + 1] = Node {
                    lo: n.lo,
                    hi: mid,
                    depth: d,
                    coef: l,
                };
                top += 2;
                continue;
            }
        };
        let contact = matches!(
            ev,
            Event::Root { touch: true, .. }
                | Event::Flat {
                    first_touch: Some(_),
                    ..
                }
        );
        if (first_only && !contact) || emit(ev) {
            if first_only && contact {
                return Completion::Complete;
            }
            continue;
        }
        return Completion::Complete;
    }
    Completion::Complete
}

/// Narrow the unique simple root of `f` in `(lo, hi)` (sign `s` at `lo`, `-s` at `hi`) to an
/// enclosure of width ≤ [`ROOT_WIDTH`] or as narrow as certified evaluation allows.
/// Every bracket update is certified by an interval evaluation, so the root stays inside.
fn narrow_root(f: &FastCubic, mut lo: f64, mut hi: f64, s: i8) -> (f64, f64) {
    let sign_at = |t: f64| f.sign_at(t);
    // Block: floating-point Newton estimate started from the regula-falsi point.
    let (flo, fhi) = (f.value(lo), f.value(hi));
    let mut t = if flo != fhi {
        lo + (hi - lo) * (flo / (flo - fhi))
    } else {
        0.5 * (lo + hi)
    };
    let mut slope = 0.0;
    for _ in 0..8 {
        if !(t > lo && t < hi) {
            t = 0.5 * (lo + hi);
        }
        let (v, d) = f.value_and_derivative(t);
        slope = d;
        if d == 0.0 || !d.is_finite() {
            break;
        }
        let step = v / d;
        t -= step;
        if step.abs() <= 1e-16 * t.abs() {
            break;
        }
    }
    // Block: certify a tight bracket around the estimate. The smallest resolvable half-width is
    // about (evaluation error) / |f'|; start there and widen ×16 until both sides certify.
    if t > lo && t < hi && slope.abs() > 0.0 {
        let mut eps = (0.25 * ROOT_WIDTH).max(2.0 * f.err / slope.abs());
        for _ in 0..8 {
            let (a, b) = (t - eps, t + eps);
            let ok_a = a > lo && sign_at(a) == s;
            let ok_b = b < hi && sign_at(b) == -s;
            if ok_a {
                lo = a;
            }
            if ok_b {
                hi = b;
            }
            if ok_a && ok_b {
                return (lo, hi);
            }
            eps *= 16.0;
        }
    }
    // Block: certified bisection (with quarter-point fallbacks) until narrow or undecidable.
    for _ in 0..80 {
        if hi - lo <= ROOT_WIDTH {
            break;
        }
        let m = 0.5 * (lo + hi);
        match sign_at(m) {
            x if x == s => lo = m,
            x if x == -s => hi = m,
            _ => {
                let (q1, q3) = (0.5 * (lo + m), 0.5 * (m + hi));
                let mut moved = false;
                if q1 > lo && sign_at(q1) == s {
                    lo = q1;
                    moved = true;
                }
                if q3 < hi && sign_at(q3) == -s {
                    hi = q3;
                    moved = true;
                }
                if !moved {
                    break;
                }
            }
        }
    }
    (lo, hi)
}

/// First `t` in `[lo, hi]` where the inside test cannot exclude contact, by bisection down to
/// width 2⁻[`MAX_DEPTH`]; `None` if contact is excluded everywhere. Shares the node budget;
/// when it runs out, returns the current interval's start (conservative).
fn scan_touch<F: Feature>(feat: &F, lo: f64, hi: f64, nodes: &mut u32) -> Option<f64> {
    let mut stack = [(0.0f64, 0.0f64, 0u32); 64];
    stack[0] = (lo, hi, 0);
    let mut top = 1usize;
    while top > 0 {
        top -= 1;
        let (a, b, d) = stack[top];
        *nodes += 1;
        if *nodes > MAX_NODES {
            return Some(a);
        }
        if !feat.may_touch(Interval::new(a, b)) {
            continue;
        }
        if d >= MAX_DEPTH || b - a <= f64::EPSILON * b.abs() {
            return Some(a);
        }
        let m = 0.5 * (a + b);
        stack[top] = (m, b, d + 1);
        stack[top + 1] = (a, m, d + 1);
        top += 2;
    }
    None
}
