//! `signorini experiment cloth-tori | rings | chain | bucket`: the CPF paper's deformable
//! benchmarks (`signorini-experiments::{cloth_tori, rings, chain, bucket}`). Each writes CSV, SVG and `DIR/summary.json`
//! and prints the must-show figures. Exit code 2 on bad input, including a world whose estimated
//! memory is above the limit (`--memory-limit`, `SIGNORINI_MEMORY_LIMIT`, else the machine's).

use crate::exit::{BadInput, Outcome};
use anyhow::{anyhow, bail};
use clap::Args;
use signorini_experiments::stiffness_sweep::{SweepPoint, factor_dir, stiffness_sweep};
use signorini_experiments::{ExperimentError, bucket, chain, cloth_tori, rings};
use signorini_harness::deform_build::WorldSpec;
use signorini_harness::deform_run::ForceModel;
use signorini_harness::deform_run::{DeformSummary, Extra};
use signorini_scene::memory;
use std::path::PathBuf;

/// Options of the deformable experiments.
#[derive(Args, Debug)]
pub struct DeformArgs {
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// Force model: cpf, dpf or dpf-ccd.
    #[arg(long, default_value = "cpf")]
    model: String,
    /// Step (s; default: the paper's).
    #[arg(long, allow_negative_numbers = true)]
    dt: Option<f64>,
    /// Penalty stiffness per pair (N/m; default: the paper's, see docs/deformable.md).
    #[arg(long)]
    stiffness: Option<f64>,
    /// Simulated time (s; default: the experiment's).
    #[arg(long)]
    duration: Option<f64>,
    /// Per-vertex contact-stiffness limit `k Δt² Σ cᵢ² / mᵢ` (default 1; 0 = off, the paper's
    /// plain accumulation of pair impulses; see docs/deformable.md).
    #[arg(long)]
    vertex_stiffness_limit: Option<f64>,
    /// Correct the pair impulses for the contact stiffness over the step, linearly implicitly
    /// (backward Euler on the contact springs; stable at any stiffness, the resting depth
    /// unchanged), instead of the per-vertex stiffness limit. A departure from the paper's
    /// explicit scheme, for cpf and dpf-ccd; dpf stays the paper's explicit baseline (see
    /// docs/deformable.md).
    #[arg(long)]
    implicit_contact: bool,
    /// The full-size variant (many more triangles; slow).
    #[arg(long)]
    full: bool,
    /// Refuse the experiment if its estimated memory is above SIZE (e.g. 16G, 500M, 2Gi;
    /// `none`: no check). Default: SIGNORINI_MEMORY_LIMIT, else the machine's total memory.
    #[arg(long, value_name = "SIZE")]
    memory_limit: Option<String>,
    /// rings only: rigid rings (of the shells' mass) instead of stiff pressurised shells.
    #[arg(long)]
    rigid: bool,
    /// Run cpf, dpf and dpf-ccd (ignores --model) into `DIR/<model>/` and plot them together in
    /// DIR/force_compare.svg and DIR/crossings_compare.svg (rings: without the sweep).
    #[arg(long)]
    compare: bool,
    /// With --compare: repeat the comparison at these multiples of the stiffness (for example
    /// `1,2,4,8,16`), each into `DIR/k_x<factor>/`, and plot the final-half jitter of every
    /// model against the stiffness in DIR/jitter_vs_stiffness.svg (table in
    /// DIR/stiffness_sweep.csv).
    #[arg(long, value_delimiter = ',', requires = "compare")]
    stiffness_factors: Vec<f64>,
}

const ALL: [ForceModel; 3] = [ForceModel::Cpf, ForceModel::Dpf, ForceModel::DpfCcd];

fn model(s: &str) -> anyhow::Result<ForceModel> {
    match s {
        "cpf" => Ok(ForceModel::Cpf),
        "dpf" => Ok(ForceModel::Dpf),
        "dpf-ccd" | "dpf_ccd" => Ok(ForceModel::DpfCcd),
        _ => bail!("--model: unknown model `{s}` (cpf, dpf, dpf-ccd)"),
    }
}

fn positive(name: &str, v: Option<f64>) -> anyhow::Result<()> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => {
            Err(anyhow!("--{name} must be finite and > 0, got {x}"))
        }
        _ => Ok(()),
    }
}

fn check(a: &DeformArgs) -> anyhow::Result<ForceModel> {
    positive("dt", a.dt)?;
    positive("stiffness", a.stiffness)?;
    positive("duration", a.duration)?;
    if let Some(x) = a.vertex_stiffness_limit
        && !(x.is_finite() && x >= 0.0)
    {
        bail!("--vertex-stiffness-limit must be finite and >= 0, got {x}");
    }
    model(&a.model)
}

