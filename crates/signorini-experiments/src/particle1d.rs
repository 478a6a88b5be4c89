//! CPF supplementary §C: the 1D particle on a penalty plane, symplectic Euler (SE) against
//! continuous penalty forces (CPF).
//!
//! Owns: the two update rules (Eqs. 24–25 and 27–29, with the contact active only while the
//! particle penetrates, `x < 0`), their linear update matrices (Eqs. 26 and 30), the stability
//! limits by eigenvalues and by simulation (bisection on Δt), the sinusoidal stiffness-
//! perturbation sweep, and the experiment's outputs. Does not own: 3D contact.
//!
//! CPF in 1D: predict `v* = v − h g`; the particle moves `x(τ) = x + τ v*`, `τ ∈ [0, h]`; the
//! impulse is `∫ −k x(τ) dτ` over the part of the step where `x(τ) < 0` (its penetration time
//! interval), then `v = v* + I/m`, `x ← x + h v`.

use crate::ExperimentError;
use crate::penalty_out::{plot, write_csv, write_json};
use serde::Serialize;
use std::path::Path;

/// The integrators compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Symplectic Euler with the penalty force `−k x` for `x < 0` (Eqs. 24–25).
    SymplecticEuler,
    /// Continuous penalty impulse over the penetration interval (Eqs. 27–29).
    Cpf,
}

/// One step of the nonlinear contact model: stiffness `k`, mass `m`, gravity `g`, step `h`.
pub fn step(method: Method, x: f64, v: f64, k: f64, m: f64, g: f64, h: f64) -> (f64, f64) {
    match method {
        Method::SymplecticEuler => {
            let f = if x < 0.0 { -k * x } else { 0.0 };
            let v = v + h * (f / m - g);
            (x + h * v, v)
        }
        Method::Cpf => {
            let vs = v - h * g;
            // Penetration interval of x + τ v* < 0 within [0, h].
            let (lo, hi) = if vs == 0.0 {
                if x < 0.0 { (0.0, h) } else { (0.0, 0.0) }
            } else {
                let root = -x / vs;
                if vs < 0.0 {
                    (root.clamp(0.0, h), h)
                } else {
                    (0.0, root.clamp(0.0, h))
                }
            };
            let anti = |t: f64| x * t + 0.5 * vs * t * t;
            let impulse = -k * (anti(hi) - anti(lo));
            let v = vs + impulse / m;
            (x + h * v, v)
        }
    }
}

/// The linear update matrix of the always-in-contact system without gravity (Eqs. 26, 30).
pub fn update_matrix(method: Method, k: f64, m: f64, h: f64) -> [[f64; 2]; 2] {
    let a = h * h * k / m;
    match method {
        Method::SymplecticEuler => [[1.0 - a, h], [-h * k / m, 1.0]],
        Method::Cpf => [[1.0 - a, h * (1.0 - 0.5 * a)], [-h * k / m, 1.0 - 0.5 * a]],
    }
}

/// Spectral radius of a 2×2 matrix.
pub fn spectral_radius(a: &[[f64; 2]; 2]) -> f64 {
    let tr = a[0][0] + a[1][1];
    let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
    let disc = tr * tr - 4.0 * det;
    if disc < 0.0 {
        det.abs().sqrt()
    } else {
        let s = disc.sqrt();
        (0.5 * (tr + s)).abs().max((0.5 * (tr - s)).abs())
    }
}

/// Analytic limits (supplementary §C): SE `2√(m/k)`, CPF `√(2m/k)`.
pub fn analytic_limit(method: Method, k: f64, m: f64) -> f64 {
    match method {
        Method::SymplecticEuler => 2.0 * (m / k).sqrt(),
        Method::Cpf => (2.0 * m / k).sqrt(),
    }
}

