//! The 3D bodies of the PEG paper's pouring scenes and of the pile: the stored scene's
//! icosahedron, the random polyhedra (convex hulls of `random_polyhedra.json`'s point sets,
//! centred, scaled to circumradius 0.5, mass 0.5) and the drop pose (docs/formulation-notes.md §9).
//!
//! Owns: body builders and their constants. Does not own: the scene (box, drop interval) or the
//! run (`signorini-experiments::pour3d`).

use crate::ExperimentError;
use serde::Deserialize;
use signorini_geometry::dim3::ConvexPolyhedron;
use signorini_math::{Mat3, Quat, Real, Vec3};
use signorini_world::PolyBody;
use std::path::{Path, PathBuf};

/// Gravity (m/s²).
pub const GRAVITY: Real = 9.81;
/// Circumradius of every dropped body (m).
pub(crate) const CIRCUMRADIUS: Real = 0.5;
/// Mass of every dropped body (kg).
pub(crate) const BODY_MASS: Real = 0.5;
/// Bodies per configuration of the `random` variant.
pub(crate) const BODIES_PER_CONFIG: usize = 11;

/// The drop orientation: 0.2 rad about (1, 2, 3)/|(1, 2, 3)|.
pub fn drop_orientation() -> Quat {
    Quat::from_axis_angle(
        &signorini_math::nalgebra::Unit::new_normalize(Vec3::new(1.0, 2.0, 3.0)),
        0.2,
    )
}

/// A body posed and moving as dropped, with gravity.
pub fn dropped(body: &PolyBody) -> PolyBody {
    body.clone()
        .with_pose(Vec3::new(3.0, 0.0, 2.0), drop_orientation())
        .with_velocity(Vec3::new(-5.0, 0.0, 0.0), Vec3::zeros())
        .with_gravity(Vec3::new(0.0, 0.0, -GRAVITY))
}

/// The stored scene's icosahedron: the authors' solid (`data/peg3d/icosahedron.json`, vertex 0
/// on +z, vertex order and faces as there; [`ConvexPolyhedron::authors_icosahedron`]) at
/// circumradius 0.5, mass 0.5, inertia 0.5·(3 + √5)/20·I₃.
pub fn icosahedron_body() -> PolyBody {
    // Constant data, so neither call can fail: the authors' 12 vertices and 20 faces at the
    // fixed circumradius 0.5 are one fixed input to `from_vertices_faces`, and mass 0.5 and
    // inertia 0.5·(3 + √5)/20 ≈ 0.13 are finite and positive, all `dynamic` checks. The test
    // `pile::tests::constant_bodies_build` builds it (so do the pour3d and pile tests).
    let shape = ConvexPolyhedron::authors_icosahedron(CIRCUMRADIUS).expect("icosahedron is valid");
    let j = 0.5 * (3.0 + 5f64.sqrt()) / 20.0;
    PolyBody::dynamic(shape, BODY_MASS, Mat3::identity() * j).expect("positive mass")
}

/// Which bodies are poured.
#[derive(Debug, Clone)]
pub enum Bodies {
    /// The authors' stored scene: identical icosahedra, one configuration.
    Icosahedra,
    /// Convex hulls of point sets (`random_polyhedra.json` or a file in its format).
    Random {
        /// Label used in file names (`random`, or the file stem).
        label: String,
        /// The file.
        path: PathBuf,
        /// The point sets, in file order.
        points: Vec<Vec<Vec3>>,
    },
}

#[derive(Deserialize)]
struct RawPolyhedra {
    bodies: Vec<RawPolyhedron>,
}

#[derive(Deserialize)]
struct RawPolyhedron {
    vertices_local: Vec<[f64; 3]>,
}

impl Bodies {
    /// Read a point-set file (`random_polyhedra.json` format: `{"bodies": [{"vertices_local":
    /// [[x, y, z], …]}, …]}`).
    pub fn read(label: &str, path: &Path) -> Result<Bodies, ExperimentError> {
        let text = std::fs::read_to_string(path).map_err(|e| ExperimentError::io(path, e))?;
        let raw: RawPolyhedra =
            serde_json::from_str(&text).map_err(|e| ExperimentError::Parse {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })?;
        Ok(Bodies::Random {
            label: label.into(),
            path: path.to_path_buf(),
            points: raw
                .bodies
                .into_iter()
                .map(|b| {
                    b.vertices_local
                        .iter()
                        .map(|p| Vec3::new(p[0], p[1], p[2]))
                        .collect()
                })
                .collect(),
        })
    }

    /// Label used in file names.
    pub fn label(&self) -> &str {
        match self {
            Bodies::Icosahedra => "icosahedra",
            Bodies::Random { label, .. } => label,
        }
    }

    /// The bodies of configuration `config` in drop order (`icosahedra`: an unlimited supply,
    /// returned as one template). Random bodies: hull, centred on the volume centroid, scaled
    /// to circumradius 0.5, mass 0.5, inertia of the geometry.
    pub fn config(&self, config: usize) -> Result<Vec<PolyBody>, ExperimentError> {
        match self {
            Bodies::Icosahedra if config == 0 => Ok(vec![icosahedron_body()]),
            Bodies::Icosahedra => Err(ExperimentError::Argument(format!(
                "icosahedra has one configuration (0), got {config}"
            ))),
            Bodies::Random { path, points, .. } => {
                let range = BODIES_PER_CONFIG * config..BODIES_PER_CONFIG * (config + 1);
                if range.end > points.len() {
                    return Err(ExperimentError::Argument(format!(
                        "{}: configuration {config} needs bodies {}..{}, the file has {}",
                        path.display(),
                        range.start,
                        range.end - 1,
                        points.len()
                    )));
                }
                range
                    .map(|i| random_body(&points[i]).map_err(|reason| body_error(path, i, reason)))
                    .collect()
            }
        }
    }

    /// True for the unlimited identical supply (icosahedra).
    pub fn unlimited(&self) -> bool {
        matches!(self, Bodies::Icosahedra)
    }
}

fn body_error(path: &Path, body: usize, reason: String) -> ExperimentError {
    ExperimentError::Body {
        path: path.to_path_buf(),
        body,
        field: "vertices_local",
        reason,
    }
}

/// One random body from its point set (see [`Bodies::config`]):
/// [`hull_body`]`(points, CIRCUMRADIUS, BODY_MASS)`.
pub(crate) fn random_body(points: &[Vec3]) -> Result<PolyBody, String> {
    hull_body(points, CIRCUMRADIUS, BODY_MASS)
}

/// A body from a point set (shared with 3D scene files): the convex hull, centred on its volume
/// centroid, scaled to `circumradius`, of mass `mass` with the inertia of its geometry.
pub fn hull_body(points: &[Vec3], circumradius: Real, mass: Real) -> Result<PolyBody, String> {
    let hull = ConvexPolyhedron::from_points(points).map_err(|e| e.to_string())?;
    let (centred, _) = hull.centred();
    let shape = centred.scaled(circumradius / centred.circumradius());
    let volume = shape.volume();
    let mp = shape.mass_properties(mass / volume);
    PolyBody::dynamic(shape, mass, mp.inertia).map_err(|e| e.to_string())
}
