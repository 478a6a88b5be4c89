//! PEG vs standard-model time per step on the same states (the paper's "about 2×", §6).
//!
//! During a PEG pouring run, every N-th step the current world is cloned and stepped once
//! with PEG and once with the standard model (ε-distance detector), R times each; the median
//! of the stepper's own stage times (`StepReport::times`: broad phase, detection, formulation,
//! solve, integration) is recorded. The clones are thrown away, so the run's trajectory is
//! unchanged.
//!
//! PEG is stepped exactly as in the run (solver chain and gap corrections included). The
//! standard model is stepped with its experiment settings but **one Lemke solve** and no
//! fallback chain, like one PATH call per step in the paper: on these states its subproblems
//! are mostly unsolvable (SM traps), and the `Auto` chain then exhausts every fallback (Lemke
//! twice, FB-Newton twice, regularised Lemke + FB-Newton retries): 30–230 ms per step against
//! PEG's 0.05–0.2 ms (set a, h = 0.009 s), a measure of our fallback chain, not of the model.
//!
//! Owns: the measurement ([`time_step`]), `timing.csv` and the per-h median ratios. Does not
//! own: the run loop (`pour2d`).

use crate::ExperimentError;
use crate::reference::h_key;
use signorini_complementarity::SolverKind;
use signorini_harness::Csv;
use signorini_harness::stats::quantile_sorted;
use signorini_world::{ContactModel, GenericWorld, Space, WorldParams};
use std::collections::BTreeMap;
use std::path::Path;

/// When and how often to time (`--timing-every N --timing-repeats R`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimingSpec {
    /// Time every N-th step (N ≥ 1; steps N, 2N, …).
    pub every: usize,
    /// Repetitions per model and step; the median is kept (R ≥ 1).
    pub repeats: usize,
}

/// One timed state.
#[derive(Debug, Clone, PartialEq)]
pub struct TimingSample {
    /// Step index of the run (1-based) whose start state was timed.
    pub step: usize,
    /// Median PEG step time (µs).
    pub peg_us: f64,
    /// Median standard-model step time (µs).
    pub standard_us: f64,
}

/// Median step time in µs of `model` from the state of `world` (R clones, each stepped once).
/// PEG keeps the run's settings; the standard model uses its experiment settings
/// (`pour2d::experiment_params`) with a single Lemke solve (module docs). Any dimension (2D
/// `World`, 3D `World3`).
fn median_step_us<S: Space<D>, const D: usize>(
    world: &GenericWorld<S, D>,
    model: ContactModel,
    repeats: usize,
) -> f64
where
    GenericWorld<S, D>: Clone,
{
    let params = if model == ContactModel::Peg {
        world.params.clone()
    } else {
        let mut p = signorini_harness::presets::experiment_params(model, world.params.h, 0);
        p.solver = SolverKind::Lemke;
        p.mixed_fallback = false;
        p
    };
    median_step_us_with(world, &params, repeats)
}

/// Median stepper time in µs (`StepReport::times`) of one step from the state of `world`
/// under `params` (R ≥ 1 clones, each stepped once; `world` is not modified). Any dimension.
pub fn median_step_us_with<S: Space<D>, const D: usize>(
    world: &GenericWorld<S, D>,
    params: &WorldParams,
    repeats: usize,
) -> f64
where
    GenericWorld<S, D>: Clone,
{
    let mut t: Vec<f64> = (0..repeats.max(1))
        .map(|_| {
            let mut w = world.clone();
            w.params = params.clone();
            1e6 * w.step().times.total()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    quantile_sorted(&t, 0.5)
}

/// Time one PEG step and one standard-model step from the state of `world` (a PEG world),
/// interleaved so that machine load affects both alike. `world` is not modified.
pub(crate) fn time_step<S: Space<D>, const D: usize>(
    world: &GenericWorld<S, D>,
    step: usize,
    repeats: usize,
) -> TimingSample
where
    GenericWorld<S, D>: Clone,
{
    TimingSample {
        step,
        peg_us: median_step_us(world, ContactModel::Peg, repeats),
        standard_us: median_step_us(world, ContactModel::Standard, repeats),
    }
}

/// Write `timing.csv` (`h,set,step,peg_us,standard_us,ratio`) for the given runs, each
/// `(h, set, samples)`, in the order given.
pub(crate) fn write_timing(
    path: &Path,
    runs: &[(f64, &str, &[TimingSample])],
) -> Result<(), ExperimentError> {
    let mut f = Csv::create(path, "h,set,step,peg_us,standard_us,ratio")?;
    for (h, set, samples) in runs {
        for s in *samples {
            f.line(&format!(
                "{h},{set},{},{:.3},{:.3},{:.4}",
                s.step,
                s.peg_us,
                s.standard_us,
                s.peg_us / s.standard_us
            ))?;
        }
    }
    f.finish()
}

/// Median PEG/standard ratio per h over all samples of all runs: `(h, samples, median)`,
/// ascending h.
pub(crate) fn median_ratio_per_h(runs: &[(f64, &str, &[TimingSample])]) -> Vec<(f64, usize, f64)> {
    let mut by_h: BTreeMap<i64, (f64, Vec<f64>)> = BTreeMap::new();
    for (h, _, samples) in runs {
        let e = by_h.entry(h_key(*h)).or_insert((*h, Vec::new()));
        e.1.extend(
            samples
                .iter()
                .map(|s| s.peg_us / s.standard_us)
                .filter(|r| r.is_finite()),
        );
    }
    by_h.into_values()
        .map(|(h, mut r)| {
            r.sort_by(f64::total_cmp);
            let m = if r.is_empty() {
                f64::NAN
            } else {
                quantile_sorted(&r, 0.5)
            };
            (h, r.len(), m)
        })
        .collect()
}
