//! CPF supplementary §C: the 1D particle on a penalty plane, symplectic Euler (SE) against
//! continuous penalty forces (CPF).
//!
//! Owns: the two update rules (Eqs. 24–25 and 27–29, with the contact active only while the
//! particle penetrates, `x < 0`), their linear update matrices (Eqs. 26 and 30), the stability
//! limits by eigenvalues and by simulation of the actual penalty stepper (bisection on Δt), the
//! sinusoidal stiffness-perturbation sweep (of the 1D rules), and the experiment's outputs. Does not own: 3D contact (the simulated
//! limit steps `signorini_world::penalty::PenaltyWorld`, see [`simulated_limit`]).
//!
//! CPF in 1D: predict `v* = v − h g`; the particle moves `x(τ) = x + τ v*`, `τ ∈ [0, h]`; the
//! impulse is `∫ −k x(τ) dτ` over the part of the step where `x(τ) < 0` (its penetration time
//! interval), then `v = v* + I/m`, `x ← x + h v`.

use crate::ExperimentError;
use serde::Serialize;
use signorini_dynamics::RigidBody3;
use signorini_geometry::mesh::shapes;
use signorini_harness::penalty_out::{plot, write_csv, write_json};
use signorini_math::{Quat, Vec3};
use signorini_penalty::ForceModel;
use signorini_world::penalty::{MeshBody, PenaltyParams, PenaltyWorld};
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
pub(crate) fn step(method: Method, x: f64, v: f64, k: f64, m: f64, g: f64, h: f64) -> (f64, f64) {
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
pub(crate) const SIM_STEPS: usize = 4000;

/// Half the edge of the simulated body (m): a 10 cm cube, as the scene `particle1d_cpf`.
pub(crate) const CUBE_HALF: f64 = 0.05;

/// Depth (m) by which the cube of [`limit_world`] penetrates each of its two walls at rest.
pub(crate) const SIM_DEPTH: f64 = 1e-3;

/// Start of a trial of [`simulated_limit`]: the cube displaced by this fraction of
/// [`SIM_DEPTH`] from its rest position, at rest.
pub(crate) const SIM_START_FRACTION: f64 = 1e-3;

/// Growth of the displacement that counts as unstable: 100× the start, i.e. 0.1·[`SIM_DEPTH`],
/// still inside the linear regime. Measured: above its linear limit, CPF on the real stepper
/// does not blow up without bound; once the sweep of a step leaves a wall, the penetration
/// interval is clipped and the cube settles into a bounded period-2 oscillation (0.56 mm
/// amplitude for a 1 mm rest depth at 1.05× the limit), so "unbounded" cannot be the criterion;
/// a 100-fold growth of a small disturbance is.
pub(crate) const SIM_GROWTH: f64 = 100.0;

/// The penalty stepper's force model that integrates the 1D rule `method`: CPF for CPF, the
/// discrete closest-point model (a force from the positions at the start of the step, i.e.
/// symplectic Euler) for SE.
pub(crate) fn force_model(method: Method) -> ForceModel {
    match method {
        Method::SymplecticEuler => ForceModel::Dpf,
        Method::Cpf => ForceModel::Cpf,
    }
}

/// The world of [`simulated_limit`] at step `h`: `PenaltyWorld` (the rigid-mesh penalty stepper
/// of `signorini run … --model cpf|dpf`) with a 10 cm cube of mass `m` held between two static
/// boxes, a floor (top at z = 0; the box-on-plane experiment's ground) and a ceiling (bottom at
/// z = 0.1 − 2·[`SIM_DEPTH`]), without gravity. At rest (centre at z = 0.05 − `SIM_DEPTH`) the
/// cube's four bottom and four top vertices are [`SIM_DEPTH`] inside the walls; each
/// vertex–face pair has stiffness `k / 8`, so a vertical displacement meets the total stiffness
/// `k` on both sides of the rest position: the always-in-contact system of the eigenvalue
/// analysis, with no gravity term (with gravity on a floor alone, CPF's discrete rest depth is
/// `m g / k − h² g / 2`, which reaches 0 at CPF's limit, so the cube would leave the floor
/// before any instability). The cube starts `offset` above its rest position. Its inertia is
/// 10⁶ times a solid cube's: the study is of a particle, and a real cube's rocking mode on
/// its springs is √1.5 ≈ 1.22 times stiffer than its vertical mode, so it would set a lower
/// limit.
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub(crate) fn limit_world(
    method: Method,
    k: f64,
    m: f64,
    h: f64,
    offset: f64,
) -> Result<PenaltyWorld, ExperimentError> {
    let arg = |e: &dyn std::fmt::Display| ExperimentError::Argument(e.to_string());
    let mesh = shapes::cuboid(Vec3::repeat(CUBE_HALF)).map_err(|e| arg(&e))?;
    let side = 2.0 * CUBE_HALF;
    let rest = CUBE_HALF - SIM_DEPTH;
    let mut cube = MeshBody::dynamic(&mesh, m / side.powi(3), Vec3::new(0.0, 0.0, rest + offset))
        .map_err(|e| arg(&e))?;
    let inertia = signorini_math::Mat3::identity() * (1e6 * m * side * side / 6.0);
    cube.state = RigidBody3::dynamic(m, inertia)
        .map_err(|e| arg(&e))?
        .with_pose(cube.state.position, Quat::identity());
    let ceiling_bottom = side - 2.0 * SIM_DEPTH;
    let ceiling = shapes::cuboid(Vec3::new(2.0, 2.0, 0.5))
        .and_then(|b| b.map(|p| p + Vec3::new(0.31, 0.17, ceiling_bottom + 0.5)))
        .map_err(|e| arg(&e))?;
    let params = PenaltyParams::new(force_model(method), h, k / 8.0);
    PenaltyWorld::new(
        vec![
            crate::box_on_plane::ground()?,
            MeshBody::fixed(ceiling),
            cube,
        ],
        params,
    )
    .map_err(|e| arg(&e))
}

/// True if the trial of [`simulated_limit`] at step `h` is unstable: within `SIM_STEPS`
/// steps the displacement from rest grows `SIM_GROWTH`-fold, or the state becomes
/// non-finite or diverges.
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn simulated_unstable(method: Method, k: f64, m: f64, h: f64) -> Result<bool, ExperimentError> {
    Ok(unstable_in(method, k, m, h, &mut Progress::default())?.unwrap_or(false))
}

/// Steps simulated so far by [`run`] (every trial and trajectory counted), and where a signal
/// stopped it ([`signorini_harness::cancel`]).
#[derive(Debug, Default)]
struct Progress {
    steps: usize,
    interrupted: Option<String>,
}

impl Progress {
    /// Before one step of `what`: false (and the mark recorded) if a signal asks to stop.
    fn step(&mut self, what: &str) -> bool {
        if self.interrupted.is_some() {
            return false;
        }
        if let Some(mark) = signorini_harness::cancel::stop_at(self.steps, what) {
            self.interrupted = Some(mark);
            return false;
        }
        self.steps += 1;
        true
    }
}

/// [`simulated_unstable`], counting steps in `p`; `None` if a signal stopped the trial.
fn unstable_in(
    method: Method,
    k: f64,
    m: f64,
    h: f64,
    p: &mut Progress,
) -> Result<Option<bool>, ExperimentError> {
    let start = SIM_START_FRACTION * SIM_DEPTH;
    let mut w = limit_world(method, k, m, h, start)?;
    let rest = CUBE_HALF - SIM_DEPTH;
    let what = format!(
        "particle1d's {} stability trials",
        force_model(method).name()
    );
    for _ in 0..SIM_STEPS {
        if !p.step(&what) {
            return Ok(None);
        }
        let rep = w.step();
        let dz = w.bodies[2].state.position.z - rest;
        if rep.diverged || !dz.is_finite() || dz.abs() > SIM_GROWTH * start {
            return Ok(Some(true));
        }
    }
    Ok(Some(false))
}

/// Stability limit by simulation of the actual penalty stepper (`limit_world`: `PenaltyWorld`
/// with CPF, or the discrete model for SE): bisection on Δt over `[0.5, 4]·√(m/k)` (24
/// halvings, 2e-7·√(m/k)) for the largest step whose trial stays stable for `SIM_STEPS` steps
/// ([`simulated_unstable`]: a small disturbance does not grow 100-fold). Independent of
/// [`update_matrix`]: it agrees with
/// [`eigen_limit`] only if the stepper integrates the 1D rule the matrix describes.
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn simulated_limit(method: Method, k: f64, m: f64) -> Result<f64, ExperimentError> {
    limit_in(method, k, m, &mut Progress::default())
}

/// [`simulated_limit`], counting steps in `p`; NaN if a signal stopped it.
fn limit_in(method: Method, k: f64, m: f64, p: &mut Progress) -> Result<f64, ExperimentError> {
    let scale = (m / k).sqrt();
    let (mut lo, mut hi) = (0.5 * scale, 4.0 * scale);
    for _ in 0..24 {
        let mid = 0.5 * (lo + hi);
        match unstable_in(method, k, m, mid, p)? {
            Some(true) => hi = mid,
            Some(false) => lo = mid,
            None => return Ok(f64::NAN),
        }
    }
    Ok(0.5 * (lo + hi))
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
    trajectory_in(method, c, amp, &mut Progress::default())
}

/// [`drop_trajectory`], counting steps in `p`; it ends early if a signal stopped it.
fn trajectory_in(method: Method, c: &DropConfig, amp: f64, p: &mut Progress) -> Vec<f64> {
    let n = (c.duration / c.h).round() as usize;
    let (mut x, mut v) = (c.height, 0.0);
    let mut out = Vec::with_capacity(n + 1);
    out.push(x);
    let what = format!("particle1d's {} drops", force_model(method).name());
    for i in 0..n {
        if !p.step(&what) {
            break;
        }
        let t = i as f64 * c.h;
        let k = c.k * (1.0 + amp * (std::f64::consts::TAU * c.hz * t).sin());
        (x, v) = step(method, x, v, k, c.m, c.g, c.h);
        out.push(x);
    }
    out
}

/// Growth factor of the drop height that counts as instability.
pub(crate) const BLOW_UP: f64 = 2.0;

/// Survival: after the first contact the particle stays finite and never rises above
/// `BLOW_UP` times its drop height (its energy never doubles).
pub fn survives(method: Method, c: &DropConfig, amp: f64) -> bool {
    survives_in(method, c, amp, &mut Progress::default())
}

fn survives_in(method: Method, c: &DropConfig, amp: f64, p: &mut Progress) -> bool {
    let xs = trajectory_in(method, c, amp, p);
    let first = xs.iter().position(|&x| x < 0.0).unwrap_or(xs.len());
    xs[first..]
        .iter()
        .all(|x| x.is_finite() && *x <= BLOW_UP * c.height)
}

/// Largest perturbation amplitude (in steps of 1 %, up to 100 %) such that it and every smaller
/// one survive.
pub fn max_surviving_perturbation(method: Method, c: &DropConfig) -> f64 {
    perturbation_in(method, c, &mut Progress::default())
}

/// [`max_surviving_perturbation`], counting steps in `p`; NaN if a signal stopped it.
fn perturbation_in(method: Method, c: &DropConfig, p: &mut Progress) -> f64 {
    let mut best = 0.0;
    for pct in 0..=100 {
        let amp = pct as f64 / 100.0;
        let ok = survives_in(method, c, amp, p);
        if p.interrupted.is_some() {
            return f64::NAN;
        }
        if !ok {
            break;
        }
        best = amp;
    }
    best
}

/// `DIR/summary.json` of `particle1d` (field names fixed by issue 6).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Particle1dSummary {
    /// SE stability limit found by simulating the penalty stepper with the discrete model
    /// ([`simulated_limit`]; s).
    pub se_stability_limit_s: f64,
    /// CPF stability limit found by simulating the penalty stepper with CPF (s).
    pub cpf_stability_limit_s: f64,
    /// `2√(m/k)` (s).
    pub se_analytic_limit_s: f64,
    /// `√(2m/k)` (s).
    pub cpf_analytic_limit_s: f64,
    /// Largest surviving relative stiffness perturbation under SE.
    pub(crate) se_max_perturbation: f64,
    /// Largest surviving relative stiffness perturbation under CPF.
    pub(crate) cpf_max_perturbation: f64,
    /// SE limit by eigenvalues (s; in `limits.csv`, not in `summary.json`).
    #[serde(skip)]
    pub(crate) se_eigen_limit_s: f64,
    /// CPF limit by eigenvalues (s; in `limits.csv`).
    #[serde(skip)]
    pub(crate) cpf_eigen_limit_s: f64,
    /// Perturbation frequency used (Hz; printed by the CLI, not in `summary.json`).
    #[serde(skip)]
    pub(crate) perturbation_hz: f64,
    /// Set if a signal stopped the experiment: `"SIGINT at step k of <what>"`, k counting every
    /// simulated step of every trial so far ([`signorini_harness::cancel`]); the figures not reached are
    /// NaN (`null` in `summary.json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) interrupted: Option<String>,
}

