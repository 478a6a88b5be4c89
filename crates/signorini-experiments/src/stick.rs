//! The Stick benchmark (CPF Fig. 9): a rigid ball hits a tilted thin stick; the rebound direction
//! under each force model against a reference run at a 100× smaller step.
//!
//! The reference is independent of CPF: the discrete penalty model (`ForceModel::Dpf`, closest
//! point at the start of the step, i.e. symplectic Euler on the penalty force) at `h / 100`
//! ([`REFERENCE_MODEL`], [`REFERENCE_DIVISOR`]). At 40 µs the ball moves 0.16 mm per step
//! against a 2 cm stick, so the discrete model's failure (a vertex past the mid-plane) cannot
//! happen, and both penalty models converge to the same continuous penalty dynamics as h → 0.
//! Its own step error is reported: the angle between it and the same model at `h / 200`
//! (`details.csv`, `reference_convergence_deg`).
//!
//! Owns: the scene and [`run`]. The stick is static, 1 m long and 2 cm thick, tilted 45° in the
//! x–z plane; the ball (radius 10 cm, 4.2 kg) flies along +x at 4 m/s without gravity, so a
//! perfect reflection off the stick's side would send it straight up (+z), as in the paper
//! ("the ball should bounce back upwards").

use crate::ExperimentError;
use crate::box_on_plane::{MODELS, ModelSummary, Trace, summarize, trace, write_trace};
use crate::penalty_out::{plot, write_csv, write_json};
use serde::Serialize;
use signorini_geometry::mesh::shapes;
use signorini_math::{Quat, Real, Vec3};
use signorini_penalty::ForceModel;
use signorini_world::penalty::{MeshBody, PenaltyParams, PenaltyWorld};
use std::collections::BTreeMap;
use std::path::Path;

/// The reference run's force model: the discrete model, not CPF (module docs).
pub const REFERENCE_MODEL: ForceModel = ForceModel::Dpf;

/// The reference run's step is `h / REFERENCE_DIVISOR`.
pub const REFERENCE_DIVISOR: Real = 100.0;

/// Parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StickConfig {
    /// Step (s); the reference uses `h / 100` ([`REFERENCE_DIVISOR`]).
    pub h: Real,
    /// Simulated time (s).
    pub duration: Real,
    /// Penalty stiffness per pair (N/m).
    pub stiffness: Real,
    /// Ball speed (m/s).
    pub speed: Real,
}

impl Default for StickConfig {
    /// 4 ms steps, 0.3 s, 60 kN/m per pair, 4 m/s: the ball moves 16 mm per step against a
    /// 2 cm stick, so at the end of a step its vertices can be past the stick's mid-plane, where
    /// the closest-point normal of discrete penalty forces flips (the paper's failure). At 2 m/s
    /// all models bounce upwards (see docs/penalty.md).
    fn default() -> Self {
        StickConfig {
            h: 4e-3,
            duration: 0.3,
            stiffness: 6e4,
            speed: 4.0,
        }
    }
}

/// One model's summary plus the rebound directions (issue 6 field names).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StickSummary {
    /// The common fields.
    #[serde(flatten)]
    pub common: ModelSummary,
    /// Unit direction of the ball's final velocity.
    pub rebound_direction: [Real; 3],
    /// The same for the reference run (the discrete model at `h / 100`, [`REFERENCE_MODEL`]).
    pub reference_rebound_direction: [Real; 3],
    /// Angle between the two (degrees; not in `summary.json`, written to `details.csv`).
    #[serde(skip)]
    pub angle_to_reference_deg: Real,
    /// Angle between the reference's rebound and the same model's at half the reference's
    /// step (degrees; the reference's own step error; `details.csv`).
    #[serde(skip)]
    pub reference_convergence_deg: Real,
}

