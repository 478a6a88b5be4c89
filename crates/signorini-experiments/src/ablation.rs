//! The ablation (issue 22, item 5): which part of PEG's accuracy is PEG's and which is the
//! stepper's. Runs the pouring scenes of [`crate::pour2d`] and [`crate::pour3d`] with every
//! contact model (PEG, standard, corrective) under two steppers:
//!
//! - `paper`: the paper's stepper, every project addition off ([`Stepper::Paper`],
//!   `WorldParams::paper`), as `pour2d --paper`;
//! - `signorini`: the project's stepper with every addition applied to every model where it
//!   applies ([`Stepper::Uniform`], `WorldParams::signorini_uniform`): PEG's default settings
//!   for all three models (gap-correction re-solves, split impulse and position projection,
//!   solve budget, keep-best-on-failure, islands, basis reuse, detection additions). For PEG
//!   this is exactly the stepper `pour2d` and `pour3d` run by default; the baselines get the
//!   additions the default withholds from them.
//!
//! A run is the same run as the pouring experiment's (same scene, drop schedule, overlap
//! measure: [`run_pour`], [`run_pour3d`]), without trajectory files. A **cell** is
//! (scene, h, model, stepper), pooled over the scene's body sets (2D) or configurations (3D):
//! the median and the maximum of the per-step overlap over every step of every run, the failed
//! steps, and the mean stepper time per step.
//!
//! Outputs under `out`: `ablation.csv` (one line per cell), `runs.csv` (one line per run),
//! `ablation.md` (the cell table and PEG's gain under each stepper, as printed),
//! `ablation.svg` (grouped bars: median and maximum per cell, log axis). Timings appear only
//! in the `ms_per_step` columns; everything else is byte-identical across runs.
//!
//! Owns: the ablation's runs, cells, table and figure. Does not own: the scenes and runs
//! (`pour2d`, `pour3d`), the presets (`signorini-harness`, `signorini-world`).

use crate::ExperimentError;
use crate::checks::{fmt_fixed, fmt_ratio, fmt_sci};
use crate::pour2d::{RunSpec, run_pour};
use crate::pour3d::{RunSpec3, run_pour3d};
use crate::reference::h_key;
use crate::sweep::{RunResult, run_parallel};
use signorini_harness::Csv;
use signorini_harness::bodyset::BodySet;
use signorini_harness::polyhedra::Bodies;
use signorini_harness::presets::Stepper;
use signorini_harness::stats::summarize;
use signorini_harness::svg::{BarSeries, Bars};
use signorini_world::{ContactModel, Gyroscopic, VertexVertex};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The 3D bodies of one pour3d scene and the configurations to run.
#[derive(Debug, Clone)]
pub struct Scene3 {
    /// Bodies (`icosahedra`, `random`, or a file).
    pub bodies: Arc<Bodies>,
    /// Configurations.
    pub configs: Vec<usize>,
}

/// What the ablation runs.
#[derive(Debug, Clone)]
pub struct AblationConfig {
    /// pour2d body sets (none: no 2D cells).
    pub sets: Vec<Arc<BodySet>>,
    /// pour2d step sizes (s).
    pub hs2: Vec<f64>,
    /// pour3d scenes (none: no 3D cells).
    pub scenes3: Vec<Scene3>,
    /// pour3d step sizes (s).
    pub hs3: Vec<f64>,
    /// Contact models.
    pub models: Vec<ContactModel>,
    /// Simulated time per run (s); 5 in the paper.
    pub duration: f64,
    /// Gap-correction re-solves per step of the Signorini stepper (every model; 8 as the
    /// experiments' default).
    pub gap_corrections: usize,
    /// Output directory.
    pub out: PathBuf,
}

impl AblationConfig {
    /// The two steppers, in table order: the paper's, then the Signorini stepper.
    pub fn steppers(&self) -> [Stepper; 2] {
        [
            Stepper::Paper,
            Stepper::Uniform {
                gap_corrections: self.gap_corrections,
            },
        ]
    }
}

