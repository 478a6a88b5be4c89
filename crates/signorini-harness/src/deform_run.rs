//! Running a [`DeformableWorld`] experiment and writing its outputs, shared by `cloth-tori`,
//! `rings`, `chain` and `bucket` (CPF paper §4–5).
//!
//! Owns: [`DeformTrace`] (per-step series), [`Tracer`], [`trace`], [`DeformSummary`] (the fixed
//! `summary.json` fields of issue 8), [`summarize`], [`write_outputs`] and the model
//! comparison ([`compare_models`], [`write_comparison`]).
//!
//! **Penetration statistics** per step are model-independent: the (edge, triangle) pairs
//! crossing at the end of the step and their largest depth ([`crate::crossings`]), so that
//! continuous and discrete forces are measured the same way. The stepper's own count of
//! tracked pairs with real interpenetration is kept too (`tracked_penetrating` column).
//!
//! **Jitter** (one definition for all deformable experiments): [`jitter`] of the total
//! contact-force series `F_n = Σ |J|/h` over the final half of the run, i.e.
//! `mean |F_{n+1} − F_n| / mean F` — the relative step-to-step change of the contact force
//! once the bodies should have settled (0 if no contact force at all). [`Extra`] adds the
//! high-pass jitter ([`jitter_high_pass`], 9-step window), which does not count slow changes.

use crate::ExperimentError;
use crate::crossings::{MeshView, crossings};
use crate::penalty_out::{HIGH_PASS_WINDOW, jitter, jitter_high_pass, plot, write_csv, write_json};
use serde::Serialize;
use signorini_math::{Real, Vec3};
use signorini_world::penalty::{DeformableWorld, PenaltyReport};
use std::path::Path;
use std::time::Instant;

pub use signorini_penalty::ForceModel;

/// Per-step series of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeformTrace {
    /// Time at the end of each step (s).
    pub t: Vec<Real>,
    /// Total contact-force magnitude `Σ |J| / h` (N).
    pub force: Vec<Real>,
    /// Pairs evaluated by the stepper.
    pub(crate) pairs: Vec<usize>,
    /// Edge–triangle pairs crossing at the end of the step.
    pub(crate) crossing_pairs: Vec<usize>,
    /// Their largest depth (m).
    pub crossing_depth: Vec<Real>,
    /// Tracked pairs really interpenetrating at the end of the step (stepper's report).
    pub(crate) tracked_penetrating: Vec<usize>,
    /// Root-mean-square vertex speed of the deformables (m/s).
    pub rms_speed: Vec<Real>,
    /// Contact force on the static obstacles (`PenaltyReport::obstacle_force`, N): the force
    /// between the bodies and the rigid scenery that the paper's force figures plot (the
    /// chain–box force of Fig. 8, octopus–bowl of Fig. 11, rings–base of Figs. 15–16).
    pub obstacle_force: Vec<Real>,
    /// Wall-clock milliseconds per step (the step only, not the measurements).
    pub ms_per_step: Real,
    /// The step (0-based) at which the run diverged (`PenaltyReport::diverged`: a state not
    /// finite, or a runaway predicted motion); the run stopped there.
    pub(crate) diverged_at: Option<usize>,
    /// Set if a signal stopped the run: `"SIGINT at step k"` ([`crate::cancel`]).
    pub interrupted: Option<String>,
}

