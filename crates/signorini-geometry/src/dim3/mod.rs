//! 3D geometry: convex polyhedra with feature adjacency, convex hulls, exact mass properties,
//! exact intersection volumes, compounds, broad phase, feature distances, a certified separation
//! test (GJK).
//!
//! Conventions (docs/formulation-notes.md §2): faces are counter-clockwise seen from outside, so
//! the Newell normal is the outward normal; edge `k` runs tail → head in its first face `f1` and
//! head → tail in `f2`; `t₁ = n̂₁ × ê` and `t₂ = ê × n̂₂` point from the edge into f1 and f2 (paper
//! Eq. 29).

mod aabb;
mod clip;
mod compound;
mod distance;
mod gjk;
mod hull;
mod mass;
mod polyhedron;
mod sat;

pub use aabb::{Aabb3, sweep_and_prune3};
pub use clip::{
    clip_by_halfspaces, intersection_volume, intersection_volume_bound, polytope_volume,
};
pub use compound::Compound3;
pub use distance::{closest_on_polygon, closest_on_segment, closest_segment_segment};
pub use gjk::separated;
pub use hull::MAX_HULL_POINTS;
pub use mass::MassProperties3;
pub use polyhedron::{
    AUTHORS_ICOSAHEDRON_FACES, AUTHORS_ICOSAHEDRON_VERTICES, ConvexPolyhedron, Edge, Face,
    PolyhedronError,
};
pub use sat::penetration_depth;
