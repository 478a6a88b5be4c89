//! The sparse LU of a Lemke basis that keeps its unit columns out of the factorisation:
//! [`BasisLu`], used by the sparse Lemke (`lemke_sparse.rs`).
//!
//! Owns: the block structure of a basis B = [unit columns | other columns], the LU of its
//! square block S (faer's simplicial LU under a reused COLAMD order), and solves with B and Bᵀ.
//! Does not own: which variables are basic, the product-form updates, the pivots (all in
//! `lemke_sparse.rs`).
//!
//! Why: a Lemke basis holds a w_i (a unit column e_i) in every slot that no z occupies, often
//! half of them or more. Permuting the rows those unit columns cover first, B is block upper
//! triangular, `[[I, X], [0, S]]`, with S the rows no unit column covers by the other columns:
//! only S needs an order and an LU (Chvátal, *Linear Programming*, ch. 24, on bases with slack
//! columns). Solves:
//! - B x = b: S x_S = b restricted to S's rows; then a unit slot on row i takes
//!   x = b_i − (B_S x_S)_i.
//! - Bᵀ y = c: y_i = c of the unit slot on row i; then Sᵀ y_S = c_S − B_S[covered rows]ᵀ y.
//!
//! Why faer's simplicial LU and not its default (`factorize_symbolic_lu`, a COLAMD order, an
//! elimination tree, column counts and the supernodal/simplicial choice for each new pattern):
//! the basis changes with every pivot, so that analysis was redone at every refactorisation
//! and cost 30 % of a step on islands of 14,000 unknowns (docs/peg3d.md, item 26); the
//! simplicial numeric factorisation (Gilbert–Peierls, partial pivoting) needs only a column
//! order, which is reused: each slot keeps its rank in the last order, new slots of S go last.
//!
//! Determinism: faer runs with `Par::Seq`; every sum here is in a fixed order.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::perm::PermRef;
use faer::sparse::linalg::colamd;
use faer::sparse::linalg::lu::simplicial::{self, SimplicialLu};
use faer::sparse::linalg::triangular_solve::{
    solve_unit_lower_triangular_in_place, solve_unit_lower_triangular_transpose_in_place,
    solve_upper_triangular_in_place, solve_upper_triangular_transpose_in_place,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};
use signorini_math::Real;

/// A reused column order is recomputed when the fill nnz(L + U) / nnz(S) has grown by this
/// factor since the order was made.
const REORDER_FILL_GROWTH: Real = 1.5;

/// Why a factorisation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LuFailure {
    /// A workspace could not be allocated.
    Memory,
    /// The column ordering failed.
    Ordering,
    /// S is singular to the LU.
    Singular,
}

/// The factors of one basis and the order reused by the next ([module docs](self)).
pub(crate) struct BasisLu {
    n: usize,
    /// Whether the factors are of a basis (false before the first success and after a failure).
    valid: bool,
    /// The slots of S's columns (non-unit slots), ascending.
    s_slots: Vec<usize>,
    /// S's rows (rows no unit column covers), ascending; `local[i]` is row i's index in
    /// them, `COVERED` for a covered row.
    s_rows: Vec<usize>,
    local: Vec<usize>,
    /// (slot, row) of each unit column.
    unit: Vec<(usize, usize)>,
    /// S itself (rows by their local index), rebuilt in place at each factorisation.
    s_ptr: Vec<usize>,
    s_idx: Vec<usize>,
    s_val: Vec<Real>,
    /// S's columns over all n rows (the covered rows' entries are X).
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    values: Vec<Real>,
    /// faer's LU of S, its row permutation and the column order it was made with.
    lu: SimplicialLu<usize, Real>,
    /// The largest S `lu` has factored since it was made (the length of its column pointers
    /// − 1).
    lu_cols: usize,
    row_perm: Vec<usize>,
    row_perm_inv: Vec<usize>,
    col_fwd: Vec<usize>,
    col_inv: Vec<usize>,
    factor_mem: MemBuffer,
    /// Work vectors of the solves (k and n entries).
    local_x: Vec<Real>,
    perm_x: Vec<Real>,
    full: Vec<Real>,
    /// nnz(L) + nnz(U).
    nnz: usize,
    /// The reused order: each slot's rank in it (`None` until the first order).
    rank: Option<Vec<usize>>,
    /// The fill right after the order was made (0 until then), and whether it has outgrown it.
    fill: Real,
    stale: bool,
}

const COVERED: usize = usize::MAX;

