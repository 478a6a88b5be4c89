//! Compound shapes: a union of convex polygons sharing one frame (e.g. an open box made of
//! three rectangles). Non-convex static containers are represented this way.
//!
//! Owns: the list of parts and its validation. Does not own: how parts become bodies (the
//! world turns every part of a static compound into its own static body).

use super::polygon::ConvexPolygon;

/// A union of convex polygons in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Compound {
    parts: Vec<ConvexPolygon>,
}

impl Compound {
    /// Build from at least one part; `None` if `parts` is empty.
    pub fn new(parts: Vec<ConvexPolygon>) -> Option<Self> {
        if parts.is_empty() {
            None
        } else {
            Some(Compound { parts })
        }
    }

    /// The convex parts.
    pub fn parts(&self) -> &[ConvexPolygon] {
        &self.parts
    }

    /// Total area of the parts (overlaps between parts counted twice).
    pub fn area(&self) -> signorini_math::Real {
        self.parts.iter().map(|p| p.area()).sum()
    }
}
