//! Compressed sparse column (CSC) input for problem matrices.
//!
//! Owns: [`CscMatrix`] (validated CSC storage, CSparse conventions as in fclib), its
//! construction from triplets or a dense matrix, its products with vectors, and its
//! conversion to the dense matrices the dense solvers use ([`Lcp::from_csc`],
//! [`Mcp::from_csc`]).
//! Does not own: sparse factorisations (faer's sparse LU, driven by `newton_sparse.rs`) or
//! the sparse problem type (`sparse_problem.rs`).

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

    /// Build from (row, column, value) triplets: duplicates are summed and the rows of each
    /// column sorted, so the result is canonical (sorted, no duplicate entries). Explicit
    /// zeros are kept (they are part of the pattern). Every index must be in range and every
    /// value finite.
    pub fn from_triplets(
        nrows: usize,
        ncols: usize,
        triplets: &[(usize, usize, Real)],
    ) -> Result<Self, ProblemError> {
        for (k, &(i, j, v)) in triplets.iter().enumerate() {
            if i >= nrows || j >= ncols {
                return Err(ProblemError::Dimension(format!(
                    "triplet {k} at ({i}, {j}) outside a {nrows}×{ncols} matrix"
                )));
            }
            if !v.is_finite() {
                return Err(ProblemError::NonFinite {
                    what: "M",
                    index: j * nrows + i,
                });
            }
        }
        // Stable sort by (column, row): equal keys keep their input order, so duplicates are
        // summed in a fixed order (bit-identical results). Two stable counting sorts (by row,
        // then by column: LSD radix), O(nnz + nrows + ncols): the comparison sort it replaces
        // was 16 % of the 125-body pile's run (docs/peg3d.md, item 26).
        let by_row = counting_order(nrows, (0..triplets.len()).map(|k| (k, triplets[k].0)));
        let order = counting_order(ncols, by_row.iter().map(|&k| (k, triplets[k].1)));
        let mut col_ptr = vec![0; ncols + 1];
        let mut row_idx: Vec<usize> = Vec::with_capacity(triplets.len());
        let mut values: Vec<Real> = Vec::with_capacity(triplets.len());
        let mut last: Option<(usize, usize)> = None;
        for k in order {
            let (i, j, v) = triplets[k];
            match values.last_mut() {
                Some(acc) if last == Some((i, j)) => *acc += v,
                _ => {
                    row_idx.push(i);
                    values.push(v);
                    col_ptr[j + 1] += 1;
                    last = Some((i, j));
                }
            }
        }
        for j in 0..ncols {
            col_ptr[j + 1] += col_ptr[j];
        }
        if let Some(index) = values.iter().position(|v| !v.is_finite()) {
            return Err(ProblemError::NonFinite { what: "M", index });
        }
        CscMatrix::new(nrows, ncols, col_ptr, row_idx, values)
    }

    /// The nonzero entries of a dense matrix (exact zeros dropped); canonical.
    pub fn from_dense(m: &DMatrix<Real>) -> Result<Self, ProblemError> {
        let mut triplets = Vec::new();
        for j in 0..m.ncols() {
            for i in 0..m.nrows() {
                if m[(i, j)] != 0.0 {
                    triplets.push((i, j, m[(i, j)]));
                }
            }
        }
        CscMatrix::from_triplets(m.nrows(), m.ncols(), &triplets)
    }

    /// The stored entries as triplets, column by column.
    pub fn triplets(&self) -> Vec<(usize, usize, Real)> {
        let mut t = Vec::with_capacity(self.nnz());
        for j in 0..self.ncols {
            for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                t.push((self.row_idx[k], j, self.values[k]));
            }
        }
        t
    }

    /// The same matrix in canonical form (rows sorted within columns, duplicates summed).
    pub fn canonical(&self) -> Result<Self, ProblemError> {
        CscMatrix::from_triplets(self.nrows, self.ncols, &self.triplets())
    }

    /// y = A x. Panics if `x.len() != ncols` (as nalgebra's products do).
    pub fn mul_vec(&self, x: &DVector<Real>) -> DVector<Real> {
        assert_eq!(x.len(), self.ncols, "CscMatrix::mul_vec: length of x");
        let mut y = DVector::zeros(self.nrows);
        for j in 0..self.ncols {
            let xj = x[j];
            for k in self.col_ptr[j]..self.col_ptr[j + 1] {
                y[self.row_idx[k]] += self.values[k] * xj;
            }
        }
        y
    }

    /// y = Aᵀ x. Panics if `x.len() != nrows`.
    pub fn tr_mul_vec(&self, x: &DVector<Real>) -> DVector<Real> {
        assert_eq!(x.len(), self.nrows, "CscMatrix::tr_mul_vec: length of x");
        DVector::from_fn(self.ncols, |j, _| {
            (self.col_ptr[j]..self.col_ptr[j + 1])
                .map(|k| self.values[k] * x[self.row_idx[k]])
                .sum()
        })
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Column pointers (length `ncols + 1`).
    pub fn col_ptr(&self) -> &[usize] {
        &self.col_ptr
    }

    /// Row index of each stored entry.
    pub fn row_idx(&self) -> &[usize] {
        &self.row_idx
    }

    /// Value of each stored entry.
    pub fn values(&self) -> &[Real] {
        &self.values
    }

    /// Values of the stored entries, to change in place (the structure stays).
    pub(crate) fn values_mut(&mut self) -> &mut [Real] {
        &mut self.values
    }

    /// Position in [`CscMatrix::values`] of the stored entry (j, j), if any (canonical form).
    pub(crate) fn diagonal_position(&self, j: usize) -> Option<usize> {
        let (start, end) = (self.col_ptr[j], self.col_ptr[j + 1]);
        self.row_idx[start..end]
            .binary_search(&j)
            .ok()
            .map(|k| start + k)
    }

    /// True if the rows of every column are strictly increasing (sorted, no duplicates).
    pub fn is_canonical(&self) -> bool {
        (0..self.ncols).all(|j| {
            self.row_idx[self.col_ptr[j]..self.col_ptr[j + 1]]
                .windows(2)
                .all(|w| w[0] < w[1])
        })
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

/// The items `(k, key)` (key < `buckets`) in a stable order of increasing key: a counting sort.
fn counting_order(
    buckets: usize,
    items: impl Iterator<Item = (usize, usize)> + Clone,
) -> Vec<usize> {
    let mut start = vec![0usize; buckets + 1];
    let mut len = 0;
    for (_, key) in items.clone() {
        start[key + 1] += 1;
        len += 1;
    }
    for b in 0..buckets {
        start[b + 1] += start[b];
    }
    let mut order = vec![0; len];
    for (k, key) in items {
        order[start[key]] = k;
        start[key] += 1;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The counting sorts give what a stable comparison sort by (column, row) gives:
        /// the same entries, duplicates summed in input order (the same bits).
        #[test]
        fn triplets_are_summed_in_input_order(
            t in proptest::collection::vec((0..5usize, 0..4usize, -1e3..1e3f64), 0..60)
        ) {
            let m = CscMatrix::from_triplets(5, 4, &t).unwrap();
            let mut order: Vec<usize> = (0..t.len()).collect();
            order.sort_by_key(|&k| (t[k].1, t[k].0));
            let mut expect: Vec<(usize, usize, Real)> = Vec::new();
            for k in order {
                let (i, j, v) = t[k];
                match expect.last_mut() {
                    Some(e) if (e.0, e.1) == (i, j) => e.2 += v,
                    _ => expect.push((i, j, v)),
                }
            }
            let got = m.triplets();
            prop_assert_eq!(got.len(), expect.len());
            for (g, e) in got.iter().zip(&expect) {
                prop_assert_eq!((g.0, g.1), (e.0, e.1));
                prop_assert_eq!(g.2.to_bits(), e.2.to_bits());
            }
        }
    }

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
    fn triplets_are_summed_sorted_and_multiply_like_the_dense_matrix() {
        let t = [
            (1, 0, 1.0),
            (0, 0, 2.0),
            (1, 1, 1.0),
            (1, 1, 2.0),
            (0, 2, -4.0),
        ];
        let m = CscMatrix::from_triplets(2, 3, &t).unwrap();
        assert!(m.is_canonical());
        assert_eq!(m.col_ptr(), &[0, 2, 3, 4]);
        assert_eq!(m.row_idx(), &[0, 1, 1, 0]);
        assert_eq!(m.values(), &[2.0, 1.0, 3.0, -4.0]);
        let d = m.to_dense();
        assert_eq!(CscMatrix::from_dense(&d).unwrap(), m);
        let x = DVector::from_column_slice(&[1.0, -2.0, 0.5]);
        assert_eq!(m.mul_vec(&x), &d * &x);
        let y = DVector::from_column_slice(&[3.0, -1.0]);
        assert_eq!(m.tr_mul_vec(&y), d.tr_mul(&y));
        let e = CscMatrix::from_triplets(2, 2, &[(2, 0, 1.0)]).unwrap_err();
        assert!(e.to_string().contains("outside"), "{e}");
        let e = CscMatrix::from_triplets(2, 2, &[(1, 1, Real::INFINITY)]).unwrap_err();
        assert_eq!(
            e,
            ProblemError::NonFinite {
                what: "M",
                index: 3
            }
        );
        let unsorted =
            CscMatrix::new(2, 1, vec![0, 3], vec![1, 0, 1], vec![1.0, 2.0, 3.0]).unwrap();
        assert!(!unsorted.is_canonical());
        let c = unsorted.canonical().unwrap();
        assert_eq!((c.row_idx(), c.values()), (&[0, 1][..], &[2.0, 4.0][..]));
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
