//! Friction for penalty contact (CPF §3.6): a force orthogonal to the contact force, Coulomb
//! (`μ`, bounded by the normal impulse) plus viscous (`c_v`, proportional to the sliding
//! velocity), as in the SOFA friction model the paper uses (Cloth benchmark: viscous 0.005,
//! Coulomb 0.8). The paper computes it independently of the continuous impulse; so do we.
//!
//! Owns: [`Friction`] and [`friction_impulse`]. The impulse never reverses the sliding: its
//! magnitude is capped at `m_r |v_t|` with `m_r` the effective mass of the contact point along the sliding
//! direction, supplied by the stepper.

use signorini_math::{Real, Vec3};

/// Friction coefficients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Friction {
    /// Coulomb coefficient `μ` (dimensionless).
    pub mu: Real,
    /// Viscous coefficient `c_v` (N s/m).
    pub viscous: Real,
}

impl Friction {
    /// No friction.
    pub const NONE: Friction = Friction {
        mu: 0.0,
        viscous: 0.0,
    };
}

/// Friction impulse on the first body of a pair: normal impulse `jn` (on the first body),
/// relative velocity `v_rel` of the first body's contact point w.r.t. the second, step `h`,
/// effective mass `m_r` (kg; `∞` if both are static).
pub fn friction_impulse(f: &Friction, jn: &Vec3, v_rel: &Vec3, h: Real, m_r: Real) -> Vec3 {
    let jn_norm = jn.norm();
    if jn_norm == 0.0 {
        return Vec3::zeros();
    }
    let n = jn / jn_norm;
    let vt = v_rel - n * n.dot(v_rel);
    let speed = vt.norm();
    if speed == 0.0 {
        return Vec3::zeros();
    }
    let magnitude = (f.mu * jn_norm + f.viscous * h * speed).min(m_r * speed);
    -(magnitude / speed) * vt
}
