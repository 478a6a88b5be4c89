//! The five deformable experiments (cloth-tori, rings, chain, bucket, octopus) behind one
//! [`Experiment`]: [`DeformExperiment`] holds an experiment's parameters ([`DeformParams`]:
//! the knobs every one of them shares, its world, its single run and its comparison of the
//! three force models) and the mode (one model, `--compare`, or the comparison repeated over
//! stiffness factors), and writes the must-show figures as the report. A run that diverged
//! fails the experiment.

use crate::stiffness_sweep::{SweepPoint, factor_dir, stiffness_sweep};
use crate::{
    Experiment, ExperimentError, PenaltyKnobs, Report, bucket, chain, cloth_tori, octopus, rings,
};
use signorini_harness::deform_build::WorldSpec;
use signorini_harness::deform_run::{DeformSummary, Extra, ForceModel};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The three force models a comparison runs.
pub(crate) const ALL: [ForceModel; 3] = [ForceModel::Cpf, ForceModel::Dpf, ForceModel::DpfCcd];

/// The runs of a comparison: summary and extra figures per model.
pub(crate) type Runs = Vec<(DeformSummary, Extra)>;

/// What every deformable experiment's parameters share.
pub trait DeformParams: Clone {
    /// The experiment's name (`cloth-tori`, `rings`, `chain`, `bucket`, `octopus`).
    const NAME: &'static str;
    /// The penalty knobs (step, stiffness, the stiffness limit and the stepper's switches), for
    /// the command-line overrides.
    fn penalty(&mut self) -> &mut PenaltyKnobs;
    /// The simulated time (s), for the command-line override.
    fn duration(&mut self) -> &mut f64;
    /// The world these parameters build (for the memory estimate).
    fn world(&self) -> Result<WorldSpec, ExperimentError>;
    /// Steps of one run.
    fn steps(&self) -> u64;
    /// Run the three models into `out/<model>/`, if the experiment has a comparison.
    fn compare(&self, models: &[ForceModel], out: &Path) -> Option<Result<Runs, ExperimentError>>;
    /// Run one model; the report's text and whether it did not diverge.
    fn run_one(&self, out: &Path) -> Result<(String, bool), ExperimentError>;
}

/// How a deformable experiment runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// The parameters' model.
    One,
    /// The three force models (`--compare`).
    Compare,
    /// The comparison at these multiples of the stiffness (`--stiffness-factors`).
    Sweep(Vec<f64>),
}

/// A deformable experiment: parameters, mode, output folder.
#[derive(Debug, Clone)]
pub struct DeformExperiment<P> {
    /// The parameters (small or full variant, with overrides applied).
    pub params: P,
    /// One model, the comparison, or the comparison over stiffness.
    pub mode: Mode,
    /// Output folder.
    pub out: PathBuf,
}

impl<P: DeformParams> Experiment for DeformExperiment<P> {
    fn out(&self) -> &Path {
        &self.out
    }

    fn run(&self) -> Result<Report, ExperimentError> {
        let (name, out) = (P::NAME, &self.out);
        let mut t = String::new();
        let ok = match &self.mode {
            Mode::One => {
                let (text, ok) = self.params.run_one(out)?;
                t = text;
                ok
            }
            Mode::Compare => {
                let runs = self
                    .params
                    .compare(&ALL, out)
                    .ok_or_else(|| no_compare(name))??;
                runs_text(&mut t, name, &runs, out)
            }
            Mode::Sweep(factors) => {
                if self.params.compare(&[], out).is_none() {
                    return Err(no_compare(name));
                }
                let points = stiffness_sweep(
                    &self.params,
                    factors,
                    name,
                    out,
                    |q: &mut P| &mut q.penalty().stiffness,
                    |q, dir| {
                        q.compare(&ALL, dir)
                            .unwrap_or_else(|| Err(no_compare(name)))
                    },
                )?;
                // Every factor's runs, then the verdict (no short-circuit: every run is reported).
                let done: Vec<bool> = (points.iter())
                    .map(|pt| runs_text(&mut t, name, &pt.runs, &factor_dir(out, pt.factor)))
                    .collect();
                let ok = done.iter().all(|&ok| ok);
                sweep_text(&mut t, &points, out);
                ok
            }
        };
        Ok(Report {
            text: t,
            passed: Some(ok),
        })
    }
}

fn no_compare(name: &str) -> ExperimentError {
    ExperimentError::Argument(format!(
        "--compare: not available for {name}; run once per --model"
    ))
}

