//! Distance pairs: contact-thickness pairs whose collision points follow the closest points.
//!
//! Owns: [`is_edge_end`] (which proximity pairs become distance pairs), [`refresh`] (their
//! collision points at the start of a step), [`normal`], [`cubic`] (the inputs of the shared
//! closed form), [`end_impulse`] and [`depth`].
//!
//! Why. A pair made by proximity within the contact thickness `d` (not by a CCD hit) whose
//! closest points are an **end vertex** of one of the two edges is really a vertex–edge
//! contact. As a tracked pair of the paper (§3.2: collision points fixed at first contact,
//! normal `m̂ = e₁ × e₂ / |e₁ × e₂|`, depth `d − σ m̂·s`) it is not conservative: `m̂` is not the
//! direction between the closest points, so the pair switches on with a finite force at
//! `|s| = d` (its depth is `d − |m̂·s| > d − |s| = 0` there) and pushes until `|m̂·s| = d`,
//! farther out, and when the vertex slides off the edge it keeps pushing along a line it no
//! longer touches. A 1 kg box bounced over a slab's diagonal edge gained 38 % of its energy
//! from such pairs (`docs/deformable.md`, "Contact thickness").
//!
//! What. A distance pair takes the **closest points at the start of every step** as its
//! collision points and the **constant normal** `n̂ = s(0)/|s(0)|` over the step (outside `+1`),
//! so that its depth is `d − n̂·s(t)`: exactly `d − dist` at the start of each step, and over the
//! step the CPF integral of Eq. 8 with this normal, `J = −k h ∫ (n̂·s − d) n̂ dt` over the interval
//! where the depth is positive (the shared closed form of `crate::tracked_impulse_thick` with
//! `m ≡ n̂`, `L_k = 1`, from [`cubic`]). Its force is then the gradient of the potential `k (d − dist)²/2`
//! (sampled continuously along the step): it switches on at zero and does no net work over a
//! closed path. It only repels; crossings are left to the vertex–face pairs and the edge–edge
//! pairs of CCD hits, which keep the paper's tracking.

use crate::impulse::PairImpulse;
use crate::pair::{Kind, Trajectory, VecPoly, gap_cubic, normal_power};
use crate::track::{Tracked, weights_at};
use signorini_math::{Real, Vec3};

/// `true` if edge–edge separation coefficients `c` (see `pair::separation_coeffs`) put a
/// collision point at an end of either edge (the closest points were clamped there).
pub fn is_edge_end(kind: Kind, c: &[Real; 4]) -> bool {
    kind == Kind::EdgeEdge && (c[0] == 0.0 || c[0] == 1.0 || c[2] == 0.0 || c[2] == -1.0)
}

/// The distance pair on `traj` with its collision points at the closest points at `t = 0`.
pub fn refresh(traj: &Trajectory) -> Tracked {
    Tracked {
        coeffs: weights_at(traj, 0.0),
        outside: 1,
        distance: true,
    }
}

/// The constant normal `n̂ = s(0)/|s(0)|` of a distance pair (`None` if the collision points
/// coincide at `t = 0`).
pub fn normal(traj: &Trajectory, c: &[Real; 4]) -> Option<Vec3> {
    let s0 = traj.separation(c)[0];
    let l = s0.norm();
    (l > 0.0).then(|| s0 / l)
}

/// Penetration depth `δ = −n̂·s(t)` of a distance pair at time `t` (negative: apart; in
/// contact while `d + δ > 0`, as for tracked pairs); at `t = 0` it is `−dist`.
pub fn depth(traj: &Trajectory, c: &[Real; 4], t: Real) -> Real {
    let Some(n) = normal(traj, c) else {
        return 0.0;
    };
    let (p, q) = traj.points(c, t);
    -n.dot(&(p - q))
}

/// The Bernstein normal `[n̂, n̂, n̂]`, its power form and the cubic `n̂·s(t) − d` of a distance
/// pair with thickness `d`: the inputs of the shared CPF closed form
/// (`crate::tracked_impulse_thick`), with `L_k = 1` (`None` if the collision points coincide
/// at `t = 0`).
pub fn cubic(
    traj: &Trajectory,
    c: &[Real; 4],
    d: Real,
) -> Option<([Vec3; 3], VecPoly<3>, [Real; 4])> {
    let n = [normal(traj, c)?; 3];
    let m = normal_power(&n);
    let mut g = gap_cubic(&m, &traj.separation(c));
    g[0] -= d;
    Some((n, m, g))
}

/// CCD-tracked discrete force of a distance pair with unit normal `nh`: `k h (d − n̂·s(1)) n̂`
/// if positive (Fig. 8b's force at `t = 1`), else zero.
pub fn end_impulse(
    traj: &Trajectory,
    c: &[Real; 4],
    nh: &Vec3,
    k: Real,
    h: Real,
    d: Real,
) -> PairImpulse {
    let s = traj.separation(c);
    let depth = d - nh.dot(&(s[0] + s[1]));
    let j = if depth > 0.0 {
        (k * h * depth) * nh
    } else {
        Vec3::zeros()
    };
    PairImpulse::from_j(j, c)
}