/// Run everything, write `limits.csv`, `trajectory.csv`, `trajectory.svg`, `summary.json`
/// into `out`, and return the summary.
///
/// # Errors
/// [`ExperimentError`] if a file cannot be written.
pub fn run(c: &DropConfig, out: &Path) -> Result<Particle1dSummary, ExperimentError> {
    let (se, cpf) = (Method::SymplecticEuler, Method::Cpf);
    // Every loop checks the cancellation flag before each step ([`Progress`]).
    let mut p = Progress::default();
    let mut s = Particle1dSummary {
        se_stability_limit_s: limit_in(se, c.k, c.m, &mut p)?,
        cpf_stability_limit_s: limit_in(cpf, c.k, c.m, &mut p)?,
        se_analytic_limit_s: analytic_limit(se, c.k, c.m),
        cpf_analytic_limit_s: analytic_limit(cpf, c.k, c.m),
        se_max_perturbation: perturbation_in(se, c, &mut p),
        cpf_max_perturbation: perturbation_in(cpf, c, &mut p),
        se_eigen_limit_s: eigen_limit(se, c.k, c.m),
        cpf_eigen_limit_s: eigen_limit(cpf, c.k, c.m),
        perturbation_hz: c.hz,
        interrupted: None,
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
    let (mut xs, mut xc) = (
        trajectory_in(se, &short, 0.25, &mut p),
        trajectory_in(cpf, &short, 0.25, &mut p),
    );
    // Equal lengths (one may have been cut by a signal).
    let len = xs.len().min(xc.len());
    xs.truncate(len);
    xc.truncate(len);
    s.interrupted = p.interrupted;
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

/// `signorini experiment particle1d`: the stability limits (analytic, eigenvalues, simulated)
/// and the largest surviving stiffness perturbation; passes when the three limits agree to 1 %.
impl crate::Experiment for crate::experiment::InFolder<DropConfig> {
    fn out(&self) -> &Path {
        &self.out
    }

    fn run(&self) -> Result<crate::Report, ExperimentError> {
        use std::fmt::Write;
        let s = run(&self.params, &self.out)?;
        let mut t = String::new();
        let rel = |x: f64, y: f64| (x - y).abs() / y;
        let _ = writeln!(t, "particle1d (m = 1 kg, k = 10 kN/m):");
        let _ = writeln!(
            t,
            "  SE  limit: analytic {:.6e} s, eigenvalues {:.6e} s, simulated penalty stepper (dpf) {:.6e} s ({:.2e} rel. to eigenvalues)",
            s.se_analytic_limit_s,
            s.se_eigen_limit_s,
            s.se_stability_limit_s,
            rel(s.se_stability_limit_s, s.se_eigen_limit_s)
        );
        let _ = writeln!(
            t,
            "  CPF limit: analytic {:.6e} s, eigenvalues {:.6e} s, simulated penalty stepper (cpf) {:.6e} s ({:.2e} rel. to eigenvalues)",
            s.cpf_analytic_limit_s,
            s.cpf_eigen_limit_s,
            s.cpf_stability_limit_s,
            rel(s.cpf_stability_limit_s, s.cpf_eigen_limit_s)
        );
        let _ = writeln!(
            t,
            "  (simulated: PenaltyWorld, a 1 kg cube held between two walls by 8 vertex-face pairs of k/8, no gravity; bisection on the step for a 100-fold growth of a small displacement)"
        );
        let _ = writeln!(
            t,
            "  largest surviving stiffness perturbation at {} Hz, Δt = 2 ms: SE {:.0} %, CPF {:.0} % (paper: 15 %, 70 %)",
            s.perturbation_hz,
            100.0 * s.se_max_perturbation,
            100.0 * s.cpf_max_perturbation
        );
        if let Some(why) = &s.interrupted {
            let _ = writeln!(t, "  interrupted: {why} (the figures not reached are NaN)");
        }
        let ok = [
            (s.se_stability_limit_s, s.se_eigen_limit_s),
            (s.cpf_stability_limit_s, s.cpf_eigen_limit_s),
            (s.se_eigen_limit_s, s.se_analytic_limit_s),
            (s.cpf_eigen_limit_s, s.cpf_analytic_limit_s),
        ]
        .iter()
        .all(|(x, y)| rel(*x, *y) < 0.01);
        Ok(crate::Report {
            text: t,
            passed: Some(ok),
        })
    }
}
