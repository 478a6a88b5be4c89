//! The pile experiment's results and outputs.
//!
//! Owns: [`PileRun`] (what one run measured), `summary.csv` ([`SUMMARY_HEADER`], one row per
//! (model, N)), `scaling.svg` (ms/step against N, log–log, least-squares slope per model in
//! the legend, [`loglog_slope`]), `overlap.svg` (max and median per-step overlap against N),
//! the report table with the verdict against PEG's targets ([`report`]) and the process's
//! peak memory ([`peak_mib`]: VmHWM, the peak of the whole process so far, not of one run).

use crate::ExperimentError;
use crate::checks::{fmt_fixed, fmt_sci};
use crate::pile_config::PileConfig;
use signorini_harness::pile::{Dim, Layout};
use signorini_harness::stats::summarize;
use signorini_harness::svg::{Plot, Series};
use signorini_harness::{Csv, write_atomic};
use signorini_world::{ContactModel, StepReport};
use std::fmt::Write;
use std::path::Path;

/// Largest per-step total overlap PEG may show (m³ in 3D, m² in 2D).
pub(crate) const MAX_OVERLAP: f64 = 1e-6;

/// What one (model, N) run measured.
#[derive(Debug, Clone)]
pub struct PileRun {
    /// Contact model.
    pub(crate) model: ContactModel,
    /// 2 or 3.
    pub(crate) dimension: usize,
    /// Shape name.
    pub(crate) shape: String,
    /// Bodies.
    pub n: usize,
    /// Step size (s).
    pub(crate) h: f64,
    /// Friction coefficient.
    pub(crate) mu: f64,
    /// Stage times summed over steps (s): broad phase, detection, formulation, solve, gap
    /// corrections, integration.
    pub(crate) stage_seconds: [f64; 6],
    /// Total overlap after each step.
    pub overlap: Vec<f64>,
    /// Largest number of unknowns of a step.
    pub max_unknowns: usize,
    /// Steps whose solves all failed.
    pub failed_steps: usize,
    /// Steps in which a solve spent its work budget.
    pub(crate) budget_steps: usize,
    /// Process peak resident memory after the run (MiB; NaN if unknown).
    pub(crate) peak_mib: f64,
    /// Pour layout: the step before which each body entered.
    pub drops: Vec<usize>,
    /// Pour layout: steps a drop waited because the spawn region was occupied.
    pub(crate) spawn_waits: usize,
    /// Pour layout: largest exact overlap of a body with the others where it entered.
    pub spawn_overlap: f64,
}

impl PileRun {
    /// An empty run of `n` bodies.
    pub fn new(model: ContactModel, cfg: &PileConfig, n: usize) -> PileRun {
        PileRun {
            model,
            dimension: cfg.dim.number(),
            shape: cfg.shape.name().into(),
            n,
            h: cfg.h,
            mu: cfg.mu,
            stage_seconds: [0.0; 6],
            overlap: Vec::new(),
            max_unknowns: 0,
            failed_steps: 0,
            budget_steps: 0,
            peak_mib: f64::NAN,
            drops: Vec::new(),
            spawn_waits: 0,
            spawn_overlap: 0.0,
        }
    }

    /// Account one step.
    pub fn add(&mut self, rep: &StepReport, overlap: f64) {
        let t = rep.times;
        let stages = [
            t.broad_phase,
            t.detection,
            t.formulation,
            t.solve,
            t.gap_corrections,
            t.integration,
        ];
        for (acc, x) in self.stage_seconds.iter_mut().zip(stages) {
            *acc += x;
        }
        self.overlap.push(overlap);
        self.max_unknowns = self.max_unknowns.max(rep.unknowns);
        self.failed_steps += rep.failed as usize;
        self.budget_steps += rep.budget_exhausted as usize;
    }

    /// Steps taken.
    pub fn steps(&self) -> usize {
        self.overlap.len()
    }

