//! Narrow-phase continuous collision detection for one vertex–face or edge–edge pair whose four
//! vertices move linearly over the normalised step `t ∈ [0, 1]` (CPF paper §3.2, Fig. 3).
//!
//! Owns: the public kernel API ([`vertex_face_first_toi`], [`edge_edge_first_toi`],
//! [`vertex_face_ccd`], [`edge_edge_ccd`], the generic [`first_toi`], [`first_contact`] and
//! [`report`]) and the result type [`CcdReport`] with the root
//! enclosures and penetration time intervals. Does not own: broad phase (`bvh.rs`), response.
//!
//! ## Guarantee
//! *Conservative*: if the exact features touch at some `t* ∈ [0, 1]` (inputs taken as exact
//! doubles), a contact is reported with first time of impact `t̂ ≤ t*`. Every reported root
//! enclosure `[lo, hi]` contains a root of the exact coplanarity function `f`, or `f` is within
//! its error bound `E` (see `cubic.rs`: `E ≤ 16u·M`, `u = 2⁻⁵³`, `M` the magnitude of the
//! determinant terms) on it. Isolated roots are enclosed to width about
//! `max(2⁻⁴⁴, 4–8E/|f'|)` (typically 1e-13 to 1e-11 on the benchmark), unresolved ones to
//! `2⁻⁴⁶` (`search.rs`); coplanar stretches are reported whole. False positives come only from
//! the inside test being undecided within floating-point error on such an enclosure, from
//! degenerate features (zero-area triangle, parallel edges), from coplanar motion with grazing
//! features, and from the node budget.

mod cubic;
mod edge_edge;
mod filter;
mod quartic;
mod search;
mod vertex_face;

pub use cubic::{COEFF_ERR_FACTOR, max_radius};
pub use edge_edge::EdgeEdge;
pub use quartic::Quartic;
pub use search::{Completion, Event, Feature, MAX_DEPTH, MAX_NODES, ROOT_WIDTH};
pub use vertex_face::VertexFace;

use crate::error::CcdError;
use crate::interval::Interval;
use signorini_math::Vec3;

/// How a root enclosure was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootKind {
    /// Exactly one simple root of `f` lies in the enclosure.
    Isolated,
    /// Subdivision reached its finest level without separating roots (double or triple root,
    /// root at a dyadic split point, or `f` within its error bound of zero).
    Unresolved,
    /// `f` is zero within its error bound on the whole enclosure (coplanar motion).
    Coplanar,
}

/// An enclosure of roots of the coplanarity function.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootEnclosure {
    /// Lower end (`0 ≤ lo ≤ hi ≤ 1`).
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// How the enclosure was obtained.
    pub kind: RootKind,
    /// `false` only if the features certainly do not touch anywhere in the enclosure.
    pub contact: bool,
    /// Earliest possible contact time inside the enclosure (`lo` unless coplanar).
    pub first_contact: Option<f64>,
}

/// Everything the kernel knows about one pair over the step: all root enclosures of the
/// coplanarity function in increasing order, and the sign of `f` between them.
#[derive(Clone, Debug, PartialEq)]
pub struct CcdReport {
    /// Root enclosures in increasing order (disjoint except for shared endpoints).
    pub roots: Vec<RootEnclosure>,
    /// Sign of `f` (`+1`, `-1`, or `0` if undecided) on the gap before each root and after the
    /// last: `gap_signs.len() == roots.len() + 1`.
    pub gap_signs: Vec<i8>,
    /// The node budget ran out; the rest of the step was reported as a possible contact.
    pub budget_exhausted: bool,
}

impl CcdReport {
    /// First time of impact: the earliest possible contact (a lower bound of the exact one).
    pub fn first_toi(&self) -> Option<f64> {
        self.roots.iter().find_map(|r| r.first_contact)
    }

    /// `true` if the features may touch during the step.
    pub fn collides(&self) -> bool {
        self.first_toi().is_some()
    }

