//! A rigid box dropped on a plane (the CPF paper's supplementary video, §5.1 "Jitter"): it comes
//! to rest under continuous penalty forces and keeps jittering under discrete ones.
//!
//! Owns: the scene, [`run_model`] (one force model), [`run`] (all three, outputs and
//! `summary.json`), and [`Trace`], the per-step series shared with `stick`.

use crate::ExperimentError;
use crate::penalty_out::{jitter, plot, plot_scaled, write_csv, write_json};
use serde::Serialize;
use signorini_geometry::mesh::shapes;
use signorini_math::{Quat, Real, Vec3};
use signorini_penalty::{ForceModel, Friction};
use signorini_world::penalty::{MeshBody, PenaltyParams, PenaltyReport, PenaltyWorld};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// Scene and run parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxConfig {
    /// Step (s).
    pub h: Real,
    /// Simulated time (s).
    pub duration: Real,
    /// Penalty stiffness per pair (N/m).
    pub stiffness: Real,
    /// Box edge length (m); density 1000 kg/m³.
    pub size: Real,
    /// Height of the box bottom at the start (m).
    pub drop: Real,
    /// Initial tilt about x (rad).
    pub tilt: Real,
    /// Friction.
    pub friction: Friction,
}

impl Default for BoxConfig {
    /// A 10 cm, 1 kg box dropped from 5 cm with a 0.1 rad tilt onto a plane; 1 ms steps,
    /// 100 kN/m per pair, μ = 0.5; 3 s.
    fn default() -> Self {
        BoxConfig {
            h: 1e-3,
            duration: 3.0,
            stiffness: 1e5,
            size: 0.1,
            drop: 0.05,
            tilt: 0.1,
            friction: Friction {
                mu: 0.5,
                viscous: 0.0,
            },
        }
    }
}

/// Per-step series of one run (the dynamic body is body 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Time at the end of each step (s).
    pub t: Vec<Real>,
    /// Height of the dynamic body's centre of mass (m).
    pub z: Vec<Real>,
    /// Largest vertex speed of the dynamic body (m/s).
    pub speed: Vec<Real>,
    /// Total contact-force magnitude (N).
    pub force: Vec<Real>,
    /// Deepest vertex inside another body (m).
    pub penetration: Vec<Real>,
    /// Pairs evaluated.
    pub pairs: Vec<usize>,
    /// Wall-clock milliseconds per step (mean).
    pub ms_per_step: Real,
}

/// Run a world for `steps` steps, recording body `dynamic`.
pub fn trace(w: &mut PenaltyWorld, steps: usize, dynamic: usize) -> Trace {
    let mut tr = Trace::default();
    let start = Instant::now();
    let mut taken = steps;
    for s in 0..steps {
        // A signal stops the run ([`crate::cancel`]); the trace holds the steps taken.
        if crate::cancel::requested().is_some() {
            taken = s;
            break;
        }
        let rep = w.step();
        tr.record(w, &rep, dynamic);
    }
    tr.ms_per_step = start.elapsed().as_secs_f64() * 1e3 / taken.max(1) as Real;
    tr
}

/// Largest vertex speed of a mesh body (m/s).
pub fn max_vertex_speed(b: &MeshBody) -> Real {
    let s = &b.state;
    b.world_vertices()
        .iter()
        .map(|p| s.point_velocity(p).norm())
        .fold(0.0, Real::max)
}

impl Trace {
    /// Append the state after one step of `w` (`rep` is that step's report), recording body
    /// `dynamic` (shared with scene-file runs).
    pub fn record(&mut self, w: &PenaltyWorld, rep: &PenaltyReport, dynamic: usize) {
        let b = &w.bodies[dynamic];
        self.t.push(w.time());
        self.z.push(b.state.position.z);
        self.speed.push(max_vertex_speed(b));
        self.force.push(rep.contact_force);
        self.penetration.push(rep.max_penetration);
        self.pairs.push(rep.pairs);
    }
}

/// The summary of one force model (field names fixed by issue 6).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelSummary {
    /// Largest vertex speed over the final second (m/s).
    pub final_speed: Real,
    /// Deepest penetration over the run (m).
    pub max_penetration: Real,
    /// Jitter figure from the first contact on (mean |ΔF| / mean F).
    pub jitter: Real,
    /// Wall-clock milliseconds per step.
    pub ms_per_step: Real,
    /// Jitter figure over the final second only (not in `summary.json`, whose fields are fixed
    /// by issue 6; written to `details.csv`).
    #[serde(skip)]
    pub final_second_jitter: Real,
}