    /// Mean stepper time per step (ms).
    pub(crate) fn ms_per_step(&self) -> f64 {
        1e3 * self.stage_seconds.iter().sum::<f64>() / self.steps().max(1) as f64
    }

    /// Largest and median per-step overlap.
    pub(crate) fn overlap_max_median(&self) -> (f64, f64) {
        let s = summarize(&self.overlap);
        (s.max, s.median)
    }

    /// PEG's targets: no failed step, max overlap ≤ [`MAX_OVERLAP`].
    pub(crate) fn meets_targets(&self) -> bool {
        self.failed_steps == 0 && self.overlap_max_median().0 <= MAX_OVERLAP
    }
}

/// Header of `summary.csv`.
pub const SUMMARY_HEADER: &str = "model,dimension,shape,N,h,mu,steps,ms_per_step,broad_phase_ms,detection_ms,formulation_ms,solve_ms,gap_corrections_ms,integration_ms,max_overlap,median_overlap,max_unknowns,failed_steps,budget_steps,peak_mib";

/// Write `summary.csv`: one row per run.
pub(crate) fn write_summary(path: &Path, runs: &[PileRun]) -> Result<(), ExperimentError> {
    let mut f = Csv::create(path, SUMMARY_HEADER)?;
    for r in runs {
        let steps = r.steps().max(1) as f64;
        let stages: Vec<String> = r
            .stage_seconds
            .iter()
            .map(|s| format!("{:.6}", 1e3 * s / steps))
            .collect();
        let (max, median) = r.overlap_max_median();
        f.line(&format!(
            "{},{},{},{},{},{},{},{:.6},{},{max:e},{median:e},{},{},{},{:.1}",
            r.model.name(),
            r.dimension,
            r.shape,
            r.n,
            r.h,
            r.mu,
            r.steps(),
            r.ms_per_step(),
            stages.join(","),
            r.max_unknowns,
            r.failed_steps,
            r.budget_steps,
            r.peak_mib
        ))?;
    }
    f.finish()
}

/// Peak resident memory of this process so far (VmHWM in /proc/self/status, MiB).
pub(crate) fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Least-squares slope of log(y) against log(x) (NaN with fewer than two distinct x).
pub fn loglog_slope(points: &[(f64, f64)]) -> f64 {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if pts.len() < 2 || sxx <= 0.0 {
        f64::NAN
    } else {
        sxy / sxx
    }
}

fn models(runs: &[PileRun]) -> Vec<ContactModel> {
    let mut m: Vec<ContactModel> = Vec::new();
    for r in runs {
        if !m.contains(&r.model) {
            m.push(r.model);
        }
    }
    m
}

/// The slope of ms/step against N of one model's runs.
pub(crate) fn model_slope(runs: &[PileRun], model: ContactModel) -> f64 {
    let pts: Vec<(f64, f64)> = runs
        .iter()
        .filter(|r| r.model == model)
        .map(|r| (r.n as f64, r.ms_per_step()))
        .collect();
    loglog_slope(&pts)
}

fn color(model: ContactModel) -> &'static str {
    match model {
        ContactModel::Peg => "#1f77b4",
        ContactModel::Standard => "#d62728",
        _ => "#2ca02c",
    }
}

fn flat(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64, f64, f64)> {
    points.map(|(x, y)| (x, y, y, y)).collect()
}

