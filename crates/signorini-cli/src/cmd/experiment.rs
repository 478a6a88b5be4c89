//! `signorini experiment …`: the papers' experiments (PEG pouring in 2D and 3D, triangle drop;
//! the CPF paper's rigid, penalty and deformable experiments in `penalty_exp` / `deform_exp`;
//! the pile scaling experiment and the cube tower in `pile_exp`).
//!
//! Parses arguments, resolves the data directory (the repository's `data/peg2d`, pour3d
//! `data/peg3d`, found from any working directory; `--data DIR` overrides it; see
//! `signorini_harness::data`), runs the experiment in `signorini-experiments`, prints its
//! comparison report to stdout. Exit code 1 if a check of the report failed, 2 on bad input.

use super::finish::finish;
use crate::exit::{BadInput, Outcome};
use anyhow::{Context, anyhow, bail};
use clap::{Args, Subcommand};
use signorini_experiments::TimingSpec;
use signorini_experiments::{ablation, pour2d, pour3d, triangle_drop};
use signorini_harness::{bodyset, data};
use signorini_world::ContactModel;
use std::path::PathBuf;
use std::sync::Arc;

/// `signorini experiment [--quiet] <name> …`.
#[derive(Args, Debug)]
pub struct ExperimentArgs {
    /// No progress bars (they are also hidden when stderr is not a terminal).
    #[arg(long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: ExperimentCommand,
}

/// `signorini experiment` subcommands.
#[derive(Subcommand, Debug)]
pub enum ExperimentCommand {
    /// Pour random polygons into a box (paper Figs. 20–22).
    Pour2d(PourArgs),
    /// Drop a triangle onto a triangle: the standard-model trap test.
    TriangleDrop(TriangleArgs),
    /// CPF supplementary §C: 1D particle stability limits and stiffness perturbations.
    Particle1d(super::penalty_exp::Particle1dArgs),
    /// A rigid box dropped on a plane: CPF rests, discrete penalty forces jitter.
    BoxOnPlane(super::penalty_exp::BoxArgs),
    /// CPF Fig. 9: a ball hits a tilted thin stick; rebound direction per force model.
    Stick(super::penalty_exp::StickArgs),
    /// Pour convex polyhedra into a box (paper Figs. 23–24; data: the repository's data/peg3d).
    #[command(mut_arg("data", |a| a.help("Data directory (default: the repository's data/peg3d)")))]
    Pour3d(Pour3Args),
    /// CPF Figs. 12–13: soft tori fall on a cloth pinned at its corners.
    ClothTori(super::deform_exp::DeformArgs),
    /// CPF Figs. 15–16: stiff rings fall on a base with thin pins; stiffness and step sweep.
    Rings(super::deform_exp::DeformArgs),
    /// CPF Figs. 1a, 8: a chain hangs from a pinned link and swings against a static box.
    Chain(super::deform_exp::DeformArgs),
    /// CPF Fig. 14: soft bodies poured in batches into a rigid open bucket.
    Bucket(super::deform_exp::DeformArgs),
    /// CPF Figs. 10–11: a soft octopus (mantle and eight arms) falls into a rigid bowl.
    Octopus(super::deform_exp::DeformArgs),
    /// Time per step against the number of bodies: N bodies on a lattice (or poured) in a box,
    /// 2D or 3D (data: the repository's data/).
    Pile(super::pile_exp::PileArgs),
    /// Eight unit cubes stacked on a floor must stay at rest (drift and final speeds).
    Tower(super::pile_exp::TowerArgs),
    /// PEG, standard and corrective under the paper's stepper and under the Signorini stepper
    /// (every addition, every model) on pour2d and pour3d: one table, one plot.
    Ablation(AblationArgs),
}

