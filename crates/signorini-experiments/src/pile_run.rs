//! The pile experiment's runs: one (model, N) at a time, sizes in increasing N, never two runs
//! at once (timings on a 2-core machine must not compete).
//!
//! Owns: [`PileConfig`], the scene of one size ([`PileScene`], [`scene`]), one run
//! ([`run_one`]: per-step file `steps/<model>_<d>d_<shape>_n<N>.csv`, optional
//! `trajectories/<stem>.csv` and saved states `states/<stem>-step<k>.json`, a resume from one,
//! a progress bar of steps) and the sweep ([`run_pile`]), which
//! rewrites `summary.csv` after every run (so an interrupted sweep keeps its finished runs) and
//! writes the plots and `report.txt` at the end (the private `pile_out`). Does not own: the
//! lattice and bodies ([`signorini_harness::pile`]), the world wrapper ([`signorini_harness::pile_world`]).

use crate::ExperimentError;
use crate::pile_out::{self, PileRun};
use signorini_dynamics::RigidBody2;
use signorini_harness::Csv;
use signorini_harness::pile::{
    self, Dim, Lattice, Layout, SPACING, Shape, bodies3, load_sets2, placed2, placed3,
    pour_interval, spacing2, supply2,
};
use signorini_harness::pile_world::{PileBody, PileBox, PileWorld, pile_params};
use signorini_harness::polyhedra::Bodies;
use signorini_harness::presets::step_count;
use signorini_math::{Real, Vec2, Vec3};
use signorini_world::{ContactModel, StepReport};
use std::path::Path;

pub use crate::pile_config::PileConfig;

/// The bodies a sweep draws from, loaded once.
#[derive(Debug, Clone)]
pub enum Supply {
    /// 3D: a shape and, for `random`, the point sets.
    Three(Shape, Option<Bodies>),
    /// 2D: the 250 bodies of sets a…j and their lattice spacing.
    Two(Vec<RigidBody2>, Real),
}

impl Supply {
    /// Load what `dim` and `shape` need from the shared data root.
    pub fn load(dim: Dim, shape: Shape, data: &Path) -> Result<Supply, ExperimentError> {
        match dim {
            Dim::Three => {
                let random = match shape {
                    Shape::Random => Some(Bodies::read(
                        "random",
                        &data.join("peg3d/random_polyhedra.json"),
                    )?),
                    _ => None,
                };
                Ok(Supply::Three(shape, random))
            }
            Dim::Two if shape != Shape::Random => Err(ExperimentError::Argument(format!(
                "--shape {}: 2D piles use the shared random polygons (shape random)",
                shape.name()
            ))),
            Dim::Two => {
                let bodies = supply2(&load_sets2(&data.join("peg2d"))?);
                let s = spacing2(&bodies);
                Ok(Supply::Two(bodies, s))
            }
        }
    }

    /// Lattice spacing.
    pub fn spacing(&self) -> Real {
        match self {
            Supply::Three(..) => SPACING,
            Supply::Two(_, s) => *s,
        }
    }
}

/// The scene of one size: lattice, box, bodies posed where they enter.
#[derive(Debug, Clone)]
pub struct PileScene {
    /// The lattice (also sizes the box in the pour layout).
    pub lattice: Lattice,
    /// The box.
    pub boxed: PileBox,
    /// Body k posed at lattice site k (lattice) or at the spawn point (pour).
    pub bodies: Vec<PileBody>,
}

/// The scene of `n` bodies.
pub fn scene(supply: &Supply, n: usize, layout: Layout) -> Result<PileScene, ExperimentError> {
    match supply {
        Supply::Three(shape, random) => {
            let lat = Lattice::new(Dim::Three, n, SPACING);
            let spawn = Vec3::new(0.0, 0.0, lat.spawn_height());
            let bodies = bodies3(*shape, n, random.as_ref())?
                .iter()
                .enumerate()
                .map(|(k, b)| {
                    let at = match layout {
                        Layout::Lattice => lat.site3(k),
                        Layout::Pour => spawn,
                    };
                    PileBody::Spatial(placed3(b, at))
                })
                .collect();
            Ok(PileScene {
                boxed: PileBox::Spatial(pile::open_box3(&lat)?),
                lattice: lat,
                bodies,
            })
        }
        Supply::Two(all, spacing) => {
            let lat = Lattice::new(Dim::Two, n, *spacing);
            let spawn = Vec2::new(0.0, lat.spawn_height());
            let bodies = (0..n)
                .map(|k| {
                    let at = match layout {
                        Layout::Lattice => lat.site2(k),
                        Layout::Pour => spawn,
                    };
                    PileBody::Planar(placed2(&all[k % all.len()], at))
                })
                .collect();
            Ok(PileScene {
                boxed: PileBox::Planar(pile::open_box2(&lat)?),
                lattice: lat,
                bodies,
            })
        }
    }
}

