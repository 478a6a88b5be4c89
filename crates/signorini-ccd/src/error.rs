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