/// Write `scaling.svg` and `overlap.svg`.
pub(crate) fn write_plots(out: &Path, runs: &[PileRun]) -> Result<(), ExperimentError> {
    let unit = match runs.first().map(|r| r.dimension) {
        Some(2) => "m²",
        _ => "m³",
    };
    let mut scaling = Plot::new("Time per step against N", "N", "ms per step", true).log_x();
    let mut overlap = Plot::new(
        "Per-step total overlap against N (max: solid, median: dashed)",
        "N",
        &format!("overlap ({unit})"),
        true,
    )
    .log_x();
    for m in models(runs) {
        let of = || runs.iter().filter(move |r| r.model == m);
        scaling.add(Series {
            name: format!("{} (slope {:.2})", m.name(), model_slope(runs, m)),
            color: color(m).into(),
            dashed: false,
            points: flat(of().map(|r| (r.n as f64, r.ms_per_step()))),
        });
        for (label, dashed, pick) in [("max", false, 0usize), ("median", true, 1usize)] {
            overlap.add(Series {
                name: format!("{} {label}", m.name()),
                color: color(m).into(),
                dashed,
                points: flat(of().map(|r| {
                    let (max, med) = r.overlap_max_median();
                    (r.n as f64, if pick == 0 { max } else { med })
                })),
            });
        }
    }
    write_atomic(&out.join("scaling.svg"), scaling.to_svg().as_bytes())?;
    write_atomic(&out.join("overlap.svg"), overlap.to_svg().as_bytes())
}

/// The table (one line per run) and the verdict against PEG's targets; true if every PEG run
/// met them (or there was none).
pub(crate) fn report(cfg: &PileConfig, runs: &[PileRun]) -> (String, bool) {
    let unit = if cfg.dim == Dim::Two { "m^2" } else { "m^3" };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "pile {}D, shape {}, layout {}, h = {}, mu = {}, duration {} s; overlap in {unit}",
        cfg.dim.number(),
        cfg.shape.name(),
        match cfg.layout {
            Layout::Lattice => "lattice",
            Layout::Pour => "pour",
        },
        cfg.h,
        cfg.mu,
        cfg.duration
    );
    let _ = writeln!(
        s,
        "{:<11} {:>6} {:>6} {:>10} {:>6} {:>11} {:>11} {:>6} {:>7} {:>8}",
        "model",
        "N",
        "steps",
        "ms/step",
        "slope",
        "max ovl",
        "median ovl",
        "failed",
        "max unk",
        "peak MiB"
    );
    for r in runs {
        let (max, med) = r.overlap_max_median();
        let _ = writeln!(
            s,
            "{:<11} {:>6} {:>6} {:>10} {:>6} {:>11} {:>11} {:>6} {:>7} {:>8}",
            r.model.name(),
            r.n,
            r.steps(),
            fmt_fixed(r.ms_per_step(), 3),
            fmt_fixed(model_slope(runs, r.model), 2),
            fmt_sci(Some(max)),
            fmt_sci(Some(med)),
            r.failed_steps,
            r.max_unknowns,
            fmt_fixed(r.peak_mib, 1)
        );
    }
    if cfg.layout == Layout::Pour {
        for r in runs {
            let _ = writeln!(
                s,
                "pour {} N = {}: {} bodies dropped, {} steps waited for a free spawn region, overlap at spawn {}",
                r.model.name(),
                r.n,
                r.drops.len(),
                r.spawn_waits,
                fmt_sci(Some(r.spawn_overlap))
            );
        }
    }
    let peg: Vec<&PileRun> = runs
        .iter()
        .filter(|r| r.model == ContactModel::Peg)
        .collect();
    let bad: Vec<String> = peg
        .iter()
        .filter(|r| !r.meets_targets())
        .map(|r| format!("N = {}", r.n))
        .collect();
    let verdict = if peg.is_empty() {
        "not checked (no PEG run)".to_string()
    } else if bad.is_empty() {
        "PASS".to_string()
    } else {
        format!("FAIL ({})", bad.join(", "))
    };
    let _ = writeln!(
        s,
        "PEG targets (no failed step, max overlap <= 1e-6 {unit}): {verdict}"
    );
    let _ = writeln!(
        s,
        "peak MiB: the process's peak resident memory so far (VmHWM) after each run; \
         — where a value is undefined (a slope needs two N, peak memory needs /proc)"
    );
    (s, bad.is_empty())
}