/// Every run of a comparison; false if one diverged.
fn runs_text(t: &mut String, name: &str, runs: &[(DeformSummary, Extra)], out: &Path) -> bool {
    runs.iter().fold(true, |ok, (s, e)| {
        run_text(t, name, s, e, Some(&out.join(&s.model))) && ok
    })
}

/// A run's figures (and its folder, for one run of a comparison); false if it diverged.
fn run_text(t: &mut String, name: &str, s: &DeformSummary, e: &Extra, out: Option<&Path>) -> bool {
    let _ = writeln!(
        t,
        "{name} ({}, Δt = {} s, {} steps, {} triangles):",
        s.model, s.dt, s.steps, s.triangles
    );
    let _ = writeln!(
        t,
        "  at the end: {} edge-triangle pairs crossing, max depth {:.3e} m",
        s.pairs_penetrating_at_end, s.max_depth
    );
    let _ = writeln!(
        t,
        "  over the run: peak {} pairs crossing, peak depth {:.3e} m, {} steps ending with crossings",
        e.peak_pairs, e.peak_depth, e.steps_with_crossings
    );
    let _ = writeln!(
        t,
        "  jitter (final half, mean |ΔF| / mean F) {:.4e}, high-pass (residual from a 9-step mean) {:.4e}, final-half RMS vertex speed {:.3e} m/s",
        s.jitter, e.jitter_high_pass, e.final_rms_speed
    );
    if e.steps_touching_obstacles > 0 {
        let _ = writeln!(
            t,
            "  force on the static obstacles: peak {:.4e} N, {} steps touching, final-half jitter {:.4e}, high-pass {:.4e}",
            e.peak_obstacle_force,
            e.steps_touching_obstacles,
            e.obstacle_jitter,
            e.obstacle_jitter_high_pass
        );
    }
    let _ = writeln!(
        t,
        "  {:.2} ms/step, {:.1} steps per wall-clock second",
        s.ms_per_step,
        1e3 / s.ms_per_step.max(1e-9)
    );
    if let Some(out) = out {
        let _ = writeln!(t, "outputs in {}", out.display());
    }
    if let Some(n) = e.diverged_at {
        let _ = writeln!(
            t,
            "  DIVERGED in step {}: the explicit integration blew up (a state not finite, or a \
             vertex about to move more than 1000 times the world's size in one step); the run \
             stopped there (reduce --dt or --stiffness)",
            n + 1
        );
    }
    e.diverged_at.is_none()
}

/// The stiffness sweep's table: per factor, each model's jitter and crossings at the
/// end, and the jitter of every other model relative to the first (CPF).
fn sweep_text(t: &mut String, points: &[SweepPoint], out: &Path) {
    let _ = writeln!(
        t,
        "stiffness sweep (jitter, crossings at the end; ratio = model's jitter / cpf's):"
    );
    for pt in points {
        let base = pt.runs.first().map(|(s, _)| s.jitter).unwrap_or(f64::NAN);
        let cells: Vec<String> = pt
            .runs
            .iter()
            .map(|(s, e)| {
                let ratio = if base > 0.0 {
                    format!("×{:.1}", s.jitter / base)
                } else {
                    "×–".into()
                };
                format!(
                    "{} {:.4} ({} crossings{}, {ratio})",
                    s.model,
                    s.jitter,
                    s.pairs_penetrating_at_end,
                    if e.diverged_at.is_some() {
                        ", DIVERGED"
                    } else {
                        ""
                    },
                )
            })
            .collect();
        let _ = writeln!(
            t,
            "  k ×{:<5} = {:>10.4} N/m: {}",
            pt.factor,
            pt.stiffness,
            cells.join("; ")
        );
    }
    let _ = writeln!(
        t,
        "plot in {}",
        out.join("jitter_vs_stiffness.svg").display()
    );
}

/// The chain's link distances and pin.
fn links_text(t: &mut String, f: &chain::ChainFigures) {
    let _ = writeln!(
        t,
        "  links: largest centre distance of neighbours {:.4} m over the run, {:.4} m at the end (taut {} m; {}, pulled through above {} m), pinned link moved {:.1e} m (links.csv)",
        f.peak_gap,
        f.end_gap,
        chain::TAUT,
        if f.linked() {
            "all interlocked"
        } else {
            "a link came apart"
        },
        chain::UNLINKED,
        f.pin_moved
    );
}

