//! What every run shares, below the scenes (`signorini-scene`) and the experiments
//! (`signorini-experiments`), so that both build their worlds and write their outputs the same
//! way:
//!
//! - **inputs**: the authors' body sets ([`bodyset`]) and data paths ([`data`]), the 3D bodies
//!   of the pouring scenes and piles ([`polyhedra`]), lattices and boxes of the pile
//!   ([`pile`]), deformable worlds from their specifications ([`deform_build`]);
//! - **settings**: the project's and the paper's stepper ([`presets`]);
//! - **measures**: overlap area/volume ([`overlap`]), statistics ([`stats`]), crossings of
//!   deformable meshes ([`crossings`]);
//! - **runs and traces**: pile worlds ([`pile_world`]), deformable runs ([`deform_run`]), rigid
//!   penalty traces ([`penalty_trace`]), cancellation by signals ([`cancel`]), progress bars
//!   ([`progress`]);
//! - **outputs**: CSV and atomic files ([`Csv`], [`AtomicFile`], [`write_atomic`]), SVG line
//!   plots ([`svg`]: the one plotter, for experiments' figures and the scene report), penalty-run tables and figures ([`penalty_out`]).
//!
//! Does not own: the physics (`signorini-world` and below), scene files, experiments' sweeps and
//! reports, or the command line.
//!
//! CSVs and plots are written by hand (plain `format!`; SVG without fonts or system libraries),
//! so outputs are byte-identical across runs.

#![warn(missing_docs)]

pub mod bodyset;
pub mod cancel;
pub mod crossings;
pub mod data;
pub mod deform_build;
pub mod deform_run;
mod error;
pub mod overlap;
pub mod penalty_out;
pub mod penalty_trace;
pub mod pile;
pub mod pile_world;
pub mod polyhedra;
pub mod presets;
pub mod progress;
pub mod stats;
pub mod svg;
#[cfg(feature = "test-support")]
pub mod test_support;
mod writer;

pub use error::ExperimentError;
pub use writer::{AtomicFile, Csv, h_tag, trajectory_header, trajectory_header3, write_atomic};
