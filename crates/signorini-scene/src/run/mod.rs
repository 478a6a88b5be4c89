//! Running a validated scene: build the world of its kind ([`World`] here; `World3` and
//! `PenaltyWorld` in the child module `run/spatial.rs`, which documents the 3D formats), add bodies at
//! their drop steps (`Schedule`, shared), step, record.
//!
//! Outputs of 2D runs (in `out`, each written atomically, see `signorini_harness::AtomicFile`):
//! - `trajectories.csv`: `step,body,x,y,angle` after every recorded step for every dynamic
//!   body already in the world (`body` = index among dynamic bodies in declaration order) —
//!   the pour2d trajectory format;
//! - `steps.csv`: per-step statistics (see [`STEPS_HEADER`]);
//! - `contacts.csv`: `step,a,b,x,y,nx,ny,gap` — vertex–edge pairs within
//!   [`DRAW_CONTACT_DISTANCE`] after the step (for the replay; world body indices);
//! - `bodies.json`: every body's shape, initial pose, colour and drop step (for the replay);
//! - `summary.json`: [`RunSummary`];
//! - `scene.toml` / `scene.json`: a copy of the scene file as run.
//!
//! A signal (SIGINT, SIGTERM: `signorini_harness::cancel`) or a stop request
//! ([`RunOptions::stop`]) ends the loop after the current step; every file is then completed
//! and the summary says `"interrupted": "SIGINT at step k"`.

use crate::error::SceneError;
use crate::limits;
use crate::validate::{Drop, Length, Model, Scene, SceneBodies, SceneKind};
use serde::Serialize;
use signorini_contact::standard_contacts;
use signorini_geometry::dim2::{Aabb, min_overlap_axis, sweep_and_prune};
use signorini_harness::overlap::total_overlap;
use signorini_harness::presets::{experiment_params, step_count};
use signorini_harness::stats::summarize;
use signorini_harness::{AtomicFile, Csv, trajectory_header, write_atomic};
use signorini_math::Real;
use signorini_penalty::ForceModel;
use signorini_world::penalty::PenaltyWorld;
use signorini_world::{StepReport, World, World3, WorldParams};

mod deform;
mod rigid;
mod spatial;
pub use deform::{DEFORM_STEPS_HEADER, MAX_FRAMES, MAX_VERTEX_NUMBERS, VertexTrack, deform_energy};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Header of `steps.csv`.
pub const STEPS_HEADER: &str = "step,time,bodies,pairs,contacts,unilateral,inter,cross,unknowns,solver,iterations,residual,corrections,failed,overlap,normal_impulse,contact_force,kinetic_energy,potential_energy,energy";

/// Header of `steps.csv` for penalty (mesh) scenes.
pub const PENALTY_STEPS_HEADER: &str = "step,time,bodies,pairs,new_pairs,penetrating_pairs,max_depth,max_penetration,contact_force,max_vertex_speed,kinetic_energy,potential_energy,energy";

/// Vertex–edge distance (m) within which a contact is drawn in the replay.
pub const DRAW_CONTACT_DISTANCE: Real = 0.005;

/// Overrides and controls of a run.
#[derive(Default)]
pub struct RunOptions {
    /// Contact model instead of the scene's.
    pub model: Option<Model>,
    /// Step size instead of the scene's (drop times and duration stay in seconds).
    pub h: Option<Real>,
    /// Stop after at most this many steps.
    pub max_steps: Option<usize>,
    /// Output folder (nothing is written if `None`).
    pub out: Option<PathBuf>,
    /// Set to true to stop after the current step.
    pub stop: Option<Arc<AtomicBool>>,
    /// Called after every step with (steps done, steps planned).
    pub progress: Option<Box<dyn FnMut(usize, usize)>>,
    /// Called before every step with (step number, 1-based; the world it starts from, mutable),
    /// after the bodies due at that step were added: to apply control inputs
    /// (`World::apply_wrench`, `World::set_velocity`, `PenaltyWorld::apply_wrench`,
    /// `DeformableWorld::apply_vertex_force`, …) or to read the state (e.g. to time other
    /// models on clones of the same states: `signorini bench --same-states`). The run's
    /// energy columns count only the bodies' constant external forces, not such inputs.
    pub before_step: Option<BeforeStep>,
    /// Refuse the run (before anything is written) when its estimated memory
    /// ([`crate::memory::estimate`]) is above this many bytes; `None`: no check.
    pub memory_limit: Option<u64>,
}

