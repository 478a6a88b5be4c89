//! Problem types.
//!
//! Conventions (see `docs/conventions.md`):
//! - LCP(M, q): find z ≥ 0 with w = M z + q ≥ 0 and zᵀw = 0.
//! - Linear MCP(M, q, l, u): find l ≤ z ≤ u with w = M z + q such that
//!   z_i = l_i ⇒ w_i ≥ 0, z_i = u_i ⇒ w_i ≤ 0, l_i < z_i < u_i ⇒ w_i = 0.
//!   A free variable has l_i = −∞, u_i = +∞ (then w_i = 0): this is the mixed LCP of
//!   Stewart–Trinkle and PEG time stepping.

use nalgebra::{DMatrix, DVector};
use signorini_math::Real;

/// Why a problem could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProblemError {
    /// Matrix and vector sizes disagree.
    #[error("dimension mismatch: {0}")]
    Dimension(String),
    /// A NaN or infinite entry where a finite one is required.
    #[error("non-finite value in {what} at index {index}")]
    NonFinite {
        /// Which input (`M`, `q`, `lower`, `upper`).
        what: &'static str,
        /// Linear index (column-major for matrices).
        index: usize,
    },
    /// A lower bound above its upper bound, or a NaN bound.
    #[error("invalid bounds at index {index}: lower {lower} > upper {upper}")]
    Bounds {
        /// Variable index.
        index: usize,
        /// Lower bound.
        lower: Real,
        /// Upper bound.
        upper: Real,
    },
}

/// A linear complementarity problem LCP(M, q): 0 ≤ z ⟂ M z + q ≥ 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Lcp {
    /// Square matrix M (n × n).
    pub m: DMatrix<Real>,
    /// Vector q (length n).
    pub q: DVector<Real>,
}

impl Lcp {
    /// Build and validate an LCP (square M, matching q, all entries finite).
    pub fn new(m: DMatrix<Real>, q: DVector<Real>) -> Result<Self, ProblemError> {
        check_square(&m, &q)?;
        check_finite("M", m.as_slice())?;
        check_finite("q", q.as_slice())?;
        Ok(Lcp { m, q })
    }

    /// Problem size n.
    pub fn dim(&self) -> usize {
        self.q.len()
    }

    /// Natural-map residual ‖min(z, Mz + q)‖∞ (the LCP case of [`Mcp::residual`], without
    /// copying M). Zero iff z solves the LCP; +∞ if any entry is non-finite.
    pub fn residual(&self, z: &DVector<Real>) -> Real {
        if z.len() != self.dim() {
            return Real::INFINITY;
        }
        let w = &self.m * z + &self.q;
        let mut r: Real = 0.0;
        for (zi, wi) in z.iter().zip(w.iter()) {
            let d = zi.min(*wi).abs();
            if !d.is_finite() {
                return Real::INFINITY;
            }
            r = r.max(d);
        }
        r
    }

    /// The same problem as a box MCP with l = 0, u = +∞.
    pub fn to_mcp(&self) -> Mcp {
        let n = self.dim();
        Mcp {
            m: self.m.clone(),
            q: self.q.clone(),
            lower: DVector::zeros(n),
            upper: DVector::from_element(n, Real::INFINITY),
        }
    }

    /// [`Lcp::to_mcp`] without copying M: `solve_mcp(&lcp.into_mcp(), …)` is
    /// `solve_lcp(&lcp, …)` minus a dense n² copy (tens of MB on a large island).
    pub fn into_mcp(self) -> Mcp {
        let n = self.dim();
        Mcp {
            m: self.m,
            q: self.q,
            lower: DVector::zeros(n),
            upper: DVector::from_element(n, Real::INFINITY),
        }
    }
}

/// A box-constrained linear MCP: l ≤ z ≤ u, w = M z + q, w ⟂ the box (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Mcp {
    /// Square matrix M (n × n).
    pub m: DMatrix<Real>,
    /// Vector q (length n).
    pub q: DVector<Real>,
    /// Lower bounds (length n); `-inf` allowed.
    pub lower: DVector<Real>,
    /// Upper bounds (length n); `+inf` allowed.
    pub upper: DVector<Real>,
}

