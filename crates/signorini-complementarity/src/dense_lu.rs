//! Dense LU factorisations of the dense solvers' square systems (FB-Newton's direction, the
//! active-set polish, the Schur complement of a mixed problem's free block).
//!
//! Owns: [`DenseLu`], which is nalgebra's LU below [`FAER_LU_FROM`] unknowns and faer's
//! blocked partial-pivoting LU from there. Does not own: Lemke's basis inverse (`lemke.rs`
//! has its own, with the same switch at the same size for its structured inverse).
//!
//! Why two: nalgebra's LU is unblocked (one axpy per column and row), and at the sizes of
//! large islands it dominated whole runs (the 2D pile of 400 bodies: 34 % of the time in
//! FB-Newton's nalgebra LUs of ≈ 1,450 unknowns, `perf`, docs/peg3d.md item 22); faer's
//! blocked LU does the same O(n³/3) work several times faster. faer is built without rayon
//! (`Par::Seq`), so its answers are bit-identical from run to run. Below the switch the
//! round-off stays nalgebra's, the one every recorded figure of the pour experiments and the
//! tower (whose problems are smaller) was measured with.

use nalgebra::{DMatrix, DVector};
use signorini_math::Real;

/// Systems with at least this many unknowns are factored by faer.
pub(crate) const FAER_LU_FROM: usize = 400;

/// An LU factorisation with partial pivoting of a square matrix.
pub(crate) enum DenseLu {
    /// nalgebra's (small systems).
    Small(nalgebra::LU<Real, nalgebra::Dyn, nalgebra::Dyn>),
    /// faer's (large systems).
    Large(faer::linalg::solvers::PartialPivLu<Real>),
}

impl DenseLu {
    /// Factor the square matrix `a`.
    pub(crate) fn new(a: DMatrix<Real>) -> Self {
        let n = a.nrows();
        if n >= FAER_LU_FROM && a.ncols() == n {
            let view = faer::MatRef::from_column_major_slice(a.as_slice(), n, n);
            DenseLu::Large(view.partial_piv_lu())
        } else {
            DenseLu::Small(a.lu())
        }
    }

    /// |U_ii|, the pivots' magnitudes.
    pub(crate) fn pivots_abs(&self) -> Vec<Real> {
        match self {
            DenseLu::Small(lu) => {
                let u = lu.u();
                (0..u.nrows()).map(|i| u[(i, i)].abs()).collect()
            }
            DenseLu::Large(lu) => {
                let u = lu.U();
                (0..u.nrows()).map(|i| u[(i, i)].abs()).collect()
            }
        }
    }

    /// X with A X = B, or None if A is singular (a zero pivot) or X is not finite.
    pub(crate) fn solve(&self, b: &DMatrix<Real>) -> Option<DMatrix<Real>> {
        match self {
            DenseLu::Small(lu) => lu.solve(b),
            DenseLu::Large(lu) => {
                use faer::linalg::solvers::Solve;
                if self.pivots_abs().contains(&0.0) {
                    return None;
                }
                let mut x = b.clone();
                let (rows, cols) = x.shape();
                lu.solve_in_place(faer::MatMut::from_column_major_slice_mut(
                    x.as_mut_slice(),
                    rows,
                    cols,
                ));
                x.iter().all(|v| v.is_finite()).then_some(x)
            }
        }
    }

    /// x with A x = b (see [`DenseLu::solve`]).
    pub(crate) fn solve_vec(&self, b: &DVector<Real>) -> Option<DVector<Real>> {
        match self {
            DenseLu::Small(lu) => lu.solve(b),
            DenseLu::Large(_) => {
                let m = DMatrix::from_column_slice(b.len(), 1, b.as_slice());
                self.solve(&m)
                    .map(|x| DVector::from_column_slice(x.as_slice()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diagonally dominant, unsymmetric test matrix.
    fn matrix(n: usize) -> DMatrix<Real> {
        DMatrix::from_fn(n, n, |i, j| {
            if i == j {
                n as Real
            } else {
                ((i * 7 + j * 3) % 11) as Real / 11.0 - 0.4
            }
        })
    }

    #[test]
    fn both_factorisations_solve_the_same_system() {
        for n in [FAER_LU_FROM - 1, FAER_LU_FROM] {
            let a = matrix(n);
            let x = DVector::from_fn(n, |i, _| (i as Real).sin());
            let b = &a * &x;
            let lu = DenseLu::new(a);
            assert_eq!(matches!(lu, DenseLu::Large(_)), n >= FAER_LU_FROM);
            let got = lu.solve_vec(&b).expect("nonsingular");
            assert!((got - &x).amax() < 1e-12, "n = {n}");
        }
    }

    #[test]
    fn a_singular_matrix_has_no_solution() {
        for n in [3, FAER_LU_FROM] {
            let mut a = matrix(n);
            a.row_mut(1).fill(0.0);
            let b = DVector::from_element(n, 1.0);
            assert!(DenseLu::new(a).solve_vec(&b).is_none(), "n = {n}");
        }
    }
}