/// The hook of [`RunOptions::before_step`]: (step number, the world the step starts from).
///
/// ```no_run
/// use signorini_math::Vec3;
/// use signorini_scene::{RunOptions, StepState};
///
/// let scene = signorini_scene::load_scene("scenes/demo.toml".as_ref())?;
/// let opts = RunOptions {
///     // Push the first body to the right during the first 100 steps.
///     before_step: Some(Box::new(|s, state| {
///         if let (StepState::Planar(world), true) = (state, s <= 100) {
///             let id = world.bodies.iter().position(|b| !b.is_static);
///             if let Some(id) = id {
///                 world.apply_wrench(id, Vec3::new(5.0, 0.0, 0.0)).ok();
///             }
///         }
///     })),
///     ..RunOptions::default()
/// };
/// signorini_scene::run(&scene, opts)?;
/// # Ok::<(), signorini_scene::SceneError>(())
/// ```
pub type BeforeStep = Box<dyn FnMut(usize, StepState<'_>)>;

/// The world a step starts from, by scene kind, mutable (see [`RunOptions::before_step`]).
pub enum StepState<'a> {
    /// 2D polygons.
    Planar(&'a mut World),
    /// 3D polyhedra.
    Polyhedra(&'a mut World3),
    /// 3D meshes under penalty contact.
    Meshes(&'a mut PenaltyWorld),
    /// Deformables under penalty contact.
    Deformables(&'a mut signorini_world::penalty::DeformableWorld),
}

/// Call the `before_step` hook, if any.
fn before(opts: &mut RunOptions, s: usize, state: StepState<'_>) {
    if let Some(f) = opts.before_step.as_mut() {
        f(s, state);
    }
}

/// One pass/fail check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    /// Name (`max_overlap`, `max_failed_steps`).
    pub name: String,
    /// Limit from the scene.
    pub limit: f64,
    /// Measured value.
    pub value: f64,
    /// value ≤ limit.
    pub pass: bool,
}

/// What a run did (`summary.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// Scene name.
    pub scene: String,
    /// Scene file.
    pub file: String,
    /// Model used.
    pub model: String,
    /// Step size (s).
    pub h: f64,
    /// Steps planned.
    pub steps_planned: usize,
    /// Steps taken.
    pub steps: usize,
    /// Simulated time (s).
    pub time: f64,
    /// Why the run stopped before its end: `"SIGINT at step k"` / `"SIGTERM at step k"` (a
    /// signal; the files hold steps 1..=k and are complete), `"stop request at step k"`
    /// ([`RunOptions::stop`]); `null` otherwise.
    pub interrupted: Option<String>,
    /// Why the run failed before its end, e.g. `"non-finite state at step 12"` (the state
    /// became NaN or infinite: the run stops there, the step counts as failed and the run's
    /// checks fail); `null` otherwise.
    pub failed: Option<String>,
    /// Bodies in the world at the end (static parts included).
    pub bodies: usize,
    /// Dynamic bodies at the end.
    pub dynamic_bodies: usize,
    /// Steps whose solves all failed.
    pub failed_steps: usize,
    /// Largest total overlap area of a step (m²).
    pub max_overlap: f64,
    /// Median total overlap area (m²).
    pub median_overlap: f64,
    /// Mean contacts per step (penalty scenes: evaluated feature pairs).
    pub mean_contacts: f64,
    /// Mean solver iterations per step with a solve.
    pub mean_iterations: f64,
    /// Largest accepted residual.
    pub max_residual: f64,
    /// Largest total normal contact force of a step (N).
    pub max_contact_force: f64,
    /// Mechanical energy before the first step (J).
    pub energy_initial: f64,
    /// Mechanical energy after the last step (J).
    pub energy_final: f64,
    /// Wall time of the stepper (s); not deterministic.
    pub wall_seconds: f64,
    /// `planar` (2D polygons, overlap in m²), `polyhedra` (3D, overlap in m³) or `meshes`
    /// (penalty contact: penetration in m, no overlap measure).
    pub kind: String,
    /// Deepest penetration over the run (m): for meshes the deepest vertex inside another
    /// closed mesh, for deformables the deepest edge–triangle crossing, for polygons and
    /// polyhedra the deepest minimum translational distance of an overlapping pair.
    pub max_penetration: f64,
    /// Checks from the scene's `[checks]`.
    pub checks: Vec<CheckResult>,
    /// True if every check passed (and the run was not interrupted).
    pub all_checks_pass: bool,
    /// Files written (relative to the output folder).
    pub files: Vec<String>,
}

/// The result of [`run`]: the summary and the final world.
pub struct RunOutcome {
    /// Summary.
    pub summary: RunSummary,
    /// The world after the last step.
    pub world: FinalWorld,
}

/// The world a run ends with, by scene kind.
pub enum FinalWorld {
    /// 2D polygons.
    Planar(World),
    /// 3D polyhedra.
    Polyhedra(World3),
    /// 3D meshes under penalty contact.
    Meshes(PenaltyWorld),
    /// Deformables and obstacles under penalty contact.
    Deformables(Box<signorini_world::penalty::DeformableWorld>),
}

impl FinalWorld {
    /// The 2D world, if the scene was 2D.
    pub fn planar(&self) -> Option<&World> {
        match self {
            FinalWorld::Planar(w) => Some(w),
            _ => None,
        }
    }
    /// The 3D polyhedra world, if the scene held polyhedra.
    pub fn polyhedra(&self) -> Option<&World3> {
        match self {
            FinalWorld::Polyhedra(w) => Some(w),
            _ => None,
        }
    }
    /// The penalty world, if the scene held meshes.
    pub fn meshes(&self) -> Option<&PenaltyWorld> {
        match self {
            FinalWorld::Meshes(w) => Some(w),
            _ => None,
        }
    }
    /// The deformable world, if the scene held deformables.
    pub fn deformables(&self) -> Option<&signorini_world::penalty::DeformableWorld> {
        match self {
            FinalWorld::Deformables(w) => Some(w),
            _ => None,
        }
    }
}

/// World parameters of a scene for a model and step size: the experiments' defaults
/// (`experiment_params`: PEG with 8 gap corrections and the mixed-form retry; the baselines
/// without the mixed-form retry), or with `[contact] paper = true` (`--paper`) the paper's
/// stepper (`WorldParams::paper`), then the scene's explicit `[contact]` settings.
pub fn world_params(scene: &Scene, model: Model, h: Real) -> Result<WorldParams, SceneError> {
    let cm = model.contact_model().ok_or_else(|| {
        SceneError::Unsupported(crate::error::Located {
            file: scene.file.clone(),
            line: None,
            column: None,
            field: "--model".into(),
            reason: format!(
                "contact model `{}` (penalty forces): the penalty world is not in this build yet",
                model.name()
            ),
        })
    })?;
    let c = &scene.contact;
    let mut p = if c.paper {
        WorldParams::paper(cm, h)
    } else {
        experiment_params(cm, h, c.gap_corrections.unwrap_or(8))
    };
    p.mu = c.friction;
    p.solver = c.solver;
    if let Some(m) = c.mixed_fallback {
        p.mixed_fallback = m;
    }
    if let Some(k) = c.keep_best_on_failure {
        p.keep_best_on_failure = k;
    }
    if let Some(d) = c.peg_distance {
        p.peg_distance = Some(d);
    }
    if let Some(d) = c.standard_distance {
        p.standard_distance = Some(d);
    }
    p.gyroscopic = scene.gyroscopic;
    p.vertex_vertex = c.vertex_vertex;
    p.peg_form = c.peg_form;
    p.x_impulse = c.x_impulse;
    Ok(p)
}

/// Mechanical energy with respect to the constant external wrenches: Σ ½νᵀMν − F·q (J).
pub fn energy(world: &World) -> (Real, Real) {
    let (mut kin, mut pot) = (0.0, 0.0);
    for b in world.bodies.iter().filter(|b| !b.is_static) {
        let v = &b.velocity;
        kin += 0.5 * (b.mass * (v.x * v.x + v.y * v.y) + b.inertia * v.z * v.z);
        let f = &b.external_force;
        pot -= f.x * b.position.x + f.y * b.position.y + f.z * b.angle;
    }
    (kin, pot)
}

struct Writers {
    traj: Option<Csv>,
    steps: Option<Csv>,
    contacts: Option<Csv>,
    /// When the files were last checkpointed ([`Writers::checkpoint_due`]).
    checkpointed: std::time::Instant,
}

impl Writers {
    /// At most once a second, after a whole step is written: mark the rows so far as kept if
    /// the process is stopped at once (a second signal; `Csv::checkpoint`). The three files
    /// are checkpointed together, so a kept run's files end at the same step. Not every step:
    /// a small scene takes tens of thousands of steps a second.
    /// Mark the three files whole up to the last step written, together (`Csv::checkpoint`).
    fn checkpoint(&mut self) -> Result<(), SceneError> {
        let mut files: Vec<&mut Csv> = [&mut self.traj, &mut self.steps, &mut self.contacts]
            .into_iter()
            .flatten()
            .collect();
        Ok(Csv::checkpoint_together(&mut files)?)
    }

    fn checkpoint_due(&mut self) -> Result<(), SceneError> {
        if self.checkpointed.elapsed() < std::time::Duration::from_secs(1) {
            return Ok(());
        }
        self.checkpoint()?;
        self.checkpointed = std::time::Instant::now();
        Ok(())
    }
}

/// Run a scene (2D polygons in `World`, 3D polyhedra in `World3`, meshes in
/// `PenaltyWorld`, by [`Scene::kind`]).
pub fn run(scene: &Scene, opts: RunOptions) -> Result<RunOutcome, SceneError> {
    let model = opts.model.unwrap_or(scene.contact.model);
    let h = opts.h.unwrap_or(scene.h);
    preflight(scene, &opts)?;
    match &scene.bodies {
        SceneBodies::Planar(_) => rigid::run_rigid::<World>(scene, opts, model, h),
        SceneBodies::Polyhedra(_) => rigid::run_rigid::<World3>(scene, opts, model, h),
        SceneBodies::Meshes(_) => {
            spatial::run_meshes(scene, opts, model, penalty(scene, model)?, h)
        }
        SceneBodies::Deformables(d) => {
            deform::run_deformables(scene, d, opts, penalty(scene, model)?, h)
        }
    }
}

/// The penalty force model of a penalty scene's run (`preflight` has refused the others).
fn penalty(scene: &Scene, model: Model) -> Result<ForceModel, SceneError> {
    model
        .force_model()
        .ok_or_else(|| wrong_family(scene, model))
}

/// `value` as JSON text for the file `path` (an error names the file).
pub(crate) fn json_text<T: serde::Serialize + ?Sized>(
    value: &T,
    path: &Path,
    pretty: bool,
) -> Result<String, SceneError> {
    let text = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    };
    text.map_err(|e| SceneError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })
}

