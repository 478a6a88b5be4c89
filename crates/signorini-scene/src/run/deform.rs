//! Running deformable scenes in `DeformableWorld` (as `signorini experiment cloth-tori` /
//! `rings` for one model). The world comes from the scene's `WorldSpec` through the same
//! `deform_build::build_world` the experiments use, and each step goes through the
//! experiments' `deform_run::Tracer`, so `trace.csv` is the experiment's
//! `<name>_<model>.csv` byte for byte.
//!
//! Outputs:
//! - `trace.csv`: `t,contact_force,pairs,crossing_pairs,crossing_max_depth,
//!   tracked_penetrating,rms_speed` (the deformable experiments' per-step format);
//! - `steps.csv`: [`DEFORM_STEPS_HEADER`] (adds the energies);
//! - `vertices.json`: the vertex positions (rounded to 1 µm) of the deformables and then of the
//!   rigid bodies (world frame) at step 0 and every `every`-th step and the last, the stride
//!   widened so that there are about [`MAX_FRAMES`] frames at most and [`MAX_VERTEX_NUMBERS`]
//!   numbers in all ([`VertexTrack`]; for the replay);
//! - `bodies.json` with `"dimension": 3`: the deformables (`deformable_index`), the rigid bodies
//!   (`rigid_index`), each with `vertex_track` (its list in `vertices.json`), initial shape in
//!   the world frame and `open` for meshes with a boundary, and the obstacles (static).

use super::{
    FinalWorld, RunOptions, RunOutcome, RunSummary, StepState, before, finish, planned_steps, tick,
};
use crate::error::SceneError;
use crate::validate::{Scene, SceneDeformables};
use serde_json::json;
use signorini_harness::deform_build::build_world;
use signorini_harness::deform_run::{Tracer, write_trace};
use signorini_math::{Real, Vec3};
use signorini_penalty::ForceModel;
use signorini_world::penalty::DeformableWorld;

/// About the most frames `vertices.json` holds (the replay's time resolution; the stride is
/// chosen for this many, the last step adds one).
pub const MAX_FRAMES: usize = 200;
/// About the most coordinates `vertices.json` holds over all its frames (keeps the report's page to a few
/// MB: a frame of the small cloth-and-tori scene is 4395 numbers).
pub const MAX_VERTEX_NUMBERS: usize = 300_000;

/// The decimated vertex track of a deformable run (`vertices.json`).
#[derive(Debug, Clone, PartialEq)]
pub struct VertexTrack {
    /// Record every this many steps (and step 0 and the last).
    pub every: usize,
    /// `(step, per deformable and then per rigid body [x0, y0, z0, x1, …])`, world positions
    /// rounded to 1 µm.
    pub frames: Vec<(usize, Vec<Vec<Real>>)>,
}

impl VertexTrack {
    /// An empty track for `steps` steps of a world of `vertices` deformable and rigid-body
    /// vertices, recording at least every `every`-th step.
    pub fn new(steps: usize, vertices: usize, every: usize) -> Self {
        let frames = (MAX_VERTEX_NUMBERS / (3 * vertices).max(1)).clamp(2, MAX_FRAMES);
        VertexTrack {
            every: every.max(steps.div_ceil(frames - 1)).max(1),
            frames: Vec::new(),
        }
    }

    /// Record `w` after step `s` (0: the initial state) if `s` is on the stride or the last.
    pub fn record(&mut self, w: &DeformableWorld, s: usize, last: bool) {
        if s.is_multiple_of(self.every) || last {
            let um = |v: Real| (v * 1e6).round() / 1e6;
            let flat = |x: &[Vec3]| -> Vec<Real> {
                x.iter().flat_map(|p| [um(p.x), um(p.y), um(p.z)]).collect()
            };
            let x = (w.deformables.iter().map(|d| flat(&d.x)))
                .chain(w.rigid.iter().map(|b| flat(&b.world_vertices())))
                .collect();
            self.frames.push((s, x));
        }
    }

    /// The `vertices.json` document.
    pub fn to_json(&self) -> serde_json::Value {
        let frames: Vec<serde_json::Value> = self
            .frames
            .iter()
            .map(|(s, x)| json!({ "s": s, "x": x }))
            .collect();
        json!({ "every": self.every, "frames": frames })
    }
}

/// Header of `steps.csv` for deformable scenes.
pub const DEFORM_STEPS_HEADER: &str = "step,time,bodies,pairs,new_pairs,tracked_penetrating,crossing_pairs,crossing_max_depth,contact_force,rms_speed,kinetic_energy,potential_energy,energy";

