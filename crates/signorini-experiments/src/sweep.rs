//! The parallel sweep machinery shared by the pouring experiments (2D `pour2d`, 3D `pour3d`).
//!
//! Owns: [`RunResult`] (what one run produced), [`run_parallel`] (rayon across runs with an
//! indicatif progress bar; a run that errors or panics is recorded and the sweep goes on),
//! `summary.csv` / `failures.csv` / `pooled.csv` writers, [`Pooled`] statistics per
//! (model, h) and [`SweepResult`], what either sweep returns. Does not own: scenes, runs, comparisons with the references.

use crate::ExperimentError;
use crate::reference::h_key;
use crate::timing::TimingSample;
use rayon::prelude::*;
use signorini_harness::stats::{Summary, summarize};
use signorini_harness::{Csv, h_tag};
use std::collections::BTreeMap;
use std::path::Path;

/// Result of a sweep.
#[derive(Debug, Clone)]
pub struct SweepResult {
    /// Every run, sorted by (model, scene, h).
    pub runs: Vec<RunResult>,
    /// Pooled per (model, h) over scenes (2D body sets, 3D configurations).
    pub pooled: Vec<Pooled>,
    /// Human-readable comparison with the authors' results (also in `report.txt`).
    pub report: String,
    /// True if every checked criterion held (see `report`).
    pub(crate) all_checks_pass: bool,
}

/// What a run produced.
#[derive(Debug, Clone, Default)]
pub struct RunResult {
    /// Model name.
    pub model: String,
    /// Scene label (2D: the body set; 3D: `<bodies>_c<k>`).
    pub set: String,
    /// Step size.
    pub h: f64,
    /// Steps taken.
    pub n_steps: usize,
    /// Total overlap (2D: area, m²; 3D: volume, m³) after each step.
    pub overlap: Vec<f64>,
    /// Sum over steps of I + X constraints (the authors' `Icount`, docs/formulation-notes.md §8).
    pub inter_total: usize,
    /// Steps with at least one I- or X-constraint: steps where PEG identified an SM trap (the
    /// paper's Fig. 22 claim; the authors' `fraction_of_steps_with_I`).
    pub trap_steps: usize,
    /// Sum over steps of U-constraints.
    pub unilateral_total: usize,
    /// Sum over steps of contacts.
    pub contacts_total: usize,
    /// Steps whose solves all failed.
    pub failed_steps: usize,
    /// Wall time inside `World::step` (s).
    pub step_seconds: f64,
    /// Wall time of the slowest step (s).
    pub slowest_step_seconds: f64,
    /// Largest number of complementarity unknowns of a step.
    pub max_unknowns: usize,
    /// Steps in which a solve stopped at its work budget (`WorldParams::solve_work_limit`).
    pub budget_steps: usize,
    /// Set if the run itself failed (setup, I/O, panic).
    pub error: Option<String>,
    /// Set if a signal stopped the run (`"SIGINT at step k"`) or kept it from starting
    /// (`"SIGINT before the run started"`; then `error` says the same). See [`signorini_harness::cancel`].
    pub interrupted: Option<String>,
    /// PEG vs standard-model step times on this run's states (if `RunSpec::timing`).
    pub timing: Vec<TimingSample>,
}

impl RunResult {
    /// File stem `<model>_set<t>_h<hhh>`.
    pub(crate) fn stem(&self) -> String {
        format!("{}_set{}_{}", self.model, self.set, h_tag(self.h))
    }
}

/// Pooled statistics of one (model, h) over sets.
#[derive(Debug, Clone)]
pub struct Pooled {
    /// Model name.
    pub(crate) model: String,
    /// Step size.
    pub(crate) h: f64,
    /// Runs pooled (successful).
    pub(crate) runs: usize,
    /// Runs that failed.
    pub(crate) failed_runs: usize,
    /// Runs with at least one failed step.
    pub(crate) runs_with_failed_steps: usize,
    /// Failed steps summed over the successful runs.
    pub(crate) failed_steps: usize,
    /// Statistics over all steps of all runs.
    pub(crate) overlap: Summary,
    /// Largest per-run maximum.
    pub(crate) max_run_max: f64,
    /// Mean I + X constraints per step.
    pub(crate) mean_inter: f64,
    /// Fraction of steps with at least one I- or X-constraint (an SM trap; paper Fig. 22).
    pub(crate) trap_fraction: f64,
    /// Mean stepper time per step (ms).
    pub(crate) ms_per_step: f64,
}

