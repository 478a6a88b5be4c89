//! `signorini run | list | validate | report`: scene files (see `docs/guide.md`).
//!
//! `run` exits 1 when a `[checks]` entry of the scene failed, the state became non-finite or
//! the run was interrupted (SIGINT / SIGTERM: the loop stops after the current step, every
//! output file is completed and marked, and the process exits 130 / 143, see `signals.rs`), 2 on bad input (with file:line:column, field and reason), on a non-empty
//! output folder without `--force`, and on a run whose estimated memory is above the limit —
//! all checked before the output folder is touched.

use crate::exit::{BadInput, Outcome};
use anyhow::anyhow;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use signorini_scene::{
    Model, RunOptions, RunSummary, Scene, SceneKind, builtin, load_scene, load_str, memory, out_dir,
};
use signorini_world::{Gyroscopic, PegForm, XImpulse};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

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
    #[arg(long, allow_negative_numbers = true)]
    dt: Option<f64>,
    /// Stop after at most N steps (N >= 1).
    #[arg(long, value_parser = at_least_one, allow_negative_numbers = true)]
    steps: Option<usize>,
    /// Output folder (default: `out/<scene name>`). It must be empty or new, unless
    /// `--force` is given.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Use an output folder that is not empty: first remove the files a previous run or
    /// report wrote there (CSV, JSON, scene copy, report.html, *.svg, temporary files; any
    /// other file and every sub-folder is kept).
    #[arg(long)]
    force: bool,
    /// Refuse the run if its estimated memory is above SIZE (e.g. 16G, 500M, 2Gi; `none`:
    /// no check). Default: the SIGNORINI_MEMORY_LIMIT environment variable, else this
    /// machine's total memory (/proc/meminfo).
    #[arg(long, value_name = "SIZE")]
    memory_limit: Option<String>,
    /// The paper's stepper with every project addition off (polygon and polyhedron scenes;
    /// as `[contact] paper = true`; docs/guide.md, "The paper's stepper").
    #[arg(long)]
    paper: bool,
    /// 3D scenes: how the free-flight velocity carries the gyroscopic torque −ω × Jω:
    /// `midpoint` (the default: body-frame implicit midpoint rule, keeps a free body's |L| and
    /// energy), `implicit` (Catto's one-Newton-step implicit update) or `off` (no term, as
    /// before issue 22); as `[step] gyroscopic` (docs/scene-format.md).
    #[arg(long, value_parser = parse_gyroscopic, value_name = "UPDATE")]
    gyroscopic: Option<Gyroscopic>,
    /// PEG scenes: the I-constraint form, `single-primary` (default: paper Eq. 24) or
    /// `general` (|C_ι| > 1, paper Eqs. 20–23); as `[contact] peg_form` (docs/peg2d.md).
    #[arg(long, value_parser = parse_peg_form, value_name = "FORM")]
    peg_form: Option<PegForm>,
    /// PEG scenes: X-constraint impulses, `primary` (default: on the primary, as the authors'
    /// code) or `paper` (none, as the paper); as `[contact] x_impulse` (docs/peg2d.md).
    #[arg(long, value_parser = parse_x_impulse, value_name = "FORM")]
    x_impulse: Option<XImpulse>,
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
    /// Call the scene invalid if a run's estimated memory is above SIZE (as for `run`).
    #[arg(long, value_name = "SIZE")]
    memory_limit: Option<String>,
}

/// `--peg-form`: `single-primary` or `general`.
pub(crate) fn parse_peg_form(s: &str) -> Result<PegForm, String> {
    PegForm::parse(s).ok_or_else(|| format!("unknown PEG form `{s}` (single-primary, general)"))
}

/// `--x-impulse`: `primary` or `paper`.
pub(crate) fn parse_x_impulse(s: &str) -> Result<XImpulse, String> {
    XImpulse::parse(s).ok_or_else(|| format!("unknown X-constraint impulse `{s}` (primary, paper)"))
}

/// `--gyroscopic`: `midpoint`, `implicit` or `off`.
pub(crate) fn parse_gyroscopic(s: &str) -> Result<Gyroscopic, String> {
    Gyroscopic::parse(s)
        .ok_or_else(|| format!("unknown gyroscopic update `{s}` (midpoint, implicit, off)"))
}

/// `--steps`: a positive count.
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be >= 1 (a run takes at least one step)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("expected a whole number >= 1 ({e})")),
    }
}

