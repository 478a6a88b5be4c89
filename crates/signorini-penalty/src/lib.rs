//! Penalty contact impulses for triangle-mesh feature pairs: continuous penalty forces (CPF,
//! Tang, Manocha, Otaduy, Tong 2012) and the discrete baselines.
//!
//! Owns:
//! - [`pair`]: a vertex–face / edge–edge pair on linear trajectories, collision points, the
//!   Bernstein normal (Eqs. 14, 18) and its normalisation `L(t)`, `L_k` (Eq. 15);
//! - [`intervals`]: penetration time intervals (§3.2, Fig. 3);
//! - [`impulse`]: the continuous impulse (Eq. 8) in closed form with `L_k` (Eqs. 12–13, 16–17,
//!   supplementary §B) and with the exact normal by quadrature;
//! - [`discrete`]: discrete penalty impulses (Eq. 3) — closest point at the end positions, and
//!   the CCD-tracked variant of Fig. 8b;
//! - [`friction`]: Coulomb plus viscous friction (§3.6);
//! - [`track`]: first-contact detection with the CCD crate and feature-pair tracking (§3.2);
//! - [`distance`]: distance pairs (edge–edge proximity at an edge's end: closest points and
//!   normal refreshed every step, a conservative departure from §3.2's fixed collision points).
//!
//! Does not own: bodies, time stepping (`signorini-world::penalty`), meshes
//! (`signorini-geometry::mesh`), CCD kernels (`signorini-ccd`). See `docs/penalty.md`.

#![warn(missing_docs)]

pub mod discrete;
pub mod distance;
pub mod friction;
pub mod impulse;
pub mod intervals;
pub mod pair;
pub mod track;

pub use friction::{Friction, friction_impulse};
pub use impulse::{PairImpulse, continuous_exact, continuous_lk, continuous_lk_from, depth_at};
pub use intervals::{Intervals, penetration_intervals};
pub use pair::{Kind, Trajectory};
pub use track::{Contact, PairKey, Tracked, Tracker, detect};

/// Which impulse a pair receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForceModel {
    /// Continuous penalty force, closed form with `L_k` (Eqs. 12–18).
    Cpf,
    /// Continuous penalty force with the exact normal by quadrature.
    CpfExact,
    /// Discrete penalty force with the closest-point normal (Eq. 3) at the end positions of
    /// the previous step, i.e. the current configuration: symplectic Euler (supp. §C).
    Dpf,
    /// Discrete penalty force with CCD-tracked features and normals (Fig. 8b).
    DpfCcd,
}

impl ForceModel {
    /// Short name used in outputs: `cpf`, `cpf_exact`, `dpf`, `dpf_ccd`.
    pub fn name(self) -> &'static str {
        match self {
            ForceModel::Cpf => "cpf",
            ForceModel::CpfExact => "cpf_exact",
            ForceModel::Dpf => "dpf",
            ForceModel::DpfCcd => "dpf_ccd",
        }
    }

    /// Parse a [`ForceModel::name`].
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Cpf, Self::CpfExact, Self::Dpf, Self::DpfCcd]
            .into_iter()
            .find(|m| m.name() == s)
    }
}

/// Impulse of a tracked pair under a continuous or CCD-tracked model, with its penetration
/// intervals. `Dpf` pairs are not tracked (closest-point forces are computed by the stepper);
/// for it this returns zero.
pub fn tracked_impulse(
    model: ForceModel,
    traj: &Trajectory,
    t: &Tracked,
    k: signorini_math::Real,
    h: signorini_math::Real,
) -> (PairImpulse, Intervals) {
    tracked_impulse_thick(model, traj, t, k, h, 0.0)
}

/// [`tracked_impulse`] with a contact thickness `d` (m): the pair is in contact while its
/// depth `d − σ m̂·s` is positive (a collision tolerance, as the paper's cloth and chain
/// benchmarks use), so contact forces act before the features meet. `d = 0` is
/// [`tracked_impulse`] exactly. A [`Tracked::distance`] pair takes the same path with its
/// constant unit normal ([`distance::cubic`]); for it the closed form is exact, and the
/// CCD-tracked discrete force is [`distance::end_impulse`].
pub fn tracked_impulse_thick(
    model: ForceModel,
    traj: &Trajectory,
    t: &Tracked,
    k: signorini_math::Real,
    h: signorini_math::Real,
    d: signorini_math::Real,
) -> (PairImpulse, Intervals) {
    let zero = || PairImpulse::from_j(signorini_math::Vec3::zeros(), &t.coeffs);
    let (n, m, g) = if t.distance {
        let Some(nmg) = distance::cubic(traj, &t.coeffs, d) else {
            return (zero(), Intervals::default());
        };
        nmg
    } else {
        let n = traj.normal_bernstein();
        let m = pair::normal_power(&n);
        let g = pair::gap_cubic(&m, &traj.separation(&t.coeffs));
        (n, m, impulse::thick_cubic(&g, &n, d, t.outside))
    };
    let iv = penetration_intervals(&g, t.outside);
    let imp = match model {
        ForceModel::Cpf => impulse::continuous_lk_from(&n, &m, &g, &t.coeffs, &iv, k * h),
        ForceModel::CpfExact if t.distance => {
            impulse::continuous_lk_from(&n, &m, &g, &t.coeffs, &iv, k * h)
        }
        ForceModel::CpfExact => {
            impulse::continuous_exact_thick(traj, &t.coeffs, &iv, k, h, d, t.outside)
        }
        ForceModel::DpfCcd if t.distance => distance::end_impulse(traj, &t.coeffs, &n[0], k, h, d),
        ForceModel::DpfCcd => {
            discrete::tracked_end_impulse_thick(traj, &t.coeffs, t.outside, k, h, d)
        }
        ForceModel::Dpf => zero(),
    };
    (imp, iv)
}

/// Penetration depth `δ` of a tracked pair at time `t` (negative: apart; a pair with contact
/// thickness `d` is in contact while `d + δ > 0`): [`depth_at`] for the paper's tracked pairs,
/// [`distance::depth`] for distance pairs.
pub fn tracked_depth(
    traj: &Trajectory,
    t: &Tracked,
    at: signorini_math::Real,
) -> signorini_math::Real {
    if t.distance {
        distance::depth(traj, &t.coeffs, at)
    } else {
        depth_at(traj, &t.coeffs, t.outside, at)
    }
}
