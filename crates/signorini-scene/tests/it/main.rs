//! Integration tests of scene files: built-in scenes round-trip against the experiment code,
//! every validation error path, outputs and the report.

mod builtin_copies;
mod errors;
mod errors3;
mod errors_deform;
mod fuzz;
mod fuzzing;
mod hostile;
mod roundtrip;
mod roundtrip3;
mod roundtrip_deform;
mod roundtrip_pile;
mod runs;
mod runs3;

use signorini_scene::{Model, RunOptions, RunOutcome, Scene, run};
use std::path::{Path, PathBuf};

/// Repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub use signorini_harness::test_support::Tmp;

/// A fresh temporary folder for one test (see [`Tmp`]).
pub fn tmp(name: &str) -> Tmp {
    Tmp::new("scene", name)
}

/// Run `scene` for at most `steps` steps, with `model` instead of the scene's if given,
/// writing its outputs into `out` if given (panics on an error).
pub fn run_steps(
    scene: &Scene,
    model: Option<Model>,
    steps: usize,
    out: Option<&Path>,
) -> RunOutcome {
    run(
        scene,
        RunOptions {
            model,
            max_steps: Some(steps),
            out: out.map(Path::to_path_buf),
            ..Default::default()
        },
    )
    .unwrap()
}