/// A stepper's label in the outputs: `paper` or `signorini`.
pub fn stepper_label(s: Stepper) -> &'static str {
    match s {
        Stepper::Paper => "paper",
        Stepper::Uniform { .. } => "signorini",
        Stepper::Project { .. } => "project",
    }
}

/// One run of the ablation.
#[derive(Debug, Clone)]
pub enum Job {
    /// A pour2d run.
    Two(RunSpec),
    /// A pour3d run.
    Three(RunSpec3),
}

impl Job {
    /// The cell's scene: `pour2d`, or `pour3d-<bodies>`.
    pub fn scene(&self) -> String {
        match self {
            Job::Two(_) => "pour2d".into(),
            Job::Three(s) => format!("pour3d-{}", s.bodies.label()),
        }
    }

    fn h(&self) -> f64 {
        match self {
            Job::Two(s) => s.h,
            Job::Three(s) => s.h,
        }
    }

    fn model(&self) -> ContactModel {
        match self {
            Job::Two(s) => s.model,
            Job::Three(s) => s.model,
        }
    }

    fn stepper(&self) -> Stepper {
        match self {
            Job::Two(s) => s.stepper,
            Job::Three(s) => s.stepper,
        }
    }

    /// Run it (no trajectory files).
    pub fn run(&self) -> Result<RunResult, ExperimentError> {
        match self {
            Job::Two(s) => run_pour(s, None),
            Job::Three(s) => run_pour3d(s, None),
        }
    }

    fn failed(&self, why: String) -> RunResult {
        let (set, model) = match self {
            Job::Two(s) => (s.set.label.clone(), s.model),
            Job::Three(s) => (s.scene(), s.model),
        };
        RunResult {
            model: model.name().into(),
            set,
            h: self.h(),
            error: Some(why),
            ..Default::default()
        }
    }
}

/// Every run, in (scene, h, model, stepper, body set or configuration) order.
pub fn jobs(cfg: &AblationConfig) -> Vec<Job> {
    let mut jobs = Vec::new();
    for &h in &cfg.hs2 {
        for &model in &cfg.models {
            for stepper in cfg.steppers() {
                for set in &cfg.sets {
                    jobs.push(Job::Two(RunSpec {
                        peg_form: Default::default(),
                        x_impulse: Default::default(),
                        model,
                        set: set.clone(),
                        h,
                        duration: cfg.duration,
                        stepper,
                        timing: None,
                    }));
                }
            }
        }
    }
    for scene in &cfg.scenes3 {
        for &h in &cfg.hs3 {
            for &model in &cfg.models {
                for stepper in cfg.steppers() {
                    for &config in &scene.configs {
                        jobs.push(Job::Three(RunSpec3 {
                            peg_form: Default::default(),
                            x_impulse: Default::default(),
                            model,
                            bodies: scene.bodies.clone(),
                            config,
                            h,
                            duration: cfg.duration,
                            stepper,
                            timing: None,
                            gyroscopic: Gyroscopic::default(),
                            vertex_vertex: VertexVertex::default(),
                        }));
                    }
                }
            }
        }
    }
    jobs
}

/// One cell: a (scene, h, model, stepper) pooled over its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// `pour2d` or `pour3d-<bodies>`.
    pub scene: String,
    /// Step size (s).
    pub h: f64,
    /// Contact model.
    pub model: ContactModel,
    /// `paper` or `signorini` ([`stepper_label`]).
    pub stepper: &'static str,
    /// Runs that completed.
    pub runs: usize,
    /// Runs that failed as a whole (setup, I/O, panic; `runs.csv` says why).
    pub failed_runs: usize,
    /// Steps over the completed runs.
    pub steps: usize,
    /// Median of the per-step overlap over every step of every run (m² in 2D, m³ in 3D).
    pub median: f64,
    /// Largest per-step overlap.
    pub max: f64,
    /// Steps whose solves all failed.
    pub failed_steps: usize,
    /// Mean stepper time per step (ms).
    pub ms_per_step: f64,
}

