//! `signorini experiment pile` (time per step against the number of bodies, 2D or 3D) and
//! `signorini experiment tower` (eight stacked cubes must stay at rest).
//!
//! Parses and checks arguments (bad values exit 2 naming the option), resolves the data root
//! (the repository's `data/` unless `--data DIR`), runs the experiment in `signorini-experiments`
//! (`pile_run`, `tower`) and prints its table. Exit 1 if PEG missed its targets (pile) or a
//! tower moved. A run whose estimated memory (`signorini_scene::memory::rigid`) is above the
//! limit (`--memory-limit`, `SIGNORINI_MEMORY_LIMIT`, else the machine's memory) is refused
//! before anything runs, exit 2, as for `signorini run`.

use crate::cmd::scene::memory_limit;
use crate::exit::{BadInput, Outcome};
use anyhow::{anyhow, bail};
use clap::Args;
use signorini_experiments::pile_run::{PileConfig, Supply};
use signorini_experiments::tower::{CUBES, TowerConfig};
use signorini_harness::data;
use signorini_harness::pile::{Dim, Layout, Shape, pour_interval};
use signorini_harness::polyhedra::Bodies;
use signorini_harness::presets::step_count;
use signorini_scene::memory;
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
    /// Islands with more unknowns than this are solved by the sparse semismooth Newton method,
    /// smaller ones densely (Lemke first); default 4000 without friction
    /// (`signorini_world::DEFAULT_DENSE_LIMIT`), 1000 with
    /// (`signorini_world::DEFAULT_FRICTION_DENSE_LIMIT`). Sets both.
    #[arg(long, value_name = "UNKNOWNS")]
    dense_limit: Option<usize>,
    /// Dense-route islands with at least this many unknowns are solved first by the sparse
    /// Lemke (reduced LCP kept sparse, basis factored by a sparse LU); the dense chain only if
    /// it fails. Default: `signorini_world::DEFAULT_SPARSE_LEMKE_FROM`.
    #[arg(long, value_name = "UNKNOWNS")]
    sparse_lemke_from: Option<usize>,
    /// Smaller dense-route islands, from this many unknowns on, are solved first by the
    /// sparse Lemke when it can start from the last basis and no factored basis of the same
    /// unknowns is at hand. Default: `signorini_world::DEFAULT_SPARSE_WARM_FROM`; a value
    /// above every island turns it off.
    #[arg(long, value_name = "UNKNOWNS")]
    sparse_warm_from: Option<usize>,
    /// Refuse the experiment if a run's estimated memory is above SIZE (e.g. 16G, 500M, 2Gi;
    /// `none`: no check). Default: SIGNORINI_MEMORY_LIMIT, else the machine's total memory.
    #[arg(long, value_name = "SIZE")]
    memory_limit: Option<String>,
    /// Save the world's state after these steps (comma separated) to
    /// `OUT/states/<run>-step<k>.json`, to resume from or to replay a hard step.
    #[arg(long, value_delimiter = ',', value_name = "STEPS")]
    save_state: Vec<usize>,
    /// Start from a state that `--save-state` wrote, as written or gzip-compressed
    /// (`.json.gz`) (lattice layout, one --bodies value and one model; the state must be of
    /// the same run, friction and h).
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
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
    /// Refuse the experiment if its estimated memory is above SIZE (as for `pile`).
    #[arg(long, value_name = "SIZE")]
    memory_limit: Option<String>,
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
    if let Some(path) = &a.resume {
        if layout == Layout::Pour || a.bodies.len() != 1 || a.models.len() != 1 {
            bail!(
                "--resume: a saved state is of one run: give --layout lattice, one --bodies value and one --models value"
            );
        }
        if !path.is_file() {
            bail!("--resume: {} is not a file", path.display());
        }
    }
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
        dense_limit: a.dense_limit,
        sparse_lemke_from: a.sparse_lemke_from,
        sparse_warm_from: a.sparse_warm_from,
        save_states: a.save_state.clone(),
        resume: a.resume.clone(),
    })
}

/// Refuse a run whose estimate is above the limit: `--<what>: <the run's reason>`.
fn within(what: &str, e: &memory::MemoryEstimate, limit: Option<u64>) -> Result<(), BadInput> {
    match limit.and_then(|l| memory::refusal(e, l)) {
        Some(why) => Err(anyhow!("{what}: {why}").into()),
        None => Ok(()),
    }
}

/// The largest pile of `cfg` must fit in memory (sizes run one at a time): its bodies' vertex
/// count bounded by the largest body of the supply, its steps including the pour's extension.
fn pile_memory(cfg: &PileConfig, limit: Option<u64>) -> Result<(), BadInput> {
    let Some(n) = cfg.sizes.iter().copied().max() else {
        return Ok(());
    };
    if limit.is_none() {
        return Ok(());
    }
    let supply = Supply::load(cfg.dim, cfg.shape, &cfg.data).map_err(anyhow::Error::from)?;
    let per_body = match &supply {
        Supply::Three(Shape::Icosahedra, _) => 12,
        Supply::Three(Shape::Boxes, _) => 8,
        Supply::Three(_, Some(Bodies::Random { points, .. })) => {
            points.iter().map(Vec::len).max().unwrap_or(0)
        }
        Supply::Three(..) => 0,
        Supply::Two(bodies, _) => (bodies.iter())
            .map(|b| b.shape.vertices().len())
            .max()
            .unwrap_or(0),
    } as u64;
    let mut steps = step_count(cfg.duration, cfg.h);
    if cfg.layout == Layout::Pour {
        let interval = pour_interval(supply.spacing(), cfg.h);
        let one_second = (1.0 / cfg.h).round() as usize;
        steps = steps.max((n - 1).saturating_mul(interval).saturating_add(one_second));
    }
    let e = memory::rigid(
        cfg.dim.number() as u8,
        n as u64 + BOX_PARTS,
        (n as u64).saturating_mul(per_body),
        BOX_PARTS * 8,
        cfg.mu > 0.0,
        steps as u64,
    );
    within(&format!("--bodies {n}"), &e, limit)
}

/// Static parts of the pile's open box (floor and walls), at most.
const BOX_PARTS: u64 = 5;

/// Run `experiment pile`.
pub fn pile(a: PileArgs) -> Result<Outcome, BadInput> {
    let cfg = pile_config(&a)?;
    pile_memory(&cfg, memory_limit(a.memory_limit.as_deref())?)?;
    super::finish::finish(&cfg)
}

/// Run `experiment tower`.
pub fn tower(a: TowerArgs) -> Result<Outcome, BadInput> {
    check_common(a.friction, a.h, a.duration)?;
    // Eight cubes on a floor: only the run's length (--duration / --h) is the user's.
    let e = memory::rigid(
        3,
        CUBES as u64 + 1,
        CUBES as u64 * 8,
        8,
        a.friction > 0.0,
        step_count(a.duration, a.h) as u64,
    );
    within("--duration", &e, memory_limit(a.memory_limit.as_deref())?)?;
    let cfg = TowerConfig {
        models: parse_models(&a.models)?,
        mu: a.friction,
        h: a.h,
        duration: a.duration,
        out: a.out.clone(),
    };
    super::finish::finish(&cfg)
}