/// File stem `<model>_<d>d_<shape>_n<N>`.
pub fn stem(model: ContactModel, dim: Dim, shape: Shape, n: usize) -> String {
    format!("{}_{}d_{}_n{n}", model.name(), dim.number(), shape.name())
}

/// Header of `steps/<stem>.csv`.
pub const STEPS_HEADER: &str = "step,time,unknowns,contacts,unilateral,inter,cross,failed,residual,overlap,broad_phase_ms,detection_ms,formulation_ms,solve_ms,gap_corrections_ms,integration_ms,islands,largest_unknowns,solver,fallbacks,corrections,basis_reuses,projections,projection_unknowns,rounds,fallback_lines";

/// One `steps.csv` row; `solver` is the solver of the largest island's accepted answer
/// (`pgs` = the block Gauss–Seidel answer), `fallbacks` the number of fallback lines the step
/// reported (`StepReport::fallbacks`), `corrections` the gap-correction re-solves and
/// `basis_reuses` the solves answered by an earlier solve's Lemke basis, `projections` the
/// position-projection passes and `projection_unknowns` the largest projection solve's size
/// (frictionless: normal rows only), `rounds` each gap-correction re-solve (what answered
/// it, its unknowns, pivots, residual and wall time: `StepReport::rounds`, joined by "; ",
/// a plain field), `fallback_lines` the fallback lines themselves (joined by " | ", one
/// quoted CSV field).
fn steps_line(s: usize, h: Real, rep: &StepReport, overlap: f64) -> String {
    let (c, t) = (rep.counts, rep.times);
    let ms = |x: f64| 1e3 * x;
    format!(
        "{s},{},{},{},{},{},{},{},{},{overlap},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        s as Real * h,
        rep.unknowns,
        c.contacts,
        c.unilateral,
        c.inter,
        c.cross,
        rep.failed as u8,
        rep.residual,
        ms(t.broad_phase),
        ms(t.detection),
        ms(t.formulation),
        ms(t.solve),
        ms(t.gap_corrections),
        ms(t.integration),
        rep.islands,
        rep.largest_unknowns,
        rep.solver
            .map_or_else(|| "none".into(), |k| format!("{k:?}").to_lowercase()),
        rep.fallbacks.len(),
        rep.corrections,
        rep.basis_reuses,
        rep.projections,
        rep.projection_unknowns,
        rep.rounds
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join("; "),
        quoted(&rep.fallbacks.join(" | "))
    )
}

/// A CSV field in double quotes, inner quotes doubled (RFC 4180).
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Give up waiting for a free spawn region after this many drop intervals.
const MAX_WAIT_INTERVALS: usize = 100;