/// `ablation` options. The default run (the one in docs/peg2d.md): pour2d body sets a…e and
/// pour3d icosahedra (configuration 0) and random polyhedra (configurations 0, 1, 2), all at
/// h = 0.005 and 0.010 s, 5 s each, every model under both steppers; `--quick`: pour2d sets
/// a, b at h = 0.005, 0.010 s and pour3d icosahedra at h = 0.010 s, 2 s each.
#[derive(Args, Debug)]
pub struct AblationArgs {
    /// A small run (a minute or two): pour2d sets a, b at h = 0.005, 0.010 s, pour3d
    /// icosahedra at h = 0.010 s, 2 s each (the options below override it).
    #[arg(long)]
    quick: bool,
    /// pour2d body sets: letters a…j or JSON files (default a…e; `--quick` a, b; an empty
    /// list `--sets ''`: no 2D runs).
    #[arg(long, value_delimiter = ',')]
    sets: Option<Vec<String>>,
    /// pour2d step sizes in seconds, comma separated (default 0.005,0.01).
    #[arg(long, value_delimiter = ',')]
    h: Vec<f64>,
    /// pour3d step sizes in seconds, comma separated (default 0.005,0.01; `--quick` 0.01).
    #[arg(long, value_delimiter = ',')]
    h3: Vec<f64>,
    /// pour3d random-polyhedra configurations (data/peg3d/random_polyhedra.json; default
    /// 0,1,2; `--quick` none; an empty list `--random-configs ''`: none).
    #[arg(long, value_delimiter = ',')]
    random_configs: Option<Vec<String>>,
    /// Leave out the pour3d icosahedra.
    #[arg(long)]
    no_icosahedra: bool,
    /// Contact models, comma separated: peg, standard, corrective (default: all three).
    #[arg(long, value_delimiter = ',')]
    models: Vec<String>,
    /// Simulated time per run in seconds (default 5 as the paper; `--quick` 2).
    #[arg(long)]
    duration: Option<f64>,
    /// Gap-correction re-solves per step of the Signorini stepper, every model.
    #[arg(long, default_value_t = 8)]
    gap_corrections: usize,
    /// Data directory holding peg2d/ and peg3d/ (default: the repository's data/).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
}

/// Options shared by the experiments.
#[derive(Args, Debug)]
pub struct Common {
    /// Step sizes in seconds, comma separated (default: 0.001,0.002,…,0.016).
    #[arg(long, value_delimiter = ',')]
    h: Vec<f64>,
    /// Contact models, comma separated: peg, standard, corrective (default: all three).
    #[arg(long, value_delimiter = ',')]
    models: Vec<String>,
    /// Data directory (default: the repository's data/peg2d).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// PEG only: gap-correction re-solves per step when the solved step would still
    /// interpenetrate (0 = none; the other project additions stay on: `--paper` turns them all
    /// off; see docs/peg2d.md).
    #[arg(long, default_value_t = 8)]
    gap_corrections: usize,
    /// The paper's stepper for every model, every project addition off (gap corrections,
    /// split impulse and position projection, the detection additions, keep-best-on-failure,
    /// islands, basis reuse, the solve budget; `WorldParams::paper`, docs/guide.md).
    #[arg(long, conflicts_with = "gap_corrections")]
    paper: bool,
    /// PEG: the I-constraint form, `single-primary` (default: paper Eq. 24) or `general`
    /// (|C_ι| > 1, paper Eqs. 20–23; docs/peg2d.md). pour2d and pour3d only.
    #[arg(long, value_parser = super::scene::parse_peg_form, value_name = "FORM", default_value = "single-primary")]
    peg_form: signorini_world::PegForm,
    /// PEG: X-constraint impulses, `primary` (default: on the primary, the authors' code) or
    /// `paper` (none, the paper's form; docs/peg2d.md). pour2d and pour3d only.
    #[arg(long, value_parser = super::scene::parse_x_impulse, value_name = "FORM", default_value = "primary")]
    x_impulse: signorini_world::XImpulse,
}

impl Common {
    /// The stepper these options choose.
    fn stepper(&self) -> signorini_harness::presets::Stepper {
        if self.paper {
            signorini_harness::presets::Stepper::Paper
        } else {
            signorini_harness::presets::Stepper::Project {
                gap_corrections: self.gap_corrections,
            }
        }
    }
}

/// `pour2d` options.
#[derive(Args, Debug)]
pub struct PourArgs {
    /// Body sets: letters a…j (shared sets) or paths to JSON files in the same format.
    #[arg(long, value_delimiter = ',')]
    sets: Vec<String>,
    /// Simulated time per run in seconds (paper: 5).
    #[arg(long, default_value_t = 5.0)]
    duration: f64,
    /// During PEG runs, every N-th step also time a PEG step and a standard-model step on the
    /// same state (clones; the trajectory is unchanged) and write DIR/timing.csv.
    #[arg(long, value_name = "N")]
    timing_every: Option<usize>,
    /// Repetitions per timed step and model (median kept).
    #[arg(long, value_name = "R", default_value_t = 3)]
    timing_repeats: usize,
    #[command(flatten)]
    common: Common,
}

