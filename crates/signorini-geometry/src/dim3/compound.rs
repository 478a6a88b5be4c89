//! Static compounds: a union of convex polyhedra sharing one frame (e.g. the pour3d box made
//! of five hexahedra, docs/formulation-notes.md §9).
//!
//! Owns: the list of parts. Does not own: how parts become bodies (each part of a static
//! compound becomes its own static body in the world).

use super::polyhedron::{ConvexPolyhedron, PolyhedronError};
use signorini_math::{Real, Vec3};

/// A union of convex polyhedra in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Compound3 {
    parts: Vec<ConvexPolyhedron>,
}

impl Compound3 {
    /// Build from at least one part; `None` if `parts` is empty.
    pub fn new(parts: Vec<ConvexPolyhedron>) -> Option<Self> {
        if parts.is_empty() {
            None
        } else {
            Some(Compound3 { parts })
        }
    }

    /// An open box (floor and four walls, five axis-aligned hexahedra), the pour3d container
    /// of docs/formulation-notes.md §9 for `w = 10, l = 4, height = 4, t = 0.25`: walls of
    /// thickness `t` centred on `x = ±w/2` (size `t × (l + t) × height`) and `y = ±l/2` (size
    /// `(w + t) × t × height`), spanning `z ∈ [−t, height − t]`; the floor `(w + t) × (l + t) × t`
    /// spans `z ∈ [−t, 0]`.
    /// The inner region is `[−(w − t)/2, (w − t)/2] × [−(l − t)/2, (l − t)/2]` above `z = 0`.
    pub fn open_box(w: Real, l: Real, height: Real, t: Real) -> Result<Self, PolyhedronError> {
        let block = |half: Vec3, centre: Vec3| {
            ConvexPolyhedron::cuboid(half).map(|c| c.translated(&centre))
        };
        let zc = height / 2.0 - t;
        let x_wall = Vec3::new(t / 2.0, (l + t) / 2.0, height / 2.0);
        let y_wall = Vec3::new((w + t) / 2.0, t / 2.0, height / 2.0);
        let parts = vec![
            block(
                Vec3::new((w + t) / 2.0, (l + t) / 2.0, t / 2.0),
                Vec3::new(0.0, 0.0, -t / 2.0),
            )?,
            block(x_wall, Vec3::new(-w / 2.0, 0.0, zc))?,
            block(x_wall, Vec3::new(w / 2.0, 0.0, zc))?,
            block(y_wall, Vec3::new(0.0, -l / 2.0, zc))?,
            block(y_wall, Vec3::new(0.0, l / 2.0, zc))?,
        ];
        Ok(Compound3 { parts })
    }

    /// The convex parts.
    pub fn parts(&self) -> &[ConvexPolyhedron] {
        &self.parts
    }

    /// Total volume of the parts (overlaps between parts counted twice).
    pub fn volume(&self) -> Real {
        self.parts.iter().map(|p| p.volume()).sum()
    }
}