/// Summaries of a trace: final-second window is the last `1 s / h` steps.
pub fn summarize(tr: &Trace, h: Real) -> ModelSummary {
    let n = tr.t.len();
    let last = n.saturating_sub((1.0 / h).round() as usize);
    let first_contact = tr.force.iter().position(|&f| f > 0.0).unwrap_or(n);
    ModelSummary {
        final_speed: tr.speed[last..].iter().copied().fold(0.0, Real::max),
        max_penetration: tr.penetration.iter().copied().fold(0.0, Real::max),
        jitter: jitter(&tr.force[first_contact.min(n)..]),
        ms_per_step: tr.ms_per_step,
        final_second_jitter: jitter(&tr.force[last..]),
    }
}

/// Ground: a static 4 m × 4 m slab with its top at z = 0.
pub fn ground() -> Result<MeshBody, ExperimentError> {
    let m = shapes::cuboid(Vec3::new(2.0, 2.0, 0.5))
        .and_then(|m| m.map(|p| p + Vec3::new(0.31, 0.17, -0.5)))
        .map_err(|e| ExperimentError::Argument(format!("ground mesh: {e}")))?;
    Ok(MeshBody::fixed(m))
}

/// Run one force model; the trace records the box.
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn run_model(c: &BoxConfig, model: ForceModel) -> Result<Trace, ExperimentError> {
    let mut w = world(c, model)?;
    Ok(trace(&mut w, (c.duration / c.h).round() as usize, 1))
}

/// The scene: [`ground`] (body 0) and the tilted box (body 1), with gravity.
///
/// # Errors
/// [`ExperimentError::Argument`] for invalid parameters.
pub fn world(c: &BoxConfig, model: ForceModel) -> Result<PenaltyWorld, ExperimentError> {
    let arg = |e: &dyn std::fmt::Display| ExperimentError::Argument(e.to_string());
    let half = 0.5 * c.size;
    let mesh = shapes::cuboid(Vec3::repeat(half)).map_err(|e| arg(&e))?;
    let lift = half * (c.tilt.cos() + c.tilt.sin().abs()) + c.drop;
    let mut b = MeshBody::dynamic(&mesh, 1000.0, Vec3::new(0.0, 0.0, lift)).map_err(|e| arg(&e))?;
    b.state.orientation = Quat::from_euler_angles(c.tilt, 0.0, 0.0);
    b.state = b.state.clone().with_gravity(Vec3::new(0.0, 0.0, -9.81));
    let mut params = PenaltyParams::new(model, c.h, c.stiffness);
    params.friction = c.friction;
    params.measure_penetration = true;
    PenaltyWorld::new(vec![ground()?, b], params).map_err(|e| arg(&e))
}

/// The models compared by the box and stick experiments.
pub const MODELS: [ForceModel; 3] = [ForceModel::Cpf, ForceModel::Dpf, ForceModel::DpfCcd];

/// Run the three models, write `box_<model>.csv`, `force.svg`, `speed.svg` and `summary.json`.
///
/// # Errors
/// [`ExperimentError`] if a run is invalid or a file cannot be written.
pub fn run(c: &BoxConfig, out: &Path) -> Result<BTreeMap<String, ModelSummary>, ExperimentError> {
    let mut summary = BTreeMap::new();
    let mut traces = Vec::new();
    for model in MODELS {
        let tr = run_model(c, model)?;
        write_trace(&out.join(format!("box_{}.csv", model.name())), &tr)?;
        summary.insert(model.name().to_string(), summarize(&tr, c.h));
        traces.push((model.name(), tr));
    }
    let series = |f: fn(&Trace) -> &Vec<Real>| -> Vec<(&str, &[Real], &[Real])> {
        traces
            .iter()
            .map(|(n, tr)| (*n, tr.t.as_slice(), f(tr).as_slice()))
            .collect()
    };
    plot(
        &out.join("force.svg"),
        "Box on plane: total contact force",
        "t (s)",
        "force (N)",
        &series(|t| &t.force),
    )?;
    plot_scaled(
        &out.join("speed.svg"),
        "Box on plane: largest vertex speed",
        "t (s)",
        "speed (m/s)",
        true,
        &series(|t| &t.speed),
    )?;
    write_json(&out.join("summary.json"), &summary)?;
    write_csv(
        &out.join("details.csv"),
        "model,final_second_jitter",
        summary
            .iter()
            .map(|(n, m)| format!("{n},{:e}", m.final_second_jitter)),
    )?;
    Ok(summary)
}

/// Per-step CSV of a trace.
pub fn write_trace(path: &Path, tr: &Trace) -> Result<(), ExperimentError> {
    write_csv(
        path,
        "t,z,max_vertex_speed,contact_force,max_penetration,pairs",
        (0..tr.t.len()).map(|i| {
            format!(
                "{},{},{},{},{},{}",
                tr.t[i], tr.z[i], tr.speed[i], tr.force[i], tr.penetration[i], tr.pairs[i]
            )
        }),
    )
}