impl Mcp {
    /// Build and validate an MCP.
    pub fn new(
        m: DMatrix<Real>,
        q: DVector<Real>,
        lower: DVector<Real>,
        upper: DVector<Real>,
    ) -> Result<Self, ProblemError> {
        let mcp = Mcp { m, q, lower, upper };
        mcp.validate()?;
        Ok(mcp)
    }

    /// The checks of [`Mcp::new`] on a problem built field by field (its fields are public):
    /// square, finite, l ≤ u.
    pub fn validate(&self) -> Result<(), ProblemError> {
        check_square(&self.m, &self.q)?;
        check_finite("M", self.m.as_slice())?;
        check_finite("q", self.q.as_slice())?;
        check_bounds(self.q.len(), &self.lower, &self.upper)
    }

    /// A mixed LCP: the first `n_free` variables are free, the rest are ≥ 0.
    pub fn mixed(m: DMatrix<Real>, q: DVector<Real>, n_free: usize) -> Result<Self, ProblemError> {
        let n = q.len();
        if n_free > n {
            return Err(ProblemError::Dimension(format!("n_free {n_free} > n {n}")));
        }
        let lower = DVector::from_fn(n, |i, _| if i < n_free { Real::NEG_INFINITY } else { 0.0 });
        let upper = DVector::from_element(n, Real::INFINITY);
        Mcp::new(m, q, lower, upper)
    }

    /// Problem size n.
    pub fn dim(&self) -> usize {
        self.q.len()
    }

    /// w = M z + q.
    pub fn w(&self, z: &DVector<Real>) -> DVector<Real> {
        &self.m * z + &self.q
    }

    /// Natural-map residual ‖z − mid(l, u, z − w)‖∞ with w = M z + q. Zero iff z solves the MCP.
    /// Returns +∞ if any entry is non-finite.
    pub fn residual(&self, z: &DVector<Real>) -> Real {
        self.residual_with(z, &self.w(z))
    }

    /// [`Mcp::residual`] with `w = M z + q` already computed ([`Mcp::w`]).
    pub(crate) fn residual_with(&self, z: &DVector<Real>, w: &DVector<Real>) -> Real {
        crate::sparse_problem::natural_residual(z, w, &self.lower, &self.upper)
    }
}

fn check_square(m: &DMatrix<Real>, q: &DVector<Real>) -> Result<(), ProblemError> {
    check_dimensions(m.nrows(), m.ncols(), q.len())
}

/// M (rows × cols) square and matching q's length (dense or sparse M).
pub(crate) fn check_dimensions(rows: usize, cols: usize, n: usize) -> Result<(), ProblemError> {
    if rows != cols || rows != n {
        return Err(ProblemError::Dimension(format!(
            "M is {rows}×{cols}, q has length {n}"
        )));
    }
    Ok(())
}

/// Bounds of a box MCP of size `n` (dense or sparse): lengths n, no NaN, l ≤ u, l < +∞,
/// u > −∞.
pub(crate) fn check_bounds(
    n: usize,
    lower: &DVector<Real>,
    upper: &DVector<Real>,
) -> Result<(), ProblemError> {
    if lower.len() != n || upper.len() != n {
        return Err(ProblemError::Dimension(format!(
            "bounds have lengths {} and {}, q has {n}",
            lower.len(),
            upper.len(),
        )));
    }
    for i in 0..n {
        let (l, u) = (lower[i], upper[i]);
        if l.is_nan() || u.is_nan() || l > u || l == Real::INFINITY || u == Real::NEG_INFINITY {
            return Err(ProblemError::Bounds {
                index: i,
                lower: l,
                upper: u,
            });
        }
    }
    Ok(())
}

fn check_finite(what: &'static str, v: &[Real]) -> Result<(), ProblemError> {
    // Blocks of 256 without an early exit inside (so the test vectorises: a dense n² matrix
    // is validated on every solve), then the first bad index if a block has one.
    if v.chunks(256)
        .all(|b| b.iter().fold(true, |ok, x| ok & x.is_finite()))
    {
        return Ok(());
    }
    match v.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(ProblemError::NonFinite { what, index }),
        None => Ok(()),
    }
}
