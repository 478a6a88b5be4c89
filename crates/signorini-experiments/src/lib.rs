//! Experiments of the PEG paper (Williams, Lu & Trinkle 2016) in 2D and 3D, and of the CPF
//! paper (Tang et al. 2012): the pouring sweeps [`pour2d`] (Figs. 20–22) and [`pour3d`]
//! (Figs. 23–24) with their shared machinery in [`sweep`], the triangle-drop SM-trap test
//! [`triangle_drop`], PEG vs standard time per step ([`timing`]), the pile scaling experiment
//! ([`pile_run`], [`pile_out`]) and the eight-cube [`tower`]; [`particle1d`] (supplementary
//! §C), [`box_on_plane`] (jitter at rest), [`stick`] (Fig. 9), and the deformable benchmarks
//! [`cloth_tori`] (Figs. 12–13), [`rings`] (Figs. 15–16), [`chain`] (after Figs. 1a, 8; not a
//! reproduction) and [`bucket`] (Fig. 14), with the comparison over stiffness
//! [`stiffness_sweep`]; the authors' stored results ([`reference`](mod@reference)) and the pass / fail
//! verdicts ([`checks`]).
//!
//! Owns: each experiment's scene, sweep, report, plots and checks.
//! Does not own: what scene runs share with experiments (body sets, presets, overlap
//! measures, tracers, CSV/SVG writers, progress, cancellation: `signorini-harness`), the
//! physics (`signorini-world` and below) or the command line.
//!
//! Outputs are byte-identical across runs: timings only appear in `summary.csv`'s
//! `ms_per_step` column, in `pooled.csv` and in `timing.csv`, never in trajectories.

#![warn(missing_docs)]

pub mod box_on_plane;
pub mod bucket;
pub mod chain;
pub mod checks;
pub mod cloth_tori;
pub mod deform_experiment;
pub mod experiment;
pub mod particle1d;
pub mod pile_config;
pub mod pile_out;
pub mod pile_run;
pub mod pour2d;
pub mod pour3d;
pub mod reference;
pub mod rings;
pub mod stick;
pub mod stiffness_sweep;
pub mod sweep;
pub mod timing;
pub mod tower;
pub mod triangle_drop;

pub use experiment::{Experiment, Report};
pub use signorini_harness::ExperimentError;
