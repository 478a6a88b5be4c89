//! 3D axis-aligned boxes: the shared [`crate::aabb::AabbN`] with `D = 3`.

/// An axis-aligned 3D box `[min, max]`.
pub type Aabb3 = crate::aabb::AabbN<3>;

pub use crate::aabb::sweep_and_prune as sweep_and_prune3;
