//! `signorini experiment cloth-tori | rings | chain | bucket | octopus`: the CPF paper's
//! deformable benchmarks (`signorini-experiments::{cloth_tori, rings, chain, bucket, octopus}`). Each writes CSV, SVG and `DIR/summary.json`
//! and prints the must-show figures. Exit code 2 on bad input, including a world whose estimated
//! memory is above the limit (`--memory-limit`, `SIGNORINI_MEMORY_LIMIT`, else the machine's).

use crate::exit::{BadInput, Outcome};
use anyhow::{anyhow, bail};
use clap::Args;
use signorini_experiments::{DeformExperiment, DeformParams, Mode};
use signorini_experiments::{bucket, chain, cloth_tori, octopus, rings};
use signorini_harness::deform_run::ForceModel;
use signorini_scene::memory;
use std::path::PathBuf;

/// Options of the deformable experiments.
#[derive(Args, Debug)]
pub struct DeformArgs {
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// Force model: cpf, cpf-exact (the exact normal by quadrature instead of the closed
    /// form's `L_k`), dpf or dpf-ccd.
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
    /// Apply the per-vertex stiffness limit (--vertex-stiffness-limit, default 1) to the
    /// discrete model (dpf) too; off by default (the paper's baseline has no limit).
    #[arg(long)]
    dpf_vertex_stiffness_limit: bool,
    /// Pairs with the same collision points (a vertex–vertex or vertex–edge contact, which CCD
    /// and proximity find as many vertex–face and edge–edge pairs) share one contact's
    /// impulse instead of the paper's plain sum (see docs/deformable.md, "Why plain CPF
    /// diverged"). With --vertex-stiffness-limit 0: CPF without the limit.
    #[arg(long)]
    share_coincident_pairs: bool,
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

fn model(s: &str) -> anyhow::Result<ForceModel> {
    match s {
        "cpf" => Ok(ForceModel::Cpf),
        "cpf-exact" | "cpf_exact" => Ok(ForceModel::CpfExact),
        "dpf" => Ok(ForceModel::Dpf),
        "dpf-ccd" | "dpf_ccd" => Ok(ForceModel::DpfCcd),
        _ => bail!("--model: unknown model `{s}` (cpf, cpf-exact, dpf, dpf-ccd)"),
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

/// The parameters of `a` (small or `--full`, with the overrides applied).
fn params<P: DeformParams>(
    a: &DeformArgs,
    small: fn(ForceModel) -> P,
    full: fn(ForceModel) -> P,
) -> anyhow::Result<P> {
    let m = check(a)?;
    let mut p = if a.full { full(m) } else { small(m) };
    *p.duration() = a.duration.unwrap_or(*p.duration());
    let k = p.penalty();
    for (v, o) in [
        (&mut k.dt, a.dt),
        (&mut k.stiffness, a.stiffness),
        (&mut k.vertex_stiffness_limit, a.vertex_stiffness_limit),
    ] {
        *v = o.unwrap_or(*v);
    }
    k.implicit_contact |= a.implicit_contact;
    k.dpf_vertex_stiffness_limit |= a.dpf_vertex_stiffness_limit;
    k.share_coincident_pairs |= a.share_coincident_pairs;
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

/// The small and the `--full` constructors of an experiment's parameters.
type Sizes<P> = (fn(ForceModel) -> P, fn(ForceModel) -> P);

/// Run a deformable experiment with the parameters of `a`.
fn drive<P: DeformParams>(
    a: DeformArgs,
    (small, full): Sizes<P>,
    rigid: Option<fn(&mut P)>,
) -> Result<Outcome, BadInput> {
    let mut params = params(&a, small, full)?;
    match (a.rigid, rigid) {
        (true, Some(set)) => set(&mut params),
        (true, None) => return Err(anyhow!("--rigid: only for rings").into()),
        _ => {}
    }
    let mode = match (a.compare, a.stiffness_factors.is_empty()) {
        (false, _) => Mode::One,
        (true, true) => Mode::Compare,
        (true, false) => Mode::Sweep(a.stiffness_factors.clone()),
    };
    super::finish::finish(&DeformExperiment {
        params,
        mode,
        out: a.out,
    })
}

/// Run `cloth-tori`.
pub fn cloth_tori(a: DeformArgs) -> Result<Outcome, BadInput> {
    use cloth_tori::ClothToriParams as P;
    drive(a, (P::small, P::full), None)
}

/// Run `rings` (`--rigid`: rigid rings).
pub fn rings(a: DeformArgs) -> Result<Outcome, BadInput> {
    use rings::RingsParams as P;
    drive(a, (P::small, P::full), Some(|p: &mut P| p.rigid = true))
}

/// Run `chain`.
pub fn chain(a: DeformArgs) -> Result<Outcome, BadInput> {
    use chain::ChainParams as P;
    drive(a, (P::small, P::full), None)
}

/// Run `bucket`.
pub fn bucket(a: DeformArgs) -> Result<Outcome, BadInput> {
    use bucket::BucketParams as P;
    drive(a, (P::small, P::full), None)
}

/// Run `octopus`.
pub fn octopus(a: DeformArgs) -> Result<Outcome, BadInput> {
    use octopus::OctopusParams as P;
    drive(a, (P::small, P::full), None)
}