/// Crossings among all deformables and obstacles of `w` at their current positions.
pub fn world_crossings(w: &DeformableWorld) -> crate::crossings::Crossings {
    let d_edges: Vec<Vec<[u32; 2]>> = w.deformables.iter().map(|d| d.mesh().edges()).collect();
    let o_edges: Vec<Vec<[u32; 2]>> = w.obstacles.iter().map(|o| o.mesh().edges()).collect();
    let mut views: Vec<MeshView<'_>> = w
        .deformables
        .iter()
        .zip(&d_edges)
        .map(|(d, e)| MeshView {
            x: &d.x,
            triangles: d.triangles(),
            edges: e,
            self_check: w.self_collision,
            is_static: false,
        })
        .collect();
    let r_x: Vec<Vec<Vec3>> = w.rigid.iter().map(|b| b.world_vertices()).collect();
    views.extend(w.rigid.iter().zip(&r_x).map(|(b, x)| MeshView {
        x,
        triangles: b.mesh().triangles(),
        edges: b.edges(),
        self_check: false,
        is_static: false,
    }));
    views.extend(w.obstacles.iter().zip(&o_edges).map(|(o, e)| MeshView {
        x: o.mesh().vertices(),
        triangles: o.mesh().triangles(),
        edges: e,
        self_check: false,
        is_static: true,
    }));
    crossings(&views)
}

fn rms_speed(w: &DeformableWorld) -> Real {
    let (mut sum, mut n) = (0.0, 0usize);
    for d in &w.deformables {
        for (i, v) in d.v.iter().enumerate() {
            if !d.is_pinned(i) {
                sum += v.norm_squared();
                n += 1;
            }
        }
    }
    for b in &w.rigid {
        for p in b.world_vertices() {
            sum += b.state.point_velocity(&p).norm_squared();
            n += 1;
        }
    }
    if n == 0 {
        0.0
    } else {
        (sum / n as Real).sqrt()
    }
}

/// A trace being recorded one step at a time (the loop of [`trace`], also driven by
/// deformable scene runs so that both write the same per-step series).
#[derive(Clone, Debug, Default)]
pub struct Tracer {
    /// The series so far (`ms_per_step` is set by [`Tracer::finish`]).
    pub trace: DeformTrace,
    busy: Real,
    last: crate::crossings::Crossings,
}

impl Tracer {
    /// Step `w` once as step `n` of `steps`, measuring crossings if `n` is a multiple of
    /// `measure_every` or the last step; returns the step's report.
    pub fn step(
        &mut self,
        w: &mut DeformableWorld,
        n: usize,
        steps: usize,
        measure_every: usize,
    ) -> PenaltyReport {
        let start = Instant::now();
        let rep = w.step();
        self.busy += start.elapsed().as_secs_f64();
        if n.is_multiple_of(measure_every.max(1)) || n + 1 == steps {
            self.last = world_crossings(w);
        }
        let tr = &mut self.trace;
        tr.t.push(w.time());
        tr.force.push(rep.contact_force);
        tr.pairs.push(rep.pairs);
        tr.crossing_pairs.push(self.last.pairs);
        tr.crossing_depth.push(self.last.max_depth);
        tr.tracked_penetrating.push(rep.penetrating_pairs);
        tr.rms_speed.push(rms_speed(w));
        tr.obstacle_force.push(rep.obstacle_force);
        if rep.diverged && tr.diverged_at.is_none() {
            tr.diverged_at = Some(n);
        }
        rep
    }

    /// Crossings measured at the last measured step.
    pub fn last_crossings(&self) -> &crate::crossings::Crossings {
        &self.last
    }

    /// The trace, with the mean wall-clock time per step taken.
    pub fn finish(mut self) -> DeformTrace {
        self.trace.ms_per_step = self.busy * 1e3 / self.trace.t.len().max(1) as Real;
        self.trace
    }
}

