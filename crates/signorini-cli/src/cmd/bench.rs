//! `signorini bench`: time per step of several contact models on one scene.
//!
//! Two modes, both through the scene runner (`signorini_scene::run`, nothing written):
//! - default: each model runs the scene from its start for the same number of steps, one
//!   after the other in this process; the time per step is the run's `wall_seconds` (the
//!   stepper's own stage times for polygon and polyhedron scenes, the step loop for mesh
//!   scenes) divided by its steps. Each model follows its own trajectory, so a ratio compares
//!   whole runs.
//! - `--same-states` (polygons, polyhedra): the scene runs once with the first model; before
//!   every `--every`-th step the world is cloned and stepped once with each model
//!   (`signorini_experiments::median_step_us_with`, median of `--repeats`, models
//!   interleaved), so every model is timed on identical states; the run is unchanged.
//!
//! The ratio of each model is its time per step over the baseline's, measured in the same
//! invocation. Times are not deterministic.
//!
//! Exit code 2 on bad input (unknown scene or model, a model of the wrong family, zero steps),
//! else 0 (a bench has no checks; failed steps are reported per model).

use crate::cmd::scene::{Format, parse_gyroscopic, resolve};
use crate::exit::{BadInput, Outcome};
use anyhow::anyhow;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use signorini_experiments::median_step_us_with;
use signorini_scene::{Model, RunOptions, Scene, SceneKind, StepState};
use signorini_world::{Gyroscopic, WorldParams};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::rc::Rc;

/// `signorini bench` options.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Scene file (.toml or .json), or the name of a built-in scene (`signorini list`).
    scene: String,
    /// Contact models, comma separated, of the scene's family: peg, standard, corrective
    /// (polygons, polyhedra) or cpf, dpf, dpf-ccd (meshes). Default: peg,standard or cpf,dpf.
    #[arg(long, value_delimiter = ',')]
    models: Vec<String>,
    /// The model the others are compared with (one of --models; default: the last one).
    #[arg(long)]
    baseline: Option<String>,
    /// Steps per model (at most the scene's length).
    #[arg(long, default_value_t = 200)]
    steps: usize,
    /// Step size in seconds instead of the scene's.
    #[arg(long, allow_negative_numbers = true)]
    dt: Option<f64>,
    /// Time every model on clones of the same states (the first model's run) instead of one
    /// run per model (polygon and polyhedron scenes).
    #[arg(long)]
    same_states: bool,
    /// With --same-states: time every N-th step.
    #[arg(long, value_name = "N", default_value_t = 1)]
    every: usize,
    /// With --same-states: repetitions per state and model (median kept).
    #[arg(long, value_name = "R", default_value_t = 1)]
    repeats: usize,
    /// Every model with the paper's stepper, every project addition off (polygon and
    /// polyhedron scenes; docs/guide.md, "The paper's stepper").
    #[arg(long)]
    paper: bool,
    /// 3D scenes: how the free-flight velocity carries the gyroscopic torque −ω × Jω:
    /// `midpoint` (the default: body-frame implicit midpoint rule, keeps a free body's |L| and
    /// energy), `implicit` (Catto's one-Newton-step implicit update) or `off` (no term, as
    /// before issue 22); as `[step] gyroscopic` (docs/scene-format.md).
    #[arg(long, value_parser = parse_gyroscopic, value_name = "UPDATE")]
    gyroscopic: Option<Gyroscopic>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// One model's timing.
#[derive(Debug, Serialize)]
struct ModelTime {
    model: &'static str,
    /// Steps run (or states timed, with --same-states).
    steps: usize,
    /// Failed steps of the model's own run (null for models only timed on clones).
    failed_steps: Option<usize>,
    ms_per_step: f64,
    /// ms_per_step / the baseline's ms_per_step.
    ratio: f64,
}

/// The `--format json` output.
#[derive(Debug, Serialize)]
struct BenchReport {
    scene: String,
    kind: &'static str,
    h: f64,
    /// `separate-runs` or `same-states`.
    mode: &'static str,
    /// The model whose run gave the timed states (`same-states`).
    trajectory: Option<&'static str>,
    baseline: &'static str,
    models: Vec<ModelTime>,
    /// Set if a signal stopped the timing: `"SIGINT"`; the models listed were timed (the last
    /// one on the steps taken before the signal), the others were not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    interrupted: Option<String>,
}

fn parse_model(m: &str) -> Result<Model, BadInput> {
    Model::parse(m).ok_or_else(|| {
        anyhow!("--models: unknown model `{m}` (peg, standard, corrective, cpf, dpf, dpf-ccd)")
            .into()
    })
}