/// Pool the runs of every cell (`runs[k]` is the result of `jobs[k]`), in job order.
pub fn cells(jobs: &[Job], runs: &[RunResult]) -> Vec<Cell> {
    let mut out: Vec<(Cell, Vec<&RunResult>)> = Vec::new();
    for (job, run) in jobs.iter().zip(runs) {
        let (scene, h, model, stepper) = (
            job.scene(),
            job.h(),
            job.model(),
            stepper_label(job.stepper()),
        );
        let found = out.iter().position(|(c, _)| {
            c.scene == scene && h_key(c.h) == h_key(h) && c.model == model && c.stepper == stepper
        });
        let k = found.unwrap_or_else(|| {
            out.push((
                Cell {
                    scene,
                    h,
                    model,
                    stepper,
                    runs: 0,
                    failed_runs: 0,
                    steps: 0,
                    median: f64::NAN,
                    max: f64::NAN,
                    failed_steps: 0,
                    ms_per_step: f64::NAN,
                },
                Vec::new(),
            ));
            out.len() - 1
        });
        out[k].1.push(run);
    }
    out.into_iter()
        .map(|(mut c, rs)| {
            let ok: Vec<&RunResult> = rs.iter().copied().filter(|r| r.error.is_none()).collect();
            let all: Vec<f64> = ok.iter().flat_map(|r| r.overlap.iter().copied()).collect();
            let s = summarize(&all);
            let secs: f64 = ok.iter().map(|r| r.step_seconds).sum();
            c.runs = ok.len();
            c.failed_runs = rs.len() - ok.len();
            c.steps = ok.iter().map(|r| r.n_steps).sum();
            c.failed_steps = ok.iter().map(|r| r.failed_steps).sum();
            if s.n > 0 {
                (c.median, c.max) = (s.median, s.max);
            }
            if c.steps > 0 {
                c.ms_per_step = 1000.0 * secs / c.steps as f64;
            }
            c
        })
        .collect()
}

/// Result of the ablation.
#[derive(Debug, Clone)]
pub struct AblationResult {
    /// Every run, in job order.
    pub runs: Vec<RunResult>,
    /// Every cell, in job order.
    pub cells: Vec<Cell>,
    /// The printed report (`ablation.md`).
    pub report: String,
}

/// Run every job in parallel (progress bar on stderr) and write the outputs.
pub fn run_ablation(cfg: &AblationConfig) -> Result<AblationResult, ExperimentError> {
    let out = &cfg.out;
    std::fs::create_dir_all(out).map_err(|e| ExperimentError::io(out, e))?;
    for scene in &cfg.scenes3 {
        for &c in &scene.configs {
            scene.bodies.config(c)?; // bad configurations are input errors, not failed runs
        }
    }
    let jobs = jobs(cfg);
    // The expensive runs first (3D, then small h), for load balance; results come back in
    // job order.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |j: &Job| (matches!(j, Job::Two(_)), h_key(j.h()));
        key(&jobs[a]).cmp(&key(&jobs[b]))
    });
    let sorted: Vec<&Job> = order.iter().map(|&k| &jobs[k]).collect();
    let done = run_parallel(&sorted, |j| j.run(), |j, why| j.failed(why));
    let mut runs = vec![RunResult::default(); jobs.len()];
    for (k, r) in order.into_iter().zip(done) {
        runs[k] = r;
    }
    write_runs(out, &jobs, &runs)?;
    let cells = cells(&jobs, &runs);
    write_cells(out, &cells)?;
    let report = signorini_harness::cancel::mark_report(report(cfg, &cells));
    signorini_harness::write_atomic(&out.join("ablation.md"), report.as_bytes())?;
    signorini_harness::write_atomic(&out.join("ablation.svg"), figure(&cells).as_bytes())?;
    Ok(AblationResult {
        runs,
        cells,
        report,
    })
}