/// Run `steps` steps, measuring crossings every `measure_every` steps (1 = every step; the
/// other entries repeat the last measurement) and always after the last step.
pub fn trace(w: &mut DeformableWorld, steps: usize, measure_every: usize) -> DeformTrace {
    let bar = crate::progress::bar(steps, "steps");
    let mut tr = Tracer::default();
    for n in 0..steps {
        if let Some(why) = crate::cancel::stop_at(n, "") {
            tr.trace.interrupted = Some(why);
            break;
        }
        if tr.step(w, n, steps, measure_every).diverged {
            break;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    tr.finish()
}

/// `DIR/summary.json` of a deformable experiment (fields fixed by issue 8).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeformSummary {
    /// Force model (`cpf`, `dpf`, `dpf_ccd`).
    pub model: String,
    /// Step (s).
    pub dt: Real,
    /// Steps run.
    pub steps: usize,
    /// Triangles of all deformables and obstacles.
    pub triangles: usize,
    /// Edge–triangle pairs crossing at the end of the last step.
    pub pairs_penetrating_at_end: usize,
    /// Their largest depth (m).
    pub max_depth: Real,
    /// Jitter over the final half of the run (module docs).
    pub jitter: Real,
    /// Wall-clock milliseconds per step.
    pub ms_per_step: Real,
    /// Set if a signal stopped the run: `"SIGINT at step k"` (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
}

/// Figures of a trace beyond the summary (printed and written to `details.csv`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Extra {
    /// Largest number of crossing pairs at the end of any step.
    pub peak_pairs: usize,
    /// Largest crossing depth at the end of any step (m).
    pub peak_depth: Real,
    /// Steps that ended with at least one crossing.
    pub steps_with_crossings: usize,
    /// Mean RMS vertex speed over the final half (m/s).
    pub final_rms_speed: Real,
    /// High-pass jitter of the final half ([`jitter_high_pass`] with a 9-step window): the
    /// step-to-step noise of the contact force without its slow changes.
    pub jitter_high_pass: Real,
    /// The step (0-based) at which the run diverged and stopped (`PenaltyReport::diverged`), if any.
    pub diverged_at: Option<usize>,
    /// Largest contact force on the static obstacles over the run (N).
    pub peak_obstacle_force: Real,
    /// [`jitter`] of the contact force on the static obstacles over the final half (0 if
    /// nothing touched them then).
    pub obstacle_jitter: Real,
    /// [`jitter_high_pass`] of the same (without the slow changes of a swing or a slide).
    pub obstacle_jitter_high_pass: Real,
    /// Steps in which something touched a static obstacle (obstacle force > 0).
    pub steps_touching_obstacles: usize,
}

/// Step `w` for `round(duration / dt)` steps (at least one) with [`trace`] and summarise
/// the run under `model`'s name: the run-and-summarise block every deformable experiment shares.
pub fn simulate_world(
    w: &mut DeformableWorld,
    model: ForceModel,
    dt: Real,
    duration: Real,
    measure_every: usize,
) -> (DeformTrace, DeformSummary, Extra) {
    let steps = (duration / dt).round().max(1.0) as usize;
    let tr = trace(w, steps, measure_every);
    let (s, e) = summarize(&tr, model.name(), dt, w.triangle_count());
    (tr, s, e)
}

/// Summary and extra figures of a trace.
pub fn summarize(
    tr: &DeformTrace,
    model: &str,
    dt: Real,
    triangles: usize,
) -> (DeformSummary, Extra) {
    let n = tr.t.len();
    let half = n / 2;
    let s = DeformSummary {
        model: model.to_string(),
        dt,
        steps: n,
        triangles,
        pairs_penetrating_at_end: tr.crossing_pairs.last().copied().unwrap_or(0),
        max_depth: tr.crossing_depth.last().copied().unwrap_or(0.0),
        jitter: jitter(&tr.force[half..]),
        ms_per_step: tr.ms_per_step,
        interrupted: tr.interrupted.clone(),
    };
    let tail = &tr.rms_speed[half..];
    let e = Extra {
        peak_pairs: tr.crossing_pairs.iter().copied().max().unwrap_or(0),
        peak_depth: tr.crossing_depth.iter().copied().fold(0.0, Real::max),
        steps_with_crossings: tr.crossing_pairs.iter().filter(|&&c| c > 0).count(),
        final_rms_speed: tail.iter().sum::<Real>() / tail.len().max(1) as Real,
        jitter_high_pass: jitter_high_pass(&tr.force[half..], HIGH_PASS_WINDOW),
        diverged_at: tr.diverged_at,
        peak_obstacle_force: tr.obstacle_force.iter().copied().fold(0.0, Real::max),
        obstacle_jitter: jitter(&tr.obstacle_force[half.min(tr.obstacle_force.len())..]),
        obstacle_jitter_high_pass: jitter_high_pass(
            &tr.obstacle_force[half.min(tr.obstacle_force.len())..],
            HIGH_PASS_WINDOW,
        ),
        steps_touching_obstacles: tr.obstacle_force.iter().filter(|&&f| f > 0.0).count(),
    };
    (s, e)
}

