//! The sparse box MCP: [`SparseMcp`], the [`Mcp`] of `problem.rs` with M in CSC form.
//!
//! Owns: [`SparseMcp`] (validation, w = M z + q, the natural-map residual, conversion to and
//! from the dense [`Mcp`]). Does not own: its solver (`newton_sparse.rs`).
//!
//! Same conventions as [`Mcp`]: l ≤ z ≤ u, w = M z + q, z_i = l_i ⇒ w_i ≥ 0,
//! z_i = u_i ⇒ w_i ≤ 0, l_i < z_i < u_i ⇒ w_i = 0. Any box is allowed: free (−∞, ∞),
//! lower-bounded [l, ∞), upper-bounded (−∞, u], two-sided [l, u] and fixed (l = u).

use nalgebra::DVector;
use signorini_math::Real;

use crate::{CscMatrix, Mcp, ProblemError};

/// A box-constrained linear MCP whose matrix is sparse (CSC). The matrix is kept in
/// canonical form (rows sorted within columns, no duplicates) by [`SparseMcp::new`].
#[derive(Debug, Clone, PartialEq)]
pub struct SparseMcp {
    /// Square matrix M (n × n), canonical CSC.
    pub m: CscMatrix,
    /// Vector q (length n).
    pub q: DVector<Real>,
    /// Lower bounds (length n); `-inf` allowed.
    pub lower: DVector<Real>,
    /// Upper bounds (length n); `+inf` allowed.
    pub upper: DVector<Real>,
}

impl SparseMcp {
    /// Build and validate (square M, matching lengths, finite M and q, l ≤ u, no bound
    /// l = +∞ or u = −∞), like [`Mcp::new`]. A non-canonical M (unsorted rows, duplicates)
    /// is brought to canonical form, duplicates summed.
    pub fn new(
        m: CscMatrix,
        q: DVector<Real>,
        lower: DVector<Real>,
        upper: DVector<Real>,
    ) -> Result<Self, ProblemError> {
        check(&m, &q, &lower, &upper)?;
        let m = if m.is_canonical() { m } else { m.canonical()? };
        Ok(SparseMcp { m, q, lower, upper })
    }

    /// Check a problem in place, without copying it (its public fields may have been changed
    /// since [`SparseMcp::new`]): the checks of `new`, and M still canonical.
    pub fn validate(&self) -> Result<(), ProblemError> {
        check(&self.m, &self.q, &self.lower, &self.upper)?;
        if !self.m.is_canonical() {
            return Err(ProblemError::Dimension(
                "M is not in canonical CSC form (unsorted or duplicate rows)".into(),
            ));
        }
        Ok(())
    }

    /// A mixed LCP: the first `n_free` variables are free, the rest are ≥ 0.
    pub fn mixed(m: CscMatrix, q: DVector<Real>, n_free: usize) -> Result<Self, ProblemError> {
        let n = q.len();
        if n_free > n {
            return Err(ProblemError::Dimension(format!("n_free {n_free} > n {n}")));
        }
        let lower = DVector::from_fn(n, |i, _| if i < n_free { Real::NEG_INFINITY } else { 0.0 });
        let upper = DVector::from_element(n, Real::INFINITY);
        SparseMcp::new(m, q, lower, upper)
    }

    /// An LCP (l = 0, u = +∞).
    pub fn lcp(m: CscMatrix, q: DVector<Real>) -> Result<Self, ProblemError> {
        SparseMcp::mixed(m, q, 0)
    }

    /// Problem size n.
    pub fn dim(&self) -> usize {
        self.q.len()
    }

    /// w = M z + q.
    pub fn w(&self, z: &DVector<Real>) -> DVector<Real> {
        self.m.mul_vec(z) + &self.q
    }

    /// Natural-map residual ‖z − mid(l, u, z − w)‖∞ with w = M z + q, as [`Mcp::residual`].
    /// Zero iff z solves the MCP; +∞ if any entry is non-finite.
    pub fn residual(&self, z: &DVector<Real>) -> Real {
        natural_residual(z, &self.w(z), &self.lower, &self.upper)
    }

    /// The dense problem (for the dense solvers and for checks).
    pub fn to_dense(&self) -> Mcp {
        Mcp {
            m: self.m.to_dense(),
            q: self.q.clone(),
            lower: self.lower.clone(),
            upper: self.upper.clone(),
        }
    }

