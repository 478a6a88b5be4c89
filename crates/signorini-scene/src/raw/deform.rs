//! Serde types of the deformable fields of a scene file (`[deformables]`, `[[deformable]]`),
//! as `raw/mod.rs` for the rest: types only, rules in `validate/deform.rs`. Reference:
//! `docs/scene-format.md` ("Deformable bodies").

use crate::raw::{RawRotation, RawShape};
use serde::Deserialize;

/// `[deformables]`: settings of the deformable world.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDeformables {
    /// Sub-steps of the internal (spring, pressure) forces per contact step (default 1).
    pub substeps: Option<usize>,
    /// Deformable self-collision (default true).
    pub self_collision: Option<bool>,
    /// Measure crossings every this many steps (default 1 = every step).
    pub measure_every: Option<usize>,
}

/// `[[deformable]]`: a cloth or a soft shell.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDeformable {
    /// Name (default `deformable<k>`).
    pub name: Option<String>,
    /// Geometry: `grid` (cloth), `primitive`, `mesh` or `box`.
    pub shape: RawShape,
    /// Material.
    pub material: RawDeformMaterial,
    /// Pinned vertices: indices, `"corners"` (grids) or `"all"`.
    pub pins: Option<RawPins>,
    /// Position of the shape's origin (m).
    pub position: Option<Vec<f64>>,
    /// Orientation (as `[[body]].rotation`), applied before `position`.
    pub rotation: Option<RawRotation>,
    /// Uniform initial velocity of the free vertices `[vx, vy, vz]` (m/s).
    pub velocity: Option<Vec<f64>>,
    /// Initial velocity gradient `L` (1/s), three rows of three: the free vertices also get
    /// `L (x − velocity_origin)`.
    pub velocity_gradient: Option<Vec<Vec<f64>>>,
    /// Where the gradient's part of the velocity is zero `[x, y, z]` (m; default the origin).
    pub velocity_origin: Option<Vec<f64>>,
    /// Display colour in the report (CSS).
    pub color: Option<String>,
}

/// Mass-spring material of a deformable (`signorini_deformable::Material`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDeformMaterial {
    /// Mass per unit area (kg/m²).
    pub areal_density: Option<f64>,
    /// Total mass (kg), instead of `areal_density`.
    pub mass: Option<f64>,
    /// Stretch spring stiffness (N/m).
    pub stretch: Option<f64>,
    /// Shear spring stiffness (N/m; default 0).
    pub shear: Option<f64>,
    /// Bend spring stiffness (N/m; default 0).
    pub bend: Option<f64>,
    /// Spring damping (N s/m; default 0).
    pub damping: Option<f64>,
    /// Pressure bulk modulus of a closed shell (Pa; default 0 = none).
    pub pressure: Option<f64>,
    /// Velocity drag (1/s; default 0).
    pub drag: Option<f64>,
}

/// Pinned vertices (deserialised in `raw/de.rs`: a negative index is named as such).
#[derive(Debug, Clone, PartialEq)]
pub enum RawPins {
    /// Vertex indices.
    Indices(Vec<usize>),
    /// `"corners"` or `"all"`.
    Named(String),
}
