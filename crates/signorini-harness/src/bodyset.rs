//! The shared 2D body sets (`data/peg2d/body_sets/set_{a..j}.json`, docs/formulation-notes.md §7,
//! §11) and any other JSON file in the same format.
//!
//! Owns: parsing and validation into [`BodySpec`]s, and resolving `--sets` arguments (a letter
//! or a path). Does not own: the drop schedule (`pour2d`).

use crate::ExperimentError;
use serde::Deserialize;
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::ConvexPolygon;
use signorini_math::{Vec2, Vec3};
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct RawSet {
    bodies: Vec<RawBody>,
}

#[derive(Deserialize)]
struct RawBody {
    vertices_local: Vec<[f64; 2]>,
    position: [f64; 2],
    angle: f64,
    velocity: [f64; 3],
    mass: f64,
    inertia: f64,
    external_force: [f64; 3],
}

/// One validated body of a set: shape in the body frame, initial state, mass, inertia, F_ext.
#[derive(Debug, Clone, PartialEq)]
pub struct BodySpec {
    /// The body, posed at its initial state, with its external force.
    pub body: RigidBody2,
}

/// A named body set.
#[derive(Debug, Clone, PartialEq)]
pub struct BodySet {
    /// Label used in file names (`a`…`j` for the shared sets, else the file stem).
    pub label: String,
    /// The file it came from.
    pub(crate) path: PathBuf,
    /// Bodies in drop order.
    pub bodies: Vec<BodySpec>,
}

/// Resolve a `--sets` entry: a single letter means `<data>/body_sets/set_<letter>.json`.
pub fn resolve_set(entry: &str, data_dir: &Path) -> (String, PathBuf) {
    let e = entry.trim();
    if e.len() == 1 && e.chars().all(|c| c.is_ascii_alphabetic()) {
        let l = e.to_ascii_lowercase();
        return (
            l.clone(),
            data_dir.join("body_sets").join(format!("set_{l}.json")),
        );
    }
    let p = PathBuf::from(e);
    let label = p
        .file_stem()
        .map(|s| s.to_string_lossy().trim_start_matches("set_").to_string())
        .unwrap_or_else(|| e.to_string());
    (label, p)
}

/// Load and validate a body-set JSON file.
pub fn load_body_set(label: &str, path: &Path) -> Result<BodySet, ExperimentError> {
    let text = std::fs::read_to_string(path).map_err(|e| ExperimentError::io(path, e))?;
    let raw: RawSet = serde_json::from_str(&text).map_err(|e| ExperimentError::Parse {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    if raw.bodies.is_empty() {
        return Err(ExperimentError::Parse {
            path: path.to_path_buf(),
            reason: "`bodies` is empty".into(),
        });
    }
    let bodies = raw
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            to_spec(b).map_err(|(field, reason)| ExperimentError::Body {
                path: path.to_path_buf(),
                body: i,
                field,
                reason,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(BodySet {
        label: label.to_string(),
        path: path.to_path_buf(),
        bodies,
    })
}

fn to_spec(b: &RawBody) -> Result<BodySpec, (&'static str, String)> {
    let verts = b
        .vertices_local
        .iter()
        .map(|v| Vec2::new(v[0], v[1]))
        .collect();
    let shape = ConvexPolygon::new(verts).map_err(|e| ("vertices_local", e.to_string()))?;
    let body = RigidBody2::dynamic(shape, b.mass, b.inertia).map_err(|e| {
        (
            if e.to_string().contains("mass") {
                "mass"
            } else {
                "inertia"
            },
            e.to_string(),
        )
    })?;
    let mut body = body
        .with_pose(Vec2::new(b.position[0], b.position[1]), b.angle)
        .with_velocity(Vec3::new(b.velocity[0], b.velocity[1], b.velocity[2]));
    body.external_force = Vec3::new(
        b.external_force[0],
        b.external_force[1],
        b.external_force[2],
    );
    body.validate()
        .map_err(|e| ("position/angle/velocity/external_force", e.to_string()))?;
    Ok(BodySpec { body })
}
