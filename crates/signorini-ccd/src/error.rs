//! Error types of the CCD crate.
//!
//! Owns: [`CcdError`] (kernel input validation) and [`ParseError`] (benchmark query files).

use thiserror::Error;

/// Invalid kernel input.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CcdError {
    /// A coordinate is NaN or infinite.
    #[error("vertex {vertex} coordinate {coord} is not finite")]
    NonFinite {
        /// Vertex index in query order (`0..4` at `t = 0`, `4..8` at `t = 1`).
        vertex: usize,
        /// Axis (0 = x, 1 = y, 2 = z).
        coord: usize,
    },
}

/// A malformed benchmark query file.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    /// 1-based line number (0 for whole-file problems).
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// An invalid triangle mesh for the broad phase.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum MeshError {
    /// Start and end position arrays differ in length.
    #[error("{start} start positions but {end} end positions")]
    LengthMismatch {
        /// Number of positions at `t = 0`.
        start: usize,
        /// Number of positions at `t = 1`.
        end: usize,
    },
    /// A triangle refers to a vertex that does not exist.
    #[error("triangle {triangle} refers to vertex {vertex}, but there are only {count} vertices")]
    IndexOutOfRange {
        /// Triangle index.
        triangle: usize,
        /// The offending vertex index.
        vertex: u32,
        /// Number of vertices.
        count: usize,
    },
    /// A triangle repeats a vertex.
    #[error("triangle {triangle} repeats a vertex")]
    DegenerateTriangle {
        /// Triangle index.
        triangle: usize,
    },
    /// A BVH was refit with a different number of primitives than it was built with.
    #[error("refit with {found} primitives, but the BVH was built over {expected}")]
    TopologyMismatch {
        /// Primitive count at build time.
        expected: usize,
        /// Primitive count given to refit.
        found: usize,
    },
    /// A position is NaN or infinite.
    #[error("vertex {vertex} position is not finite")]
    NonFinite {
        /// Vertex index.
        vertex: usize,
    },
}