/// What [`run`] checks before anything is built or written (callers may check first, e.g.
/// before preparing the output folder): at least one step, a step count within
/// [`limits::MAX_STEPS`] (also with an overridden `h`), a model of the scene's family, and
/// the estimated memory
/// ([`crate::memory::estimate`]) within [`RunOptions::memory_limit`].
///
/// # Errors
/// [`SceneError::Invalid`] naming the option or the estimate.
pub fn preflight(scene: &Scene, opts: &RunOptions) -> Result<(), SceneError> {
    let h = opts.h.unwrap_or(scene.h);
    let model = opts.model.unwrap_or(scene.contact.model);
    let penalty_scene = matches!(scene.kind(), SceneKind::Meshes | SceneKind::Deformables);
    if model.is_penalty() != penalty_scene {
        return Err(wrong_family(scene, model));
    }
    let bad = |field: &str, reason: String| {
        SceneError::Invalid(crate::error::Located {
            file: scene.file.clone(),
            line: None,
            column: None,
            field: field.into(),
            reason,
        })
    };
    if opts.max_steps == Some(0) {
        return Err(bad("--steps", "must be >= 1".into()));
    }
    if !(h.is_finite() && h > 0.0) {
        return Err(bad("--dt", format!("step size {h} must be finite and > 0")));
    }
    if let Length::Duration(d) = scene.length
        && (d / h).floor() > limits::MAX_STEPS as Real
        && opts.max_steps.is_none_or(|m| m > limits::MAX_STEPS)
    {
        return Err(bad(
            "--dt",
            format!(
                "duration / h = {d:e} s / {h:e} s = {:.4e} steps, {}",
                d / h,
                limits::above(limits::MAX_STEPS, "steps")
            ),
        ));
    }
    if let Some(limit) = opts.memory_limit {
        let e = crate::memory::estimate(scene, h, opts.max_steps);
        if let Some(why) = crate::memory::refusal(&e, limit) {
            return Err(bad("", why));
        }
    }
    Ok(())
}