impl BasisLu {
    /// Workspaces for bases of n × n.
    pub(crate) fn new(n: usize) -> Result<Self, LuFailure> {
        let factor_mem = MemBuffer::try_new(simplicial::factorize_simplicial_numeric_lu_scratch::<
            usize,
            Real,
        >(n, n))
        .map_err(|_| LuFailure::Memory)?;
        Ok(BasisLu {
            n,
            valid: false,
            s_slots: Vec::new(),
            s_rows: Vec::new(),
            local: vec![COVERED; n],
            unit: Vec::new(),
            s_ptr: Vec::new(),
            s_idx: Vec::new(),
            s_val: Vec::new(),
            col_ptr: Vec::new(),
            row_idx: Vec::new(),
            values: Vec::new(),
            lu: SimplicialLu::new(),
            lu_cols: 0,
            row_perm: Vec::new(),
            row_perm_inv: Vec::new(),
            col_fwd: Vec::new(),
            col_inv: Vec::new(),
            factor_mem,
            local_x: Vec::new(),
            perm_x: Vec::new(),
            full: vec![0.0; n],
            nnz: 0,
            rank: None,
            fill: 0.0,
            stale: false,
        })
    }

    /// Whether the factors are of a basis.
    pub(crate) fn is_valid(&self) -> bool {
        self.valid
    }

    /// nnz(L + U) of S plus nnz of S's columns: the work of one solve beyond n.
    pub(crate) fn solve_work(&self) -> usize {
        self.nnz + self.row_idx.len()
    }

    /// Factorise the basis whose slot k holds the column `column(k, out)` writes (rows and
    /// values, rows ascending) or, where `unit(k)` is `Some(i)`, the unit column e_i. Returns
    /// the work (entries touched: S's assembly, 8 nnz(S) for a new order, 2 nnz(L + U)).
    pub(crate) fn factor(
        &mut self,
        unit: impl Fn(usize) -> Option<usize>,
        mut column: impl FnMut(usize, &mut Vec<usize>, &mut Vec<Real>),
    ) -> Result<Real, LuFailure> {
        let n = self.n;
        self.valid = false;
        // The block structure.
        self.unit.clear();
        self.s_slots.clear();
        self.local.iter_mut().for_each(|l| *l = 0);
        for slot in 0..n {
            match unit(slot) {
                Some(i) => {
                    self.unit.push((slot, i));
                    self.local[i] = COVERED;
                }
                None => self.s_slots.push(slot),
            }
        }
        self.s_rows.clear();
        for i in 0..n {
            if self.local[i] != COVERED {
                self.local[i] = self.s_rows.len();
                self.s_rows.push(i);
            }
        }
        let k = self.s_slots.len();
        if self.s_rows.len() != k {
            return Err(LuFailure::Singular); // two slots hold the same unit column
        }
        // S's columns over all rows, then S itself (rows mapped to their local index).
        self.col_ptr.clear();
        self.row_idx.clear();
        self.values.clear();
        self.col_ptr.push(0);
        for &slot in &self.s_slots {
            column(slot, &mut self.row_idx, &mut self.values);
            self.col_ptr.push(self.row_idx.len());
        }
        let (s_ptr, s_idx, s_val) = (&mut self.s_ptr, &mut self.s_idx, &mut self.s_val);
        s_ptr.clear();
        s_idx.clear();
        s_val.clear();
        s_ptr.push(0);
        for j in 0..k {
            for p in self.col_ptr[j]..self.col_ptr[j + 1] {
                let l = self.local[self.row_idx[p]];
                if l != COVERED {
                    s_idx.push(l);
                    s_val.push(self.values[p]);
                }
            }
            s_ptr.push(s_idx.len());
        }
        let mut work = self.row_idx.len() as Real;
        self.local_x.resize(k, 0.0);
        self.perm_x.resize(k, 0.0);
        self.row_perm.resize(k, 0);
        self.row_perm_inv.resize(k, 0);
        self.nnz = 0;
        if k == 0 {
            self.valid = true;
            return Ok(work);
        }
        if k < self.lu_cols {
            // faer's simplicial LU only grows its column pointers, and its factors must have
            // exactly k + 1 of them: a smaller S needs a new one.
            self.lu = SimplicialLu::new();
        }
        self.lu_cols = k;
        let structure = SymbolicSparseColMatRef::new_checked(k, k, s_ptr, None, s_idx);
        // The column order: a new COLAMD order of S, or the last one's ranks with S's new
        // slots last (in slot order).
        let reorder = self.rank.is_none() || self.stale;
        if reorder {
            let mut fwd = vec![0usize; k];
            let mut inv = vec![0usize; k];
            let mut mem = MemBuffer::try_new(colamd::order_scratch::<usize>(k, k, s_idx.len()))
                .map_err(|_| LuFailure::Memory)?;
            colamd::order(
                &mut fwd,
                &mut inv,
                structure,
                Default::default(),
                MemStack::new(&mut mem),
            )
            .map_err(|_| LuFailure::Ordering)?;
            // S's slots by their place in the order; the others after all of them.
            let mut rank: Vec<usize> = (n..2 * n).collect();
            for (p, &j) in fwd.iter().enumerate() {
                rank[self.s_slots[j]] = p;
            }
            self.rank = Some(rank);
            self.fill = 0.0;
            self.stale = false;
            work += 8.0 * s_idx.len() as Real;
        }
        let rank = self.rank.as_ref().expect("set above");
        self.col_fwd.clear();
        self.col_fwd.extend(0..k);
        self.col_fwd.sort_by_key(|&j| rank[self.s_slots[j]]);
        self.col_inv.resize(k, 0);
        for (p, &j) in self.col_fwd.iter().enumerate() {
            self.col_inv[j] = p;
        }
        simplicial::factorize_simplicial_numeric_lu(
            &mut self.row_perm,
            &mut self.row_perm_inv,
            &mut self.lu,
            SparseColMatRef::new(structure, s_val),
            PermRef::new_checked(&self.col_fwd, &self.col_inv, k),
            MemStack::new(&mut self.factor_mem),
        )
        .map_err(|_| LuFailure::Singular)?;
        self.nnz =
            self.lu.l_factor_unsorted().compute_nnz() + self.lu.u_factor_unsorted().compute_nnz();
        work += 2.0 * self.nnz as Real;
        let fill = self.nnz as Real / s_idx.len().max(1) as Real;
        if self.fill == 0.0 {
            self.fill = fill;
        } else if fill > REORDER_FILL_GROWTH * self.fill {
            self.stale = true;
        }
        self.valid = true;
        Ok(work)
    }

