//! Discrete penalty impulses (the baselines of CPF §2 and Fig. 8).
//!
//! Owns: [`closest_point_impulse`] — the classic discrete penalty force `F = k δ n` (Eq. 3) at the
//! end positions, with `n` the direction to the closest surface point and `δ` the distance,
//! times the step (explicit Euler) — and [`tracked_end_impulse`], the paper's Fig. 8b variant:
//! the same force law evaluated at `t = 1` only, but with the features, collision points and
//! normal tracked from the CCD first contact (Eq. 4).

use crate::impulse::PairImpulse;
use crate::pair::Trajectory;
use signorini_math::{Real, Vec3};

/// Discrete penalty impulse on a penetrating point `p` whose closest surface point is `q`
/// (Eq. 3: `F = k δ n`, `δ = |q − p|`, `n = (q − p)/δ`, so `h F = h k (q − p)`).
#[inline]
pub fn closest_point_impulse(p: &Vec3, q: &Vec3, k: Real, h: Real) -> Vec3 {
    (k * h) * (q - p)
}

/// Fig. 8b: `J = −k h (m̂·s) m̂` at `t = 1` if the tracked pair penetrates there (`σ g(1) < 0`),
/// else zero.
pub fn tracked_end_impulse(
    traj: &Trajectory,
    c: &[Real; 4],
    outside: i8,
    k: Real,
    h: Real,
) -> PairImpulse {
    tracked_end_impulse_thick(traj, c, outside, k, h, 0.0)
}

/// [`tracked_end_impulse`] with a contact thickness `d`: depth `d − σ m̂·s` at `t = 1`.
pub fn tracked_end_impulse_thick(
    traj: &Trajectory,
    c: &[Real; 4],
    outside: i8,
    k: Real,
    h: Real,
    d: Real,
) -> PairImpulse {
    let m = traj.normal_at(1.0);
    let (p, q) = traj.points(c, 1.0);
    let s = p - q;
    let l2 = m.norm_squared();
    let g = m.dot(&s) - outside as Real * d * l2.sqrt();
    if (outside as Real) * g >= 0.0 || l2 == 0.0 {
        return PairImpulse::from_j(Vec3::zeros(), c);
    }
    PairImpulse::from_j(-(k * h * g / l2) * m, c)
}