/// The models to time (in order) and the index of the baseline among them.
fn pick_models(a: &BenchArgs, scene: &Scene) -> Result<(Vec<Model>, usize), BadInput> {
    let mut models = Vec::new();
    for m in &a.models {
        let m = parse_model(m)?;
        if m.is_penalty() != (scene.kind() == SceneKind::Meshes) {
            return Err(anyhow!(
                "--models: `{}` is not of this scene's family ({})",
                m.name(),
                match scene.kind() {
                    SceneKind::Meshes => "triangle meshes: cpf, dpf, dpf-ccd",
                    _ => "polygons or polyhedra: peg, standard, corrective",
                }
            )
            .into());
        }
        if !models.contains(&m) {
            models.push(m);
        }
    }
    if models.is_empty() {
        models = match scene.kind() {
            SceneKind::Meshes => vec![Model::Cpf, Model::Dpf],
            _ => vec![Model::Peg, Model::Standard],
        };
    }
    let base = match &a.baseline {
        None => models.len() - 1,
        Some(b) => {
            let b = parse_model(b)?;
            models
                .iter()
                .position(|&m| m == b)
                .ok_or_else(|| anyhow!("--baseline: `{}` is not one of --models", b.name()))?
        }
    };
    Ok((models, base))
}

/// `signorini bench`.
pub fn run(a: BenchArgs) -> Result<Outcome, BadInput> {
    let mut scene = resolve(&a.scene)?;
    if a.paper {
        scene.use_paper_stepper().map_err(|e| anyhow!(e))?;
    }
    if let Some(g) = a.gyroscopic {
        scene.set_gyroscopic(g).map_err(|e| anyhow!(e))?;
    }
    let (models, base) = pick_models(&a, &scene)?;
    if a.steps == 0 {
        return Err(anyhow!("--steps: must be at least 1").into());
    }
    if let Some(dt) = a.dt
        && !(dt.is_finite() && dt > 0.0 && dt <= 1.0)
    {
        return Err(anyhow!("--dt: step size {dt} must be in (0, 1] s").into());
    }
    if a.every == 0 || a.repeats == 0 {
        return Err(anyhow!("--every and --repeats must be at least 1").into());
    }
    // Each model's run must fit in memory (SIGNORINI_MEMORY_LIMIT, else the machine's).
    for &model in &models {
        signorini_scene::preflight(
            &scene,
            &RunOptions {
                model: Some(model),
                h: a.dt,
                max_steps: Some(a.steps),
                memory_limit: crate::cmd::scene::memory_limit(None)?,
                ..RunOptions::default()
            },
        )?;
    }
    if a.same_states && scene.kind() == SceneKind::Meshes {
        return Err(anyhow!(
            "--same-states: not for mesh scenes (penalty worlds are timed one run per model)"
        )
        .into());
    }
    let bar = ProgressBar::new((models.len() * a.steps) as u64);
    if a.quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} {bar:40} {pos}/{len} steps {elapsed_precise}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let (mut times, h) = if a.same_states {
        same_states(&a, &scene, &models, &bar)?
    } else {
        separate_runs(&a, &scene, &models, &bar)?
    };
    bar.finish_and_clear();
    let base_ms = times.get(base).map_or(f64::NAN, |t| t.ms_per_step);
    for t in &mut times {
        t.ratio = t.ms_per_step / base_ms;
    }
    let report = BenchReport {
        scene: scene.name.clone(),
        kind: match scene.kind() {
            SceneKind::Planar => "planar",
            SceneKind::Polyhedra => "polyhedra",
            SceneKind::Meshes => "meshes",
            SceneKind::Deformables => "deformables",
        },
        h,
        mode: if a.same_states {
            "same-states"
        } else {
            "separate-runs"
        },
        trajectory: a.same_states.then(|| models[0].name()),
        baseline: models[base].name(),
        models: times,
        interrupted: signorini_harness::cancel::requested()
            .map(signorini_harness::cancel::signal_name),
    };
    match a.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&report)?),
        Format::Text => print_text(&report),
    }
    Ok(Outcome::Success)
}

