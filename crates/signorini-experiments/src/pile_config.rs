//! The parameters of the pile scaling experiment (`signorini experiment pile`), shared by the
//! runs ([`crate::pile_run`]) and the outputs ([`crate::pile_out`]).

use signorini_harness::pile::{Dim, Layout, Shape};
use signorini_math::Real;
use signorini_world::ContactModel;
use std::path::PathBuf;

/// What to run.
#[derive(Debug, Clone)]
pub struct PileConfig {
    /// 2 or 3.
    pub dim: Dim,
    /// Body counts (run in increasing order, duplicates once).
    pub sizes: Vec<usize>,
    /// Bodies (2D: only `Random`, the shared sets).
    pub shape: Shape,
    /// Coulomb friction μ.
    pub mu: Real,
    /// Step size (s).
    pub h: Real,
    /// Simulated time (s; the pour layout extends it).
    pub duration: Real,
    /// Contact models.
    pub models: Vec<ContactModel>,
    /// Lattice or pour.
    pub layout: Layout,
    /// Output directory.
    pub out: PathBuf,
    /// Shared data root (`data/`: `peg3d/random_polyhedra.json`, `peg2d/body_sets/`).
    pub data: PathBuf,
    /// Also write `trajectories/<stem>.csv` (scene-file round trips).
    pub trajectories: bool,
    /// Islands with more unknowns than this go to the sparse solver, with or without friction
    /// (sets `WorldParams::dense_limit` and `WorldParams::friction_dense_limit`); `None`
    /// keeps the defaults.
    pub dense_limit: Option<usize>,
    /// Sets `WorldParams::sparse_lemke_from` (`None` keeps the default).
    pub sparse_lemke_from: Option<usize>,
    /// Sets `WorldParams::sparse_warm_from` (`None` keeps the default).
    pub sparse_warm_from: Option<usize>,
    /// Write the world's state after these steps, `states/<stem>-step<k>.json` (a
    /// [`signorini_world::Checkpoint`] with the run's name and μ).
    pub save_states: Vec<usize>,
    /// Start the run from this saved state (lattice layout, one size and one model: the
    /// state names its run). The statistics and `steps.csv` then cover the steps after it.
    pub resume: Option<PathBuf>,
}