/// The rings run's step and stiffness sweep, one line per point.
fn rings_sweep_text(t: &mut String, r: &rings::RingsResult) {
    let _ = writeln!(
        t,
        "  sweep (contact-force plots force_stiffness.svg, force_dt.svg):"
    );
    for row in &r.sweep {
        let _ = writeln!(
            t,
            "    k = {:>8.3} N/m, Δt = {:.5} s: jitter {:.4e}, {} pairs crossing at the end (peak {}, depth {:.3e} m)",
            row.stiffness,
            row.dt,
            row.summary.jitter,
            row.summary.pairs_penetrating_at_end,
            row.extra.peak_pairs,
            row.extra.peak_depth
        );
        if let Some(n) = row.extra.diverged_at {
            let _ = writeln!(t, "      diverged in step {}", n + 1);
        }
    }
}

macro_rules! knobs {
    () => {
        fn penalty(&mut self) -> &mut PenaltyKnobs {
            &mut self.penalty
        }
        fn duration(&mut self) -> &mut f64 {
            &mut self.duration
        }
        fn steps(&self) -> u64 {
            (self.duration / self.penalty.dt).ceil().max(0.0) as u64
        }
    };
}

impl DeformParams for cloth_tori::ClothToriParams {
    const NAME: &'static str = "cloth-tori";
    knobs!();
    fn world(&self) -> Result<WorldSpec, ExperimentError> {
        cloth_tori::spec(self)
    }
    fn compare(&self, models: &[ForceModel], out: &Path) -> Option<Result<Runs, ExperimentError>> {
        Some(cloth_tori::compare(self, models, out))
    }
    fn run_one(&self, out: &Path) -> Result<(String, bool), ExperimentError> {
        let (s, e) = cloth_tori::run(self, out)?;
        let mut t = String::new();
        let ok = run_text(&mut t, Self::NAME, &s, &e, None);
        Ok((t, ok))
    }
}

impl DeformParams for rings::RingsParams {
    const NAME: &'static str = "rings";
    knobs!();
    fn world(&self) -> Result<WorldSpec, ExperimentError> {
        rings::spec(self)
    }
    fn compare(&self, models: &[ForceModel], out: &Path) -> Option<Result<Runs, ExperimentError>> {
        Some(rings::compare(self, models, out))
    }
    fn run_one(&self, out: &Path) -> Result<(String, bool), ExperimentError> {
        let r = rings::run(self, out)?;
        let mut t = String::new();
        let ok = run_text(&mut t, Self::NAME, &r.summary, &r.extra, None);
        rings_sweep_text(&mut t, &r);
        Ok((t, ok))
    }
}

impl DeformParams for chain::ChainParams {
    const NAME: &'static str = "chain";
    knobs!();
    fn world(&self) -> Result<WorldSpec, ExperimentError> {
        chain::spec(self)
    }
    fn compare(&self, models: &[ForceModel], out: &Path) -> Option<Result<Runs, ExperimentError>> {
        let runs = chain::compare(self, models, out);
        Some(runs.map(|r| r.into_iter().map(|(s, e, _)| (s, e)).collect()))
    }
    fn run_one(&self, out: &Path) -> Result<(String, bool), ExperimentError> {
        let (s, e, f) = chain::run(self, out)?;
        let mut t = String::new();
        let ok = run_text(&mut t, Self::NAME, &s, &e, None);
        links_text(&mut t, &f);
        Ok((t, ok))
    }
}

impl DeformParams for bucket::BucketParams {
    const NAME: &'static str = "bucket";
    knobs!();
    fn world(&self) -> Result<WorldSpec, ExperimentError> {
        bucket::spec(self)
    }
    fn compare(&self, models: &[ForceModel], out: &Path) -> Option<Result<Runs, ExperimentError>> {
        Some(bucket::compare(self, models, out))
    }
    fn run_one(&self, out: &Path) -> Result<(String, bool), ExperimentError> {
        let (s, e) = bucket::run(self, out)?;
        let mut t = String::new();
        let ok = run_text(&mut t, Self::NAME, &s, &e, None);
        Ok((t, ok))
    }
}

impl DeformParams for octopus::OctopusParams {
    const NAME: &'static str = "octopus";
    knobs!();
    fn world(&self) -> Result<WorldSpec, ExperimentError> {
        octopus::spec(self)
    }
    fn compare(&self, models: &[ForceModel], out: &Path) -> Option<Result<Runs, ExperimentError>> {
        let runs = octopus::compare(self, models, out);
        Some(runs.map(|r| r.into_iter().map(|(s, e, _)| (s, e)).collect()))
    }
    fn run_one(&self, out: &Path) -> Result<(String, bool), ExperimentError> {
        let (s, e, through) = octopus::run(self, out)?;
        let mut t = String::new();
        let ok = run_text(&mut t, Self::NAME, &s, &e, None);
        let _ = writeln!(
            t,
            "  octopus vertices through the bowl at the end: {through} (bowl.csv)"
        );
        Ok((t, ok))
    }
}
