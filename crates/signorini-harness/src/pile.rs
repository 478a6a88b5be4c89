//! The pile scaling experiment's scene: N bodies on a lattice (or poured one at a time) in an
//! open box, in 2D or 3D (`signorini experiment pile`; docs/guide.md).
//!
//! 3D: body k uses point set `k mod 500` of `random_polyhedra.json` (`polyhedra::random_body`),
//! or [`polyhedra::icosahedron_body`], or a cube of circumradius 0.5 (edge 1/√3, mass 0.5, inertia
//! of the geometry). Lattice spacing [`SPACING`] = 1.15 m, n = ⌈∛N⌉ sites per horizontal axis
//! (integer arithmetic, [`ceil_root`]); body k at i = k mod n, j = (k / n) mod n, l = k / n²,
//! centre ((i − (n−1)/2)·s, (j − (n−1)/2)·s, s/2 + l·s), identity orientation, at rest,
//! gravity 9.81 m/s² along −z. The box: `Compound3::open_box(n·s + 0.25, n·s + 0.25,
//! layers·s + 1, 0.25)` (floor top at z = 0, inner footprint n·s × n·s).
//! 2D: body k is body (k mod 250) of the shared sets a…j in order, with its own shape, mass,
//! inertia, external force (m·g, as pour2d) and file angle, at rest; spacing s₂ = 1.15 · 2 ·
//! (the largest circumradius about the body origin over the 250 bodies); n = ⌈√N⌉ columns,
//! body k at column k mod n, row k / n, centre ((i − (n−1)/2)·s₂, s₂/2 + row·s₂); the box is
//! three static rectangles [`open_box2`] of inner width n·s₂ and wall height rows·s₂ + 1.
//!
//! Owns: the lattice arithmetic (shared with scene files' `[[body_set]] lattice`), the body
//! supplies, the boxes, the pour layout's spawn point and drop interval. Does not own: the run
//! and its outputs (`signorini-experiments::pile_run`), the physics.

use crate::ExperimentError;
use crate::bodyset::{BodySet, load_body_set, resolve_set};
use crate::polyhedra::{self, BODY_MASS, CIRCUMRADIUS, GRAVITY, icosahedron_body, random_body};
use signorini_dynamics::RigidBody2;
use signorini_geometry::dim2::{Compound, ConvexPolygon};
use signorini_geometry::dim3::{Compound3, ConvexPolyhedron};
use signorini_math::{Quat, Real, Vec2, Vec3};
use signorini_world::PolyBody;
use std::path::Path;

/// 3D lattice spacing (m).
pub const SPACING: Real = 1.15;
/// Spacing factor over the bodies' diameter (2D lattice: s₂ = 1.15 · 2 · r_max).
pub(crate) const SPACING_FACTOR: Real = 1.15;
/// Wall and floor thickness of both boxes (m).
pub(crate) const WALL: Real = 0.25;
/// Head room of the walls above the top lattice row (m).
pub(crate) const HEADROOM: Real = 1.0;
/// Point sets in `random_polyhedra.json` used cyclically.
pub(crate) const RANDOM_SETS: usize = 500;
/// The ten shared 2D body sets, in order.
pub(crate) const SET_LETTERS: &str = "abcdefghij";

/// Spatial dimension of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    /// Polygons in `World`.
    Two,
    /// Polyhedra in `World3`.
    Three,
}

impl Dim {
    /// 2 or 3.
    pub fn number(self) -> usize {
        match self {
            Dim::Two => 2,
            Dim::Three => 3,
        }
    }
}

/// Which bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// 3D: random hulls; 2D: the shared body sets (random polygons).
    Random,
    /// 3D only: regular icosahedra.
    Icosahedra,
    /// 3D only: cubes of circumradius 0.5.
    Boxes,
}

impl Shape {
    /// Parse `random`, `icosahedra`, `boxes`.
    pub fn parse(s: &str) -> Option<Shape> {
        match s.trim() {
            "random" => Some(Shape::Random),
            "icosahedra" => Some(Shape::Icosahedra),
            "boxes" => Some(Shape::Boxes),
            _ => None,
        }
    }

    /// Name in file names and the summary.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Random => "random",
            Shape::Icosahedra => "icosahedra",
            Shape::Boxes => "boxes",
        }
    }
}

/// Where the bodies start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// All on the lattice before the first step.
    Lattice,
    /// Dropped one at a time above the box centre.
    Pour,
}

impl Layout {
    /// Parse `lattice`, `pour`.
    pub fn parse(s: &str) -> Option<Layout> {
        match s.trim() {
            "lattice" => Some(Layout::Lattice),
            "pour" => Some(Layout::Pour),
            _ => None,
        }
    }
}

