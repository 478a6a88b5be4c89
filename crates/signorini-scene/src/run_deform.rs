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
//! - `bodies.json` with `"dimension": 3`: the deformables (at their initial shape) and the
//!   obstacles, all drawn as still meshes — the replay does not yet move deformable vertices.

use super::{
    FinalWorld, RunOptions, RunOutcome, RunSummary, StepState, before, finish, planned_steps, tick,
};
use crate::error::SceneError;
use crate::validate::{Model, Scene};
use serde_json::json;
use signorini_experiments::deform_build::build_world;
use signorini_experiments::deform_run::{Tracer, write_trace};
use signorini_math::Real;
use signorini_world::penalty::DeformableWorld;

/// Header of `steps.csv` for deformable scenes.
pub const DEFORM_STEPS_HEADER: &str = "step,time,bodies,pairs,new_pairs,tracked_penetrating,crossing_pairs,crossing_max_depth,contact_force,rms_speed,kinetic_energy,potential_energy,energy";

/// Kinetic and potential (springs, pressure, gravity) energy of the deformables (J).
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
    (kin, total - kin)
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
    mut opts: RunOptions,
    model: Model,
    h: Real,
) -> Result<RunOutcome, SceneError> {
    let d = scene
        .deformables
        .as_ref()
        .expect("validated: a deformable scene has its world");
    let mut spec = d.spec.clone();
    spec.model = model.force_model().expect("checked: a penalty model");
    spec.dt = h;
    let mut world = build_world(&spec).map_err(|e| bad_world(scene, e))?;
    let (planned, n) = planned_steps(scene, &opts, h);
    let out = opts.out.clone();
    let mut steps_csv = match (&out, scene.record.statistics) {
        (Some(dir), true) => {
            std::fs::create_dir_all(dir).map_err(|e| SceneError::Io {
                path: dir.clone(),
                source: e,
            })?;
            Some(signorini_experiments::Csv::create(
                &dir.join("steps.csv"),
                DEFORM_STEPS_HEADER,
            )?)
        }
        _ => None,
    };
    let (k0, p0) = deform_energy(&world);
    let mut tracer = Tracer::default();
    let (mut interrupted, mut taken, mut max_force) = (false, 0, 0.0 as Real);
    let mut pairs = 0usize;
    let mut failed = 0usize;
    for s in 1..=n {
        before(&mut opts, s, StepState::Deformables(&world));
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
                world.deformables.len() + world.obstacles.len(),
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
        if rep.non_finite {
            // Explicit integration diverged: the state is meaningless from here on.
            failed = 1;
            break;
        }
        if tick(&mut opts, s, n) {
            interrupted = s < n;
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
        bodies: world.deformables.len() + world.obstacles.len(),
        dynamic_bodies: world.deformables.len(),
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
    }
    let mut files = Vec::new();
    if let Some(c) = steps_csv {
        c.finish()?;
        files.push("steps.csv".to_string());
    }
    files.append(&mut summary.files);
    summary.files = files;
    let bodies = bodies_json(scene, h, &world);
    let w = super::Writers {
        traj: None,
        steps: None,
        contacts: None,
    };
    finish(scene, out.as_deref(), w, Some(bodies), &mut summary)?;
    Ok(RunOutcome {
        summary,
        world: FinalWorld::Deformables(Box::new(world)),
    })
}

/// `bodies.json`: every deformable (rest shape, world frame) and obstacle as a still mesh.
fn bodies_json(scene: &Scene, h: Real, world: &DeformableWorld) -> serde_json::Value {
    let d = scene.deformables.as_ref().expect("a deformable scene");
    let mut bodies = Vec::new();
    for (k, b) in d.spec.bodies.iter().enumerate() {
        // Drawn as still meshes (the replay moves only rigid poses): `is_static` for the viewer.
        bodies.push(still(&d.names[k], &b.mesh, d.colors[k].as_deref()));
    }
    for (k, o) in world.obstacles.iter().enumerate() {
        bodies.push(still(
            &d.obstacle_names[k],
            o.mesh(),
            d.obstacle_colors[k].as_deref(),
        ));
    }
    json!({ "scene": scene.name, "h": h, "dimension": 3, "bodies": bodies })
}

fn still(
    name: &str,
    m: &signorini_geometry::mesh::TriMesh,
    color: Option<&str>,
) -> serde_json::Value {
    json!({
        "name": name,
        "world_index": null,
        "dynamic_index": null,
        "is_static": true,
        "vertices": m.vertices().iter().map(|v| [v.x, v.y, v.z]).collect::<Vec<_>>(),
        "faces": m.triangles(),
        "position": [0.0, 0.0, 0.0],
        "orientation": [1.0, 0.0, 0.0, 0.0],
        "drop_step": 0,
        "color": color,
    })
}
