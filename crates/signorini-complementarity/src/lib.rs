//! Complementarity problems and their solvers. Sees no geometry and no bodies.
//!
//! Owns: the problem types [`Lcp`] (w = Mz + q, 0 ≤ z ⟂ w ≥ 0) and [`Mcp`] (box-constrained
//! linear MCP, l ≤ z ≤ u, infinite bounds allowed, which covers the mixed LCP with free
//! variables); the solvers; the natural-map residual; Siconos file I/O.
//! Does not own: how a contact model builds its matrices (that is `signorini-contact`).
//!
//! Every solve returns `Result<SolveInfo, SolveError>`; no input, however hard or malformed,
//! panics or hangs: every loop has a limit.

mod auto;
mod fischer_burmeister;
mod lemke;
mod pgs;
mod polish;
mod problem;
mod reduce;
pub mod siconos;
mod solve;

pub use problem::{Lcp, Mcp, ProblemError};
pub use siconos::{ParseError, ProblemKind};
pub use solve::{SolveError, SolveInfo, SolveParams, SolverKind, solve_lcp, solve_mcp};
