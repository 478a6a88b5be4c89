//! Experiments of the PEG paper (Williams, Lu & Trinkle 2016) in 2D and 3D, and of the CPF
//! paper (Tang et al. 2012): the pouring sweeps [`pour2d`] (Figs. 20–22) and [`pour3d`]
//! (Figs. 23–24) with their shared machinery (`sweep`, run in parallel by [`run_parallel`]),
//! the triangle-drop SM-trap test [`triangle_drop`], PEG vs standard time per step
//! ([`TimingSpec`], [`median_step_us_with`]), the pile scaling experiment ([`pile_run`]; its
//! summary and fit: [`SUMMARY_HEADER`], [`loglog_slope`]) and the eight-cube [`tower`];
//! [`particle1d`] (supplementary §C), [`box_on_plane`] (jitter at rest), [`stick`] (Fig. 9),
//! and the deformable benchmarks [`cloth_tori`] (Figs. 12–13), [`rings`] (Figs. 15–16),
//! [`chain`] (Figs. 1a, 8, gravity scaled), [`bucket`] (Fig. 14) and [`octopus`]
//! (Figs. 10–11), sharing
//! [`DeformExperiment`] and their parameters' [`PenaltyKnobs`], with the comparison over
//! stiffness [`fn@stiffness_sweep`]; the
//! authors' stored results ([`reference`](mod@reference)) and the pass / fail verdicts (the
//! private `checks`); the [`ablation`] of PEG against the baselines under the paper's and the
//! project's stepper. Every experiment is listed in [`REGISTRY`] and implements
//! [`Experiment`].
//!
//! The public surface is what the CLI and a user need: one module per experiment (its
//! parameters and builders), [`reference`](mod@reference), and the shared pieces re-exported here; the rest
//! (`sweep`, `timing`, `pile_out`, `pile_config`, `stiffness_sweep`, `deform_experiment`,
//! `experiment`, `checks`) is private.
//!
//! Owns: each experiment's scene, sweep, report, plots and checks.
//! Does not own: what scene runs share with experiments (body sets, presets, overlap
//! measures, tracers, CSV/SVG writers, progress, cancellation: `signorini-harness`), the
//! physics (`signorini-world` and below) or the command line.
//!
//! Outputs are byte-identical across runs: timings only appear in `summary.csv`'s
//! `ms_per_step` column, in `pooled.csv` and in `timing.csv`, never in trajectories.

#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod ablation;
pub mod box_on_plane;
pub mod bucket;
pub mod chain;
mod checks;
pub mod cloth_tori;
mod deform_experiment;
mod experiment;
pub mod octopus;
pub mod particle1d;
mod pile_config;
mod pile_out;
pub mod pile_run;
pub mod pour2d;
pub mod pour3d;
pub mod reference;
pub mod rings;
pub mod stick;
mod stiffness_sweep;
mod sweep;
mod timing;
pub mod tower;
pub mod triangle_drop;

pub use deform_experiment::{DeformExperiment, DeformParams, Mode};
pub use experiment::{Entry, Experiment, InFolder, REGISTRY, Report};
pub use pile_out::{SUMMARY_HEADER, loglog_slope};
pub use signorini_harness::ExperimentError;
pub use signorini_harness::deform_build::PenaltyKnobs;
pub use stiffness_sweep::stiffness_sweep;
pub use sweep::{RunResult, run_parallel};
pub use timing::{TimingSpec, median_step_us_with};
