//! Integration tests of scene files: built-in scenes round-trip against the experiment code,
//! every validation error path, outputs and the report.

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

/// A temporary folder (`<temp dir>/signorini-scene-<name>-XXXXXX`), removed with its
/// contents when it is dropped at the end of the test, pass or fail; derefs to its path.
pub struct Tmp(tempfile::TempDir);

impl std::ops::Deref for Tmp {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl AsRef<std::path::Path> for Tmp {
    fn as_ref(&self) -> &std::path::Path {
        self.0.path()
    }
}

/// A fresh temporary folder for one test (see [`Tmp`]).
pub fn tmp(name: &str) -> Tmp {
    let dir = tempfile::Builder::new()
        .prefix(&format!("signorini-scene-{name}-"))
        .tempdir()
        .expect("temporary folder");
    Tmp(dir)
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