/// `runs.csv`: one line per run.
fn write_runs(out: &Path, jobs: &[Job], runs: &[RunResult]) -> Result<(), ExperimentError> {
    let mut f = Csv::create(
        &out.join("runs.csv"),
        "scene,run,h,model,stepper,n_steps,median,max,failed_steps,ms_per_step,error",
    )?;
    for (job, r) in jobs.iter().zip(runs) {
        let s = summarize(&r.overlap);
        let ms = if r.n_steps > 0 {
            1000.0 * r.step_seconds / r.n_steps as f64
        } else {
            f64::NAN
        };
        let why = match (&r.error, &r.interrupted) {
            (Some(e), _) => e.replace('"', "'"),
            (None, Some(i)) => format!("interrupted: {i}"),
            (None, None) => String::new(),
        };
        f.line(&format!(
            "{},{},{},{},{},{},{:e},{:e},{},{:.4},\"{why}\"",
            job.scene(),
            r.set,
            r.h,
            r.model,
            stepper_label(job.stepper()),
            r.n_steps,
            s.median,
            s.max,
            r.failed_steps,
            ms
        ))?;
    }
    f.finish()
}

/// `ablation.csv`: one line per cell.
fn write_cells(out: &Path, cells: &[Cell]) -> Result<(), ExperimentError> {
    let mut f = Csv::create(
        &out.join("ablation.csv"),
        "scene,h,model,stepper,runs,failed_runs,steps,median,max,failed_steps,ms_per_step",
    )?;
    for c in cells {
        f.line(&format!(
            "{},{},{},{},{},{},{},{:e},{:e},{},{:.4}",
            c.scene,
            c.h,
            c.model.name(),
            c.stepper,
            c.runs,
            c.failed_runs,
            c.steps,
            c.median,
            c.max,
            c.failed_steps,
            c.ms_per_step
        ))?;
    }
    f.finish()
}

fn find<'a>(
    cells: &'a [Cell],
    scene: &str,
    h: f64,
    model: ContactModel,
    st: &str,
) -> Option<&'a Cell> {
    cells
        .iter()
        .find(|c| c.scene == scene && h_key(c.h) == h_key(h) && c.model == model && c.stepper == st)
}

/// A step size in ms, rounded to the µs (`0.007` prints as `7`).
fn ms(h: f64) -> f64 {
    (h * 1e6).round() / 1000.0
}

/// The (scene, h) pairs of the cells, in order of appearance.
fn scene_hs(cells: &[Cell]) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = Vec::new();
    for c in cells {
        if !v
            .iter()
            .any(|(s, h)| *s == c.scene && h_key(*h) == h_key(c.h))
        {
            v.push((c.scene.clone(), c.h));
        }
    }
    v
}