/// Whether the state of a 2D world is finite: every pose and velocity, and the energy (a
/// velocity of 1e300 m/s is a finite number, but its kinetic energy is not).
fn finite_planar(world: &World) -> bool {
    let (kin, pot) = energy(world);
    kin.is_finite()
        && pot.is_finite()
        && world.bodies.iter().all(|b| {
            b.position.iter().all(|x| x.is_finite())
                && b.angle.is_finite()
                && b.velocity.iter().all(|x| x.is_finite())
        })
}

/// The summary of a run that stopped at step `s` on a non-finite state: the step counts as
/// failed, `failed` names it and the `finite_state` check fails.
fn non_finite(summary: &mut RunSummary, s: usize) {
    summary.failed = Some(format!("non-finite state at step {s}"));
    summary.failed_steps += 1;
    summary.checks.push(CheckResult {
        name: "finite_state".into(),
        limit: 0.0,
        value: 1.0,
        pass: false,
    });
}

/// Deepest minimum translational distance (m) over the overlapping pairs of a 2D world.
fn max_depth_planar(world: &World) -> Real {
    let verts: Vec<_> = world.bodies.iter().map(|b| b.world_vertices()).collect();
    let boxes: Vec<Aabb> = verts.iter().map(|v| Aabb::from_points(v.iter())).collect();
    sweep_and_prune(&boxes)
        .into_iter()
        .filter(|&(i, j)| !(world.bodies[i].is_static && world.bodies[j].is_static))
        .filter_map(|(i, j)| min_overlap_axis(&verts[i], &verts[j]).map(|s| s.depth))
        .fold(0.0, Real::max)
}