    /// B x = v (x indexed by slots, v by rows) or, `transpose`, Bᵀ x = v (x by rows, v by
    /// slots), in place. Call only on valid factors.
    pub(crate) fn solve(&mut self, v: &mut [Real], transpose: bool) {
        debug_assert!(self.valid && v.len() == self.n);
        let k = self.s_slots.len();
        let (x, px) = (&mut self.local_x, &mut self.perm_x);
        if transpose {
            // y on the covered rows from the unit slots; then Sᵀ y_S = c_S − Xᵀ y.
            let y = &mut self.full;
            for &(slot, row) in &self.unit {
                y[row] = v[slot];
            }
            for (j, &slot) in self.s_slots.iter().enumerate() {
                let mut c = v[slot];
                for p in self.col_ptr[j]..self.col_ptr[j + 1] {
                    let i = self.row_idx[p];
                    if self.local[i] == COVERED {
                        c -= self.values[p] * y[i];
                    }
                }
                x[j] = c;
            }
            if k > 0 {
                let (l, u) = (self.lu.l_factor_unsorted(), self.lu.u_factor_unsorted());
                px.iter_mut()
                    .zip(&self.col_fwd)
                    .for_each(|(p, &j)| *p = x[j]);
                let rhs = MatMut::from_column_major_slice_mut(px, k, 1);
                solve_upper_triangular_transpose_in_place(u, Conj::No, rhs, Par::Seq);
                let rhs = MatMut::from_column_major_slice_mut(px, k, 1);
                solve_unit_lower_triangular_transpose_in_place(l, Conj::No, rhs, Par::Seq);
                for (i, &row) in self.s_rows.iter().enumerate() {
                    y[row] = px[self.row_perm_inv[i]];
                }
            }
            v.copy_from_slice(y);
        } else {
            // S x_S = v on S's rows; then each unit slot x = v_row − (B_S x_S)_row.
            if k > 0 {
                let (l, u) = (self.lu.l_factor_unsorted(), self.lu.u_factor_unsorted());
                px.iter_mut()
                    .zip(&self.row_perm)
                    .for_each(|(p, &i)| *p = v[self.s_rows[i]]);
                let rhs = MatMut::from_column_major_slice_mut(px, k, 1);
                solve_unit_lower_triangular_in_place(l, Conj::No, rhs, Par::Seq);
                let rhs = MatMut::from_column_major_slice_mut(px, k, 1);
                solve_upper_triangular_in_place(u, Conj::No, rhs, Par::Seq);
                x.iter_mut()
                    .zip(&self.col_inv)
                    .for_each(|(x, &p)| *x = px[p]);
            }
            let r = &mut self.full;
            for &(_, row) in &self.unit {
                r[row] = v[row];
            }
            for (j, &xj) in x.iter().enumerate() {
                if xj != 0.0 {
                    for p in self.col_ptr[j]..self.col_ptr[j + 1] {
                        let i = self.row_idx[p];
                        if self.local[i] == COVERED {
                            r[i] -= self.values[p] * xj;
                        }
                    }
                }
            }
            for &(slot, row) in &self.unit {
                v[slot] = r[row];
            }
            for (j, &slot) in self.s_slots.iter().enumerate() {
                v[slot] = x[j];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    /// A basis of n slots: slot k holds the unit column e_{unit[k]} or the dense column
    /// `cols[k]` (an n × n matrix's column), with the dense equivalent.
    fn basis(
        n: usize,
        unit: &[Option<usize>],
        seed: u64,
    ) -> (Vec<Vec<(usize, Real)>>, DMatrix<Real>) {
        let mut state = seed;
        let mut rnd = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as Real / (1u64 << 53) as Real) - 0.5
        };
        let mut b = DMatrix::zeros(n, n);
        let mut cols = Vec::new();
        for (k, u) in unit.iter().enumerate() {
            let mut col = Vec::new();
            match u {
                Some(i) => b[(*i, k)] = 1.0,
                None => {
                    for i in 0..n {
                        // A few exact zeros; otherwise generic, so S is nonsingular.
                        let v = if (i + 2 * k) % 5 == 0 {
                            0.0
                        } else {
                            1.0 + rnd()
                        };
                        if v != 0.0 {
                            col.push((i, v));
                            b[(i, k)] = v;
                        }
                    }
                }
            }
            cols.push(col);
        }
        (cols, b)
    }

    fn factor(lu: &mut BasisLu, unit: &[Option<usize>], cols: &[Vec<(usize, Real)>]) {
        lu.factor(
            |k| unit[k],
            |k, rows, vals| {
                for &(i, v) in &cols[k] {
                    rows.push(i);
                    vals.push(v);
                }
            },
        )
        .unwrap();
    }

    fn check(lu: &mut BasisLu, b: &DMatrix<Real>) {
        let n = b.nrows();
        let rhs = DVector::from_fn(n, |i, _| (i as Real * 0.7).cos());
        let mut x = rhs.as_slice().to_vec();
        lu.solve(&mut x, false);
        let r = b * DVector::from_vec(x) - &rhs;
        assert!(r.amax() < 1e-12, "B x = b missed by {}", r.amax());
        let mut y = rhs.as_slice().to_vec();
        lu.solve(&mut y, true);
        let r = b.transpose() * DVector::from_vec(y) - &rhs;
        assert!(r.amax() < 1e-12, "Bᵀ y = c missed by {}", r.amax());
    }

    #[test]
    fn solves_with_b_and_its_transpose_as_the_bases_change() {
        let n = 9;
        let mut lu = BasisLu::new(n).unwrap();
        // Unit columns in slots other than their rows, then fewer and more of them (S grows
        // and shrinks: faer's LU is replaced when it shrinks), then all (S empty).
        let layouts: [Vec<Option<usize>>; 5] = [
            vec![
                None,
                Some(0),
                None,
                Some(5),
                None,
                None,
                Some(2),
                None,
                None,
            ],
            vec![None, None, None, Some(5), None, None, None, None, None],
            vec![
                Some(1),
                Some(0),
                None,
                Some(5),
                Some(4),
                None,
                Some(2),
                Some(7),
                Some(8),
            ],
            (0..n).map(|i| Some((i + 3) % n)).collect(),
            vec![None; 9],
        ];
        for (t, unit) in layouts.iter().enumerate() {
            let (cols, b) = basis(n, unit, t as u64 + 1);
            factor(&mut lu, unit, &cols);
            check(&mut lu, &b);
        }
    }

    #[test]
    fn two_slots_on_one_unit_row_are_singular() {
        let mut lu = BasisLu::new(3).unwrap();
        let unit = [Some(1), Some(1), None];
        let (cols, _) = basis(3, &unit, 7);
        let got = lu.factor(
            |k| unit[k],
            |k, rows, vals| {
                for &(i, v) in &cols[k] {
                    rows.push(i);
                    vals.push(v);
                }
            },
        );
        assert_eq!(got.err(), Some(LuFailure::Singular));
        assert!(!lu.is_valid());
    }
}
