//! Complementarity problems and their solvers. Sees no geometry and no bodies.
//!
//! Owns: the problem types [`Lcp`] (w = Mz + q, 0 ≤ z ⟂ w ≥ 0) and [`Mcp`] (box-constrained
//! linear MCP, l ≤ z ≤ u, infinite bounds allowed, which covers the mixed LCP with free
//! variables), dense or from a [`CscMatrix`], and [`SparseMcp`] (the same with M kept
//! sparse); the solvers; the natural-map residual;
//! Siconos file I/O.
//! Does not own: how a contact model builds its matrices (that is `signorini-contact`).
//!
//! Every solve returns `Result<SolveInfo, SolveError>`; no input, however hard or malformed,
//! panics or hangs: every loop has a limit.
//!
//! # Solvers (one file each; user guide: `docs/complementarity.md`)
//!
//! | [`SolverKind`] | file | method | reference |
//! |---|---|---|---|
//! | `Lemke` | `lemke.rs` | complementary pivoting, covering vector d = e, lexicographic ratio test with relative tie tolerance 1e-11, z₀ leaves on ties, drift check + refinement + LU refactorisation, an inaccurate answer (n ≥ 400) repaired once from its own final basis, warm start from a basis or a z | Cottle, Pang & Stone, *The LCP* (1992), §4.4, Ex. 4.4.16 |
//! | (for `Lemke` on an MCP) | `reduce.rs` | box MCP → LCP: Schur complement of an invertible free block, else free variables kept basic (mixed Lemke), else split; shifted/flipped bounds and box multipliers | — |
//! | `FbNewton` | `fischer_burmeister.rs` | semismooth Newton on the penalized Fischer–Burmeister function, Billups' form for bounds, free variables handled directly, non-monotone Armijo, gradient fallback | De Luca, Facchinei & Kanzow, *Math. Prog.* 75 (1996) and *COAP* 16 (2000); Chen, Chen & Kanzow, *Math. Prog.* 88 (2000); Billups, thesis (1995) |
//! | (`Lemke`, sparse) | `lemke_sparse.rs` | [`lemke_sparse`]: the same pivoting rules on a sparse LCP, the basis kept as faer's sparse LU of a recent basis plus product-form updates (refactorised every [`SPARSE_LEMKE_REFACTOR_EVERY`] pivots), B⁻¹a per pivot and rows of B⁻¹ only on ties; warm start from a complementary basis (from the kept factors of the last answer when M is held in a [`SparseLemkeMatrix`]), a failed warm run followed by a cold one, an inaccurate answer restarted once from its final basis | Cottle, Pang & Stone (1992) §4.4; Chvátal, *Linear Programming* (1983), ch. 7–8 (revised simplex, eta file) |
//! | (`Lemke`, proximal) | `lemke_proximal.rs` | [`lemke_proximal`]: the proximal-point iteration, the sparse Lemke on M + εI (ε = 1e-4 · max|M_ii|) and then on q − ε z_k from the last basis (its kept factors), ε shrinking after a stalled round, the least-residual iterate on the original problem returned; the world's last stage on islands where the sparse Lemke and its rescue failed | Rockafellar, *SIAM J. Control Optim.* 14 (1976); Billups & Ferris, *Math. Prog.* 76 (1997) |
//! | `SparseNewton` | `newton_sparse.rs` | sparse semismooth Newton on the same reformulation for large sparse problems ([`SparseMcp`], [`solve_sparse`]): H = D_a + D_b M on the fixed pattern M ∪ diag, faer sparse LU (one symbolic analysis, `Par::Seq`), regularised and gradient fallbacks, non-monotone Armijo, active-set polish | Munson, Facchinei, Ferris, Fischer & Kanzow, *INFORMS J. Comput.* 13 (2001) |
//! | `Pgs` | `pgs.rs` | projected Gauss–Seidel / SOR (positive diagonal required) | Cryer (1971); Mangasarian (1977); Luo & Tseng (1992) |
//! | `Auto` | `auto.rs` | Lemke → Lemke with another covering vector → FB-Newton → Lemke on M + εI refined on the original; each candidate polished by one active-set Newton step (`polish.rs`) | `docs/formulation-notes.md` §12.5 |
//!
//! Dense linear solves of 400 unknowns or more (FB-Newton's direction, the polish, the Schur
//! complement of a mixed problem) use faer's blocked LU, smaller ones nalgebra's (`dense_lu.rs`).
//!
//! A result counts as solved when the natural-map residual ‖z − mid(l, u, z − w)‖∞ is at most
//! `SolveParams::tolerance · max(1, ‖q‖∞)`.

#![warn(missing_docs)]

mod auto;
mod basis_lu;
mod basis_reuse;
mod dense_lu;
mod fischer_burmeister;
mod lemke;
mod lemke_proximal;
mod lemke_sparse;
mod newton_sparse;
mod pgs;
mod polish;
mod problem;
mod reduce;
pub mod siconos;
mod solve;
mod sparse;
mod sparse_problem;

pub use auto::{BUDGET_SPENT, POLISH_ALWAYS_UP_TO};
pub use basis_reuse::LemkeFactor;
pub use lemke::FACTOR_RESTART_FROM;
pub use lemke_proximal::{ProximalLemkeInfo, ProximalLemkeParams, lemke_proximal};
pub use lemke_sparse::{
    SPARSE_LEMKE_REFACTOR_EVERY, SparseLemkeInfo, SparseLemkeMatrix, lemke_sparse,
};
pub use newton_sparse::{DEFAULT_ITERATIONS as SPARSE_NEWTON_DEFAULT_ITERATIONS, solve_sparse};
pub use polish::polish_small_lcp;
pub use problem::{Lcp, Mcp, ProblemError};
pub use siconos::{ParseError, ProblemKind};
pub use solve::{
    SolveError, SolveInfo, SolveParams, SolverKind, solve_lcp, solve_mcp, work_estimate,
};
pub use sparse::CscMatrix;
pub use sparse_problem::{SparseMcp, lcp_natural_residual};