/// The smallest m with m^root ≥ n (integers only: no floating-point root).
pub fn ceil_root(n: usize, root: u32) -> usize {
    let mut m = 0usize;
    while m.pow(root) < n {
        m += 1;
    }
    m
}

/// Lattice of `bodies` sites: `n` per horizontal axis, `levels` layers (3D) or rows (2D).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lattice {
    /// Sites per horizontal axis (3D: ⌈∛N⌉; 2D: ⌈√N⌉ columns).
    pub n: usize,
    /// Layers (3D) or rows (2D) holding at least one body.
    pub levels: usize,
    /// Spacing (m).
    pub spacing: Real,
}

impl Lattice {
    /// The lattice of `bodies` bodies in dimension `dim` with spacing `spacing`.
    pub fn new(dim: Dim, bodies: usize, spacing: Real) -> Lattice {
        let (n, per_level) = match dim {
            Dim::Three => {
                let n = ceil_root(bodies, 3);
                (n, n * n)
            }
            Dim::Two => {
                let n = ceil_root(bodies, 2);
                (n, n)
            }
        };
        Lattice {
            n,
            levels: bodies.div_ceil(per_level.max(1)),
            spacing,
        }
    }

    /// Centre of site k in 3D.
    pub fn site3(&self, k: usize) -> Vec3 {
        lattice_site3(k, self.n, self.spacing)
    }

    /// Centre of site k in 2D.
    pub fn site2(&self, k: usize) -> Vec2 {
        lattice_site2(k, self.n, self.spacing)
    }

    /// Inner width of the box (n·s).
    pub fn inner_width(&self) -> Real {
        self.n as Real * self.spacing
    }

    /// Height of the top level's centre plus one spacing: the pour layout's spawn height.
    pub fn spawn_height(&self) -> Real {
        self.spacing / 2.0 + self.levels as Real * self.spacing
    }
}

/// (i − (n−1)/2)·s.
pub(crate) fn lattice_offset(i: usize, n: usize, spacing: Real) -> Real {
    (i as Real - (n as Real - 1.0) / 2.0) * spacing
}

/// Site k of a 3D lattice with `n` sites per horizontal axis (shared with scene files).
pub fn lattice_site3(k: usize, n: usize, spacing: Real) -> Vec3 {
    let (i, j, l) = (k % n, (k / n) % n, k / (n * n));
    Vec3::new(
        lattice_offset(i, n, spacing),
        lattice_offset(j, n, spacing),
        spacing / 2.0 + l as Real * spacing,
    )
}

/// Site k of a 2D lattice with `n` columns (shared with scene files).
pub fn lattice_site2(k: usize, n: usize, spacing: Real) -> Vec2 {
    let (i, row) = (k % n, k / n);
    Vec2::new(
        lattice_offset(i, n, spacing),
        spacing / 2.0 + row as Real * spacing,
    )
}

/// The 3D open box of a lattice: `open_box(n·s + t, n·s + t, levels·s + 1, t)`.
///
/// # Errors
/// [`ExperimentError::Argument`] if the lattice's size or spacing gives no valid box (a
/// spacing that is not finite and positive, or a size that overflows f64).
pub fn open_box3(lat: &Lattice) -> Result<Compound3, ExperimentError> {
    let w = lat.inner_width() + WALL;
    let height = lat.levels as Real * lat.spacing + HEADROOM;
    Compound3::open_box(w, w, height, WALL).map_err(|e| box_error(lat, &e))
}

/// The 2D open box of a lattice: floor [−W/2 − t, W/2 + t] × [−t, 0], walls
/// [−W/2 − t, −W/2] and [W/2, W/2 + t] × [0, rows·s₂ + 1], W = n·s₂, t = 0.25.
///
/// # Errors
/// As [`open_box3`].
pub fn open_box2(lat: &Lattice) -> Result<Compound, ExperimentError> {
    let parts = box2_rectangles(lat)
        .iter()
        .map(|&(x0, y0, x1, y1)| ConvexPolygon::rectangle(x0, y0, x1, y1))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| box_error(lat, &e))?;
    // Never empty: `box2_rectangles` returns three rectangles, all of them in `parts`.
    Ok(Compound::new(parts).expect("three parts"))
}

/// Why a lattice gives no box.
fn box_error(lat: &Lattice, e: &dyn std::fmt::Display) -> ExperimentError {
    ExperimentError::Argument(format!(
        "pile box of {} × {} sites at spacing {} m: {e}",
        lat.n, lat.levels, lat.spacing
    ))
}

/// The rectangles `(x0, y0, x1, y1)` of [`open_box2`]: floor, left wall, right wall.
pub(crate) fn box2_rectangles(lat: &Lattice) -> [(Real, Real, Real, Real); 3] {
    let half = lat.inner_width() / 2.0;
    let top = lat.levels as Real * lat.spacing + HEADROOM;
    [
        (-half - WALL, -WALL, half + WALL, 0.0),
        (-half - WALL, 0.0, -half, top),
        (half, 0.0, half + WALL, top),
    ]
}