/// A model of the other family than the scene's bodies.
fn wrong_family(scene: &Scene, model: Model) -> SceneError {
    let reason = match scene.kind() {
        SceneKind::Planar => format!(
            "`{}` (penalty forces) acts on 3D triangle meshes; this scene has 2D polygons \
             (peg, standard, corrective)",
            model.name()
        ),
        SceneKind::Polyhedra => format!(
            "`{}` (penalty forces) acts on triangle meshes; this scene has convex polyhedra \
             (peg, standard, corrective)",
            model.name()
        ),
        SceneKind::Meshes => format!(
            "`{}` needs convex polygons or polyhedra; this scene has triangle meshes (cpf, dpf, \
             dpf-ccd)",
            model.name()
        ),
        SceneKind::Deformables => format!(
            "`{}` needs rigid convex polygons or polyhedra; this scene has deformables (cpf, \
             dpf, dpf-ccd)",
            model.name()
        ),
    };
    SceneError::Invalid(crate::error::Located {
        file: scene.file.clone(),
        line: None,
        column: None,
        field: "--model".into(),
        reason,
    })
}

/// Steps planned and to take.
fn planned_steps(scene: &Scene, opts: &RunOptions, h: Real) -> (usize, usize) {
    let planned = match scene.length {
        Length::Duration(d) => step_count(d, h),
        Length::Steps(n) => n,
    };
    (planned, opts.max_steps.map_or(planned, |m| m.min(planned)))
}

/// When each scene body enters the world, and where it is then.
struct Schedule {
    /// Scene indices by drop step, then declaration order.
    order: Vec<usize>,
    /// Next entry of `order` to add.
    next: usize,
    /// Drop step of each scene body.
    step: Vec<usize>,
    /// Dynamic index (declaration order among dynamic bodies) of each scene body.
    dyn_index: Vec<Option<usize>>,
    /// (dynamic index, world index) of the bodies in the world, sorted by dynamic index.
    present: Vec<(usize, usize)>,
    /// World index of each scene body (`usize::MAX`: not added).
    world_of_scene: Vec<usize>,
}

impl Schedule {
    fn new(drops: &[(Drop, bool)], h: Real) -> Schedule {
        let step: Vec<usize> = drops.iter().map(|(d, _)| d.step(h)).collect();
        let mut order: Vec<usize> = (0..drops.len()).collect();
        order.sort_by_key(|&k| step[k]);
        let mut dyn_index = vec![None; drops.len()];
        let mut next = 0;
        for (k, (_, is_static)) in drops.iter().enumerate() {
            if !is_static {
                dyn_index[k] = Some(next);
                next += 1;
            }
        }
        Schedule {
            order,
            next: 0,
            step,
            dyn_index,
            present: Vec::new(),
            world_of_scene: vec![usize::MAX; drops.len()],
        }
    }