/// One run per model: (times, h).
fn separate_runs(
    a: &BenchArgs,
    scene: &Scene,
    models: &[Model],
    bar: &ProgressBar,
) -> Result<(Vec<ModelTime>, f64), BadInput> {
    let mut times = Vec::new();
    let mut h = scene.h;
    for (k, &model) in models.iter().enumerate() {
        // No new run once a signal asked to stop (the report then covers the models timed).
        if signorini_harness::cancel::requested().is_some() {
            break;
        }
        bar.set_message(model.name());
        let b = bar.clone();
        let offset = (k * a.steps) as u64;
        let opts = RunOptions {
            model: Some(model),
            h: a.dt,
            max_steps: Some(a.steps),
            progress: Some(Box::new(move |done, _| {
                b.set_position(offset + done as u64)
            })),
            ..RunOptions::default()
        };
        let s = signorini_scene::run(scene, opts)?.summary;
        h = s.h;
        if s.steps == 0 {
            return Err(anyhow!("scene `{}` has no steps to time", scene.name).into());
        }
        times.push(ModelTime {
            model: model.name(),
            steps: s.steps,
            failed_steps: Some(s.failed_steps),
            ms_per_step: 1000.0 * s.wall_seconds / s.steps as f64,
            ratio: f64::NAN,
        });
    }
    Ok((times, h))
}

/// One run with the first model; every model timed on clones of its states: (times, h).
fn same_states(
    a: &BenchArgs,
    scene: &Scene,
    models: &[Model],
    bar: &ProgressBar,
) -> Result<(Vec<ModelTime>, f64), BadInput> {
    let h = a.dt.unwrap_or(scene.h);
    let params = models
        .iter()
        .map(|&m| signorini_scene::world_params(scene, m, h))
        .collect::<Result<Vec<WorldParams>, _>>()?;
    // (sum of per-state medians in µs per model, states timed)
    let acc = Rc::new(RefCell::new((vec![0.0; models.len()], 0usize)));
    let sink = acc.clone();
    let (every, repeats) = (a.every, a.repeats);
    let hook = move |s: usize, state: StepState<'_>| {
        if !s.is_multiple_of(every) {
            return;
        }
        let mut acc = sink.borrow_mut();
        for (k, p) in params.iter().enumerate() {
            acc.0[k] += match &state {
                StepState::Planar(w) => median_step_us_with(w, p, repeats),
                StepState::Polyhedra(w) => median_step_us_with(w, p, repeats),
                StepState::Meshes(_) | StepState::Deformables(_) => return,
            };
        }
        acc.1 += 1;
    };
    bar.set_message(models[0].name());
    let b = bar.clone();
    bar.set_length(a.steps as u64);
    let opts = RunOptions {
        model: Some(models[0]),
        h: a.dt,
        max_steps: Some(a.steps),
        progress: Some(Box::new(move |done, _| b.set_position(done as u64))),
        before_step: Some(Box::new(hook)),
        ..RunOptions::default()
    };
    let run = signorini_scene::run(scene, opts)?.summary;
    let (sums, n) = acc.borrow().clone();
    if n == 0 {
        return Err(anyhow!(
            "no state timed: {} steps with --every {}",
            run.steps,
            a.every
        )
        .into());
    }
    let times = models
        .iter()
        .zip(sums)
        .enumerate()
        .map(|(k, (m, us))| ModelTime {
            model: m.name(),
            steps: n,
            failed_steps: (k == 0).then_some(run.failed_steps),
            ms_per_step: us / n as f64 / 1000.0,
            ratio: f64::NAN,
        })
        .collect();
    Ok((times, run.h))
}

fn print_text(r: &BenchReport) {
    if let Some(sig) = &r.interrupted {
        outln!("interrupted by {sig}: only the models and steps below were timed");
    }
    outln!(
        "{} ({}, h = {} s): time per step, ratio against {} ({}; not deterministic)",
        r.scene,
        r.kind,
        r.h,
        r.baseline,
        match r.trajectory {
            Some(t) => format!("every model on the same states of the {t} run"),
            None => "one run per model".into(),
        }
    );
    for m in &r.models {
        outln!(
            "  {:<10} {:>5} {} {:>10.4} ms/step  {}/{} = {}{}",
            m.model,
            m.steps,
            if r.trajectory.is_some() {
                "states"
            } else {
                "steps "
            },
            m.ms_per_step,
            m.model,
            r.baseline,
            if !m.ratio.is_finite() {
                "—".to_string()
            } else if m.ratio >= 0.01 {
                format!("{:.3}", m.ratio)
            } else {
                format!("{:.3e}", m.ratio)
            },
            match m.failed_steps {
                Some(f) if f > 0 => format!("  ({f} failed steps)"),
                _ => String::new(),
            }
        );
    }
}