/// `pour3d` options.
#[derive(Args, Debug)]
pub struct Pour3Args {
    /// Bodies: `icosahedra` (the authors' stored scene), `random` (DATA/random_polyhedra.json)
    /// or a JSON file in that format (treated like `random`).
    #[arg(long, default_value = "icosahedra")]
    bodies: String,
    /// Configurations, comma separated (default: 0 for icosahedra, 0…9 otherwise).
    #[arg(long, value_delimiter = ',')]
    configs: Vec<usize>,
    /// Simulated time per run in seconds (paper: 5).
    #[arg(long, default_value_t = 5.0)]
    duration: f64,
    /// During PEG runs, every N-th step also time a PEG step and a standard-model step on the
    /// same state (clones; the trajectory is unchanged) and write DIR/timing.csv.
    #[arg(long, value_name = "N")]
    timing_every: Option<usize>,
    /// Repetitions per timed step and model (median kept).
    #[arg(long, value_name = "R", default_value_t = 3)]
    timing_repeats: usize,
    /// How the free-flight velocity carries the gyroscopic torque −ω × Jω: `midpoint` (the
    /// default: body-frame implicit midpoint rule), `implicit` (Catto's one-Newton-step
    /// implicit update) or `off` (no term, as before issue 22 and the authors' code).
    #[arg(long, value_parser = super::scene::parse_gyroscopic, value_name = "UPDATE", default_value = "midpoint")]
    gyroscopic: signorini_world::Gyroscopic,
    /// 3D PEG: how a vertex near a vertex of the other body is constrained: `cone` (the
    /// default: one X-constraint over the facets of the cone of forbidden displacements),
    /// `face-pairs` (one per face pair, the form before issue 22) or `off` (docs/peg3d.md).
    #[arg(long, value_parser = parse_vertex_vertex, value_name = "FORM", default_value = "cone")]
    vertex_vertex: signorini_world::VertexVertex,
    #[command(flatten)]
    common: Common,
}

/// `triangle-drop` options.
#[derive(Args, Debug)]
pub struct TriangleArgs {
    #[command(flatten)]
    common: Common,
}

/// Run an `experiment` subcommand.
pub fn run(a: ExperimentArgs) -> Result<Outcome, BadInput> {
    signorini_harness::progress::set_quiet(a.quiet);
    match a.command {
        ExperimentCommand::Pour2d(a) => pour(a),
        ExperimentCommand::Pour3d(a) => pour3(a),
        ExperimentCommand::TriangleDrop(a) => tri(a),
        ExperimentCommand::Particle1d(a) => super::penalty_exp::particle1d(a),
        ExperimentCommand::BoxOnPlane(a) => super::penalty_exp::box_on_plane(a),
        ExperimentCommand::Stick(a) => super::penalty_exp::stick(a),
        ExperimentCommand::ClothTori(a) => super::deform_exp::cloth_tori(a),
        ExperimentCommand::Rings(a) => super::deform_exp::rings(a),
        ExperimentCommand::Chain(a) => super::deform_exp::chain(a),
        ExperimentCommand::Bucket(a) => super::deform_exp::bucket(a),
        ExperimentCommand::Octopus(a) => super::deform_exp::octopus(a),
        ExperimentCommand::Pile(a) => super::pile_exp::pile(a),
        ExperimentCommand::Tower(a) => super::pile_exp::tower(a),
        ExperimentCommand::Ablation(a) => ablation(a),
    }
}

fn data_dir(c: &Common) -> anyhow::Result<PathBuf> {
    let d = data::resolve(c.data.as_deref(), "peg2d");
    data::require(&d.join("body_sets")).map_err(|e| anyhow!(e))?;
    Ok(d)
}

fn hs(c: &Common) -> anyhow::Result<Vec<f64>> {
    let hs = if c.h.is_empty() {
        pour2d::paper_step_sizes()
    } else {
        c.h.clone()
    };
    if let Some(h) = hs
        .iter()
        .find(|h| !(h.is_finite() && **h > 0.0 && **h <= 1.0))
    {
        bail!("--h: step size {h} must be in (0, 1] s");
    }
    Ok(hs)
}

fn models(c: &Common) -> anyhow::Result<Vec<ContactModel>> {
    parse_models(&c.models)
}