/// Print the stiffness sweep's table: per factor, each model's jitter and crossings at the
/// end, and the jitter of every other model relative to the first (CPF).
fn print_sweep(points: &[SweepPoint], out: &std::path::Path) {
    outln!("stiffness sweep (jitter, crossings at the end; ratio = model's jitter / cpf's):");
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
        outln!(
            "  k ×{:<5} = {:>10.4} N/m: {}",
            pt.factor,
            pt.stiffness,
            cells.join("; ")
        );
    }
    outln!("plot in {}", out.join("jitter_vs_stiffness.svg").display());
}

/// Print every run of a comparison; false if one diverged.
fn print_runs(name: &str, runs: &[(DeformSummary, Extra)], out: &std::path::Path) -> bool {
    runs.iter().fold(true, |ok, (s, e)| {
        print(name, s, e, &out.join(&s.model)) && ok
    })
}

/// Print a run's figures; false if it diverged (exit code 1).
fn print(name: &str, s: &DeformSummary, e: &Extra, out: &std::path::Path) -> bool {
    outln!(
        "{name} ({}, Δt = {} s, {} steps, {} triangles):",
        s.model,
        s.dt,
        s.steps,
        s.triangles
    );
    outln!(
        "  at the end: {} edge-triangle pairs crossing, max depth {:.3e} m",
        s.pairs_penetrating_at_end,
        s.max_depth
    );
    outln!(
        "  over the run: peak {} pairs crossing, peak depth {:.3e} m, {} steps ending with crossings",
        e.peak_pairs,
        e.peak_depth,
        e.steps_with_crossings
    );
    outln!(
        "  jitter (final half, mean |ΔF| / mean F) {:.4e}, high-pass (residual from a 9-step mean) {:.4e}, final-half RMS vertex speed {:.3e} m/s",
        s.jitter,
        e.jitter_high_pass,
        e.final_rms_speed
    );
    outln!(
        "  {:.2} ms/step, {:.1} steps per wall-clock second",
        s.ms_per_step,
        1e3 / s.ms_per_step.max(1e-9)
    );
    outln!("outputs in {}", out.display());
    if let Some(n) = e.diverged_at {
        outln!(
            "  DIVERGED in step {}: the explicit integration blew up (a state not finite, or a \
             vertex about to move more than 1000 times the world's size in one step); the run \
             stopped there (reduce --dt or --stiffness)",
            n + 1
        );
    }
    e.diverged_at.is_none()
}

fn outcome(ok: bool) -> Outcome {
    if ok {
        Outcome::Success
    } else {
        Outcome::Failed
    }
}

/// The knobs every deformable experiment's parameters share, for the command-line overrides.
trait Knobs {
    /// `[dt, stiffness, duration, vertex_stiffness_limit]`.
    fn knobs(&mut self) -> [&mut f64; 4];
    /// The implicit contact correction switch.
    fn implicit(&mut self) -> &mut bool;
    /// The world these parameters build (for the memory estimate).
    fn world(&self) -> Result<WorldSpec, ExperimentError>;
    /// Steps of one run.
    fn steps(&self) -> u64;
}

macro_rules! knobs {
    ($($t:ty => $spec:path),*) => {$(
        impl Knobs for $t {
            fn knobs(&mut self) -> [&mut f64; 4] {
                [&mut self.dt, &mut self.stiffness, &mut self.duration, &mut self.vertex_stiffness_limit]
            }
            fn implicit(&mut self) -> &mut bool {
                &mut self.implicit_contact
            }
            fn world(&self) -> Result<WorldSpec, ExperimentError> {
                $spec(self)
            }
            fn steps(&self) -> u64 {
                (self.duration / self.dt).ceil().max(0.0) as u64
            }
        }
    )*};
}
knobs!(
    cloth_tori::ClothToriParams => cloth_tori::spec,
    rings::RingsParams => rings::spec,
    chain::ChainParams => chain::spec,
    bucket::BucketParams => bucket::spec
);

/// The parameters of `a` (small or `--full`, with the overrides applied).
fn params<P: Knobs>(
    a: &DeformArgs,
    small: fn(ForceModel) -> P,
    full: fn(ForceModel) -> P,
) -> anyhow::Result<P> {
    let m = check(a)?;
    let mut p = if a.full { full(m) } else { small(m) };
    let [dt, k, duration, limit] = p.knobs();
    for (v, o) in [
        (dt, a.dt),
        (k, a.stiffness),
        (duration, a.duration),
        (limit, a.vertex_stiffness_limit),
    ] {
        *v = o.unwrap_or(*v);
    }
    *p.implicit() |= a.implicit_contact;
    // The world must fit in memory (`--full` is the user's choice of size), as for `run`.
    if let Some(limit) =
        crate::cmd::scene::memory_limit(a.memory_limit.as_deref()).map_err(|e| e.0)?
    {
        let e = memory::deformable(&p.world()?, p.steps());
        if let Some(why) = memory::refusal(&e, limit) {
            let what = if a.full { "--full" } else { "the small world" };
            return Err(anyhow!("{what}: {why}"));
        }
    }
    Ok(p)
}