/// Run `run` on every spec in parallel (rayon) with a progress bar on stderr (hidden when
/// stderr is not a terminal). A run that returns an error or panics becomes `failed(spec,
/// why)`; the others go on. Results come back in spec order.
pub fn run_parallel<T: Sync>(
    specs: &[T],
    run: impl Fn(&T) -> Result<RunResult, ExperimentError> + Sync,
    failed: impl Fn(&T, String) -> RunResult + Sync,
) -> Vec<RunResult> {
    let bar = signorini_harness::progress::bar(specs.len(), "runs");
    let runs = specs
        .par_iter()
        .map(|spec| {
            // No new run once a signal asked to stop.
            if let Some(why) = signorini_harness::cancel::not_started() {
                bar.inc(1);
                let mut r = failed(spec, why.clone());
                r.interrupted = Some(why);
                return r;
            }
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(spec)));
            bar.inc(1);
            match out {
                Ok(Ok(r)) => r,
                Ok(Err(e)) => failed(spec, e.to_string()),
                Err(_) => failed(spec, "panic during the run".into()),
            }
        })
        .collect();
    bar.finish_and_clear();
    runs
}

/// Write `summary.csv` (one line per run: `model,<label columns>,h,n_steps,median,q1,q3,max,
/// mean,ms_per_step,failed_steps` of the per-step overlap) and `failures.csv` (runs that
/// failed as a whole, and runs a signal cut short: `interrupted: SIGINT at step k`; both files
/// then end with `# interrupted: SIGINT`). `label_header` names the label columns, `label`
/// writes them.
pub(crate) fn write_summary(
    out: &Path,
    runs: &[RunResult],
    label_header: &str,
    label: impl Fn(&RunResult) -> String,
) -> Result<(), ExperimentError> {
    let mut f = Csv::create(
        &out.join("summary.csv"),
        &format!("model,{label_header},h,n_steps,median,q1,q3,max,mean,ms_per_step,failed_steps"),
    )?;
    let mut failures = Vec::new();
    for r in runs {
        let s = summarize(&r.overlap);
        let ms = if r.n_steps > 0 {
            1000.0 * r.step_seconds / r.n_steps as f64
        } else {
            f64::NAN
        };
        f.line(&format!(
            "{},{},{},{},{:e},{:e},{:e},{:e},{:e},{:.4},{}",
            r.model,
            label(r),
            r.h,
            r.n_steps,
            s.median,
            s.q1,
            s.q3,
            s.max,
            s.mean,
            ms,
            r.failed_steps
        ))?;
        if let (None, Some(why)) = (&r.error, &r.interrupted) {
            failures.push(format!(
                "{},{},{},\"interrupted: {why}\"",
                r.model,
                label(r),
                r.h
            ));
        }
        if let Some(e) = &r.error {
            failures.push(format!(
                "{},{},{},\"{}\"",
                r.model,
                label(r),
                r.h,
                e.replace('"', "'")
            ));
        }
    }
    f.finish()?;
    let mut f = Csv::create(
        &out.join("failures.csv"),
        &format!("model,{label_header},h,error"),
    )?;
    for l in failures {
        f.line(&l)?;
    }
    f.finish()
}