/// Kinetic and potential energy (J) of the deformables (springs, pressure, gravity) and the
/// rigid bodies (potential of the constant external force, gravity: `−F·x`).
pub fn deform_energy(w: &DeformableWorld) -> (Real, Real) {
    let (mut kin, mut total) = (0.0, 0.0);
    for d in &w.deformables {
        kin +=
            d.v.iter()
                .zip(d.masses())
                .map(|(v, m)| 0.5 * m * v.norm_squared())
                .sum::<Real>();
        total += d.energy();
    }
    let mut pot = total - kin;
    for b in &w.rigid {
        kin += b.state.kinetic_energy();
        pot -= b.state.external_force.dot(&b.state.position);
    }
    (kin, pot)
}

fn bad_world(scene: &Scene, reason: String) -> SceneError {
    SceneError::Invalid(crate::error::Located {
        file: scene.file.clone(),
        line: None,
        column: None,
        field: "deformable".into(),
        reason,
    })
}

/// Run a deformable scene.
pub(super) fn run_deformables(
    scene: &Scene,
    d: &SceneDeformables,
    mut opts: RunOptions,
    model: ForceModel,
    h: Real,
) -> Result<RunOutcome, SceneError> {
    let mut spec = d.spec.clone();
    spec.penalty.model = model;
    spec.penalty.dt = h;
    let mut world = build_world(&spec).map_err(|e| bad_world(scene, e))?;
    world.set_gyroscopic(scene.gyroscopic);
    let (planned, n) = planned_steps(scene, &opts, h);
    let out = opts.out.clone();
    let mut steps_csv = match (&out, scene.record.statistics) {
        (Some(dir), true) => {
            std::fs::create_dir_all(dir).map_err(|e| SceneError::Io {
                path: dir.clone(),
                source: e,
            })?;
            Some(signorini_harness::Csv::create(
                &dir.join("steps.csv"),
                DEFORM_STEPS_HEADER,
            )?)
        }
        _ => None,
    };
    let (k0, p0) = deform_energy(&world);
    let vertices = world.deformables.iter().map(|d| d.x.len()).sum::<usize>()
        + (world.rigid.iter())
            .map(|b| b.mesh().vertices().len())
            .sum::<usize>();
    let mut track = (out.is_some() && scene.record.trajectories)
        .then(|| VertexTrack::new(n, vertices, scene.record.every));
    if let Some(t) = track.as_mut() {
        t.record(&world, 0, n == 0);
    }
    let mut tracer = Tracer::default();
    let (mut interrupted, mut taken, mut max_force) = (None, 0, 0.0 as Real);
    let mut pairs = 0usize;
    let mut failed = 0usize;
    let mut diverged_at = None;
    for s in 1..=n {
        before(&mut opts, s, StepState::Deformables(&mut world));
        let rep = tracer.step(&mut world, s - 1, n, d.measure_every);
        taken = s;
        pairs += rep.pairs;
        max_force = max_force.max(rep.contact_force);
        if let Some(f) = steps_csv.as_mut()
            && (s % scene.record.every == 0 || s == n)
        {
            let (kin, pot) = deform_energy(&world);
            let c = tracer.last_crossings();
            f.line(&format!(
                "{s},{},{},{},{},{},{},{},{},{},{kin},{pot},{}",
                world.time(),
                world.deformables.len() + world.rigid.len() + world.obstacles.len(),
                rep.pairs,
                rep.new_pairs,
                rep.penetrating_pairs,
                c.pairs,
                c.max_depth,
                rep.contact_force,
                tracer.trace.rms_speed.last().copied().unwrap_or(0.0),
                kin + pot
            ))?;
        }
        if rep.diverged {
            // Explicit integration diverged: the state is meaningless from here on (and is
            // not recorded in the vertex track).
            failed = 1;
            diverged_at = Some(s);
            break;
        }
        let stop = tick(&mut opts, s, n);
        if let Some(t) = track.as_mut() {
            t.record(&world, s, s == n || stop.is_some());
        }
        if stop.is_some() {
            interrupted = stop;
            break;
        }
    }
    let trace = tracer.finish();
    let (k1, p1) = deform_energy(&world);
    let peak = trace.crossing_depth.iter().copied().fold(0.0, Real::max);
    let mut summary = RunSummary {
        scene: scene.name.clone(),
        file: scene.file.display().to_string(),
        model: model.name().into(),
        h,
        steps_planned: planned,
        steps: taken,
        time: world.time(),
        interrupted,
        failed: diverged_at.map(|s| format!("non-finite state at step {s}")),
        bodies: world.deformables.len() + world.rigid.len() + world.obstacles.len(),
        dynamic_bodies: world.deformables.len() + world.rigid.len(),
        failed_steps: failed,
        max_overlap: 0.0,
        median_overlap: 0.0,
        mean_contacts: if taken > 0 {
            pairs as f64 / taken as f64
        } else {
            0.0
        },
        mean_iterations: 0.0,
        max_residual: 0.0,
        max_contact_force: max_force,
        energy_initial: k0 + p0,
        energy_final: k1 + p1,
        wall_seconds: trace.ms_per_step * taken as f64 * 1e-3,
        kind: "deformables".into(),
        max_penetration: if taken > 0 { peak } else { 0.0 },
        checks: Vec::new(),
        all_checks_pass: true,
        files: Vec::new(),
    };
    if failed > 0 {
        summary.checks.push(super::CheckResult {
            name: "finite_state".into(),
            limit: 0.0,
            value: failed as Real,
            pass: false,
        });
    }
    if let Some(limit) = scene.checks.max_penetration {
        summary.checks.push(super::CheckResult {
            name: "max_penetration".into(),
            limit,
            value: peak,
            pass: peak <= limit || taken == 0,
        });
    }
    if let Some(dir) = out.as_deref() {
        write_trace(&dir.join("trace.csv"), &trace)?;
        summary.files.push("trace.csv".into());
        if let Some(t) = &track {
            let path = dir.join("vertices.json");
            let text = super::json_text(&t.to_json(), &path, false)?;
            signorini_harness::write_atomic(&path, text.as_bytes())?;
            summary.files.push("vertices.json".into());
        }
    }
    let mut files = Vec::new();
    if let Some(c) = steps_csv {
        c.finish()?;
        files.push("steps.csv".to_string());
    }
    files.append(&mut summary.files);
    summary.files = files;
    let bodies = bodies_json(scene, d, h, &world);
    let w = super::Writers {
        traj: None,
        steps: None,
        contacts: None,
        checkpointed: std::time::Instant::now(),
    };
    finish(scene, out.as_deref(), w, Some(bodies), &mut summary)?;
    Ok(RunOutcome {
        summary,
        world: FinalWorld::Deformables(Box::new(world)),
    })
}