/// The scene at step `h`: the tilted static stick (body 0) and the ball (body 1), no gravity.
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn world(c: &StickConfig, model: ForceModel, h: Real) -> Result<PenaltyWorld, ExperimentError> {
    let arg = |e: &dyn std::fmt::Display| ExperimentError::Argument(e.to_string());
    let tilt = Quat::from_euler_angles(0.0, -std::f64::consts::FRAC_PI_4, 0.0);
    let stick = shapes::stick(1.0, 0.02)
        .and_then(|m| m.map(|p| tilt * p))
        .map_err(|e| arg(&e))?;
    let ball = shapes::sphere(0.1, 24, 12).map_err(|e| arg(&e))?;
    let mut b = MeshBody::dynamic(&ball, 1000.0, Vec3::new(-0.4, 0.0, 0.0)).map_err(|e| arg(&e))?;
    b.state.linear_velocity = Vec3::new(c.speed, 0.0, 0.0);
    let mut params = PenaltyParams::new(model, h, c.stiffness);
    params.measure_penetration = true;
    PenaltyWorld::new(vec![MeshBody::fixed(stick), b], params).map_err(|e| arg(&e))
}

fn direction(w: &PenaltyWorld) -> Vec3 {
    w.bodies[1].state.linear_velocity.normalize()
}

/// Run the reference (the discrete model at `h / 100`, and at `h / 200` for its convergence)
/// and the three models; write `stick_<model>.csv`, `reference.csv`, `force.svg`,
/// `summary.json`, `details.csv`.
///
/// # Errors
/// [`ExperimentError`] for invalid parameters or unwritable files.
pub fn run(c: &StickConfig, out: &Path) -> Result<BTreeMap<String, StickSummary>, ExperimentError> {
    let steps = |h: Real| (c.duration / h).round() as usize;
    let href = c.h / REFERENCE_DIVISOR;
    let mut wref = world(c, REFERENCE_MODEL, href)?;
    let tref = trace(&mut wref, steps(href), 1);
    write_trace(&out.join("reference.csv"), &tref)?;
    let dref = direction(&wref);
    // The reference's own step error: the same model at half its step.
    let hfine = 0.5 * href;
    let mut wfine = world(c, REFERENCE_MODEL, hfine)?;
    let _ = trace(&mut wfine, steps(hfine), 1);
    let convergence = direction(&wfine)
        .dot(&dref)
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees();
    let mut summary = BTreeMap::new();
    let mut traces: Vec<(&str, Trace)> = Vec::new();
    for model in MODELS {
        let mut w = world(c, model, c.h)?;
        let tr = trace(&mut w, steps(c.h), 1);
        write_trace(&out.join(format!("stick_{}.csv", model.name())), &tr)?;
        let d = direction(&w);
        let angle = d.dot(&dref).clamp(-1.0, 1.0).acos().to_degrees();
        summary.insert(
            model.name().to_string(),
            StickSummary {
                common: summarize(&tr, c.h),
                rebound_direction: [d.x, d.y, d.z],
                reference_rebound_direction: [dref.x, dref.y, dref.z],
                angle_to_reference_deg: angle,
                reference_convergence_deg: convergence,
            },
        );
        traces.push((model.name(), tr));
    }
    traces.push(("reference (discrete penalty, h/100)", tref));
    let series: Vec<(&str, &[Real], &[Real])> = traces
        .iter()
        .map(|(n, t)| (*n, t.t.as_slice(), t.force.as_slice()))
        .collect();
    plot(
        &out.join("force.svg"),
        "Stick: contact force",
        "t (s)",
        "force (N)",
        &series,
    )?;
    write_json(&out.join("summary.json"), &summary)?;
    write_csv(
        &out.join("details.csv"),
        "model,angle_to_reference_deg,final_second_jitter,reference_convergence_deg",
        summary.iter().map(|(n, m)| {
            format!(
                "{n},{},{:e},{convergence}",
                m.angle_to_reference_deg, m.common.final_second_jitter
            )
        }),
    )?;
    Ok(summary)
}