/// The report: the cell table (one row per scene, h and model; the two steppers side by
/// side) and PEG's gain over each baseline under the same stepper (baseline median and
/// maximum over PEG's), as Markdown.
fn report(cfg: &AblationConfig, cells: &[Cell]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Ablation: {} pour2d body sets, {} pour3d scenes; {} s per run; overlap per step \
         (m^2 in 2D, m^3 in 3D), pooled over every step of every run of a cell.",
        cfg.sets.len(),
        cfg.scenes3.len(),
        cfg.duration
    );
    let _ = writeln!(
        s,
        "paper: the paper's stepper (WorldParams::paper); signorini: every addition for every model \
         (WorldParams::signorini_uniform, {} gap corrections).\n",
        cfg.gap_corrections
    );
    let _ = writeln!(
        s,
        "| scene | h (ms) | model | runs | paper median | paper max | paper failed | paper ms/step | signorini median | signorini max | signorini failed | signorini ms/step |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    let sh = scene_hs(cells);
    for (scene, h) in &sh {
        for &m in &cfg.models {
            let (p, g) = (
                find(cells, scene, *h, m, "paper"),
                find(cells, scene, *h, m, "signorini"),
            );
            let cols = |c: Option<&Cell>| match c {
                None => "— | — | — | —".to_string(),
                Some(c) => format!(
                    "{} | {} | {}{} | {}",
                    fmt_sci(Some(c.median)),
                    fmt_sci(Some(c.max)),
                    c.failed_steps,
                    if c.failed_runs > 0 {
                        format!(" (+{} runs)", c.failed_runs)
                    } else {
                        String::new()
                    },
                    fmt_fixed(c.ms_per_step, 3)
                ),
            };
            let runs = p.or(g).map(|c| c.runs + c.failed_runs).unwrap_or(0);
            let _ = writeln!(
                s,
                "| {scene} | {} | {} | {runs} | {} | {} |",
                ms(*h),
                m.name(),
                cols(p),
                cols(g)
            );
        }
    }
    let _ = writeln!(
        s,
        "\nPEG's gain over the baselines under the same stepper (baseline / PEG; — where PEG's value is 0 or a cell is missing):\n"
    );
    let _ = writeln!(
        s,
        "| scene | h (ms) | stepper | standard/PEG median | corrective/PEG median | standard/PEG max | corrective/PEG max |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for (scene, h) in &sh {
        for st in ["paper", "signorini"] {
            let peg = find(cells, scene, *h, ContactModel::Peg, st);
            let base = |m| find(cells, scene, *h, m, st);
            let ratio = |m, max: bool| {
                let v = |c: &Cell| if max { c.max } else { c.median };
                fmt_ratio(base(m).map(v), peg.map(v))
            };
            let _ = writeln!(
                s,
                "| {scene} | {} | {st} | {} | {} | {} | {} |",
                ms(*h),
                ratio(ContactModel::Standard, false),
                ratio(ContactModel::Corrective, false),
                ratio(ContactModel::Standard, true),
                ratio(ContactModel::Corrective, true),
            );
        }
    }
    s
}

/// Colour of a cell's bar: the model's colour of the pouring figures, light for the paper's
/// stepper, dark for the Signorini stepper.
fn colour(model: ContactModel, stepper: &str) -> &'static str {
    match (model, stepper == "paper") {
        (ContactModel::Peg, true) => "#9ecae1",
        (ContactModel::Peg, false) => "#1f77b4",
        (ContactModel::Standard, true) => "#f4a6a6",
        (ContactModel::Standard, false) => "#d62728",
        (ContactModel::Corrective, true) => "#a1d99b",
        (ContactModel::Corrective, false) => "#2ca02c",
    }
}

/// `ablation.svg`: one group per (scene, h), one bar per (model, stepper): the median, with a
/// marker at the maximum.
fn figure(cells: &[Cell]) -> String {
    let sh = scene_hs(cells);
    let mut series: Vec<BarSeries> = Vec::new();
    let mut keys: Vec<(ContactModel, &'static str)> = Vec::new();
    for c in cells {
        if !keys.contains(&(c.model, c.stepper)) {
            keys.push((c.model, c.stepper));
        }
    }
    keys.sort_by_key(|&(m, st)| (m, st != "paper"));
    for (m, st) in keys {
        series.push(BarSeries {
            name: format!("{} / {st}", m.name()),
            color: colour(m, st).into(),
            values: sh
                .iter()
                .map(|(scene, h)| {
                    find(cells, scene, *h, m, st)
                        .map(|c| (c.median, c.max))
                        .unwrap_or((f64::NAN, f64::NAN))
                })
                .collect(),
        });
    }
    Bars {
        title: "Ablation: overlap per step, model x stepper (bar: median, o: max)".into(),
        xlabel: "scene, step size h".into(),
        ylabel: "overlap (m² in 2D, m³ in 3D)".into(),
        key: "bar: median; o: max; light: paper".into(),
        categories: sh
            .iter()
            .map(|(scene, h)| format!("{scene} {} ms", ms(*h)))
            .collect(),
        series,
    }
    .to_svg()
}

/// `signorini experiment ablation`.
impl crate::Experiment for AblationConfig {
    fn out(&self) -> &Path {
        &self.out
    }

    fn run(&self) -> Result<crate::Report, ExperimentError> {
        let r = run_ablation(self)?;
        Ok(crate::Report {
            text: r.report,
            passed: None,
        })
    }
}
