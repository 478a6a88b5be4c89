//! The common interface of the experiments: each one's parameters implement [`Experiment`]
//! (run, compare with the references, write outputs, judge the checks, and return the printed
//! [`Report`]), and [`REGISTRY`] lists them with a line each for `signorini list`. The command
//! line parses arguments into the parameters and hands them to one function
//! (`signorini-cli`'s `cmd::experiment::finish`), which prints the report and turns the verdict
//! into the exit code.
//!
//! Adding an experiment: a module with its parameters and an `impl Experiment`, a line in
//! [`REGISTRY`], and a subcommand that fills the parameters.

use crate::ExperimentError;
use std::path::Path;

/// What an experiment prints, and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The comparison with the references and the checks, as printed on stdout (the
    /// experiments that write `report.txt` write the same text there).
    pub text: String,
    /// Whether every check held; `None` for an experiment that judges nothing.
    pub passed: Option<bool>,
}

/// One experiment, its parameters held by `self`.
pub trait Experiment {
    /// The output folder.
    fn out(&self) -> &Path;
    /// Run it: simulations, outputs under [`Experiment::out`], comparison and checks.
    fn run(&self) -> Result<Report, ExperimentError>;
}

/// An entry of [`REGISTRY`]: the subcommand's name and what it does (with the scene files that
/// mirror it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// `signorini experiment <name>`.
    pub name: &'static str,
    /// One line for `signorini list`.
    pub about: &'static str,
}

/// Every experiment, in the order `signorini list` shows them.
pub const REGISTRY: &[Entry] = &[
    Entry {
        name: "pour2d",
        about: "pour the paper's random polygons into a box (PEG paper Figs. 20-22); scene: pour2d_a_h010",
    },
    Entry {
        name: "ablation",
        about: "pour2d and pour3d with {PEG, standard, corrective} x {paper stepper, Signorini stepper (every addition, every model)}: what is PEG's, what the stepper's (issue 22)",
    },
    Entry {
        name: "triangle-drop",
        about: "drop a triangle onto a triangle: the standard-model trap (docs/formulation-notes.md §10); scene: triangle_drop",
    },
    Entry {
        name: "pour3d",
        about: "pour convex polyhedra into a box (PEG paper Figs. 23-24); scenes: pour3d_icosahedra_h010, pour3d_random_c0_h010",
    },
    Entry {
        name: "particle1d",
        about: "CPF supplementary §C: 1D particle stability limits (an analysis, not a run); its drops: scenes particle1d_cpf (unperturbed), particle1d_perturbed (trajectory.csv)",
    },
    Entry {
        name: "box-on-plane",
        about: "a rigid box dropped on a plane: CPF rests, DPF jitters; scene: box_on_plane (one model per run)",
    },
    Entry {
        name: "stick",
        about: "CPF Fig. 9: a ball hits a tilted thin stick; scene: stick (one model per run; no h/100 reference)",
    },
    Entry {
        name: "cloth-tori",
        about: "CPF Figs. 12-13: soft tori fall on a pinned cloth (--full: 65k triangles); scene: cloth_tori (small variant)",
    },
    Entry {
        name: "rings",
        about: "CPF Figs. 15-16: stiff rings fall on thin pins, stiffness and step sweep; scene: rings (small variant, no sweep)",
    },
    Entry {
        name: "chain",
        about: "CPF Figs. 1a, 8: a chain hangs from a pinned link and swings against a static box, gravity g/1000 (--full: 37 links); scene: chain (small variant)",
    },
    Entry {
        name: "bucket",
        about: "CPF Fig. 14: soft bodies poured into an open bucket (--full: 40 bodies, 108k triangles); scene: bucket (small variant)",
    },
    Entry {
        name: "octopus",
        about: "CPF Figs. 10-11: a soft octopus (mantle and eight arms, one shell) falls into a rigid bowl (--full: 14.6k triangles); scene: octopus (small variant)",
    },
    Entry {
        name: "pile",
        about: "time per step against N: N bodies on a lattice (or poured) in a box, 2D or 3D; scenes: pile3d_n27, pile3d_n125, pile2d_n100",
    },
    Entry {
        name: "tower",
        about: "eight unit cubes stacked on a floor (mu = 0.5) must stay at rest; scene file: scenes/tower8.toml (not built in)",
    },
];

/// The parameters of an experiment whose configuration does not name its output folder, with
/// the folder (`particle1d`, `box-on-plane`, `stick`).
#[derive(Debug, Clone, PartialEq)]
pub struct InFolder<C> {
    /// The experiment's parameters.
    pub params: C,
    /// The output folder.
    pub out: std::path::PathBuf,
}