/// Pool every (model, h) over its runs.
pub(crate) fn pool(runs: &[RunResult]) -> Vec<Pooled> {
    let mut groups: BTreeMap<(String, i64), Vec<&RunResult>> = BTreeMap::new();
    for r in runs {
        groups
            .entry((r.model.clone(), h_key(r.h)))
            .or_default()
            .push(r);
    }
    groups
        .into_iter()
        .map(|((model, _), rs)| {
            let ok: Vec<&&RunResult> = rs.iter().filter(|r| r.error.is_none()).collect();
            let all: Vec<f64> = ok.iter().flat_map(|r| r.overlap.iter().copied()).collect();
            let steps: usize = ok.iter().map(|r| r.n_steps).sum();
            let secs: f64 = ok.iter().map(|r| r.step_seconds).sum();
            let inter: usize = ok.iter().map(|r| r.inter_total).sum();
            let traps: usize = ok.iter().map(|r| r.trap_steps).sum();
            Pooled {
                model,
                h: rs[0].h,
                runs: ok.len(),
                failed_runs: rs.len() - ok.len(),
                runs_with_failed_steps: ok.iter().filter(|r| r.failed_steps > 0).count(),
                failed_steps: ok.iter().map(|r| r.failed_steps).sum(),
                overlap: summarize(&all),
                max_run_max: all.iter().copied().fold(0.0, f64::max),
                mean_inter: if steps > 0 {
                    inter as f64 / steps as f64
                } else {
                    f64::NAN
                },
                trap_fraction: if steps > 0 {
                    traps as f64 / steps as f64
                } else {
                    f64::NAN
                },
                ms_per_step: if steps > 0 {
                    1000.0 * secs / steps as f64
                } else {
                    f64::NAN
                },
            }
        })
        .collect()
}

/// Write `pooled.csv`.
pub(crate) fn write_pooled(out: &Path, pooled: &[Pooled]) -> Result<(), ExperimentError> {
    let mut f = Csv::create(
        &out.join("pooled.csv"),
        "model,h,runs,failed_runs,runs_with_failed_steps,steps,median,q1,q3,max,mean,mean_inter_per_step,ms_per_step,trap_step_fraction",
    )?;
    for p in pooled {
        let s = &p.overlap;
        f.line(&format!(
            "{},{},{},{},{},{},{:e},{:e},{:e},{:e},{:e},{:.3},{:.4},{:.4}",
            p.model,
            p.h,
            p.runs,
            p.failed_runs,
            p.runs_with_failed_steps,
            s.n,
            s.median,
            s.q1,
            s.q3,
            s.max,
            s.mean,
            p.mean_inter,
            p.ms_per_step,
            p.trap_fraction
        ))?;
    }
    f.finish()
}

/// Header of the model columns both pouring tables (`pour2d`, `pour3d`) end with.
pub(crate) fn model_columns_header() -> String {
    format!(
        "{:>11} {:>11} {:>11} {:>11} {:>9} {:>11} {:>9} {:>8} {:>9}",
        "PEG median",
        "authors med",
        "PEG max",
        "corr median",
        "corr/PEG",
        "std median",
        "std/PEG",
        "std f.st",
        "ms PEG/std"
    )
}

/// One row's model columns (see [`model_columns_header`]): PEG's pooled median, the authors'
/// median, PEG's largest run maximum, the corrective and standard medians with their ratios
/// to PEG's, the standard model's failed steps and the time ratio. Missing values print "—".
pub(crate) fn model_columns(
    peg: Option<&Pooled>,
    std: Option<&Pooled>,
    cor: Option<&Pooled>,
    authors_median: Option<f64>,
) -> String {
    use crate::checks::{fmt_ratio, fmt_ratio_fixed, fmt_sci};
    let med = |p: Option<&Pooled>| p.map(|p| p.overlap.median);
    let pm = med(peg);
    format!(
        "{:>11} {:>11} {:>11} {:>11} {:>9} {:>11} {:>9} {:>8} {:>9}",
        fmt_sci(pm),
        fmt_sci(authors_median),
        fmt_sci(peg.map(|p| p.max_run_max)),
        fmt_sci(med(cor)),
        fmt_ratio(med(cor), pm),
        fmt_sci(med(std)),
        fmt_ratio(med(std), pm),
        std.map(|q| q.failed_steps.to_string())
            .unwrap_or_else(|| "—".into()),
        fmt_ratio_fixed(peg.map(|p| p.ms_per_step), std.map(|q| q.ms_per_step)),
    )
}

