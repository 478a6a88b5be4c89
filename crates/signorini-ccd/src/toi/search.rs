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
use super::quartic::{self, Quartic};
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
    /// Bernstein enclosures on `[0, 1]` of the inside functions (the first `n` of the array):
    /// at a coplanar time, contact requires all of them to be `≥ 0`.
    fn inside_quartics(&self) -> ([Quartic; 4], usize);
    /// `false` only if, for every `t` in `t`, the features certainly do not touch *assuming* they
    /// are coplanar at `t` (some inside function is certainly negative, or a necessary
    /// separation condition holds).
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

/// Search state shared by the recursion.
struct Ctx<'a, F, E> {
    feat: &'a F,
    fast: FastCubic,
    first_only: bool,
    emit: E,
    nodes: u32,
    quartics: Option<([Quartic; 4], usize)>,
}

/// Whether the recursion goes on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
    Budget,
}

/// Search `[0, 1]` left to right, calling `emit` for each event. `emit` returns `false` to stop.
/// With `first_only`, non-contact events are not emitted, unresolved intervals are pruned by the
/// inside test, and the search stops at the first contact.
pub fn search<F: Feature>(
    feat: &F,
    first_only: bool,
    emit: impl FnMut(Event) -> bool,
) -> Completion {
    search_cubic(feat, &feat.cubic(), first_only, emit)
}

/// [`search`] with the feature's cubic `whole` (= `feat.cubic()`) already computed.
pub fn search_cubic<F: Feature>(
    feat: &F,
    whole: &Bernstein,
    first_only: bool,
    emit: impl FnMut(Event) -> bool,
) -> Completion {
    let whole = *whole;
    let mut ctx = Ctx {
        feat,
        fast: FastCubic::new(&whole),
        first_only,
        emit,
        nodes: 0,
        quartics: None,
    };
    match visit(&mut ctx, 0.0, 1.0, 0, &whole) {
        Flow::Budget => Completion::BudgetExhausted,
        _ => Completion::Complete,
    }
}