/// A cube of circumradius 0.5 (edge 1/√3), mass 0.5, inertia of the geometry.
pub(crate) fn cube_body() -> PolyBody {
    // Constant data, so neither call can fail: with a finite half-extent h = 0.5/√3 > 0 the
    // cuboid's eight vertices (±h, ±h, ±h) form an exact box (each face's four vertices share
    // one exact coordinate), which passes every check of `from_vertices_faces`; the density
    // 0.5 / (2h)³ ≈ 2.6 is then finite and positive, all `from_density` checks. The test
    // `constant_bodies_build` below builds it.
    let half = CIRCUMRADIUS / 3f64.sqrt();
    let shape = ConvexPolyhedron::cuboid(Vec3::new(half, half, half)).expect("cube is valid");
    let volume = shape.volume();
    PolyBody::from_density(&shape, BODY_MASS / volume).expect("positive mass")
}

/// The unposed 3D bodies 0…count−1 of a shape (`random`: point set k mod 500 of `points`).
pub fn bodies3(
    shape: Shape,
    count: usize,
    random: Option<&polyhedra::Bodies>,
) -> Result<Vec<PolyBody>, ExperimentError> {
    match shape {
        Shape::Icosahedra => Ok(vec![icosahedron_body(); count]),
        Shape::Boxes => Ok(vec![cube_body(); count]),
        Shape::Random => {
            let Some(polyhedra::Bodies::Random { path, points, .. }) = random else {
                return Err(ExperimentError::Argument(
                    "random 3D bodies need random_polyhedra.json".into(),
                ));
            };
            let m = points.len().min(RANDOM_SETS);
            if m == 0 {
                return Err(ExperimentError::Parse {
                    path: path.clone(),
                    reason: "`bodies` is empty".into(),
                });
            }
            (0..count)
                .map(|k| {
                    random_body(&points[k % m]).map_err(|reason| ExperimentError::Body {
                        path: path.clone(),
                        body: k % m,
                        field: "vertices_local",
                        reason,
                    })
                })
                .collect()
        }
    }
}

/// The ten shared 2D body sets a…j from `<data>/body_sets/`.
pub fn load_sets2(data: &Path) -> Result<Vec<BodySet>, ExperimentError> {
    SET_LETTERS
        .chars()
        .map(|l| {
            let (label, path) = resolve_set(&l.to_string(), data);
            load_body_set(&label, &path)
        })
        .collect()
}

/// The 2D bodies in order: every body of every set, sets in order (body k = entry k mod len).
pub fn supply2(sets: &[BodySet]) -> Vec<RigidBody2> {
    sets.iter()
        .flat_map(|s| s.bodies.iter().map(|b| b.body.clone()))
        .collect()
}

/// Largest circumradius about the body origin over `bodies`.
pub(crate) fn max_radius2(bodies: &[RigidBody2]) -> Real {
    bodies
        .iter()
        .flat_map(|b| b.shape.vertices().iter().map(|v| v.norm()))
        .fold(0.0, Real::max)
}

/// 2D lattice spacing for a supply: 1.15 · 2 · `max_radius2`.
pub fn spacing2(bodies: &[RigidBody2]) -> Real {
    SPACING_FACTOR * 2.0 * max_radius2(bodies)
}

/// A 3D body posed at `at` with identity orientation, at rest, with gravity.
pub fn placed3(body: &PolyBody, at: Vec3) -> PolyBody {
    body.clone()
        .with_pose(at, Quat::identity())
        .with_velocity(Vec3::zeros(), Vec3::zeros())
        .with_gravity(Vec3::new(0.0, 0.0, -GRAVITY))
}

/// A 2D body posed at `at` with its file angle, at rest (its external force as in the file).
pub fn placed2(body: &RigidBody2, at: Vec2) -> RigidBody2 {
    body.clone()
        .with_pose(at, body.angle)
        .with_velocity(Vec3::zeros())
}

/// Steps between drops of the pour layout: the time to fall one spacing from rest,
/// √(2s/g), rounded up to whole steps, doubled.
pub fn pour_interval(spacing: Real, h: Real) -> usize {
    let fall = (2.0 * spacing / GRAVITY).sqrt();
    2 * ((fall / h).ceil() as usize).max(1)
}

#[cfg(test)]
mod tests {
    /// The bodies built from constants with `expect` ([`super::cube_body`],
    /// [`crate::polyhedra::icosahedron_body`]) do build.
    #[test]
    fn constant_bodies_build() {
        let cube = super::cube_body();
        let icosahedron = crate::polyhedra::icosahedron_body();
        assert!(cube.shape.volume() > 0.0 && icosahedron.shape.volume() > 0.0);
    }
}