/// Write `DIR/<name>_<model>.csv`, `force.svg`, `obstacle_force.svg`, `penetration.svg`,
/// `details.csv` and
/// `summary.json`.
///
/// # Errors
/// [`ExperimentError`] if a file cannot be written.
pub fn write_outputs(
    out: &Path,
    name: &str,
    tr: &DeformTrace,
    s: &DeformSummary,
    e: &Extra,
) -> Result<(), ExperimentError> {
    std::fs::create_dir_all(out).map_err(|err| ExperimentError::io(out, err))?;
    write_trace(&out.join(format!("{name}_{}.csv", s.model)), tr)?;
    let title = format!("{name} ({}, Δt = {} s)", s.model, s.dt);
    plot(
        &out.join("force.svg"),
        &format!("{title}: total contact force"),
        "t (s)",
        "force (N)",
        &[(&s.model, &tr.t, &tr.force)],
    )?;
    let count: Vec<Real> = tr.crossing_pairs.iter().map(|&c| c as Real).collect();
    plot(
        &out.join("obstacle_force.svg"),
        &format!("{title}: contact force on the static obstacles"),
        "t (s)",
        "force (N)",
        &[(&s.model, &tr.t, &tr.obstacle_force)],
    )?;
    plot(
        &out.join("penetration.svg"),
        &format!("{title}: edge-triangle pairs crossing at step end"),
        "t (s)",
        "pairs",
        &[(&s.model, &tr.t, &count)],
    )?;
    write_json(&out.join("summary.json"), s)?;
    write_csv(
        &out.join("details.csv"),
        "model,peak_pairs,peak_depth,steps_with_crossings,final_rms_speed,jitter_high_pass,peak_obstacle_force,obstacle_jitter,obstacle_jitter_high_pass,steps_touching_obstacles",
        [format!(
            "{},{},{:e},{},{:e},{:e},{:e},{:e},{:e},{}",
            s.model,
            e.peak_pairs,
            e.peak_depth,
            e.steps_with_crossings,
            e.final_rms_speed,
            e.jitter_high_pass,
            e.peak_obstacle_force,
            e.obstacle_jitter,
            e.obstacle_jitter_high_pass,
            e.steps_touching_obstacles
        )],
    )
}

/// Per-step CSV of a trace.
pub fn write_trace(path: &Path, tr: &DeformTrace) -> Result<(), ExperimentError> {
    write_csv(
        path,
        "t,contact_force,pairs,crossing_pairs,crossing_max_depth,tracked_penetrating,rms_speed,obstacle_force",
        (0..tr.t.len()).map(|i| {
            format!(
                "{},{},{},{},{},{},{},{}",
                tr.t[i],
                tr.force[i],
                tr.pairs[i],
                tr.crossing_pairs[i],
                tr.crossing_depth[i],
                tr.tracked_penetrating[i],
                tr.rms_speed[i],
                tr.obstacle_force[i]
            )
        }),
    )
}