/// The pouring tables' baseline check at step sizes h ≥ 5 ms: the corrective baseline's
/// pooled median is at least 100 × max(PEG's, 1e-15) ([`crate::checks::baseline_ratio_check`]);
/// unchecked without both runs.
pub(crate) fn check_corrective_ratio(
    checks: &mut crate::checks::Checks,
    h: f64,
    peg: Option<&Pooled>,
    cor: Option<&Pooled>,
) {
    if h < 0.005 - 1e-12 {
        return;
    }
    let c = peg
        .zip(cor)
        .map(|(p, q)| crate::checks::baseline_ratio_check(q.overlap.median, p.overlap.median));
    let name = match c {
        None => "corrective >= 100x max(PEG median, 1e-15) (no corrective or PEG run)".into(),
        Some(_) => format!("corrective >= 100x max(PEG median, 1e-15) (h = {h})"),
    };
    checks.check(&name, c);
}

/// What differs between the 2D and the 3D pouring sweep; [`run_pour_sweep`] is the rest. A
/// sweep runs every (model, scene, h) — a scene is a body set in 2D, a configuration in 3D.
pub(crate) trait PourSweep: Sync {
    /// One run's specification.
    type Spec: Sync;

    /// The output folder.
    fn out(&self) -> &Path;
    /// Check the inputs that are errors rather than failed runs.
    fn check_inputs(&self) -> Result<(), ExperimentError> {
        Ok(())
    }
    /// Every run, in (model, scene, h) order.
    fn specs(&self) -> Vec<Self::Spec>;
    /// A run's step size (runs with small h go first, for load balance).
    fn h(spec: &Self::Spec) -> f64;
    /// Run one simulation, writing its trajectory and step files under [`PourSweep::out`].
    fn run(&self, spec: &Self::Spec) -> Result<RunResult, ExperimentError>;
    /// The result of a run that errored with `why`.
    fn failed(&self, spec: &Self::Spec, why: String) -> RunResult;
    /// `summary.csv`'s scene columns, and their values for a run.
    fn scene_columns(&self) -> (&'static str, fn(&RunResult) -> String);
    /// The comparison with the authors' results: the report's text and whether every check
    /// passed.
    fn compare(
        &self,
        runs: &[RunResult],
        pooled: &[Pooled],
    ) -> Result<(String, bool), ExperimentError>;
    /// Whether PEG was timed against the standard model (`timing.csv`).
    fn timed(&self) -> bool;
    /// The timed steps in the order `timing.csv` lists them.
    fn timed_order<'a>(&self, timed: Vec<TimedRun<'a>>) -> Vec<TimedRun<'a>> {
        timed
    }
    /// Write the figures.
    fn plot(&self, pooled: &[Pooled]) -> Result<(), ExperimentError>;
}

/// The timed steps of one run: (h, scene, samples).
pub(crate) type TimedRun<'a> = (f64, &'a str, &'a [TimingSample]);

/// Run every (model, scene, h) of a pouring sweep in parallel, then write `summary.csv`,
/// `failures.csv`, `pooled.csv`, `timing.csv` (if timed), `report.txt` and the figures.
pub(crate) fn run_pour_sweep<P: PourSweep>(sweep: &P) -> Result<SweepResult, ExperimentError> {
    let out = sweep.out();
    std::fs::create_dir_all(out).map_err(|e| ExperimentError::io(out, e))?;
    sweep.check_inputs()?;
    let mut specs = sweep.specs();
    // Most expensive (small h) first for load balance; results are re-sorted afterwards.
    specs.sort_by(|a, b| P::h(a).total_cmp(&P::h(b)));
    let mut runs = run_parallel(&specs, |s| sweep.run(s), |s, e| sweep.failed(s, e));
    runs.sort_by(|a, b| {
        (a.model.as_str(), a.set.as_str(), h_key(a.h)).cmp(&(
            b.model.as_str(),
            b.set.as_str(),
            h_key(b.h),
        ))
    });
    let (columns, label) = sweep.scene_columns();
    write_summary(out, &runs, columns, label)?;
    let pooled = pool(&runs);
    write_pooled(out, &pooled)?;
    let (mut report, ok) = sweep.compare(&runs, &pooled)?;
    if sweep.timed() {
        let timed = runs
            .iter()
            .filter(|r| !r.timing.is_empty())
            .map(|r| (r.h, r.set.as_str(), r.timing.as_slice()))
            .collect();
        report += &timing_report(out, &sweep.timed_order(timed))?;
    }
    let report = signorini_harness::cancel::mark_report(report);
    signorini_harness::write_atomic(&out.join("report.txt"), report.as_bytes())?;
    sweep.plot(&pooled)?;
    Ok(SweepResult {
        runs,
        pooled,
        report,
        all_checks_pass: ok,
    })
}