/// `--models`: the listed models, or all three if none.
fn parse_models(list: &[String]) -> anyhow::Result<Vec<ContactModel>> {
    if list.is_empty() {
        return Ok(vec![
            ContactModel::Peg,
            ContactModel::Standard,
            ContactModel::Corrective,
        ]);
    }
    list.iter()
        .map(|m| {
            ContactModel::parse(m)
                .ok_or_else(|| anyhow!("--models: unknown model `{m}` (peg, standard, corrective)"))
        })
        .collect()
}

fn pour(a: PourArgs) -> Result<Outcome, BadInput> {
    let data = data_dir(&a.common)?;
    if !(a.duration.is_finite() && a.duration > 0.0) {
        return Err(anyhow!("--duration must be > 0, got {}", a.duration).into());
    }
    if a.timing_every == Some(0) || a.timing_repeats == 0 {
        return Err(anyhow!("--timing-every and --timing-repeats must be >= 1").into());
    }
    let entries: Vec<String> = if a.sets.is_empty() {
        "abcdefghij".chars().map(String::from).collect()
    } else {
        a.sets.clone()
    };
    let sets = load_sets(&entries, &data)?;
    let cfg = pour2d::PourConfig {
        sets,
        hs: hs(&a.common)?,
        models: models(&a.common)?,
        duration: a.duration,
        out: a.common.out.clone(),
        data_dir: data,
        stepper: a.common.stepper(),
        timing: a.timing_every.map(|every| TimingSpec {
            every,
            repeats: a.timing_repeats,
        }),
        peg_form: a.common.peg_form,
        x_impulse: a.common.x_impulse,
    };
    finish(&cfg)
}

fn pour3(a: Pour3Args) -> Result<Outcome, BadInput> {
    if a.timing_every == Some(0) || a.timing_repeats == 0 {
        return Err(anyhow!("--timing-every and --timing-repeats must be >= 1").into());
    }
    let data = data::resolve(a.common.data.as_deref(), "peg3d");
    if !(a.duration.is_finite() && a.duration > 0.0) {
        return Err(anyhow!("--duration must be > 0, got {}", a.duration).into());
    }
    let bodies = match a.bodies.trim() {
        "icosahedra" => signorini_harness::polyhedra::Bodies::Icosahedra,
        "random" => {
            let file = data.join("random_polyhedra.json");
            data::require(&file).map_err(|e| anyhow!(e))?;
            signorini_harness::polyhedra::Bodies::read("random", &file)
                .context("--bodies random (pass --data DIR for another data directory)")?
        }
        file => {
            let path = PathBuf::from(file);
            let label = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "file".into());
            signorini_harness::polyhedra::Bodies::read(&label, &path)
                .with_context(|| format!("--bodies {file}"))?
        }
    };
    let configs = if !a.configs.is_empty() {
        a.configs.clone()
    } else if matches!(bodies, signorini_harness::polyhedra::Bodies::Icosahedra) {
        vec![0]
    } else {
        (0..10).collect()
    };
    let cfg = pour3d::Pour3Config {
        bodies: Arc::new(bodies),
        configs,
        hs: hs(&a.common)?,
        models: models(&a.common)?,
        duration: a.duration,
        out: a.common.out.clone(),
        data_dir: data,
        stepper: a.common.stepper(),
        timing: a.timing_every.map(|every| TimingSpec {
            every,
            repeats: a.timing_repeats,
        }),
        gyroscopic: a.gyroscopic,
        vertex_vertex: a.vertex_vertex,
        peg_form: a.common.peg_form,
        x_impulse: a.common.x_impulse,
    };
    finish(&cfg)
}

