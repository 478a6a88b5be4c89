//! Feature-pair tracking (CPF §3.2, "Contact Normal" of §3.6).
//!
//! Owns: [`PairKey`], [`Tracked`], [`Tracker`] and the first-contact detection [`detect`]. A pair
//! found by CCD keeps its collision points — fixed by the barycentric weights of the closest
//! points at the first time of contact — and its outside sign until its penetration depth
//! returns to zero; the stepper decides when to drop it ([`Tracker::retain`]). Deterministic:
//! pairs are kept in a `BTreeMap` ordered by key.

use crate::pair::{Kind, Trajectory, separation_coeffs};
use signorini_ccd::toi::{EdgeEdge, VertexFace, first_contact};
use signorini_geometry::mesh::query::{closest_on_segments, closest_on_triangle};
use signorini_math::Real;
use std::collections::BTreeMap;

/// Identifies a feature pair between two bodies: `(body, feature)` of the first (vertex or edge)
/// and of the second (triangle or edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PairKey {
    /// Pair kind.
    pub kind: Kind,
    /// Body and vertex (VF) or edge (EE) index of the first feature.
    pub first: (u32, u32),
    /// Body and triangle (VF) or edge (EE) index of the second feature.
    pub second: (u32, u32),
}

/// The state of a colliding pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tracked {
    /// Separation coefficients `cᵢ` of the collision points (see `pair::separation_coeffs`).
    pub coeffs: [Real; 4],
    /// Sign of `g = m·s` on the outside (`±1`).
    pub outside: i8,
    /// A **distance pair** (see [`crate::distance`]): its collision points are the closest
    /// points of its features at the start of each step and its normal the direction between
    /// them, so its force is the gradient of `k (d − dist)²/2` in the contact thickness `d`.
    /// The stepper makes edge–edge proximity pairs whose closest point is an end of an edge
    /// such pairs; every other pair is `false` (the paper's tracked collision points).
    pub distance: bool,
}

/// A new contact: first time of impact and the tracked state it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Conservative first time of impact in `[0, 1]`.
    pub toi: Real,
    /// The tracked state (weights at `toi`).
    pub tracked: Tracked,
}

fn arrays(x: &[signorini_math::Vec3; 4]) -> [[Real; 3]; 4] {
    x.map(|v| [v.x, v.y, v.z])
}

/// Collision weights of the closest points at time `t` (separation coefficients).
pub fn weights_at(traj: &Trajectory, t: Real) -> [Real; 4] {
    let x = traj.positions(t);
    let w = match traj.kind {
        Kind::VertexFace => closest_on_triangle(&x[0], &x[1], &x[2], &x[3]),
        Kind::EdgeEdge => closest_on_segments(&x[0], &x[1], &x[2], &x[3]),
    };
    separation_coeffs(traj.kind, &w)
}

/// First contact of an untracked pair by the certified CCD of `signorini-ccd`, with collision
/// weights at the time of impact. The outside sign is `outside` if given (e.g. `+1` for a
/// vertex against a closed mesh's outward face), else the sign of `g` at `t = 0`, else the
/// opposite of its sign at `t = 1`. `None`: no contact during the step, or `g ≡ 0`.
///
/// `g = m·s` is the CCD coplanarity function itself (`docs/formulation-notes.md` §14), so its sign
/// at `t = 0` comes certified with the CCD answer ([`first_contact`]); only when `g(0)` is
/// within rounding of zero is `g` evaluated at the collision points in floating point.
pub fn detect(traj: &Trajectory, outside: Option<i8>) -> Option<Contact> {
    let (start, end) = (arrays(&traj.x0), arrays(&traj.x1));
    let (toi, [s0, _]) = match traj.kind {
        Kind::VertexFace => first_contact(&VertexFace { start, end }),
        Kind::EdgeEdge => first_contact(&EdgeEdge { start, end }),
    }?;
    let coeffs = weights_at(traj, toi);
    let outside = match outside {
        Some(s) => s,
        None if s0 != 0 => s0,
        None => float_outside(traj, &coeffs)?,
    };
    Some(Contact {
        toi,
        tracked: Tracked {
            coeffs,
            outside,
            distance: false,
        },
    })
}

/// Outside sign from `g` evaluated in floating point at `t = 0`, else `−sign g(1)`; `None` if
/// both are zero.
fn float_outside(traj: &Trajectory, coeffs: &[Real; 4]) -> Option<i8> {
    let g = |t: Real| {
        let (p, q) = traj.points(coeffs, t);
        traj.normal_at(t).dot(&(p - q))
    };
    let (g0, g1) = (g(0.0), g(1.0));
    if g0 != 0.0 {
        Some(g0.signum() as i8)
    } else if g1 != 0.0 {
        Some(-(g1.signum() as i8))
    } else {
        None
    }
}

/// The colliding pairs carried from step to step.
#[derive(Clone, Debug, Default)]
pub struct Tracker {
    pairs: BTreeMap<PairKey, Tracked>,
}

impl Tracker {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// The tracked state of a pair.
    pub fn get(&self, key: &PairKey) -> Option<&Tracked> {
        self.pairs.get(key)
    }

    /// Start (or replace) tracking a pair.
    pub fn insert(&mut self, key: PairKey, t: Tracked) {
        self.pairs.insert(key, t);
    }

    /// Keep only the pairs for which `keep` is true.
    pub fn retain(&mut self, keep: impl FnMut(&PairKey, &mut Tracked) -> bool) {
        self.pairs.retain(keep);
    }

    /// All tracked pairs in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&PairKey, &Tracked)> {
        self.pairs.iter()
    }

    /// Number of tracked pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// `true` if nothing is tracked.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// `true` if some tracked VF pair has this `(body, vertex)` against a face of `body_b`.
    pub fn vertex_tracked_against(&self, vertex: (u32, u32), body_b: u32) -> bool {
        let lo = PairKey {
            kind: Kind::VertexFace,
            first: vertex,
            second: (body_b, 0),
        };
        self.pairs.range(lo..).next().is_some_and(|(k, _)| {
            k.kind == Kind::VertexFace && k.first == vertex && k.second.0 == body_b
        })
    }
}