/// Run one (model, N); writes `steps/<stem>.csv` (and `trajectories/<stem>.csv` if asked).
pub fn run_one(
    cfg: &PileConfig,
    sc: &PileScene,
    model: ContactModel,
) -> Result<PileRun, ExperimentError> {
    let n = sc.bodies.len();
    let name = stem(model, cfg.dim, cfg.shape, n);
    let mut params = pile_params(model, cfg.h, cfg.mu);
    if let Some(limit) = cfg.dense_limit {
        params.dense_limit = limit;
        params.friction_dense_limit = limit;
    }
    if let Some(from) = cfg.sparse_lemke_from {
        params.sparse_lemke_from = from;
    }
    if let Some(from) = cfg.sparse_warm_from {
        params.sparse_warm_from = from;
    }
    let mut world = PileWorld::new(&sc.boxed, params)?;
    let mut steps = Csv::create(
        &cfg.out.join("steps").join(format!("{name}.csv")),
        STEPS_HEADER,
    )?;
    let mut traj = if cfg.trajectories {
        let header = match cfg.dim {
            Dim::Two => signorini_harness::trajectory_header(),
            Dim::Three => signorini_harness::trajectory_header3(),
        };
        let path = cfg.out.join("trajectories").join(format!("{name}.csv"));
        Some(Csv::create(&path, header)?)
    } else {
        None
    };
    let mut r = PileRun::new(model, cfg, n);
    let n_dur = step_count(cfg.duration, cfg.h);
    let one_second = (1.0 / cfg.h).round() as usize;
    let interval = pour_interval(sc.lattice.spacing, cfg.h);
    let mut end = match cfg.layout {
        Layout::Lattice => {
            for b in &sc.bodies {
                world.add(b)?;
            }
            n_dur
        }
        Layout::Pour => n_dur.max((n.max(1) - 1) * interval + one_second),
    };
    let mut s = 0;
    if let Some(path) = &cfg.resume {
        if cfg.layout == Layout::Pour {
            return Err(ExperimentError::Argument(
                "--resume: the pour layout cannot resume (its drop schedule is not saved)".into(),
            ));
        }
        let text = read_state(path)?;
        s = world.restore_json(path, &text, &name, cfg.mu)?;
    }
    let bar = signorini_harness::progress::bar(end, "steps").labelled(&name);
    bar.inc(s.min(end) as u64);
    let (mut next_due, mut waited) = (1, 0);
    while s < end {
        if signorini_harness::cancel::stop_at(s, &name).is_some() {
            break;
        }
        s += 1;
        if cfg.layout == Layout::Pour && r.drops.len() < n && s >= next_due {
            let b = &sc.bodies[r.drops.len()];
            if world.spawn_free(b) {
                r.spawn_overlap = r.spawn_overlap.max(world.overlap_with(b));
                world.add(b)?;
                r.drops.push(s);
                (next_due, waited) = (s + interval, 0);
                if r.drops.len() == n {
                    end = n_dur.max(s - 1 + one_second);
                    bar.set_length(end as u64);
                }
            } else {
                r.spawn_waits += 1;
                waited += 1;
                if waited > MAX_WAIT_INTERVALS * interval {
                    return Err(ExperimentError::Argument(format!(
                        "pour layout, N = {n}: the spawn region stayed occupied for {waited} steps before body {}",
                        r.drops.len()
                    )));
                }
                end = end.max(s + (n - r.drops.len()) * interval + one_second);
                bar.set_length(end as u64);
            }
        }
        let rep = world.step();
        let overlap = world.overlap();
        r.add(&rep, overlap);
        steps.line(&steps_line(s, cfg.h, &rep, overlap))?;
        if let Some(t) = traj.as_mut() {
            world.write_poses(t, s)?;
        }
        // One checkpoint per step (a step of a large pile takes seconds to minutes): the
        // temporary `steps/.<stem>.csv.tmp-*` shows the run's progress as it goes, and a
        // second signal (stop at once) keeps the rows of the steps taken, in both files.
        let mut files: Vec<&mut Csv> = std::iter::once(&mut steps).chain(traj.as_mut()).collect();
        Csv::checkpoint_together(&mut files)?;
        if cfg.save_states.contains(&s) {
            let path = cfg.out.join("states").join(format!("{name}-step{s}.json"));
            signorini_harness::write_atomic(
                &path,
                world.checkpoint_json(&name, cfg.mu).as_bytes(),
            )?;
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    steps.finish()?;
    if let Some(t) = traj {
        t.finish()?;
    }
    r.peak_mib = pile_out::peak_mib();
    Ok(r)
}

/// A saved state's text (`--resume`): JSON, or gzip-compressed JSON when the file name ends in
/// `.gz` (a state of the 1,000-body pile is 5 MB of JSON and 0.6 MB compressed). Errors name
/// the file.
fn read_state(path: &Path) -> Result<String, ExperimentError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| ExperimentError::io(path, e))?;
    let mut text = String::new();
    let read = if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(file).read_to_string(&mut text)
    } else {
        std::io::BufReader::new(file).read_to_string(&mut text)
    };
    read.map_err(|e| ExperimentError::io(path, e))?;
    Ok(text)
}

/// What a sweep returns.
#[derive(Debug, Clone)]
pub struct PileResult {
    /// Every run, in run order (N increasing, then model).
    pub runs: Vec<PileRun>,
    /// The printed table and verdict (also `report.txt`).
    pub(crate) report: String,
    /// PEG's targets held in every PEG run (true if there was no PEG run).
    pub(crate) targets_met: bool,
}

/// The sizes in run order: increasing, each once.
pub(crate) fn run_order(sizes: &[usize]) -> Vec<usize> {
    let mut v = sizes.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Run every (N, model) one at a time and write every output.
pub fn run_pile(cfg: &PileConfig) -> Result<PileResult, ExperimentError> {
    if cfg.sizes.is_empty() || cfg.sizes.contains(&0) {
        return Err(ExperimentError::Argument(
            "--bodies: every N must be >= 1".into(),
        ));
    }
    std::fs::create_dir_all(&cfg.out).map_err(|e| ExperimentError::io(&cfg.out, e))?;
    let supply = Supply::load(cfg.dim, cfg.shape, &cfg.data)?;
    let mut runs = Vec::new();
    'sizes: for n in run_order(&cfg.sizes) {
        let sc = scene(&supply, n, cfg.layout)?;
        for &model in &cfg.models {
            // No new run once a signal asked to stop.
            if signorini_harness::cancel::requested().is_some() {
                break 'sizes;
            }
            runs.push(run_one(cfg, &sc, model)?);
            pile_out::write_summary(&cfg.out.join("summary.csv"), &runs)?;
        }
    }
    pile_out::write_plots(&cfg.out, &runs)?;
    let (report, targets_met) = pile_out::report(cfg, &runs);
    let report = signorini_harness::cancel::mark_report(report);
    signorini_harness::write_atomic(&cfg.out.join("report.txt"), report.as_bytes())?;
    Ok(PileResult {
        runs,
        report,
        targets_met,
    })
}

/// `signorini experiment pile`.
impl crate::Experiment for PileConfig {
    fn out(&self) -> &Path {
        &self.out
    }

    fn run(&self) -> Result<crate::Report, ExperimentError> {
        let r = run_pile(self)?;
        Ok(crate::Report {
            text: r.report,
            passed: Some(r.targets_met),
        })
    }
}