    /// Add (with `add(scene index) → world index`) every body due after `done` steps.
    fn add_due(
        &mut self,
        done: usize,
        mut add: impl FnMut(usize) -> Result<usize, SceneError>,
    ) -> Result<(), SceneError> {
        while let Some(&k) = self.order.get(self.next) {
            if self.step[k] > done {
                break;
            }
            self.next += 1;
            let wi = add(k)?;
            self.world_of_scene[k] = wi;
            if let Some(d) = self.dyn_index[k] {
                let at = self.present.partition_point(|&(x, _)| x < d);
                self.present.insert(at, (d, wi));
            }
        }
        Ok(())
    }
}

/// The loop's stop and progress controls, after step `s` of `n`: why the run stops here, if
/// it does (a signal, `signorini_harness::cancel`: `"SIGINT at step s"`; a stop request
/// of [`RunOptions::stop`]: `"stop request at step s"`).
fn tick(opts: &mut RunOptions, s: usize, n: usize) -> Option<String> {
    if let Some(p) = opts.progress.as_mut() {
        p(s, n);
    }
    signorini_harness::cancel::at_step(s).or_else(|| {
        opts.stop
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
            .then(|| format!("stop request at step {s}"))
    })
}

/// Close the CSV files, write `bodies.json` (given), the scene copy and `summary.json`.
fn finish(
    scene: &Scene,
    out: Option<&Path>,
    w: Writers,
    bodies_json: Option<serde_json::Value>,
    summary: &mut RunSummary,
) -> Result<(), SceneError> {
    let mut files = Vec::new();
    // Every file marked whole up to the last step first: a second signal while they are
    // completed one by one then keeps them all up to that same step (the completed ones and
    // the salvaged ones alike).
    let mut w = w;
    w.checkpoint()?;
    for (name, csv) in [
        ("trajectories.csv", w.traj),
        ("steps.csv", w.steps),
        ("contacts.csv", w.contacts),
    ] {
        if let Some(c) = csv {
            c.finish()?;
            files.push(name.to_string());
        }
    }
    summary.all_checks_pass = summary.interrupted.is_none()
        && summary.failed.is_none()
        && summary.checks.iter().all(|c| c.pass);
    let Some(dir) = out else {
        return Ok(());
    };
    files.append(&mut summary.files);
    if let Some(json) = bodies_json {
        let path = dir.join("bodies.json");
        let text = json_text(&json, &path, false)?;
        let mut f = AtomicFile::create(&path)?;
        f.write_all(text.as_bytes())?;
        f.commit()?;
        files.push("bodies.json".into());
    }
    let ext = match scene.format {
        crate::load::Format::Json => "json",
        crate::load::Format::Toml => "toml",
    };
    write_atomic(&dir.join(format!("scene.{ext}")), scene.source.as_bytes())?;
    files.push(format!("scene.{ext}"));
    files.push("summary.json".into());
    summary.files = files;
    let path = dir.join("summary.json");
    let json = json_text(&summary, &path, true)?;
    write_atomic(&path, format!("{json}\n").as_bytes())?;
    Ok(())
}

/// The 2D scene run ([`rigid::run_rigid`]).
impl rigid::RigidScene for World {
    fn create(params: WorldParams) -> Result<Self, SceneError> {
        Ok(World::new(params)?)
    }

    fn drops(scene: &Scene) -> Vec<(Drop, bool)> {
        (scene.bodies.planar().iter())
            .map(|b| (b.drop, b.body.is_static))
            .collect()
    }

    fn add_scene_body(&mut self, scene: &Scene, k: usize) -> Result<usize, SceneError> {
        Ok(self.add_body(scene.bodies.planar()[k].body.clone())?)
    }

    fn headers() -> (&'static str, &'static str) {
        (trajectory_header(), "step,a,b,x,y,nx,ny,gap")
    }

    fn step_world(&mut self) -> StepReport {
        self.step()
    }