/// Model comparison plots like the paper's force figures (Figs. 8, 11, 13, 15–16): every run's
/// total contact force in `DIR/force_compare.svg`, its force on the static obstacles in
/// `DIR/obstacle_force_compare.svg` and its crossing count in
/// `DIR/crossings_compare.svg`, plus `DIR/compare.csv` with one summary row per run.
///
/// # Errors
/// [`ExperimentError`] if a file cannot be written.
pub fn write_comparison(
    out: &Path,
    name: &str,
    runs: &[(DeformTrace, DeformSummary, Extra)],
) -> Result<(), ExperimentError> {
    std::fs::create_dir_all(out).map_err(|err| ExperimentError::io(out, err))?;
    let counts: Vec<Vec<Real>> = runs
        .iter()
        .map(|(t, ..)| t.crossing_pairs.iter().map(|&c| c as Real).collect())
        .collect();
    let force: Vec<(&str, &[Real], &[Real])> = runs
        .iter()
        .map(|(t, s, _)| (s.model.as_str(), t.t.as_slice(), t.force.as_slice()))
        .collect();
    let cross: Vec<(&str, &[Real], &[Real])> = runs
        .iter()
        .zip(&counts)
        .map(|((t, s, _), c)| (s.model.as_str(), t.t.as_slice(), c.as_slice()))
        .collect();
    plot(
        &out.join("force_compare.svg"),
        &format!("{name}: total contact force per model"),
        "t (s)",
        "force (N)",
        &force,
    )?;
    let on_obstacles: Vec<(&str, &[Real], &[Real])> = runs
        .iter()
        .map(|(t, s, _)| {
            (
                s.model.as_str(),
                t.t.as_slice(),
                t.obstacle_force.as_slice(),
            )
        })
        .collect();
    plot(
        &out.join("obstacle_force_compare.svg"),
        &format!("{name}: contact force on the static obstacles per model"),
        "t (s)",
        "force (N)",
        &on_obstacles,
    )?;
    plot(
        &out.join("crossings_compare.svg"),
        &format!("{name}: edge-triangle pairs crossing at step end"),
        "t (s)",
        "pairs",
        &cross,
    )?;
    write_csv(
        &out.join("compare.csv"),
        "model,dt,steps,triangles,pairs_penetrating_at_end,max_depth,peak_pairs,peak_depth,jitter,ms_per_step,jitter_high_pass,peak_obstacle_force,obstacle_jitter,obstacle_jitter_high_pass,steps_touching_obstacles",
        runs.iter().map(|(_, s, e)| {
            format!(
                "{},{},{},{},{},{:e},{},{:e},{:e},{},{:e},{:e},{:e},{:e},{}",
                s.model,
                s.dt,
                s.steps,
                s.triangles,
                s.pairs_penetrating_at_end,
                s.max_depth,
                e.peak_pairs,
                e.peak_depth,
                s.jitter,
                s.ms_per_step,
                e.jitter_high_pass,
                e.peak_obstacle_force,
                e.obstacle_jitter,
                e.obstacle_jitter_high_pass,
                e.steps_touching_obstacles
            )
        }),
    )
}

/// Run one scene under each of `models` (one after the other, so timings are clean) with
/// `simulate(model)`, write each run's outputs into `DIR/<model>/` ([`write_outputs`]) and the
/// comparison plots into `DIR` ([`write_comparison`]).
///
/// # Errors
/// The first error of `simulate`, or [`ExperimentError`] if a file cannot be written.
pub fn compare_models(
    out: &Path,
    name: &str,
    models: &[ForceModel],
    simulate: impl Fn(ForceModel) -> Result<(DeformTrace, DeformSummary, Extra), ExperimentError>,
) -> Result<Vec<(DeformSummary, Extra)>, ExperimentError> {
    let mut runs = Vec::new();
    // No new run once a signal asked to stop.
    for &model in models
        .iter()
        .take_while(|_| crate::cancel::requested().is_none())
    {
        let (tr, s, e) = simulate(model)?;
        write_outputs(&out.join(model.name()), name, &tr, &s, &e)?;
        runs.push((tr, s, e));
    }
    write_comparison(out, name, &runs)?;
    Ok(runs.into_iter().map(|(_, s, e)| (s, e)).collect())
}