    /// The sparse form of a dense problem (exact zeros of M dropped), validated.
    pub fn from_dense(mcp: &Mcp) -> Result<Self, ProblemError> {
        SparseMcp::new(
            CscMatrix::from_dense(&mcp.m)?,
            mcp.q.clone(),
            mcp.lower.clone(),
            mcp.upper.clone(),
        )
    }
}

/// The natural-map residual of LCP(M, q) at z, ‖z − max(0, z − w)‖∞ with w = M z + q: the
/// same number, bit for bit, as [`SparseMcp::residual`] of `SparseMcp::lcp(m, q)` for a
/// canonical M, without copying or validating the problem (a check after each sparse
/// Lemke answer, on matrices of 10⁵ entries). Panics if the lengths disagree with M.
pub fn lcp_natural_residual(m: &CscMatrix, q: &DVector<Real>, z: &DVector<Real>) -> Real {
    residual_in_box(z, &(m.mul_vec(z) + q), |_| (0.0, Real::INFINITY))
}

/// ‖z − mid(l, u, z − w)‖∞, +∞ if an entry is non-finite.
pub(crate) fn natural_residual(
    z: &DVector<Real>,
    w: &DVector<Real>,
    lower: &DVector<Real>,
    upper: &DVector<Real>,
) -> Real {
    residual_in_box(z, w, |i| (lower[i], upper[i]))
}

/// ‖z − mid(l, u, z − w)‖∞ with `bounds(i)` = (l_i, u_i), +∞ if an entry is non-finite.
fn residual_in_box(
    z: &DVector<Real>,
    w: &DVector<Real>,
    bounds: impl Fn(usize) -> (Real, Real),
) -> Real {
    let mut r: Real = 0.0;
    for i in 0..z.len() {
        let (l, u) = bounds(i);
        let p = (z[i] - w[i]).clamp(l, u);
        let d = (z[i] - p).abs();
        if !d.is_finite() {
            return Real::INFINITY;
        }
        r = r.max(d);
    }
    r
}

/// Square M matching q, finite q, valid bounds (M's entries are finite by construction of
/// [`CscMatrix`]).
fn check(
    m: &CscMatrix,
    q: &DVector<Real>,
    lower: &DVector<Real>,
    upper: &DVector<Real>,
) -> Result<(), ProblemError> {
    crate::problem::check_dimensions(m.nrows(), m.ncols(), q.len())?;
    if let Some(index) = q.iter().position(|x| !x.is_finite()) {
        return Err(ProblemError::NonFinite { what: "q", index });
    }
    crate::problem::check_bounds(q.len(), lower, upper)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    #[test]
    fn sparse_and_dense_problems_agree_on_w_and_residual() {
        let d = DMatrix::from_row_slice(3, 3, &[2.0, 0.0, 1.0, 0.0, 3.0, 0.0, 1.0, 0.0, 4.0]);
        let q = DVector::from_column_slice(&[-1.0, 2.0, -3.0]);
        let dense = Mcp::mixed(d, q, 1).unwrap();
        let sparse = SparseMcp::from_dense(&dense).unwrap();
        assert_eq!(sparse.m.nnz(), 5);
        assert_eq!(sparse.to_dense(), dense);
        let z = DVector::from_column_slice(&[0.3, -0.2, 0.7]);
        assert_eq!(sparse.w(&z), dense.w(&z));
        assert_eq!(sparse.residual(&z), dense.residual(&z));
    }

    #[test]
    fn invalid_problems_are_rejected() {
        let m = CscMatrix::from_triplets(2, 2, &[(0, 0, 1.0), (1, 1, 1.0)]).unwrap();
        let q = DVector::from_column_slice(&[1.0, 1.0]);
        let e = SparseMcp::mixed(m.clone(), DVector::zeros(3), 0).unwrap_err();
        assert!(matches!(e, ProblemError::Dimension(_)), "{e}");
        let e = SparseMcp::mixed(m.clone(), q.clone(), 3).unwrap_err();
        assert!(matches!(e, ProblemError::Dimension(_)), "{e}");
        let e = SparseMcp::new(
            m.clone(),
            q.clone(),
            DVector::from_column_slice(&[0.0, 2.0]),
            DVector::from_column_slice(&[1.0, 1.0]),
        )
        .unwrap_err();
        assert!(matches!(e, ProblemError::Bounds { index: 1, .. }), "{e}");
        let e = SparseMcp::lcp(m, DVector::from_column_slice(&[1.0, Real::NAN])).unwrap_err();
        assert_eq!(
            e,
            ProblemError::NonFinite {
                what: "q",
                index: 1
            }
        );
    }
}
