//! Compressed sparse column (CSC) input for problem matrices.
//!
//! Owns: [`CscMatrix`] (validated CSC storage, CSparse conventions as in fclib) and its
//! conversion to the dense matrices the solvers use ([`Lcp::from_csc`], [`Mcp::from_csc`]).
//! Does not own: sparse factorisations. The solvers are dense (n ≲ 1000 per island); a
//! contact model with sparse Jacobians can hand its matrix over in CSC form.

use nalgebra::{DMatrix, DVector};
use signorini_math::Real;

use crate::{Lcp, Mcp, ProblemError};

/// A sparse matrix in compressed sparse column form: the entries of column j are
/// `values[col_ptr[j]..col_ptr[j + 1]]` at rows `row_idx[same range]`. Duplicates are summed.
#[derive(Debug, Clone, PartialEq)]
pub struct CscMatrix {
    nrows: usize,
    ncols: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<Real>,
}

impl CscMatrix {
    /// Build and validate: `col_ptr` has `ncols + 1` non-decreasing entries starting at 0 and
    /// ending at `values.len() == row_idx.len()`; every row index is `< nrows`; every value
    /// is finite.
    pub fn new(
        nrows: usize,
        ncols: usize,
        col_ptr: Vec<usize>,
        row_idx: Vec<usize>,
        values: Vec<Real>,
    ) -> Result<Self, ProblemError> {
        let dim = |msg: String| Err(ProblemError::Dimension(msg));
        if col_ptr.len() != ncols + 1 || col_ptr[0] != 0 {
            return dim(format!(
                "CSC col_ptr has length {} (expected {}) or does not start at 0",
                col_ptr.len(),
                ncols + 1
            ));
        }
        if let Some(j) = (0..ncols).find(|&j| col_ptr[j] > col_ptr[j + 1]) {
            return dim(format!("CSC col_ptr decreases at column {j}"));
        }
        if row_idx.len() != values.len() || col_ptr[ncols] != values.len() {
            return dim(format!(
                "CSC has {} row indices, {} values, col_ptr ends at {}",
                row_idx.len(),
                values.len(),
                col_ptr[ncols]
            ));
        }
        if let Some(k) = row_idx.iter().position(|&r| r >= nrows) {
            return dim(format!("CSC entry {k} has row {} ≥ {nrows}", row_idx[k]));
        }
        if let Some(index) = values.iter().position(|v| !v.is_finite()) {
            return Err(ProblemError::NonFinite { what: "M", index });
        }
        Ok(CscMatrix {
            nrows,
            ncols,
            col_ptr,
            row_idx,
            values,
        })
    }

    /// The dense matrix (duplicates summed).
    pub fn to_dense(&self) -> DMatrix<Real> {
        let mut m = DMatrix::zeros(self.nrows, self.ncols);
        for j in 0..self.ncols {
            for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                m[(self.row_idx[k], j)] += self.values[k];
            }
        }
        m
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }
}

impl Lcp {
    /// An LCP whose matrix is given in CSC form.
    pub fn from_csc(m: &CscMatrix, q: DVector<Real>) -> Result<Self, ProblemError> {
        Lcp::new(m.to_dense(), q)
    }
}

impl Mcp {
    /// A box MCP whose matrix is given in CSC form.
    pub fn from_csc(
        m: &CscMatrix,
        q: DVector<Real>,
        lower: DVector<Real>,
        upper: DVector<Real>,
    ) -> Result<Self, ProblemError> {
        Mcp::new(m.to_dense(), q, lower, upper)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csc_round_trips_to_dense_and_sums_duplicates() {
        // [[2, 0], [1, 3]] with the (1, 1) entry split into 1 + 2.
        let m = CscMatrix::new(
            2,
            2,
            vec![0, 2, 4],
            vec![0, 1, 1, 1],
            vec![2.0, 1.0, 1.0, 2.0],
        )
        .unwrap();
        assert_eq!(
            m.to_dense(),
            DMatrix::from_row_slice(2, 2, &[2.0, 0.0, 1.0, 3.0])
        );
        assert_eq!(m.nnz(), 4);
    }

    #[test]
    fn malformed_csc_is_rejected_with_the_reason() {
        let e = CscMatrix::new(2, 2, vec![0, 1, 2], vec![0, 5], vec![1.0, 1.0]).unwrap_err();
        assert!(e.to_string().contains("row 5"), "{e}");
        let e = CscMatrix::new(2, 2, vec![0, 2, 1], vec![0, 1], vec![1.0, 1.0]).unwrap_err();
        assert!(e.to_string().contains("decreases"), "{e}");
        let e = CscMatrix::new(1, 1, vec![0, 1], vec![0], vec![Real::NAN]).unwrap_err();
        assert_eq!(
            e,
            ProblemError::NonFinite {
                what: "M",
                index: 0
            }
        );
    }
}