/// Examine `[lo, hi]` (cubic coefficients `coef` on it), depth first, left half first.
fn visit<F: Feature, E: FnMut(Event) -> bool>(
    ctx: &mut Ctx<'_, F, E>,
    lo: f64,
    hi: f64,
    depth: u32,
    coef: &Bernstein,
) -> Flow {
    ctx.nodes += 1;
    if ctx.nodes > MAX_NODES {
        (ctx.emit)(Event::Root {
            lo,
            hi: 1.0,
            isolated: false,
            touch: true,
        });
        return Flow::Budget;
    }
    // Block: classify this interval by the signs of its Bernstein coefficients.
    let ev = match cubic::pattern(coef) {
        Pattern::NoRoot => return Flow::Continue,
        Pattern::OneRoot(s) => {
            let (a, b) = narrow_root(&ctx.fast, lo, hi, s);
            Event::Root {
                lo: a,
                hi: b,
                isolated: true,
                touch: ctx.feat.may_touch(Interval::new(a, b)),
            }
        }
        Pattern::Flat => {
            let q = *ctx
                .quartics
                .get_or_insert_with(|| ctx.feat.inside_quartics());
            let mut nodes = ctx.nodes;
            let first_touch =
                scan_touch(ctx.feat, &q.0[..q.1], (lo, hi), (0.0, 1.0), 0, &mut nodes);
            ctx.nodes = nodes;
            Event::Flat {
                lo,
                hi,
                first_touch,
            }
        }
        Pattern::Unknown if depth >= MAX_DEPTH => Event::Root {
            lo,
            hi,
            isolated: false,
            touch: ctx.feat.may_touch(Interval::new(lo, hi)),
        },
        Pattern::Unknown => {
            if ctx.first_only && depth >= PRUNE_DEPTH && !ctx.feat.may_touch(Interval::new(lo, hi))
            {
                return Flow::Continue;
            }
            // Block: split at the (exact, dyadic) midpoint; left half first.
            let mid = 0.5 * (lo + hi);
            let (l, r) = cubic::split(coef);
            let f = visit(ctx, lo, mid, depth + 1, &l);
            if f != Flow::Continue {
                return f;
            }
            return visit(ctx, mid, hi, depth + 1, &r);
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
    if ctx.first_only && !contact {
        return Flow::Continue;
    }
    if !(ctx.emit)(ev) || (ctx.first_only && contact) {
        return Flow::Stop;
    }
    Flow::Continue
}

/// Narrow the unique simple root of `f` in `(lo, hi)` (sign `s` at `lo`, `-s` at `hi`) to an
/// enclosure of width ≤ [`ROOT_WIDTH`] or as narrow as certified evaluation allows.
/// Every bracket update is certified by an interval evaluation, so the root stays inside.
fn narrow_root(f: &FastCubic, mut lo: f64, mut hi: f64, s: i8) -> (f64, f64) {
    let sign_at = |t: f64| f.sign_at(t);
    let (t, slope) = newton_estimate(f, lo, hi, s);
    // Block: certify a tight bracket around the estimate. The smallest resolvable half-width is
    // about (evaluation error) / |f'|; start there and widen ×16 the side(s) that did not
    // certify. A side whose probe would fall outside `(lo, hi)` is already within `eps` of `t`.
    if t > lo && t < hi && slope.abs() > 0.0 {
        let eps0 = (0.25 * ROOT_WIDTH).max(2.0 * f.err / slope.abs());
        let mut eps = eps0;
        let (mut ok_a, mut ok_b) = (false, false);
        for _ in 0..8 {
            if !ok_a {
                let a = t - eps;
                ok_a = a <= lo || sign_at(a) == s;
                if ok_a && a > lo {
                    lo = a;
                }
            }
            if !ok_b {
                let b = t + eps;
                ok_b = b >= hi || sign_at(b) == -s;
                if ok_b && b < hi {
                    hi = b;
                }
            }
            if ok_a && ok_b {
                if hi - lo <= 4.0 * eps0 {
                    return (lo, hi);
                }
                break;
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

/// Floating-point estimate of the root of `f` in `(lo, hi)` (sign `s` at `lo`) and the slope
/// there: Newton steps from the regula-falsi point, safeguarded by bisection of a floating-point
/// bracket, so the estimate never wanders to another root of the cubic. Uncertified: only used
/// to place the certified probes of [`narrow_root`].
fn newton_estimate(f: &FastCubic, lo: f64, hi: f64, s: i8) -> (f64, f64) {
    let (flo, fhi) = (f.value(lo), f.value(hi));
    let mut t = if flo != fhi {
        lo + (hi - lo) * (flo / (flo - fhi))
    } else {
        0.5 * (lo + hi)
    };
    let (mut a, mut b) = (lo, hi);
    let sf = f64::from(s);
    let mut slope = 0.0;
    for _ in 0..16 {
        if !(t > a && t < b) {
            t = 0.5 * (a + b);
        }
        let (v, d) = f.value_and_derivative(t);
        slope = d;
        // Block: keep the (estimated) sign bracket; sign `s` lies left of the root.
        if v * sf > 0.0 {
            a = t;
        } else if v * sf < 0.0 {
            b = t;
        } else {
            break;
        }
        let step = v / d;
        let next = t - step;
        // Quadratic convergence: once the step, or the error predicted after it, is far below
        // the probe half-width (≥ ROOT_WIDTH/4), the estimate is accurate enough (a wrong
        // prediction only costs a wider probe below). A step leaving the bracket (or NaN)
        // bisects instead.
        if next > a && next < b {
            // Predicted error after this step (quadratic convergence): |f''/(2f')|·step².
            let predicted = (f.half_second_derivative(t) / d).abs() * step * step;
            t = next;
            if step.abs() <= ROOT_WIDTH / 16.0 || predicted <= ROOT_WIDTH / 64.0 {
                break;
            }
        } else {
            t = 0.5 * (a + b);
            if b - a <= ROOT_WIDTH / 16.0 {
                break;
            }
        }
    }
    (t, slope)
}

/// First `t` in `want = [lo, hi]` where contact cannot be excluded, by bisection of the node
/// `node` (inside quartics `q` on it) down to width 2⁻[`MAX_DEPTH`]; `None` if contact is
/// excluded everywhere. A node is excluded when some inside quartic is certainly negative on it,
/// or the feature's interval inside test excludes it. Shares the node budget; when it runs out,
/// returns the current node's start (conservative).
fn scan_touch<F: Feature>(
    feat: &F,
    q: &[Quartic],
    want: (f64, f64),
    node: (f64, f64),
    depth: u32,
    nodes: &mut u32,
) -> Option<f64> {
    let (a, b) = node;
    if b < want.0 || a > want.1 {
        return None;
    }
    *nodes += 1;
    let start = a.max(want.0);
    if *nodes > MAX_NODES {
        return Some(start);
    }
    if q.iter().any(quartic::certainly_negative) {
        return None;
    }
    let inside = q.iter().all(quartic::certainly_positive);
    if !inside && !feat.may_touch(Interval::new(start, b.min(want.1))) {
        return None;
    }
    if inside || depth >= MAX_DEPTH {
        return Some(start);
    }
    let m = 0.5 * (a + b);
    let mut left = [q[0]; 4];
    let mut right = [q[0]; 4];
    for (k, c) in q.iter().enumerate() {
        (left[k], right[k]) = quartic::split(c);
    }
    let n = q.len();
    scan_touch(feat, &left[..n], want, (a, m), depth + 1, nodes)
        .or_else(|| scan_touch(feat, &right[..n], want, (m, b), depth + 1, nodes))
}
