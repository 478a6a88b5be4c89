//! 2D geometry: convex polygons, compounds, clipping, broad phase, distances.
//!
//! Conventions: polygons are counter-clockwise (positive signed area); edge `i` runs from
//! vertex `i` to vertex `i + 1 (mod n)`; the *inward* normal of an edge is its left normal.

mod aabb;
mod clip;
mod compound;
mod distance;
mod polygon;

pub use aabb::{Aabb, sweep_and_prune};
pub use clip::{SatOverlap, intersection_area, intersection_polygon, min_overlap_axis};
pub use compound::Compound;
pub use distance::{point_segment_distance, point_segment_sq_distance};
pub use polygon::{ConvexPolygon, PolygonError, polygon_area_signed};