    /// Penetration time intervals (CPF §3.2, Fig. 3): the closed pieces of `[0, 1]` on which
    /// `f` has the sign `−outside`, where `outside` (`+1`/`−1`) is the sign of `f` on the
    /// non-penetrated side. With `outside = None` it is taken from the gap before the first
    /// contact root (the side the pair approached from). Interval ends are root enclosure ends
    /// chosen outward (`[root.lo, next_root.hi]`), so the true intervals are contained.
    pub fn penetration_intervals(&self, outside: Option<i8>) -> Vec<[f64; 2]> {
        let Some(first) = self.roots.iter().position(|r| r.contact) else {
            return Vec::new();
        };
        let side = outside.unwrap_or(self.gap_signs[first]);
        if side == 0 {
            // Approach side undecided: the whole stretch from the first contact is reported.
            return vec![[self.roots[first].lo, 1.0]];
        }
        let mut out: Vec<[f64; 2]> = Vec::new();
        for (g, &s) in self.gap_signs.iter().enumerate() {
            if s != -side && s != 0 {
                continue;
            }
            let lo = if g == 0 { 0.0 } else { self.roots[g - 1].lo };
            let hi = self.roots.get(g).map_or(1.0, |r| r.hi);
            match out.last_mut() {
                Some(last) if last[1] >= lo => last[1] = hi,
                _ => out.push([lo, hi]),
            }
        }
        out
    }
}

/// Four vertex positions as plain arrays.
type Corners = [[f64; 3]; 4];

/// Convert and validate the eight positions of a query.
fn to_arrays(start: &[Vec3; 4], end: &[Vec3; 4]) -> Result<(Corners, Corners), CcdError> {
    let conv = |v: &[Vec3; 4], off: usize| -> Result<Corners, CcdError> {
        let mut out = [[0.0; 3]; 4];
        for (i, p) in v.iter().enumerate() {
            for k in 0..3 {
                if !p[k].is_finite() {
                    return Err(CcdError::NonFinite {
                        vertex: i + off,
                        coord: k,
                    });
                }
                out[i][k] = p[k];
            }
        }
        Ok(out)
    };
    Ok((conv(start, 0)?, conv(end, 4)?))
}

/// Conservative first time of impact of a feature pair, `None` if it certainly does not touch.
pub fn first_toi<F: Feature>(feat: &F) -> Option<f64> {
    first_toi_of(feat, &feat.cubic())
}

/// [`first_toi`] together with the certified signs of the coplanarity function `f` at `t = 0`
/// and `t = 1` (`+1`, `−1`, or `0` if `f` is within its error bound of zero there), read from
/// the end Bernstein coefficients the search computes anyway. CPF's gap function `g = m·s` is
/// `f` itself (`docs/formulation-notes.md` §14), so these give a pair's approach side for free.
pub fn first_contact<F: Feature>(feat: &F) -> Option<(f64, [i8; 2])> {
    let c = feat.cubic();
    let sign = |x: Interval| {
        if x.certainly_pos() {
            1
        } else if x.certainly_neg() {
            -1
        } else {
            0
        }
    };
    first_toi_of(feat, &c).map(|t| (t, [sign(c[0]), sign(c[3])]))
}

/// [`first_toi`] with the cubic already computed.
fn first_toi_of<F: Feature>(feat: &F, cubic: &cubic::Bernstein) -> Option<f64> {
    let mut toi = None;
    search::search_cubic(feat, cubic, true, |ev| {
        toi = match ev {
            Event::Root {
                lo, touch: true, ..
            } => Some(lo),
            Event::Flat { first_touch, .. } => first_touch,
            Event::Root { .. } => None,
        };
        false
    });
    toi
}

/// Full report (all roots, contact flags and gap signs) for a feature pair.
pub fn report<F: Feature>(feat: &F) -> CcdReport {
    let mut roots: Vec<RootEnclosure> = Vec::new();
    let completion = search::search(feat, false, |ev| {
        let r = match ev {
            Event::Root {
                lo,
                hi,
                isolated,
                touch,
            } => RootEnclosure {
                lo,
                hi,
                kind: if isolated {
                    RootKind::Isolated
                } else {
                    RootKind::Unresolved
                },
                contact: touch,
                first_contact: touch.then_some(lo),
            },
            Event::Flat {
                lo,
                hi,
                first_touch,
            } => RootEnclosure {
                lo,
                hi,
                kind: RootKind::Coplanar,
                contact: first_touch.is_some(),
                first_contact: first_touch,
            },
        };
        push_merged(&mut roots, r);
        true
    });
    let gap_signs = gap_signs(&feat.cubic(), &roots);
    CcdReport {
        roots,
        gap_signs,
        budget_exhausted: completion == Completion::BudgetExhausted,
    }
}