    fn state(&mut self) -> StepState<'_> {
        StepState::Planar(self)
    }

    fn energy(&self) -> (Real, Real) {
        energy(self)
    }

    fn finite(&self) -> bool {
        finite_planar(self)
    }

    fn overlap(&self) -> Real {
        total_overlap(&self.bodies)
    }

    fn max_depth(&self) -> Real {
        max_depth_planar(self)
    }

    fn write_pose(&self, t: &mut Csv, s: usize, d: usize, wi: usize) -> Result<(), SceneError> {
        Ok(t.pose(s, d, &self.bodies[wi])?)
    }

    fn write_contacts(&self, c: &mut Csv, s: usize) -> Result<(), SceneError> {
        for k in draw_contacts(self) {
            c.line(&format!(
                "{s},{},{},{},{},{},{},{}",
                k.a, k.b, k.point.x, k.point.y, k.normal.x, k.normal.y, k.gap
            ))?;
        }
        Ok(())
    }

    fn counts(&self) -> (usize, usize) {
        let dynamic = self.bodies.iter().filter(|b| !b.is_static).count();
        (self.bodies.len(), dynamic)
    }

    fn bodies_json(scene: &Scene, h: Real, sched: &Schedule) -> serde_json::Value {
        bodies_json(scene, h, sched)
    }

    fn into_final(self) -> FinalWorld {
        FinalWorld::Planar(self)
    }
}