/// Write `timing.csv` and summarise the median PEG / standard time ratio per h.
fn timing_report(out: &Path, timed: &[TimedRun<'_>]) -> Result<String, ExperimentError> {
    use std::fmt::Write;
    crate::timing::write_timing(&out.join("timing.csv"), timed)?;
    let mut s = String::from(
        "PEG / standard-model time per step on the same states (median over timed steps; timing.csv):\n",
    );
    for (h, n, m) in crate::timing::median_ratio_per_h(timed) {
        let _ = writeln!(
            s,
            "  h = {h}: {} ({n} steps)",
            crate::checks::fmt_fixed(m, 3)
        );
    }
    Ok(s)
}

/// The overlap figure of a pouring sweep (paper Figs. 21 and 24): our median and quartiles per
/// h and model, and the authors' stored PEG and corrective results (`refs(model)`), drawn
/// dashed and shifted by 0.25 ms so the bars do not hide each other.
pub(crate) fn overlap_figure(
    title: &str,
    ylabel: &str,
    pooled: &[Pooled],
    refs: impl Fn(&str) -> Vec<crate::reference::ReferenceOverlap>,
) -> signorini_harness::svg::Plot {
    use signorini_harness::svg::{Plot, Series};
    let mut fig = Plot::new(title, "h (ms)", ylabel, true);
    for (m, c) in [
        ("peg", "#1f77b4"),
        ("standard", "#d62728"),
        ("corrective", "#2ca02c"),
    ] {
        let pts: Vec<_> = pooled
            .iter()
            .filter(|p| p.model == m)
            .map(|p| (p.h * 1000.0, p.overlap.median, p.overlap.q1, p.overlap.q3))
            .collect();
        if !pts.is_empty() {
            fig.add(Series {
                name: format!("ours: {m}"),
                color: c.into(),
                dashed: false,
                points: pts,
            });
        }
    }
    for (m, label, c) in [
        ("peg", "authors: PEG", "#1f77b4"),
        ("corrective_standard", "authors: corrective", "#2ca02c"),
    ] {
        let pts: Vec<_> = refs(m)
            .iter()
            .map(|r| (r.h * 1000.0 + 0.25, r.median, r.q1, r.q3))
            .collect();
        if !pts.is_empty() {
            fig.add(Series {
                name: label.into(),
                color: c.into(),
                dashed: true,
                points: pts,
            });
        }
    }
    fig
}

/// The report line naming a non-default PEG form (`--peg-form`, `--x-impulse`), or None for
/// the defaults: pour2d's and pour3d's reports say which form produced their figures.
pub(crate) fn peg_form_line(
    form: signorini_world::PegForm,
    x: signorini_world::XImpulse,
) -> Option<String> {
    use signorini_world::{PegForm, XImpulse};
    ((form, x) != (PegForm::default(), XImpulse::default())).then(|| {
        format!(
            "PEG form: {}, X impulses: {} (--peg-form, --x-impulse; the defaults are {}, {})",
            form.name(),
            x.name(),
            PegForm::default().name(),
            XImpulse::default().name()
        )
    })
}
