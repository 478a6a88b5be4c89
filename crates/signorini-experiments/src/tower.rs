//! The tower test: 8 unit cubes stacked exactly touching on a static floor must stay at rest
//! (`signorini experiment tower`; scene `scenes/tower8.toml`).
//!
//! Scene: a static floor box 4 × 4 × 1 m with its top at z = 0 (centre (0, 0, −0.5)); cubes of
//! edge 1 m, density 1 kg/m³ (mass 1 kg, inertia of the geometry), centres (0, 0, 0.5 + k),
//! identity orientation, at rest; gravity 9.81 m/s² along −z; μ = 0.5 by default; h = 0.01 s,
//! 2 s; the experiments' world settings (`pour2d::experiment_params`, 8 gap corrections).
//! Measures: ms/step, the largest per-step total overlap volume, drift (max over cubes of
//! |final − initial position|) and the largest final speed; "at rest" if drift < 1e-6 m and
//! every final speed < 1e-6 m/s.
//!
//! Owns: the scene (`tower_world`), one run per model ([`run_tower`]) with its outputs
//! (`summary.csv`, `trajectories/tower_<model>.csv`, `report.txt`). Does not own: the physics.

use crate::ExperimentError;
use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_harness::overlap::total_overlap3;
use signorini_harness::pile_world::pile_params;
use signorini_harness::polyhedra::GRAVITY;
use signorini_harness::presets::step_count;
use signorini_harness::{Csv, trajectory_header3, write_atomic};
use signorini_math::{Quat, Real, Vec3};
use signorini_world::{ContactModel, PolyBody, World3};
use std::fmt::Write;
use std::path::PathBuf;

/// Number of cubes.
pub const CUBES: usize = 8;
/// Drift and speed limits of the "at rest" verdict (m, m/s).
pub(crate) const REST_TOLERANCE: Real = 1e-6;

/// What to run.
#[derive(Debug, Clone)]
pub struct TowerConfig {
    /// Models.
    pub models: Vec<ContactModel>,
    /// Friction coefficient (0.5).
    pub mu: Real,
    /// Step size (0.01 s).
    pub h: Real,
    /// Simulated time (2 s).
    pub duration: Real,
    /// Output directory.
    pub out: PathBuf,
}

/// What one run measured.
#[derive(Debug, Clone)]
pub struct TowerRun {
    /// Model.
    pub(crate) model: ContactModel,
    /// Steps.
    pub(crate) steps: usize,
    /// Mean stepper time per step (ms).
    pub(crate) ms_per_step: f64,
    /// Largest per-step total overlap (m³).
    pub(crate) max_overlap: f64,
    /// Max over cubes of |final − initial position| (m).
    pub(crate) drift: f64,
    /// Largest final speed (m/s).
    pub(crate) max_speed: f64,
    /// Failed steps.
    pub(crate) failed_steps: usize,
}

impl TowerRun {
    /// Drift and speeds below [`REST_TOLERANCE`].
    pub(crate) fn at_rest(&self) -> bool {
        self.drift < REST_TOLERANCE && self.max_speed < REST_TOLERANCE
    }
}

/// The world: floor first, then cube k at (0, 0, 0.5 + k).
pub(crate) fn tower_world(
    model: ContactModel,
    h: Real,
    mu: Real,
) -> Result<World3, ExperimentError> {
    let mut world = World3::new(pile_params(model, h, mu))?;
    let floor = ConvexPolyhedron::cuboid(Vec3::new(2.0, 2.0, 0.5))
        .map_err(|e| ExperimentError::Argument(format!("tower floor: {e}")))?;
    world
        .add_body(PolyBody::fixed(floor).with_pose(Vec3::new(0.0, 0.0, -0.5), Quat::identity()))?;
    let cube = ConvexPolyhedron::cuboid(Vec3::new(0.5, 0.5, 0.5))
        .map_err(|e| ExperimentError::Argument(format!("tower cube: {e}")))?;
    let body = PolyBody::from_density(&cube, 1.0)
        .map_err(|e| ExperimentError::Argument(format!("tower cube: {e}")))?;
    for k in 0..CUBES {
        let at = Vec3::new(0.0, 0.0, 0.5 + k as Real);
        world.add_body(
            body.clone()
                .with_pose(at, Quat::identity())
                .with_velocity(Vec3::zeros(), Vec3::zeros())
                .with_gravity(Vec3::new(0.0, 0.0, -GRAVITY)),
        )?;
    }
    Ok(world)
}