/// The memory limit of a run: `--memory-limit`, else `SIGNORINI_MEMORY_LIMIT`, else the
/// machine's total memory; `none` (either way) for no check.
pub(crate) fn memory_limit(flag: Option<&str>) -> Result<Option<u64>, BadInput> {
    let (value, source) = match flag {
        Some(v) => (Some(v.to_string()), "--memory-limit"),
        None => (
            std::env::var("SIGNORINI_MEMORY_LIMIT").ok(),
            "SIGNORINI_MEMORY_LIMIT",
        ),
    };
    match value {
        Some(v) if v.trim().eq_ignore_ascii_case("none") => Ok(None),
        Some(v) => memory::parse_size(&v).map(Some).ok_or_else(|| {
            anyhow!("{source}: `{v}` is not a size (e.g. 16G, 500M, 2Gi, or none)").into()
        }),
        None => Ok(memory::machine_memory()),
    }
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
    let mut scene = resolve(&a.scene)?;
    if a.paper {
        scene.use_paper_stepper().map_err(|e| anyhow!(e))?;
    }
    if let Some(g) = a.gyroscopic {
        scene.set_gyroscopic(g).map_err(|e| anyhow!(e))?;
    }
    scene
        .set_peg_options(a.peg_form, a.x_impulse)
        .map_err(|e| anyhow!(e))?;
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
    // The scene name is a plain file name (checked by validation): the default folder is
    // always inside out/.
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&scene.name));
    let memory_limit = memory_limit(a.memory_limit.as_deref())?;
    // Everything that can refuse the run is checked before the folder is touched.
    signorini_scene::preflight(
        &scene,
        &RunOptions {
            model,
            h: a.dt,
            max_steps: a.steps,
            memory_limit,
            ..Default::default()
        },
    )?;
    let removed = out_dir::prepare(&out, a.force)?;
    if !removed.is_empty() && !a.quiet {
        eprintln!(
            "--force: removed {} file(s) of a previous run from {}",
            removed.len(),
            out.display()
        );
    }
    crate::signals::note_output(&out);
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
        // SIGINT / SIGTERM stop the run through `signorini_harness::cancel` (signals.rs).
        stop: None,
        progress: Some(Box::new(move |done, total| {
            if done == 1 {
                progress_bar.set_length(total as u64);
            }
            progress_bar.set_position(done as u64);
        })),
        before_step: None,
        memory_limit,
    };
    let outcome = signorini_scene::run(&scene, opts)?;
    bar.finish_and_clear();
    let s = &outcome.summary;
    match a.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(s)?),
        Format::Text if !a.quiet => print_summary(s, &out),
        Format::Text => {}
    }
    if let Some(why) = &s.failed {
        eprintln!(
            "run failed: {why}; outputs in {} are complete up to the step before",
            out.display()
        );
    }
    if let Some(why) = &s.interrupted {
        eprintln!(
            "run interrupted ({why}) after step {} of {}; outputs in {} are complete up to there",
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
    outln!(
        "{}: {} steps of h = {} s with {} ({} dynamic bodies), {} failed",
        s.scene,
        s.steps,
        s.h,
        s.model,
        s.dynamic_bodies,
        s.failed_steps
    );
    if s.kind == "deformables" {
        outln!(
            "deepest edge-triangle crossing {:.3e} m; mean feature pairs/step {:.2}",
            s.max_penetration,
            s.mean_contacts
        );
    } else if s.kind == "meshes" {
        outln!(
            "max penetration {:.3e} m; mean feature pairs/step {:.2}",
            s.max_penetration,
            s.mean_contacts
        );
    } else {
        let unit = if s.kind == "polyhedra" { "m³" } else { "m²" };
        outln!(
            "overlap: max {:.3e} {unit}, median {:.3e} {unit}; mean contacts/step {:.2}; mean solver iterations {:.2}; max residual {:.2e}",
            s.max_overlap,
            s.median_overlap,
            s.mean_contacts,
            s.mean_iterations,
            s.max_residual
        );
    }
    outln!(
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
        outln!(
            "check {}: {} ({} <= {})",
            c.name,
            if c.pass { "PASS" } else { "FAIL" },
            c.value,
            c.limit
        );
    }
    outln!(
        "outputs in {} (make the report: signorini report {})",
        out.display(),
        out.display()
    );
}

/// `signorini list`.
pub fn list() -> Result<Outcome, BadInput> {
    outln!("built-in scenes (signorini run <name>, files in scenes/):");
    for b in builtin::SCENES {
        outln!("  {:<16} {}", b.name, b.description());
    }
    outln!("experiments (signorini experiment <name> --out DIR):");
    for e in signorini_experiments::REGISTRY {
        outln!("  {:<16} {}", e.name, e.about);
    }
    Ok(Outcome::Success)
}

/// `signorini validate`.
pub fn validate(a: ValidateArgs) -> Result<Outcome, BadInput> {
    let scene = resolve(&a.scene)?;
    signorini_scene::preflight(
        &scene,
        &RunOptions {
            memory_limit: memory_limit(a.memory_limit.as_deref())?,
            ..Default::default()
        },
    )?;
    let estimate = memory::estimate(&scene, scene.h, None);
    let (bodies, dynamic) = scene.body_counts();
    let kind = match scene.kind() {
        SceneKind::Planar => "2D polygons",
        SceneKind::Polyhedra => "3D polyhedra",
        SceneKind::Meshes => "3D meshes",
        SceneKind::Deformables => "3D deformables",
    };
    match a.format {
        Format::Json => outln!(
            "{}",
            serde_json::json!({
                "valid": true,
                "scene": scene.name,
                "kind": kind,
                "bodies": bodies,
                "dynamic_bodies": dynamic,
                "model": scene.contact.model.name(),
                "h": scene.h,
                "memory_estimate_bytes": estimate.bytes,
            })
        ),
        Format::Text => outln!(
            "{}: valid ({} bodies, {} dynamic, {kind}; model {}, h = {} s; a run needs about {})",
            scene.file.display(),
            bodies,
            dynamic,
            scene.contact.model.name(),
            scene.h,
            memory::human_bytes(estimate.bytes)
        ),
    }
    Ok(Outcome::Success)
}

/// `signorini report`.
pub fn report(a: ReportArgs) -> Result<Outcome, BadInput> {
    let files = signorini_scene::report::write_report(&a.dir)?;
    outln!("{}", files.html.display());
    for s in &files.svgs {
        outln!("{}", s.display());
    }
    Ok(Outcome::Success)
}