/// `bodies.json`: every deformable and rigid body (initial shape, world frame; the replay moves
/// its vertices from `vertices.json`, list `vertex_track`) and every obstacle (static).
fn bodies_json(
    scene: &Scene,
    d: &SceneDeformables,
    h: Real,
    world: &DeformableWorld,
) -> serde_json::Value {
    let n = d.spec.bodies.len();
    let mut bodies = Vec::new();
    for (k, b) in d.spec.bodies.iter().enumerate() {
        let mut j = mesh_json(&d.names[k], &b.mesh, d.colors[k].as_deref(), Some(k));
        j["deformable_index"] = json!(k);
        bodies.push(j);
    }
    for (k, b) in world.rigid.iter().enumerate() {
        // The shape at the initial pose: bodies.json is written after the run.
        let x0 =
            (d.spec.rigid[k].build()).map_or_else(|_| b.world_vertices(), |r| r.world_vertices());
        let m = signorini_geometry::mesh::TriMesh::new(x0, b.mesh().triangles().to_vec())
            .unwrap_or_else(|_| b.mesh().clone());
        let mut j = mesh_json(
            &d.rigid_names[k],
            &m,
            d.rigid_colors[k].as_deref(),
            Some(n + k),
        );
        j["rigid_index"] = json!(k);
        bodies.push(j);
    }
    for (k, o) in world.obstacles.iter().enumerate() {
        bodies.push(mesh_json(
            &d.obstacle_names[k],
            o.mesh(),
            d.obstacle_colors[k].as_deref(),
            None,
        ));
    }
    json!({ "scene": scene.name, "h": h, "dimension": 3, "bodies": bodies })
}

/// One mesh of `bodies.json`: moving (`track`: its vertex list in `vertices.json`), or static.
fn mesh_json(
    name: &str,
    m: &signorini_geometry::mesh::TriMesh,
    color: Option<&str>,
    track: Option<usize>,
) -> serde_json::Value {
    json!({
        "name": name,
        "world_index": null,
        "dynamic_index": null,
        "deformable_index": null,
        "vertex_track": track,
        "open": !m.is_closed(),
        "is_static": track.is_none(),
        "vertices": m.vertices().iter().map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>(),
        "faces": m.triangles(),
        "position": [0.0, 0.0, 0.0],
        "orientation": [1.0, 0.0, 0.0, 0.0],
        "drop_step": 0,
        "color": color,
    })
}
