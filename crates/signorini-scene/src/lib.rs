//! Scene files: describe a simulation in TOML (or JSON), run it with any contact model, and
//! look at what happened in a self-contained HTML report.
//!
//! Data flow:
//! ```text
//! file ──load::parse──▶ RawScene (serde, deny_unknown_fields; errors at file:line:col + field)
//!      ──validate────▶ Scene (units, ranges, defaults; bodies built; located errors)
//!      ──run─────────▶ World (2D polygons), World3 (3D polyhedra), PenaltyWorld (3D meshes)
//!                      or DeformableWorld (cloth, soft shells)
//!                      stepped with timed drops ─▶ trajectories.csv, steps.csv, contacts.csv,
//!                      bodies.json, summary.json (+ trace.csv for meshes; all atomic)
//!      ──report──────▶ report.html (inline SVG plots + canvas replay) and *.svg
//! ```
//! A scene can also be stepped by hand: [`load_scene`], [`world_params`] and the scene's
//! bodies build the world (the `control` example does this and steers a body with
//! `World::apply_wrench`); within [`run`], [`RunOptions::before_step`] gets the world mutably
//! for such control inputs.
//!
//! Owns: the scene format (reference: `docs/scene-format.md`), its validation, running a scene,
//! the run outputs and the report. Does not own: physics (`signorini-world` and below), the
//! paper experiments' sweeps (`signorini-experiments`), the command line.
//!
//! ```no_run
//! let scene = signorini_scene::load_scene(std::path::Path::new("scenes/demo.toml"))?;
//! let outcome = signorini_scene::run(&scene, signorini_scene::RunOptions::default())?;
//! println!("max overlap {:e} m²", outcome.summary.max_overlap);
//! let final_world = outcome.world.planar().expect("demo is a 2D scene");
//! # Ok::<(), signorini_scene::SceneError>(())
//! ```

#![warn(missing_docs)]

pub mod builtin;
mod error;
pub mod limits;
pub mod load;
pub mod memory;
pub mod out_dir;
pub mod raw;
pub mod report;
mod run;
pub mod validate;

pub use error::{FieldPath, Located, SceneError, Seg};
pub use run::{
    BeforeStep, CheckResult, DEFORM_STEPS_HEADER, DRAW_CONTACT_DISTANCE, FinalWorld, MAX_FRAMES,
    MAX_VERTEX_NUMBERS, PENALTY_STEPS_HEADER, RunOptions, RunOutcome, RunSummary, STEPS_HEADER,
    StepState, VertexTrack, deform_energy, energy, preflight, run, world_params,
};
pub use validate::{Model, Scene, SceneBodies, SceneBody3, SceneDeformables, SceneKind, SceneMesh};

use std::path::Path;

/// Read, parse and validate a scene file.
pub fn load_scene(path: &Path) -> Result<Scene, SceneError> {
    let bytes = std::fs::read(path).map_err(|e| SceneError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let text = utf8(path, bytes)?;
    load_str(path, &text)
}

/// The file's text, or an error naming the line, the column and the byte offset of the first
/// byte that is not UTF-8.
fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, SceneError> {
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let good = String::from_utf8_lossy(&bytes[..at]);
        let line = good.matches('\n').count() + 1;
        let column = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        SceneError::Invalid(Located {
            file: path.to_path_buf(),
            line: Some(line),
            column: Some(column),
            field: String::new(),
            reason: format!(
                "not UTF-8: byte 0x{:02x} at byte offset {at} is not valid UTF-8 (a scene file \
                 is UTF-8 text)",
                bytes[at]
            ),
        })
    })
}

/// Parse and validate scene text; `path` names the file in errors and anchors relative paths.
pub fn load_str(path: &Path, text: &str) -> Result<Scene, SceneError> {
    let format = load::detect_format(path, text);
    let (raw, locator) = load::parse(path, text, format)?;
    validate::validate(&raw, &locator)
}