/// Append an enclosure, merging it with the previous one when they touch (adjacent leaves).
fn push_merged(roots: &mut Vec<RootEnclosure>, r: RootEnclosure) {
    if let Some(last) = roots.last_mut()
        && last.hi >= r.lo
        && last.kind != RootKind::Isolated
        && r.kind != RootKind::Isolated
    {
        last.hi = last.hi.max(r.hi);
        last.contact |= r.contact;
        last.first_contact = last.first_contact.or(r.first_contact);
        if r.kind == RootKind::Coplanar {
            last.kind = RootKind::Coplanar;
        }
        return;
    }
    roots.push(r);
}

/// Sign of `f` in each gap, by a certified evaluation at the gap midpoint (0 if undecided).
fn gap_signs(f: &[Interval; 4], roots: &[RootEnclosure]) -> Vec<i8> {
    (0..=roots.len())
        .map(|g| {
            let lo = if g == 0 { 0.0 } else { roots[g - 1].hi };
            let hi = roots.get(g).map_or(1.0, |r| r.lo);
            if hi <= lo {
                return 0;
            }
            let v = cubic::eval(f, 0.5 * (lo + hi));
            if v.certainly_pos() {
                1
            } else if v.certainly_neg() {
                -1
            } else {
                0
            }
        })
        .collect()
}

/// Vertex–face CCD: conservative first time of impact of vertex `p` with triangle `(a, b, c)`,
/// positions `[p, a, b, c]` at `t = 0` (`start`) and `t = 1` (`end`). `None`: certainly no
/// contact during the step.
///
/// # Errors
/// [`CcdError::NonFinite`] if a coordinate is NaN or infinite.
pub fn vertex_face_first_toi(start: &[Vec3; 4], end: &[Vec3; 4]) -> Result<Option<f64>, CcdError> {
    let (start, end) = to_arrays(start, end)?;
    Ok(first_toi(&VertexFace { start, end }))
}

/// Edge–edge CCD: conservative first time of impact of edge `(a, b)` with edge `(c, d)`,
/// positions `[a, b, c, d]` at `t = 0` and `t = 1`.
///
/// # Errors
/// [`CcdError::NonFinite`] if a coordinate is NaN or infinite.
pub fn edge_edge_first_toi(start: &[Vec3; 4], end: &[Vec3; 4]) -> Result<Option<f64>, CcdError> {
    let (start, end) = to_arrays(start, end)?;
    Ok(first_toi(&EdgeEdge { start, end }))
}

/// Vertex–face CCD with all roots and penetration intervals (CPF §3.2, Fig. 3).
///
/// # Errors
/// [`CcdError::NonFinite`] if a coordinate is NaN or infinite.
pub fn vertex_face_ccd(start: &[Vec3; 4], end: &[Vec3; 4]) -> Result<CcdReport, CcdError> {
    let (start, end) = to_arrays(start, end)?;
    Ok(report(&VertexFace { start, end }))
}

/// Edge–edge CCD with all roots and penetration intervals (CPF §3.2, Fig. 3).
///
/// # Errors
/// [`CcdError::NonFinite`] if a coordinate is NaN or infinite.
pub fn edge_edge_ccd(start: &[Vec3; 4], end: &[Vec3; 4]) -> Result<CcdReport, CcdError> {
    let (start, end) = to_arrays(start, end)?;
    Ok(report(&EdgeEdge { start, end }))
}

/// Enclosure of the coplanarity function of a feature at the exact time `t`, and the documented
/// coefficient error bound `E` (largest coefficient radius). Used by tests to check that reported
/// times are coplanar within the bound.
pub fn coplanarity_at<F: Feature>(feat: &F, t: f64) -> (Interval, f64) {
    let c = feat.cubic();
    (cubic::eval(&c, t), cubic::max_radius(&c))
}

/// Upper bound of `|f'|` on `[0, 1]` from the Bernstein coefficients (`3·max|βₖ₊₁ − βₖ|`).
pub fn derivative_bound<F: Feature>(feat: &F) -> f64 {
    let c = feat.cubic();
    (0..3)
        .map(|k| {
            (c[k + 1].hi - c[k].lo)
                .abs()
                .max((c[k + 1].lo - c[k].hi).abs())
        })
        .fold(0.0, f64::max)
        * 3.0
}
