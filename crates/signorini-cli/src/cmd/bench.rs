//! `signorini bench`: time per step of several contact models on one scene.
//!
//! Each model runs the scene from its start for the same number of steps through the scene
//! runner (`signorini_scene::run`, nothing written), one after the other in this process; the
//! time per step is the run's `wall_seconds` (the stepper's own stage times for polygon and
//! polyhedron scenes, the step loop for mesh scenes) divided by its steps. The ratio of each
//! model is its time per step over the baseline's, measured in the same invocation. Each model
//! follows its own trajectory, so a ratio compares whole runs, not identical states (for that,
//! `signorini experiment pour2d|pour3d --timing-every N` times PEG and the standard model on
//! clones of the same states, `signorini_experiments::timing`). Times are not deterministic.
//!
//! Exit code 2 on bad input (unknown scene or model, a model of the wrong family, zero steps),
//! else 0 (a bench has no checks; failed steps are reported per model).

use crate::cmd::scene::{Format, resolve};
use crate::exit::{BadInput, Outcome};
use anyhow::anyhow;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use signorini_scene::{Model, RunOptions, Scene, SceneKind};
use std::io::IsTerminal;

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
    #[arg(long)]
    dt: Option<f64>,
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
    steps: usize,
    failed_steps: usize,
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
    baseline: &'static str,
    models: Vec<ModelTime>,
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
        if m.is_penalty() != (scene.kind == SceneKind::Meshes) {
            return Err(anyhow!(
                "--models: `{}` is not of this scene's family ({})",
                m.name(),
                match scene.kind {
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
        models = match scene.kind {
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
    let scene = resolve(&a.scene)?;
    let (models, base) = pick_models(&a, &scene)?;
    if a.steps == 0 {
        return Err(anyhow!("--steps: must be at least 1").into());
    }
    if let Some(dt) = a.dt
        && !(dt.is_finite() && dt > 0.0 && dt <= 1.0)
    {
        return Err(anyhow!("--dt: step size {dt} must be in (0, 1] s").into());
    }
    let bar = ProgressBar::new((models.len() * a.steps) as u64);
    if a.quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} {bar:40} {pos}/{len} steps {elapsed_precise}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut times = Vec::new();
    let mut h = scene.h;
    for (k, &model) in models.iter().enumerate() {
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
        let s = signorini_scene::run(&scene, opts)?.summary;
        h = s.h;
        if s.steps == 0 {
            return Err(anyhow!("scene `{}` has no steps to time", scene.name).into());
        }
        times.push(ModelTime {
            model: model.name(),
            steps: s.steps,
            failed_steps: s.failed_steps,
            ms_per_step: 1000.0 * s.wall_seconds / s.steps as f64,
            ratio: f64::NAN,
        });
    }
    bar.finish_and_clear();
    let base_ms = times[base].ms_per_step;
    for t in &mut times {
        t.ratio = t.ms_per_step / base_ms;
    }
    let report = BenchReport {
        scene: scene.name.clone(),
        kind: match scene.kind {
            SceneKind::Planar => "planar",
            SceneKind::Polyhedra => "polyhedra",
            SceneKind::Meshes => "meshes",
        },
        h,
        baseline: models[base].name(),
        models: times,
    };
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("report serialises")
        ),
        Format::Text => print_text(&report),
    }
    Ok(Outcome::Success)
}

fn print_text(r: &BenchReport) {
    println!(
        "{} ({}, h = {} s): time per step, ratio against {} (same run; not deterministic)",
        r.scene, r.kind, r.h, r.baseline
    );
    for m in &r.models {
        println!(
            "  {:<10} {:>5} steps {:>10.4} ms/step  {}/{} = {:.3}{}",
            m.model,
            m.steps,
            m.ms_per_step,
            m.model,
            r.baseline,
            m.ratio,
            if m.failed_steps > 0 {
                format!("  ({} failed steps)", m.failed_steps)
            } else {
                String::new()
            }
        );
    }
}
