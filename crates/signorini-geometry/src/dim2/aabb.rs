//! 2D axis-aligned boxes: the shared [`crate::aabb::AabbN`] with `D = 2`.

/// An axis-aligned 2D box `[min, max]`.
pub type Aabb = crate::aabb::AabbN<2>;

pub use crate::aabb::sweep_and_prune;