/// Bisection for the largest stable step on `[lo, hi]` given an "unstable at h" predicate.
fn bisect(mut lo: f64, mut hi: f64, unstable: impl Fn(f64) -> bool) -> f64 {
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if unstable(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Stability limit by eigenvalues: the largest `h` with spectral radius `≤ 1 + 1e-12`.
pub fn eigen_limit(method: Method, k: f64, m: f64) -> f64 {
    let scale = (m / k).sqrt();
    bisect(1e-3 * scale, 10.0 * scale, |h| {
        spectral_radius(&update_matrix(method, k, m, h)) > 1.0 + 1e-12
    })
}

/// Steps simulated per trial of [`simulated_limit`].
pub const SIM_STEPS: usize = 100_000;

/// Stability limit by simulation: the linear system (always in contact, no gravity) from
/// `x = −1 cm`, `v = 0` counts as unstable if `|x|` exceeds 1000× its start within
/// [`SIM_STEPS`] steps.
pub fn simulated_limit(method: Method, k: f64, m: f64) -> f64 {
    let scale = (m / k).sqrt();
    bisect(1e-3 * scale, 10.0 * scale, |h| {
        let a = update_matrix(method, k, m, h);
        let (mut x, mut v) = (-0.01, 0.0);
        for _ in 0..SIM_STEPS {
            (x, v) = (a[0][0] * x + a[0][1] * v, a[1][0] * x + a[1][1] * v);
            if x.is_nan() || x.abs() > 10.0 {
                return true;
            }
        }
        false
    })
}

/// Parameters of the drop with a perturbed stiffness (supplementary §3.6 / paper §3.6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DropConfig {
    /// Mass (kg).
    pub m: f64,
    /// Nominal stiffness (N/m).
    pub k: f64,
    /// Step (s).
    pub h: f64,
    /// Drop height (m).
    pub height: f64,
    /// Gravity (m/s²).
    pub g: f64,
    /// Simulated time (s).
    pub duration: f64,
    /// Frequency of the sinusoidal stiffness perturbation (Hz).
    pub hz: f64,
}

impl Default for DropConfig {
    /// The paper's: 1 kg, 10 kN/m, Δt = 2 ms, dropped from 0.1 m; 10 s; 30 Hz.
    fn default() -> Self {
        DropConfig {
            m: 1.0,
            k: 1.0e4,
            h: 2e-3,
            height: 0.1,
            g: 9.81,
            duration: 10.0,
            hz: 30.0,
        }
    }
}

/// Trajectory `x` per step of the drop with relative stiffness perturbation `amp`.
pub fn drop_trajectory(method: Method, c: &DropConfig, amp: f64) -> Vec<f64> {
    let n = (c.duration / c.h).round() as usize;
    let (mut x, mut v) = (c.height, 0.0);
    let mut out = Vec::with_capacity(n + 1);
    out.push(x);
    for i in 0..n {
        let t = i as f64 * c.h;
        let k = c.k * (1.0 + amp * (std::f64::consts::TAU * c.hz * t).sin());
        (x, v) = step(method, x, v, k, c.m, c.g, c.h);
        out.push(x);
    }
    out
}

/// Growth factor of the drop height that counts as instability.
pub const BLOW_UP: f64 = 2.0;

/// Survival: after the first contact the particle stays finite and never rises above
/// [`BLOW_UP`] times its drop height (its energy never doubles).
pub fn survives(method: Method, c: &DropConfig, amp: f64) -> bool {
    let xs = drop_trajectory(method, c, amp);
    let first = xs.iter().position(|&x| x < 0.0).unwrap_or(xs.len());
    xs[first..]
        .iter()
        .all(|x| x.is_finite() && *x <= BLOW_UP * c.height)
}

/// Largest perturbation amplitude (in steps of 1 %, up to 100 %) such that it and every smaller
/// one survive.
pub fn max_surviving_perturbation(method: Method, c: &DropConfig) -> f64 {
    let mut best = 0.0;
    for pct in 0..=100 {
        let amp = pct as f64 / 100.0;
        if !survives(method, c, amp) {
            break;
        }
        best = amp;
    }
    best
}

/// `DIR/summary.json` of `particle1d` (field names fixed by issue 6).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Particle1dSummary {
    /// SE stability limit found by simulation (s).
    pub se_stability_limit_s: f64,
    /// CPF stability limit found by simulation (s).
    pub cpf_stability_limit_s: f64,
    /// `2√(m/k)` (s).
    pub se_analytic_limit_s: f64,
    /// `√(2m/k)` (s).
    pub cpf_analytic_limit_s: f64,
    /// Largest surviving relative stiffness perturbation under SE.
    pub se_max_perturbation: f64,
    /// Largest surviving relative stiffness perturbation under CPF.
    pub cpf_max_perturbation: f64,
    /// SE limit by eigenvalues (s; in `limits.csv`, not in `summary.json`).
    #[serde(skip)]
    pub se_eigen_limit_s: f64,
    /// CPF limit by eigenvalues (s; in `limits.csv`).
    #[serde(skip)]
    pub cpf_eigen_limit_s: f64,
    /// Perturbation frequency used (Hz; printed by the CLI, not in `summary.json`).
    #[serde(skip)]
    pub perturbation_hz: f64,
}

