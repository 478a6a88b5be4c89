//! `signorini experiment cloth-tori | rings | chain | bucket`: the CPF paper's deformable
//! benchmarks (`signorini-experiments::{cloth_tori, rings, chain, bucket}`). Each writes CSV, SVG and `DIR/summary.json`
//! and prints the must-show figures. Exit code 2 on bad input.

use crate::exit::{BadInput, Outcome};
use anyhow::{anyhow, bail};
use clap::Args;
use signorini_experiments::deform_run::ForceModel;
use signorini_experiments::deform_run::{DeformSummary, Extra};
use signorini_experiments::{bucket, chain, cloth_tori, rings};
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
    #[arg(long)]
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
    /// The full-size variant (many more triangles; slow).
    #[arg(long)]
    full: bool,
    /// rings only: rigid rings (of the shells' mass) instead of stiff pressurised shells.
    #[arg(long)]
    rigid: bool,
    /// Run cpf, dpf and dpf-ccd (ignores --model) into `DIR/<model>/` and plot them together in
    /// DIR/force_compare.svg and DIR/crossings_compare.svg (rings: without the sweep).
    #[arg(long)]
    compare: bool,
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

/// Print a run's figures; false if it diverged (exit code 1).
fn print(name: &str, s: &DeformSummary, e: &Extra, out: &std::path::Path) -> bool {
    println!(
        "{name} ({}, Δt = {} s, {} steps, {} triangles):",
        s.model, s.dt, s.steps, s.triangles
    );
    println!(
        "  at the end: {} edge-triangle pairs crossing, max depth {:.3e} m",
        s.pairs_penetrating_at_end, s.max_depth
    );
    println!(
        "  over the run: peak {} pairs crossing, peak depth {:.3e} m, {} steps ending with crossings",
        e.peak_pairs, e.peak_depth, e.steps_with_crossings
    );
    println!(
        "  jitter (final half, mean |ΔF| / mean F) {:.4e}, final-half RMS vertex speed {:.3e} m/s",
        s.jitter, e.final_rms_speed
    );
    println!(
        "  {:.2} ms/step, {:.1} steps per wall-clock second",
        s.ms_per_step,
        1e3 / s.ms_per_step.max(1e-9)
    );
    println!("outputs in {}", out.display());
    if let Some(n) = e.diverged_at {
        println!(
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

/// Apply the command-line overrides to an experiment's `(dt, stiffness, duration,
/// vertex_stiffness_limit)`.
fn overrides(a: &DeformArgs, p: (&mut f64, &mut f64, &mut f64, &mut f64)) {
    *p.0 = a.dt.unwrap_or(*p.0);
    *p.1 = a.stiffness.unwrap_or(*p.1);
    *p.2 = a.duration.unwrap_or(*p.2);
    *p.3 = a.vertex_stiffness_limit.unwrap_or(*p.3);
}

/// Run `cloth-tori`.
pub fn cloth_tori(a: DeformArgs) -> Result<Outcome, BadInput> {
    let m = check(&a)?;
    if a.rigid {
        return Err(anyhow!("--rigid: only for rings").into());
    }
    let mut p = if a.full {
        cloth_tori::ClothToriParams::full(m)
    } else {
        cloth_tori::ClothToriParams::small(m)
    };
    overrides(
        &a,
        (
            &mut p.dt,
            &mut p.stiffness,
            &mut p.duration,
            &mut p.vertex_stiffness_limit,
        ),
    );
    if a.compare {
        let runs = cloth_tori::compare(&p, &ALL, &a.out).map_err(anyhow::Error::from)?;
        let ok = runs.iter().fold(true, |ok, (s, e)| {
            print("cloth-tori", s, e, &a.out.join(&s.model)) && ok
        });
        return Ok(outcome(ok));
    }
    let (s, e) = cloth_tori::run(&p, &a.out).map_err(anyhow::Error::from)?;
    Ok(outcome(print("cloth-tori", &s, &e, &a.out)))
}

/// Run `rings`.
pub fn rings(a: DeformArgs) -> Result<Outcome, BadInput> {
    let m = check(&a)?;
    let mut p = if a.full {
        rings::RingsParams::full(m)
    } else {
        rings::RingsParams::small(m)
    };
    overrides(
        &a,
        (
            &mut p.dt,
            &mut p.stiffness,
            &mut p.duration,
            &mut p.vertex_stiffness_limit,
        ),
    );
    p.rigid = a.rigid;
    if a.compare {
        let runs = rings::compare(&p, &ALL, &a.out).map_err(anyhow::Error::from)?;
        let ok = runs.iter().fold(true, |ok, (s, e)| {
            print("rings", s, e, &a.out.join(&s.model)) && ok
        });
        return Ok(outcome(ok));
    }
    let r = rings::run(&p, &a.out).map_err(anyhow::Error::from)?;
    let ok = print("rings", &r.summary, &r.extra, &a.out);
    println!("  sweep (contact-force plots force_stiffness.svg, force_dt.svg):");
    for row in &r.sweep {
        println!(
            "    k = {:>8.3} N/m, Δt = {:.5} s: jitter {:.4e}, {} pairs crossing at the end (peak {}, depth {:.3e} m)",
            row.stiffness,
            row.dt,
            row.summary.jitter,
            row.summary.pairs_penetrating_at_end,
            row.extra.peak_pairs,
            row.extra.peak_depth
        );
        if let Some(n) = row.extra.diverged_at {
            println!("      diverged in step {}", n + 1);
        }
    }
    Ok(outcome(ok))
}

/// Run `chain` (`--compare` is not supported: run it once per `--model`).
pub fn chain(a: DeformArgs) -> Result<Outcome, BadInput> {
    let m = check(&a)?;
    if a.rigid {
        return Err(anyhow!("--rigid: only for rings").into());
    }
    if a.compare {
        return Err(anyhow!("--compare: not available for chain; run once per --model").into());
    }
    let mut p = if a.full {
        chain::ChainParams::full(m)
    } else {
        chain::ChainParams::small(m)
    };
    overrides(
        &a,
        (
            &mut p.dt,
            &mut p.stiffness,
            &mut p.duration,
            &mut p.vertex_stiffness_limit,
        ),
    );
    let (s, e) = chain::run(&p, &a.out).map_err(anyhow::Error::from)?;
    Ok(outcome(print("chain", &s, &e, &a.out)))
}

/// Run `bucket`.
pub fn bucket(a: DeformArgs) -> Result<Outcome, BadInput> {
    let m = check(&a)?;
    if a.rigid {
        return Err(anyhow!("--rigid: only for rings").into());
    }
    let mut p = if a.full {
        bucket::BucketParams::full(m)
    } else {
        bucket::BucketParams::small(m)
    };
    overrides(
        &a,
        (
            &mut p.dt,
            &mut p.stiffness,
            &mut p.duration,
            &mut p.vertex_stiffness_limit,
        ),
    );
    if a.compare {
        let runs = bucket::compare(&p, &ALL, &a.out).map_err(anyhow::Error::from)?;
        let ok = runs.iter().fold(true, |ok, (s, e)| {
            print("bucket", s, e, &a.out.join(&s.model)) && ok
        });
        return Ok(outcome(ok));
    }
    let (s, e) = bucket::run(&p, &a.out).map_err(anyhow::Error::from)?;
    Ok(outcome(print("bucket", &s, &e, &a.out)))
}
