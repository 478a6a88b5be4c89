//! `signorini run | list | validate | report`: scene files (see `docs/guide.md`).
//!
//! `run` exits 1 when a `[checks]` entry of the scene failed or the run was interrupted
//! (Ctrl-C: the loop stops after the current step and every output file is completed), 2 on bad
//! input (with file:line:column, field and reason).

use crate::exit::{BadInput, Outcome};
use anyhow::anyhow;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use signorini_scene::{
    Model, RunOptions, RunSummary, Scene, SceneKind, builtin, load_scene, load_str,
};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Output format of summaries.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// Human-readable lines.
    Text,
    /// One JSON object (the run's `summary.json`).
    Json,
}

/// `signorini run` options.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Scene file (.toml or .json), or the name of a built-in scene (`signorini list`).
    scene: String,
    /// Contact model instead of the scene's, within its family: peg, standard, corrective
    /// (polygons, polyhedra) or cpf, dpf, dpf-ccd (meshes).
    #[arg(long)]
    model: Option<String>,
    /// Step size in seconds instead of the scene's (drop times and duration stay in seconds).
    #[arg(long)]
    dt: Option<f64>,
    /// Stop after at most N steps.
    #[arg(long)]
    steps: Option<usize>,
    /// Output folder (default: `out/<scene name>`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress bar and no text summary.
    #[arg(long)]
    quiet: bool,
    /// Summary format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// `signorini validate` options.
#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// Scene file, or a built-in scene name.
    scene: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// `signorini report` options.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A run's output folder (from `signorini run --out DIR`).
    dir: PathBuf,
}

/// A scene file path, or a built-in scene by name.
pub(crate) fn resolve(scene: &str) -> Result<Scene, BadInput> {
    let path = Path::new(scene);
    if path.exists() {
        return Ok(load_scene(path)?);
    }
    match builtin::find(scene) {
        Some(b) => Ok(load_str(&b.path(), b.text)?),
        None => Err(anyhow!(
            "no scene file `{scene}` and no built-in scene of that name (see `signorini list`)"
        )
        .into()),
    }
}

/// `signorini run`.
pub fn run(a: RunArgs) -> Result<Outcome, BadInput> {
    let scene = resolve(&a.scene)?;
    let model = a
        .model
        .as_deref()
        .map(|m| {
            Model::parse(m).ok_or_else(|| {
                anyhow!(
                    "--model: unknown model `{m}` (peg, standard, corrective, cpf, dpf, dpf-ccd)"
                )
            })
        })
        .transpose()?;
    if let Some(dt) = a.dt
        && !(dt.is_finite() && dt > 0.0 && dt <= 1.0)
    {
        return Err(anyhow!("--dt: step size {dt} must be in (0, 1] s").into());
    }
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second Ctrl-C (or a handler that cannot be installed) falls back to the default.
        let _ = ctrlc::set_handler(move || {
            if stop.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    }
    let bar = ProgressBar::new(0);
    if a.quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps {elapsed_precise} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let progress_bar = bar.clone();
    let opts = RunOptions {
        model,
        h: a.dt,
        max_steps: a.steps,
        out: Some(out.clone()),
        stop: Some(stop.clone()),
        progress: Some(Box::new(move |done, total| {
            if done == 1 {
                progress_bar.set_length(total as u64);
            }
            progress_bar.set_position(done as u64);
        })),
        before_step: None,
    };
    let outcome = signorini_scene::run(&scene, opts)?;
    bar.finish_and_clear();
    let s = &outcome.summary;
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(s).expect("summary serialises")
        ),
        Format::Text if !a.quiet => print_summary(s, &out),
        Format::Text => {}
    }
    if s.interrupted {
        eprintln!(
            "interrupted after step {} of {}; outputs in {} are complete up to there",
            s.steps,
            s.steps_planned,
            out.display()
        );
    }
    Ok(if s.all_checks_pass {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

fn print_summary(s: &RunSummary, out: &Path) {
    println!(
        "{}: {} steps of h = {} s with {} ({} dynamic bodies), {} failed",
        s.scene, s.steps, s.h, s.model, s.dynamic_bodies, s.failed_steps
    );
    if s.kind == "deformables" {
        println!(
            "deepest edge-triangle crossing {:.3e} m; mean feature pairs/step {:.2}",
            s.max_penetration, s.mean_contacts
        );
    } else if s.kind == "meshes" {
        println!(
            "max penetration {:.3e} m; mean feature pairs/step {:.2}",
            s.max_penetration, s.mean_contacts
        );
    } else {
        let unit = if s.kind == "polyhedra" { "m³" } else { "m²" };
        println!(
            "overlap: max {:.3e} {unit}, median {:.3e} {unit}; mean contacts/step {:.2}; mean solver iterations {:.2}; max residual {:.2e}",
            s.max_overlap, s.median_overlap, s.mean_contacts, s.mean_iterations, s.max_residual
        );
    }
    println!(
        "energy {:.4} J -> {:.4} J; max contact force {:.3} N; {:.2} ms/step",
        s.energy_initial,
        s.energy_final,
        s.max_contact_force,
        if s.steps > 0 {
            1000.0 * s.wall_seconds / s.steps as f64
        } else {
            0.0
        }
    );
    for c in &s.checks {
        println!(
            "check {}: {} ({} <= {})",
            c.name,
            if c.pass { "PASS" } else { "FAIL" },
            c.value,
            c.limit
        );
    }
    println!(
        "outputs in {} (make the report: signorini report {})",
        out.display(),
        out.display()
    );
}

/// `signorini list`.
pub fn list() -> Result<Outcome, BadInput> {
    println!("built-in scenes (signorini run <name>, files in scenes/):");
    for b in builtin::SCENES {
        println!("  {:<16} {}", b.name, b.description());
    }
    println!("experiments (signorini experiment <name> --out DIR):");
    for (name, what) in builtin::EXPERIMENTS {
        println!("  {name:<16} {what}");
    }
    Ok(Outcome::Success)
}

/// `signorini validate`.
pub fn validate(a: ValidateArgs) -> Result<Outcome, BadInput> {
    let scene = resolve(&a.scene)?;
    let (bodies, dynamic) = scene.body_counts();
    let kind = match scene.kind {
        SceneKind::Planar => "2D polygons",
        SceneKind::Polyhedra => "3D polyhedra",
        SceneKind::Meshes => "3D meshes",
        SceneKind::Deformables => "3D deformables",
    };
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::json!({
                "valid": true,
                "scene": scene.name,
                "kind": kind,
                "bodies": bodies,
                "dynamic_bodies": dynamic,
                "model": scene.contact.model.name(),
                "h": scene.h,
            })
        ),
        Format::Text => println!(
            "{}: valid ({} bodies, {} dynamic, {kind}; model {}, h = {} s)",
            scene.file.display(),
            bodies,
            dynamic,
            scene.contact.model.name(),
            scene.h
        ),
    }
    Ok(Outcome::Success)
}

/// `signorini report`.
pub fn report(a: ReportArgs) -> Result<Outcome, BadInput> {
    let files = signorini_scene::report::write_report(&a.dir)?;
    println!("{}", files.html.display());
    for s in &files.svgs {
        println!("{}", s.display());
    }
    Ok(Outcome::Success)
}