fn open_writers(
    scene: &Scene,
    dir: Option<&Path>,
    traj_header: &str,
    contacts_header: &str,
) -> Result<Writers, SceneError> {
    let Some(dir) = dir else {
        return Ok(Writers {
            traj: None,
            steps: None,
            contacts: None,
            checkpointed: std::time::Instant::now(),
        });
    };
    std::fs::create_dir_all(dir).map_err(|e| SceneError::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let r = &scene.record;
    let steps_header = if scene.kind() == SceneKind::Meshes {
        PENALTY_STEPS_HEADER
    } else {
        STEPS_HEADER
    };
    Ok(Writers {
        traj: r
            .trajectories
            .then(|| Csv::create(&dir.join("trajectories.csv"), traj_header))
            .transpose()?,
        steps: r
            .statistics
            .then(|| Csv::create(&dir.join("steps.csv"), steps_header))
            .transpose()?,
        contacts: r
            .contacts
            .then(|| Csv::create(&dir.join("contacts.csv"), contacts_header))
            .transpose()?,
        checkpointed: std::time::Instant::now(),
    })
}

/// One `steps.csv` row ([`STEPS_HEADER`]) of a complementarity step, 2D or 3D: step `s`,
/// the step report, the total overlap and the (kinetic, potential) energy after the step.
pub(crate) fn steps_line(
    s: usize,
    h: Real,
    bodies: usize,
    rep: &StepReport,
    overlap: Real,
    (kin, pot): (Real, Real),
) -> String {
    let c = rep.counts;
    let solver = rep
        .solver
        .map(|k| format!("{k:?}").to_lowercase())
        .unwrap_or_else(|| "none".into());
    debug_assert_eq!(STEPS_HEADER.split(',').count(), 20);
    format!(
        "{s},{},{bodies},{},{},{},{},{},{},{solver},{},{},{},{},{overlap},{},{},{kin},{pot},{}",
        s as f64 * h,
        rep.pairs,
        c.contacts,
        c.unilateral,
        c.inter,
        c.cross,
        rep.unknowns,
        rep.iterations,
        rep.residual,
        rep.corrections,
        rep.failed as u8,
        rep.normal_impulse,
        rep.normal_impulse / h,
        kin + pot
    )
}

/// Vertex–edge pairs within [`DRAW_CONTACT_DISTANCE`] (the standard detector, used here only
/// to show where bodies touch).
fn draw_contacts(world: &World) -> Vec<signorini_contact::Contact> {
    let verts: Vec<_> = world.bodies.iter().map(|b| b.world_vertices()).collect();
    let boxes: Vec<Aabb> = verts
        .iter()
        .map(|v| Aabb::from_points(v.iter()).inflated(DRAW_CONTACT_DISTANCE))
        .collect();
    let pairs: Vec<(usize, usize)> = sweep_and_prune(&boxes)
        .into_iter()
        .filter(|&(i, j)| !(world.bodies[i].is_static && world.bodies[j].is_static))
        .collect();
    standard_contacts(&world.bodies, &verts, &pairs, DRAW_CONTACT_DISTANCE)
}

#[derive(Default)]
struct Acc {
    overlap: Vec<Real>,
    failed: usize,
    contacts: usize,
    iterations: usize,
    solves: usize,
    max_residual: Real,
    max_force: Real,
    wall: Real,
    /// Deepest penetration (m) of an overlapping pair (polygons, polyhedra).
    max_depth: Real,
}

impl Acc {
    fn add(&mut self, rep: &StepReport, overlap: Real, h: Real) {
        self.overlap.push(overlap);
        self.failed += rep.failed as usize;
        self.contacts += rep.counts.contacts;
        if rep.solver.is_some() {
            self.solves += 1;
            self.iterations += rep.iterations;
            self.max_residual = self.max_residual.max(rep.residual);
        }
        self.max_force = self.max_force.max(rep.normal_impulse / h);
        self.wall += rep.times.total();
    }

    /// A penalty step: its penetration goes where the overlap goes (moved to
    /// `max_penetration` in the summary), its evaluated pairs count as contacts.
    fn add_penalty(&mut self, rep: &signorini_world::penalty::PenaltyReport) {
        self.overlap.push(rep.max_penetration);
        self.contacts += rep.pairs;
        self.max_force = self.max_force.max(rep.contact_force);
    }

    fn summary(
        &self,
        scene: &Scene,
        model: Model,
        h: Real,
        planned: usize,
        n: usize,
    ) -> RunSummary {
        let s = summarize(&self.overlap);
        let mut checks = Vec::new();
        if let Some(limit) = scene.checks.max_overlap {
            checks.push(CheckResult {
                name: "max_overlap".into(),
                limit,
                value: s.max,
                pass: s.max <= limit || n == 0,
            });
        }
        if let Some(limit) = scene.checks.max_penetration {
            checks.push(CheckResult {
                name: "max_penetration".into(),
                limit,
                value: s.max,
                pass: s.max <= limit || n == 0,
            });
        }
        if let Some(limit) = scene.checks.max_failed_steps {
            checks.push(CheckResult {
                name: "max_failed_steps".into(),
                limit: limit as f64,
                value: self.failed as f64,
                pass: self.failed <= limit,
            });
        }
        let mean = |a: usize, b: usize| if b > 0 { a as f64 / b as f64 } else { 0.0 };
        RunSummary {
            scene: scene.name.clone(),
            file: scene.file.display().to_string(),
            model: model.name().into(),
            h,
            steps_planned: planned,
            steps: n,
            time: n as f64 * h,
            interrupted: None,
            failed: None,
            bodies: 0,
            dynamic_bodies: 0,
            failed_steps: self.failed,
            max_overlap: if n > 0 { s.max } else { 0.0 },
            median_overlap: if n > 0 { s.median } else { 0.0 },
            mean_contacts: mean(self.contacts, n),
            mean_iterations: mean(self.iterations, self.solves),
            max_residual: self.max_residual,
            max_contact_force: self.max_force,
            energy_initial: 0.0,
            energy_final: 0.0,
            wall_seconds: self.wall,
            kind: match scene.kind() {
                SceneKind::Planar => "planar",
                SceneKind::Polyhedra => "polyhedra",
                SceneKind::Meshes => "meshes",
                SceneKind::Deformables => "deformables",
            }
            .into(),
            max_penetration: if n > 0 { self.max_depth } else { 0.0 },
            checks,
            all_checks_pass: true,
            files: Vec::new(),
        }
    }
}

/// `bodies.json`: what the replay needs to draw every body.
#[derive(Serialize)]
struct BodyOut<'a> {
    name: &'a str,
    world_index: Option<usize>,
    dynamic_index: Option<usize>,
    is_static: bool,
    vertices: Vec<[f64; 2]>,
    position: [f64; 2],
    angle: f64,
    drop_step: usize,
    color: Option<&'a str>,
}

fn bodies_json(scene: &Scene, h: Real, sched: &Schedule) -> serde_json::Value {
    let bodies: Vec<BodyOut> = scene
        .bodies
        .planar()
        .iter()
        .enumerate()
        .map(|(k, b)| BodyOut {
            name: &b.name,
            world_index: (sched.world_of_scene[k] != usize::MAX).then_some(sched.world_of_scene[k]),
            dynamic_index: sched.dyn_index[k],
            is_static: b.body.is_static,
            vertices: b.body.shape.vertices().iter().map(|v| [v.x, v.y]).collect(),
            position: [b.body.position.x, b.body.position.y],
            angle: b.body.angle,
            drop_step: b.drop.step(h),
            color: b.color.as_deref(),
        })
        .collect();
    serde_json::json!({ "scene": scene.name, "h": h, "dimension": 2, "bodies": bodies })
}