/// Run one model; writes `trajectories/tower_<model>.csv`.
pub fn run_tower(cfg: &TowerConfig, model: ContactModel) -> Result<TowerRun, ExperimentError> {
    let mut world = tower_world(model, cfg.h, cfg.mu)?;
    let initial: Vec<Vec3> = world.bodies[1..].iter().map(|b| b.state.position).collect();
    let path = cfg
        .out
        .join("trajectories")
        .join(format!("tower_{}.csv", model.name()));
    let mut traj = Csv::create(&path, trajectory_header3())?;
    let n = step_count(cfg.duration, cfg.h);
    let bar =
        signorini_harness::progress::bar(n, "steps").labelled(&format!("tower {}", model.name()));
    let (mut seconds, mut max_overlap, mut failed) = (0.0, 0.0f64, 0);
    let mut taken = n;
    for s in 1..=n {
        if signorini_harness::cancel::stop_at(s - 1, &format!("tower {}", model.name())).is_some() {
            taken = s - 1;
            break;
        }
        let rep = world.step();
        seconds += rep.times.total();
        failed += rep.failed as usize;
        max_overlap = max_overlap.max(total_overlap3(&world.bodies));
        for (k, b) in world.bodies[1..].iter().enumerate() {
            traj.pose3(s, k, &b.state)?;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    traj.finish()?;
    let cubes = &world.bodies[1..];
    Ok(TowerRun {
        model,
        steps: taken,
        ms_per_step: 1e3 * seconds / taken.max(1) as f64,
        max_overlap,
        drift: cubes
            .iter()
            .zip(&initial)
            .map(|(b, p0)| (b.state.position - p0).norm())
            .fold(0.0, Real::max),
        max_speed: cubes
            .iter()
            .map(|b| b.state.linear_velocity.norm())
            .fold(0.0, Real::max),
        failed_steps: failed,
    })
}

/// Run every model; write `summary.csv` and `report.txt`; return the report and whether every
/// run ended at rest.
pub(crate) fn run_towers(cfg: &TowerConfig) -> Result<(String, bool), ExperimentError> {
    std::fs::create_dir_all(&cfg.out).map_err(|e| ExperimentError::io(&cfg.out, e))?;
    let runs = cfg
        .models
        .iter()
        // No new run once a signal asked to stop.
        .take_while(|_| signorini_harness::cancel::requested().is_none())
        .map(|&m| run_tower(cfg, m))
        .collect::<Result<Vec<_>, _>>()?;
    let mut csv = Csv::create(
        &cfg.out.join("summary.csv"),
        "model,mu,h,steps,ms_per_step,max_overlap,drift,max_speed,failed_steps,at_rest",
    )?;
    let mut s = format!(
        "tower: {CUBES} unit cubes on a floor, mu = {}, h = {}, {} s\n{:<11} {:>10} {:>11} {:>11} {:>11} {:>6}  verdict\n",
        cfg.mu,
        cfg.h,
        cfg.duration,
        "model",
        "ms/step",
        "max ovl m3",
        "drift m",
        "max v m/s",
        "failed"
    );
    for r in &runs {
        csv.line(&format!(
            "{},{},{},{},{:.6},{:e},{:e},{:e},{},{}",
            r.model.name(),
            cfg.mu,
            cfg.h,
            r.steps,
            r.ms_per_step,
            r.max_overlap,
            r.drift,
            r.max_speed,
            r.failed_steps,
            r.at_rest()
        ))?;
        let _ = writeln!(
            s,
            "{:<11} {:>10.3} {:>11.3e} {:>11.3e} {:>11.3e} {:>6}  {}",
            r.model.name(),
            r.ms_per_step,
            r.max_overlap,
            r.drift,
            r.max_speed,
            r.failed_steps,
            if r.at_rest() { "at rest" } else { "MOVED" }
        );
    }
    csv.finish()?;
    let s = signorini_harness::cancel::mark_report(s);
    write_atomic(&cfg.out.join("report.txt"), s.as_bytes())?;
    Ok((s, runs.iter().all(TowerRun::at_rest)))
}

/// `signorini experiment tower`.
impl crate::Experiment for TowerConfig {
    fn out(&self) -> &std::path::Path {
        &self.out
    }

    fn run(&self) -> Result<crate::Report, ExperimentError> {
        let (text, at_rest) = run_towers(self)?;
        Ok(crate::Report {
            text,
            passed: Some(at_rest),
        })
    }
}