type Runs = Vec<(DeformSummary, Extra)>;
/// The small and the `--full` constructors of an experiment's parameters.
type Sizes<P> = (fn(ForceModel) -> P, fn(ForceModel) -> P);
type Compare<P> = fn(&P, &[ForceModel], &std::path::Path) -> Result<Runs, ExperimentError>;
type RunOne<P> = fn(&P, &std::path::Path) -> Result<(DeformSummary, Extra), ExperimentError>;

/// Run a deformable experiment without extra output (cloth-tori, chain, bucket): one model, or
/// all three with `--compare` where the experiment has a comparison.
fn drive<P: Knobs + Clone>(
    a: DeformArgs,
    name: &str,
    (small, full): Sizes<P>,
    compare: Option<Compare<P>>,
    run: RunOne<P>,
) -> Result<Outcome, BadInput> {
    if a.rigid {
        return Err(anyhow!("--rigid: only for rings").into());
    }
    let p = params(&a, small, full)?;
    if a.compare {
        let Some(compare) = compare else {
            return Err(
                anyhow!("--compare: not available for {name}; run once per --model").into(),
            );
        };
        return compare_all(&a, name, &p, compare);
    }
    let (s, e) = run(&p, &a.out).map_err(anyhow::Error::from)?;
    Ok(outcome(print(name, &s, &e, &a.out)))
}

/// `--compare`: all three models, once or (with `--stiffness-factors`) at each stiffness.
fn compare_all<P: Knobs + Clone>(
    a: &DeformArgs,
    name: &str,
    p: &P,
    compare: Compare<P>,
) -> Result<Outcome, BadInput> {
    if a.stiffness_factors.is_empty() {
        let runs = compare(p, &ALL, &a.out).map_err(anyhow::Error::from)?;
        return Ok(outcome(print_runs(name, &runs, &a.out)));
    }
    let points = stiffness_sweep(
        p,
        &a.stiffness_factors,
        name,
        &a.out,
        |q: &mut P| q.knobs()[1],
        |q, dir| compare(q, &ALL, dir),
    )
    .map_err(anyhow::Error::from)?;
    // Print every factor's runs, then decide (no short-circuit: every run is reported).
    let printed: Vec<bool> = points
        .iter()
        .map(|pt| print_runs(name, &pt.runs, &factor_dir(&a.out, pt.factor)))
        .collect();
    let ok = printed.iter().all(|&ok| ok);
    print_sweep(&points, &a.out);
    Ok(outcome(ok))
}

/// Run `cloth-tori`.
pub fn cloth_tori(a: DeformArgs) -> Result<Outcome, BadInput> {
    crate::signals::note_output(&a.out);
    use cloth_tori::ClothToriParams as P;
    drive(
        a,
        "cloth-tori",
        (P::small, P::full),
        Some(cloth_tori::compare),
        cloth_tori::run,
    )
}

/// Run `rings`.
pub fn rings(a: DeformArgs) -> Result<Outcome, BadInput> {
    crate::signals::note_output(&a.out);
    let mut p = params(&a, rings::RingsParams::small, rings::RingsParams::full)?;
    p.rigid = a.rigid;
    if a.compare {
        return compare_all(&a, "rings", &p, rings::compare);
    }
    let r = rings::run(&p, &a.out).map_err(anyhow::Error::from)?;
    let ok = print("rings", &r.summary, &r.extra, &a.out);
    outln!("  sweep (contact-force plots force_stiffness.svg, force_dt.svg):");
    for row in &r.sweep {
        outln!(
            "    k = {:>8.3} N/m, Δt = {:.5} s: jitter {:.4e}, {} pairs crossing at the end (peak {}, depth {:.3e} m)",
            row.stiffness,
            row.dt,
            row.summary.jitter,
            row.summary.pairs_penetrating_at_end,
            row.extra.peak_pairs,
            row.extra.peak_depth
        );
        if let Some(n) = row.extra.diverged_at {
            outln!("      diverged in step {}", n + 1);
        }
    }
    Ok(outcome(ok))
}

/// Run `chain` (`--compare` is not supported: run it once per `--model`).
pub fn chain(a: DeformArgs) -> Result<Outcome, BadInput> {
    crate::signals::note_output(&a.out);
    use chain::ChainParams as P;
    drive(a, "chain", (P::small, P::full), None, chain::run)
}

/// Run `bucket`.
pub fn bucket(a: DeformArgs) -> Result<Outcome, BadInput> {
    crate::signals::note_output(&a.out);
    use bucket::BucketParams as P;
    drive(
        a,
        "bucket",
        (P::small, P::full),
        Some(bucket::compare),
        bucket::run,
    )
}
