//! Experiments of the PEG paper (Williams, Lu & Trinkle 2016) in 2D and 3D, and of the CPF
//! paper (Tang et al. 2012): [`particle1d`] (supplementary §C), [`box_on_plane`] (jitter at
//! rest), [`stick`] (Fig. 9), and the deformable benchmarks [`cloth_tori`] (Figs. 12–13) and
//! [`rings`] (Figs. 15–16), [`chain`] (after Figs. 1a, 8; not a reproduction), [`bucket`] (Fig. 14) with their shared
//! runner [`deform_run`] and the model comparison over stiffness [`stiffness_sweep`].
//!
//! Owns: reading the shared body sets and reference results (`data/peg2d/`,
//! `data/peg3d/`), the pouring scenes and sweeps ([`pour2d`], paper Figs. 20–22,
//! docs/formulation-notes.md §7–§8; [`pour3d`], Figs. 23–24, docs/formulation-notes.md §9; shared
//! machinery in [`sweep`]), the triangle-drop SM-trap test ([`triangle_drop`],
//! docs/formulation-notes.md §10), PEG vs standard time per step ([`timing`]), the pile scaling
//! experiment ([`pile`], [`pile_run`], [`pile_world`], [`pile_out`]) and the eight-cube [`tower`]
//! at rest, statistics, CSV output and SVG plots.
//! Does not own: the physics (`signorini-world` and below) or the command line.
//!
//! CSVs and plots are written by hand (plain `format!`; SVG without fonts or system
//! libraries), so outputs are byte-identical across runs: timings only appear in
//! `summary.csv`'s `ms_per_step` column, in `pooled.csv` and in `timing.csv`, never in
//! trajectories.

#![warn(missing_docs)]

pub mod bodyset;
pub mod box_on_plane;
pub mod bucket;
pub mod cancel;
pub mod chain;
pub mod checks;
pub mod cloth_tori;
pub mod crossings;
pub mod data;
pub mod deform_build;
pub mod deform_run;
mod error;
pub mod particle1d;
pub mod penalty_out;
pub mod pile;
pub mod pile_out;
pub mod pile_run;
pub mod pile_world;
pub mod pour2d;
pub mod pour3d;
pub mod progress;
pub mod reference;
pub mod rings;
pub mod stats;
pub mod stick;
pub mod stiffness_sweep;
pub mod svg;
pub mod sweep;
pub mod timing;
pub mod tower;
pub mod triangle_drop;
mod writer;

pub use error::ExperimentError;
pub use writer::{AtomicFile, Csv, h_tag, trajectory_header, trajectory_header3, write_atomic};
