//! `signorini experiment pile` (time per step against the number of bodies, 2D or 3D) and
//! `signorini experiment tower` (eight stacked cubes must stay at rest).
//!
//! Parses and checks arguments (bad values exit 2 naming the option), resolves the data root
//! (the repository's `data/` unless `--data DIR`), runs the experiment in `signorini-experiments`
//! (`pile_run`, `tower`) and prints its table. Exit 1 if PEG missed its targets (pile) or a
//! tower moved. Ctrl-C is not caught, as in the other experiments: the process stops, and
//! every file already written is complete (atomic writes; `summary.csv` is rewritten after
//! each run).

use crate::exit::{BadInput, Outcome};
use anyhow::{anyhow, bail};
use clap::Args;
use signorini_experiments::pile_run::{PileConfig, run_pile};
use signorini_experiments::tower::{TowerConfig, run_towers};
use signorini_harness::data;
use signorini_harness::pile::{Dim, Layout, Shape};
use signorini_world::ContactModel;
use std::path::PathBuf;

/// `pile` options.
#[derive(Args, Debug)]
pub struct PileArgs {
    /// 2 (polygons) or 3 (polyhedra).
    #[arg(long, default_value_t = 3)]
    dimension: u8,
    /// Numbers of bodies, comma separated (run one at a time, in increasing order).
    #[arg(long, value_delimiter = ',', default_value = "27")]
    bodies: Vec<usize>,
    /// Bodies: random (3D: random_polyhedra.json; 2D: the shared sets a…j), icosahedra or
    /// boxes (3D only).
    #[arg(long, default_value = "random")]
    shape: String,
    /// Coulomb friction coefficient.
    #[arg(long, default_value_t = 0.0)]
    friction: f64,
    /// Step size in seconds (default 0.01 in 3D, 0.005 in 2D).
    #[arg(long)]
    h: Option<f64>,
    /// Simulated time per run in seconds (the pour layout extends it until every body has
    /// been dropped, plus 1 s).
    #[arg(long, default_value_t = 2.0)]
    duration: f64,
    /// Contact models, comma separated: peg, standard, corrective.
    #[arg(long, value_delimiter = ',', default_value = "peg")]
    models: Vec<String>,
    /// lattice (all bodies at rest on a lattice) or pour (dropped one at a time).
    #[arg(long, default_value = "lattice")]
    layout: String,
    /// Data root holding peg2d/ and peg3d/ (default: the repository's data/).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Also write `trajectories/<run>.csv`.
    #[arg(long)]
    trajectories: bool,
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
}

/// `tower` options.
#[derive(Args, Debug)]
pub struct TowerArgs {
    /// Coulomb friction coefficient.
    #[arg(long, default_value_t = 0.5)]
    friction: f64,
    /// Step size in seconds.
    #[arg(long, default_value_t = 0.01)]
    h: f64,
    /// Simulated time in seconds.
    #[arg(long, default_value_t = 2.0)]
    duration: f64,
    /// Contact models, comma separated: peg, standard, corrective.
    #[arg(long, value_delimiter = ',', default_value = "peg")]
    models: Vec<String>,
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
}

fn parse_models(names: &[String]) -> anyhow::Result<Vec<ContactModel>> {
    let mut out = Vec::new();
    for m in names {
        let model = ContactModel::parse(m)
            .ok_or_else(|| anyhow!("--models: unknown model `{m}` (peg, standard, corrective)"))?;
        if !out.contains(&model) {
            out.push(model);
        }
    }
    if out.is_empty() {
        bail!("--models: give at least one model");
    }
    Ok(out)
}

fn check_common(friction: f64, h: f64, duration: f64) -> anyhow::Result<()> {
    if !(friction.is_finite() && friction >= 0.0) {
        bail!("--friction must be >= 0, got {friction}");
    }
    if !(h.is_finite() && h > 0.0 && h <= 1.0) {
        bail!("--h: step size {h} must be in (0, 1] s");
    }
    if !(duration.is_finite() && duration > 0.0) {
        bail!("--duration must be > 0, got {duration}");
    }
    Ok(())
}

fn pile_config(a: &PileArgs) -> anyhow::Result<PileConfig> {
    let dim = match a.dimension {
        2 => Dim::Two,
        3 => Dim::Three,
        d => bail!("--dimension must be 2 or 3, got {d}"),
    };
    if a.bodies.is_empty() || a.bodies.contains(&0) {
        bail!("--bodies: every N must be >= 1, got {:?}", a.bodies);
    }
    let shape = Shape::parse(&a.shape).ok_or_else(|| {
        anyhow!(
            "--shape: unknown shape `{}` (random, icosahedra, boxes)",
            a.shape
        )
    })?;
    if dim == Dim::Two && shape != Shape::Random {
        bail!(
            "--shape {}: 2D piles use the shared random polygons (--shape random)",
            a.shape
        );
    }
    let layout = Layout::parse(&a.layout)
        .ok_or_else(|| anyhow!("--layout: unknown layout `{}` (lattice, pour)", a.layout))?;
    let h = a.h.unwrap_or(match dim {
        Dim::Two => 0.005,
        Dim::Three => 0.01,
    });
    check_common(a.friction, h, a.duration)?;
    let data = data::resolve(a.data.as_deref(), "");
    let need = match (dim, shape) {
        (Dim::Two, _) => Some(data.join("peg2d/body_sets")),
        (Dim::Three, Shape::Random) => Some(data.join("peg3d/random_polyhedra.json")),
        _ => None,
    };
    if let Some(p) = need {
        data::require(&p).map_err(|e| anyhow!(e))?;
    }
    Ok(PileConfig {
        dim,
        sizes: a.bodies.clone(),
        shape,
        mu: a.friction,
        h,
        duration: a.duration,
        models: parse_models(&a.models)?,
        layout,
        out: a.out.clone(),
        data,
        trajectories: a.trajectories,
    })
}

/// Run `experiment pile`.
pub fn pile(a: PileArgs) -> Result<Outcome, BadInput> {
    crate::signals::note_output(&a.out);
    let cfg = pile_config(&a)?;
    let r = run_pile(&cfg).map_err(anyhow::Error::from)?;
    out!("{}", r.report);
    outln!("outputs in {}", cfg.out.display());
    Ok(if r.targets_met {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}

/// Run `experiment tower`.
pub fn tower(a: TowerArgs) -> Result<Outcome, BadInput> {
    crate::signals::note_output(&a.out);
    check_common(a.friction, a.h, a.duration)?;
    let cfg = TowerConfig {
        models: parse_models(&a.models)?,
        mu: a.friction,
        h: a.h,
        duration: a.duration,
        out: a.out.clone(),
    };
    let (report, at_rest) = run_towers(&cfg).map_err(anyhow::Error::from)?;
    out!("{report}");
    outln!("outputs in {}", cfg.out.display());
    Ok(if at_rest {
        Outcome::Success
    } else {
        Outcome::Failed
    })
}