fn ablation(a: AblationArgs) -> Result<Outcome, BadInput> {
    let (d2, d3) = match &a.data {
        Some(d) => (d.join("peg2d"), d.join("peg3d")),
        None => (data::resolve(None, "peg2d"), data::resolve(None, "peg3d")),
    };
    let duration = a.duration.unwrap_or(if a.quick { 2.0 } else { 5.0 });
    if !(duration.is_finite() && duration > 0.0) {
        return Err(anyhow!("--duration must be > 0, got {duration}").into());
    }
    let nonempty = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect()
    };
    let set_names = match a.sets.clone() {
        Some(v) => nonempty(v),
        None if a.quick => vec!["a".into(), "b".into()],
        None => "abcde".chars().map(String::from).collect(),
    };
    if !set_names.is_empty() {
        data::require(&d2.join("body_sets")).map_err(|e| anyhow!(e))?;
    }
    let sets = load_sets(&set_names, &d2)?;
    let step_sizes = |given: &[f64], default: &[f64], flag: &str| -> anyhow::Result<Vec<f64>> {
        let hs = if given.is_empty() {
            default.to_vec()
        } else {
            given.to_vec()
        };
        if let Some(h) = hs
            .iter()
            .find(|h| !(h.is_finite() && **h > 0.0 && **h <= 1.0))
        {
            bail!("{flag}: step size {h} must be in (0, 1] s");
        }
        Ok(hs)
    };
    let hs2 = step_sizes(&a.h, &[0.005, 0.01], "--h")?;
    let hs3 = if a.quick {
        step_sizes(&a.h3, &[0.01], "--h3")?
    } else {
        step_sizes(&a.h3, &[0.005, 0.01], "--h3")?
    };
    let random_configs = match a.random_configs.clone() {
        Some(v) => nonempty(v)
            .iter()
            .map(|c| {
                c.parse::<usize>()
                    .map_err(|_| anyhow!("--random-configs: `{c}` is not a configuration number"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?,
        None if a.quick => Vec::new(),
        None => vec![0, 1, 2],
    };
    let mut scenes3 = Vec::new();
    if !a.no_icosahedra {
        scenes3.push(ablation::Scene3 {
            bodies: Arc::new(signorini_harness::polyhedra::Bodies::Icosahedra),
            configs: vec![0],
        });
    }
    if !random_configs.is_empty() {
        let file = d3.join("random_polyhedra.json");
        data::require(&file).map_err(|e| anyhow!(e))?;
        scenes3.push(ablation::Scene3 {
            bodies: Arc::new(
                signorini_harness::polyhedra::Bodies::read("random", &file)
                    .context("random polyhedra (pass --data DIR for another data directory)")?,
            ),
            configs: random_configs,
        });
    }
    let models = parse_models(&a.models)?;
    finish(&ablation::AblationConfig {
        sets,
        hs2,
        scenes3,
        hs3,
        models,
        duration,
        gap_corrections: a.gap_corrections,
        out: a.out,
    })
}

fn tri(a: TriangleArgs) -> Result<Outcome, BadInput> {
    finish(&triangle_drop::TriangleConfig {
        models: models(&a.common)?,
        hs: hs(&a.common)?,
        stepper: a.common.stepper(),
        out: a.common.out.clone(),
        data_dir: data_dir(&a.common)?,
    })
}

/// The default job (`signorini` with no arguments, `cargo run --release`): the 2D pouring
/// experiment on body sets a and b at h = 0.002, 0.005 and 0.010 s for PEG and the corrective
/// baseline the authors' stored data used (paper Fig. 21), 5 s each, written to
/// `out/pour2d-quick`. The full sweep is `signorini experiment pour2d --out DIR`.
pub fn default_job() -> Result<Outcome, BadInput> {
    eprintln!(
        "signorini: default job = `signorini experiment pour2d --sets a,b --h 0.002,0.005,0.01 \
         --models peg,corrective --out out/pour2d-quick` (see `signorini --help`)"
    );
    pour(PourArgs {
        sets: vec!["a".into(), "b".into()],
        duration: 5.0,
        timing_every: None,
        timing_repeats: 3,
        common: Common {
            h: vec![0.002, 0.005, 0.01],
            models: vec!["peg".into(), "corrective".into()],
            data: None,
            out: PathBuf::from("out/pour2d-quick"),
            gap_corrections: 8,
            paper: false,
            peg_form: Default::default(),
            x_impulse: Default::default(),
        },
    })
}

fn parse_vertex_vertex(s: &str) -> Result<signorini_world::VertexVertex, String> {
    signorini_world::VertexVertex::parse(s)
        .ok_or_else(|| format!("unknown vertex-vertex form `{s}` (cone, face-pairs, off)"))
}

/// The `--sets` entries (names in `dir`, or files) loaded as body sets, each error naming its
/// entry (pour2d and ablation).
fn load_sets(
    entries: &[String],
    dir: &std::path::Path,
) -> anyhow::Result<Vec<Arc<signorini_harness::bodyset::BodySet>>> {
    entries
        .iter()
        .map(|e| {
            let (label, path) = bodyset::resolve_set(e, dir);
            bodyset::load_body_set(&label, &path)
                .map(Arc::new)
                .with_context(|| format!("--sets entry `{e}`"))
        })
        .collect()
}