/// Run everything, write `limits.csv`, `trajectory.csv`, `trajectory.svg`, `summary.json`
/// into `out`, and return the summary.
///
/// # Errors
/// [`ExperimentError`] if a file cannot be written.
pub fn run(c: &DropConfig, out: &Path) -> Result<Particle1dSummary, ExperimentError> {
    let (se, cpf) = (Method::SymplecticEuler, Method::Cpf);
    let s = Particle1dSummary {
        se_stability_limit_s: simulated_limit(se, c.k, c.m),
        cpf_stability_limit_s: simulated_limit(cpf, c.k, c.m),
        se_analytic_limit_s: analytic_limit(se, c.k, c.m),
        cpf_analytic_limit_s: analytic_limit(cpf, c.k, c.m),
        se_max_perturbation: max_surviving_perturbation(se, c),
        cpf_max_perturbation: max_surviving_perturbation(cpf, c),
        se_eigen_limit_s: eigen_limit(se, c.k, c.m),
        cpf_eigen_limit_s: eigen_limit(cpf, c.k, c.m),
        perturbation_hz: c.hz,
    };
    write_csv(
        &out.join("limits.csv"),
        "method,analytic_s,eigen_s,simulated_s,max_perturbation",
        [
            format!(
                "se,{:e},{:e},{:e},{}",
                s.se_analytic_limit_s,
                s.se_eigen_limit_s,
                s.se_stability_limit_s,
                s.se_max_perturbation
            ),
            format!(
                "cpf,{:e},{:e},{:e},{}",
                s.cpf_analytic_limit_s,
                s.cpf_eigen_limit_s,
                s.cpf_stability_limit_s,
                s.cpf_max_perturbation
            ),
        ],
    )?;
    // The paper's figure: 10 kN/m ± 25 %, first 2 s.
    let short = DropConfig {
        duration: 2.0,
        ..*c
    };
    let (xs, xc) = (
        drop_trajectory(se, &short, 0.25),
        drop_trajectory(cpf, &short, 0.25),
    );
    write_csv(
        &out.join("trajectory.csv"),
        "t,x_se,x_cpf",
        xs.iter()
            .zip(&xc)
            .enumerate()
            .map(|(i, (a, b))| format!("{},{a},{b}", i as f64 * c.h)),
    )?;
    let t: Vec<f64> = (0..xs.len()).map(|i| i as f64 * c.h).collect();
    plot(
        &out.join("trajectory.svg"),
        "1 kg particle on a 10 kN/m ±25 % plane, Δt = 2 ms",
        "t (s)",
        "x (m)",
        &[("symplectic Euler", &t, &xs), ("CPF", &t, &xc)],
    )?;
    write_json(&out.join("summary.json"), &s)?;
    Ok(s)
}
