//! One scene run for both complementarity worlds, 2D polygons ([`World`]) and 3D polyhedra
//! ([`World3`]): timed drops, the step loop, overlap and energy bookkeeping, outputs and the
//! summary. What differs by dimension — building the world, adding a scene body, measuring
//! overlap and depth, writing a step, describing the bodies — is the [`RigidScene`] trait,
//! implemented for `World` in `mod.rs` and for `World3` in `spatial.rs`.

use super::{
    Acc, FinalWorld, RunOptions, RunOutcome, Schedule, StepState, Writers, before, finish,
    non_finite, open_writers, planned_steps, steps_line, tick, world_params,
};
use crate::error::SceneError;
use crate::validate::{Drop, Model, Scene};
use signorini_harness::Csv;
use signorini_math::Real;
use signorini_world::{StepReport, WorldParams};

/// What a scene run needs of a complementarity world.
pub(super) trait RigidScene: Sized {
    /// A new empty world.
    fn create(params: WorldParams) -> Result<Self, SceneError>;
    /// The scene's bodies as (drop, is static), in scene order.
    fn drops(scene: &Scene) -> Vec<(Drop, bool)>;
    /// Add the scene's body `k`; its index in the world.
    fn add_scene_body(&mut self, scene: &Scene, k: usize) -> Result<usize, SceneError>;
    /// `trajectories.csv` and `contacts.csv` headers.
    fn headers() -> (&'static str, &'static str);
    /// One step.
    fn step_world(&mut self) -> StepReport;
    /// The world handed to the `before_step` hook.
    fn state(&mut self) -> StepState<'_>;
    /// Kinetic and potential energy (J).
    fn energy(&self) -> (Real, Real);
    /// Whether every body's state is finite.
    fn finite(&self) -> bool;
    /// Total overlap (m² or m³) over box-overlapping pairs.
    fn overlap(&self) -> Real;
    /// Deepest penetration (m).
    fn max_depth(&self) -> Real;
    /// Write body `wi`'s pose as row `d` of step `s` of `trajectories.csv`.
    fn write_pose(&self, t: &mut Csv, s: usize, d: usize, wi: usize) -> Result<(), SceneError>;
    /// Write step `s`'s touching points to `contacts.csv`.
    fn write_contacts(&self, c: &mut Csv, s: usize) -> Result<(), SceneError>;
    /// Bodies in the world, and dynamic ones.
    fn counts(&self) -> (usize, usize);
    /// `bodies.json` (the replay's shapes and drop steps).
    fn bodies_json(scene: &Scene, h: Real, sched: &Schedule) -> serde_json::Value;
    /// The final world of the outcome.
    fn into_final(self) -> FinalWorld;
}

/// Run a polygon or polyhedron scene in world `W`.
pub(super) fn run_rigid<W: RigidScene>(
    scene: &Scene,
    mut opts: RunOptions,
    model: Model,
    h: Real,
) -> Result<RunOutcome, SceneError> {
    let mut world = W::create(world_params(scene, model, h)?)?;
    let (planned, n) = planned_steps(scene, &opts, h);
    let mut sched = Schedule::new(&W::drops(scene), h);
    let out = opts.out.clone();
    let (traj_header, contacts_header) = W::headers();
    let mut w = open_writers(scene, out.as_deref(), traj_header, contacts_header)?;
    sched.add_due(0, |k| world.add_scene_body(scene, k))?;
    let (k0, p0) = world.energy();
    let mut acc = Acc::default();
    let mut interrupted = None;
    let mut diverged = None;
    let mut taken = 0;
    for s in 1..=n {
        if s > 1 {
            sched.add_due(s - 1, |k| world.add_scene_body(scene, k))?;
        }
        before(&mut opts, s, world.state());
        let rep = world.step_world();
        taken = s;
        if !world.finite() {
            // The state is meaningless from here on: stop, not recorded, and fail the run.
            diverged = Some(s);
            break;
        }
        let overlap = world.overlap();
        acc.add(&rep, overlap, h);
        if overlap > 0.0 {
            acc.max_depth = acc.max_depth.max(world.max_depth());
        }
        if s % scene.record.every == 0 || s == n {
            record(&mut w, &world, &sched.present, (s, h), &rep, overlap)?;
        }
        if let Some(why) = tick(&mut opts, s, n) {
            interrupted = Some(why);
            break;
        }
    }
    let (k1, p1) = world.energy();
    let mut summary = acc.summary(scene, model, h, planned, taken);
    if let Some(s) = diverged {
        non_finite(&mut summary, s);
    }
    summary.interrupted = interrupted;
    (summary.bodies, summary.dynamic_bodies) = world.counts();
    summary.energy_initial = k0 + p0;
    summary.energy_final = k1 + p1;
    let bodies = W::bodies_json(scene, h, &sched);
    finish(scene, out.as_deref(), w, Some(bodies), &mut summary)?;
    Ok(RunOutcome {
        summary,
        world: world.into_final(),
    })
}

/// Write one recorded step: the present bodies' poses, the `steps.csv` line, the contacts.
fn record<W: RigidScene>(
    w: &mut Writers,
    world: &W,
    present: &[(usize, usize)],
    (s, h): (usize, Real),
    rep: &StepReport,
    overlap: Real,
) -> Result<(), SceneError> {
    if let Some(t) = w.traj.as_mut() {
        for &(d, wi) in present {
            world.write_pose(t, s, d, wi)?;
        }
    }
    if let Some(f) = w.steps.as_mut() {
        let bodies = world.counts().0;
        f.line(&steps_line(s, h, bodies, rep, overlap, world.energy()))?;
    }
    if let Some(c) = w.contacts.as_mut() {
        world.write_contacts(c, s)?;
    }
    w.checkpoint_due()
}
