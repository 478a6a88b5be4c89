//! Reduction of a box-constrained linear MCP to a standard LCP, so that Lemke can solve it.
//!
//! Owns: [`Reduction`] (build, map a solution back, map a warm start forward).
//! Does not own: any solver.
//!
//! Two steps, each used only when needed:
//!
//! 1. **Free variables** (l = −∞, u = +∞; w_F = 0). If the free block `M_FF` is invertible
//!    (LU with a pivot ratio above `SCHUR_MIN_PIVOT_RATIO`), they are eliminated by a Schur
//!    complement: z_F = −M_FF⁻¹ (M_FC z_C + q_F), leaving
//!    M' = M_CC − M_CF M_FF⁻¹ M_FC, q' = q_C − M_CF M_FF⁻¹ q_F.
//!    If `M_FF` is singular (or nearly so), the free variables are **kept**, first in the
//!    reduced problem: Lemke (`lemke.rs`) starts from a basis holding all of them, completed
//!    by constrained z's where needed, and never lets them leave. Only if that fails are
//!    they **split**, z_F = x⁺ − x⁻ with x± ≥ 0 and functions w_F, −w_F (degenerate; it
//!    often ends in a ray).
//! 2. **Bounds.** A variable with only a lower bound becomes z = l + x, x ≥ 0; with only an
//!    upper bound z = u − x (its function is −w); with both, z = l + x and an extra
//!    multiplier v ≥ 0 with w⁺ = w + v ⟂ x and s = (u − l) − x ⟂ v. The LCP matrix is
//!    [[Σ M S, E], [−Eᵀ, 0]] (S, Σ = ±1 diagonals, E selects the boxed variables). For a
//!    PSD `M` this matrix is copositive-plus, so Lemke processes it.

use std::borrow::Cow;

use nalgebra::{DMatrix, DVector};
use signorini_math::Real;

use crate::Mcp;
use crate::dense_lu::DenseLu;

/// Minimum |U_ii| / max |U_ii| of the LU of `M_FF` for the Schur complement to be used.
/// Below it the block is treated as singular and free variables are split instead.
const SCHUR_MIN_PIVOT_RATIO: Real = 1e-12;

/// Whether variable `i` of `mcp` is free (l = −∞, u = +∞).
fn is_free(mcp: &Mcp, i: usize) -> bool {
    mcp.lower[i] == Real::NEG_INFINITY && mcp.upper[i] == Real::INFINITY
}

/// The size of the LCP that [`Reduction::new`] builds for `mcp` when its free block is
/// eliminated (the usual case, and every contact problem's): the constrained variables plus
/// one multiplier per doubly bounded one. What a Lemke pivot on `mcp` costs is this squared
/// (the work budget, `auto.rs`).
pub(crate) fn schur_lcp_size(mcp: &Mcp) -> usize {
    let n = mcp.dim();
    let boxed = (0..n)
        .filter(|&i| mcp.lower[i].is_finite() && mcp.upper[i].is_finite())
        .count();
    n - (0..n).filter(|&i| is_free(mcp, i)).count() + boxed
}

/// How free variables were handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FreeHandling {
    /// No free variables.
    None,
    /// Eliminated by the Schur complement of the invertible free block.
    Schur,
    /// Kept as free variables of a mixed LCP (free block singular): Lemke starts with them
    /// basic and never lets them leave.
    Kept,
    /// Split into positive and negative parts (free block singular; last resort).
    Split,
}

/// A box MCP rewritten as LCP(m, q), with what is needed to map back.
pub(crate) struct Reduction<'a> {
    /// The LCP matrix: the MCP's own (borrowed) when the reduction is the identity, which
    /// saves a dense n² copy per solve (tens of MB on a large island).
    pub m: Cow<'a, DMatrix<Real>>,
    /// The LCP vector.
    pub q: DVector<Real>,
    /// How free variables were handled.
    pub free: FreeHandling,
    /// Indices (into the original problem) of the free variables.
    free_idx: Vec<usize>,
    /// Indices of the constrained (non-free) variables, or all variables when split.
    kept_idx: Vec<usize>,
    /// For the Schur case: z_F = −(x_mat z_C + x_vec).
    schur: Option<(DMatrix<Real>, DVector<Real>)>,
    /// Per kept variable: offset c and sign s of z = c + s·x.
    shift: Vec<(Real, Real)>,
    /// Number of split free variables (their x⁺, x⁻ come after the kept ones).
    n_split: usize,
}

impl<'a> Reduction<'a> {
    /// Build the LCP for `mcp`. With a singular free block, `keep_free` keeps the free
    /// variables (first in the reduced problem) instead of splitting them.
    pub(crate) fn new(mcp: &'a Mcp, keep_free: bool) -> Reduction<'a> {
        let n = mcp.dim();
        let free_idx: Vec<usize> = (0..n).filter(|&i| is_free(mcp, i)).collect();
        let cons_idx: Vec<usize> = (0..n).filter(|&i| !is_free(mcp, i)).collect();

        // Step 1: free variables → Schur complement, or split.
        let (m1, q1, lo, up, free, schur, kept_idx, n_split) = if free_idx.is_empty() {
            (
                Cow::Borrowed(&mcp.m),
                mcp.q.clone(),
                mcp.lower.clone(),
                mcp.upper.clone(),
                FreeHandling::None,
                None,
                cons_idx,
                0,
            )
        } else if let Some((ms, qs, xm, xv)) = schur(mcp, &free_idx, &cons_idx) {
            let lo = DVector::from_fn(cons_idx.len(), |k, _| mcp.lower[cons_idx[k]]);
            let up = DVector::from_fn(cons_idx.len(), |k, _| mcp.upper[cons_idx[k]]);
            (
                Cow::Owned(ms),
                qs,
                lo,
                up,
                FreeHandling::Schur,
                Some((xm, xv)),
                cons_idx,
                0,
            )
        } else if keep_free {
            // Free variables first, then the constrained ones, in the original order.
            let order: Vec<usize> = free_idx.iter().chain(&cons_idx).copied().collect();
            let nn = order.len();
            let ms = DMatrix::from_fn(nn, nn, |i, j| mcp.m[(order[i], order[j])]);
            let qs = DVector::from_fn(nn, |i, _| mcp.q[order[i]]);
            let lo = DVector::from_fn(nn, |i, _| mcp.lower[order[i]]);
            let up = DVector::from_fn(nn, |i, _| mcp.upper[order[i]]);
            (
                Cow::Owned(ms),
                qs,
                lo,
                up,
                FreeHandling::Kept,
                None,
                order,
                0,
            )
        } else {
            let (ms, qs, lo, up) = split(mcp, &free_idx, &cons_idx);
            (
                Cow::Owned(ms),
                qs,
                lo,
                up,
                FreeHandling::Split,
                None,
                cons_idx,
                free_idx.len(),
            )
        };

        // Step 2: bounds → shifts, flips and box multipliers.
        let nk = q1.len();
        let shift: Vec<(Real, Real)> = (0..nk)
            .map(|i| {
                if lo[i] == Real::NEG_INFINITY && up[i] == Real::INFINITY {
                    (0.0, 1.0) // a kept free variable
                } else if lo[i].is_finite() {
                    (lo[i], 1.0)
                } else {
                    (up[i], -1.0)
                }
            })
            .collect();
        let boxed: Vec<usize> = (0..nk)
            .filter(|&i| lo[i].is_finite() && up[i].is_finite())
            .collect();
        let nl = nk + boxed.len();
        // Plain LCP (every variable ≥ 0, no box): the matrix is used as is.
        if boxed.is_empty() && shift.iter().all(|&(c, s)| c == 0.0 && s == 1.0) {
            return Reduction {
                m: m1,
                q: q1,
                free,
                free_idx,
                kept_idx,
                schur,
                shift,
                n_split,
            };
        }
        let c = DVector::from_fn(nk, |i, _| shift[i].0);
        let qc = &*m1 * &c + &q1;
        let mut m = DMatrix::zeros(nl, nl);
        let mut q = DVector::zeros(nl);
        for i in 0..nk {
            let si = shift[i].1;
            q[i] = si * qc[i];
            for j in 0..nk {
                m[(i, j)] = si * m1[(i, j)] * shift[j].1;
            }
        }
        for (k, &i) in boxed.iter().enumerate() {
            m[(i, nk + k)] = 1.0;
            m[(nk + k, i)] = -1.0;
            q[nk + k] = up[i] - lo[i];
        }
        Reduction {
            m: Cow::Owned(m),
            q,
            free,
            free_idx,
            kept_idx,
            schur,
            shift,
            n_split,
        }
    }

    /// Number of free variables at the front of the reduced LCP (only for `Kept`).
    pub(crate) fn n_free(&self) -> usize {
        match self.free {
            FreeHandling::Kept => self.free_idx.len(),
            _ => 0,
        }
    }

    /// Map an LCP solution x back to the MCP's z.
    pub(crate) fn recover(&self, x: &DVector<Real>, n: usize) -> DVector<Real> {
        let mut z = DVector::zeros(n);
        let nk = self.shift.len();
        let zk = DVector::from_fn(nk, |i, _| self.shift[i].0 + self.shift[i].1 * x[i]);
        match self.free {
            FreeHandling::Split => {
                for (k, &i) in self.kept_idx.iter().enumerate() {
                    z[i] = zk[k];
                }
                let nc = self.kept_idx.len();
                for (k, &i) in self.free_idx.iter().enumerate() {
                    z[i] = zk[nc + k] - zk[nc + self.n_split + k];
                }
            }
            _ => {
                for (k, &i) in self.kept_idx.iter().enumerate() {
                    z[i] = zk[k];
                }
                if let Some((xm, xv)) = &self.schur {
                    let zf = -(xm * &zk + xv);
                    for (k, &i) in self.free_idx.iter().enumerate() {
                        z[i] = zf[k];
                    }
                }
            }
        }
        z
    }

    /// A warm-start basis for the LCP from an MCP iterate z: x_i basic where it is positive
    /// (box multipliers basic where z sits at its upper bound).
    pub(crate) fn warm_basis(&self, mcp: &Mcp, z: &DVector<Real>) -> Vec<bool> {
        let nl = self.q.len();
        let nk = self.shift.len();
        let mut flags = vec![false; nl];
        let zk: Vec<Real> = match self.free {
            FreeHandling::Split => {
                let mut v: Vec<Real> = self.kept_idx.iter().map(|&i| z[i]).collect();
                v.extend(self.free_idx.iter().map(|&i| z[i].max(0.0)));
                v.extend(self.free_idx.iter().map(|&i| (-z[i]).max(0.0)));
                v
            }
            _ => self.kept_idx.iter().map(|&i| z[i]).collect(),
        };
        for i in 0..nk {
            let x = (zk[i] - self.shift[i].0) * self.shift[i].1;
            flags[i] = x > 0.0;
        }
        let mut k = nk;
        for (i, &ki) in self.kept_idx.iter().enumerate() {
            let (l, u) = (mcp.lower[ki], mcp.upper[ki]);
            if l.is_finite() && u.is_finite() {
                flags[k] = zk[i] >= u;
                k += 1;
            }
        }
        flags
    }
}

type SchurParts = (DMatrix<Real>, DVector<Real>, DMatrix<Real>, DVector<Real>);

/// Schur complement of the free block, or None if `M_FF` is (numerically) singular.
fn schur(mcp: &Mcp, f: &[usize], c: &[usize]) -> Option<SchurParts> {
    let sub = |rows: &[usize], cols: &[usize]| {
        DMatrix::from_fn(rows.len(), cols.len(), |i, j| mcp.m[(rows[i], cols[j])])
    };
    let mff = sub(f, f);
    let lu = DenseLu::new(mff);
    let diag = lu.pivots_abs();
    let (dmin, dmax) = diag
        .iter()
        .fold((Real::INFINITY, 0.0 as Real), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    if dmin.partial_cmp(&(SCHUR_MIN_PIVOT_RATIO * dmax)) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let qf = DVector::from_fn(f.len(), |i, _| mcp.q[f[i]]);
    let xm = lu.solve(&sub(f, c))?;
    let xv = lu.solve_vec(&qf)?;
    let qc = DVector::from_fn(c.len(), |i, _| mcp.q[c[i]]);
    let mcf = sub(c, f);
    let ms = sub(c, c) - &mcf * &xm;
    let qs = qc - &mcf * &xv;
    if !ms.iter().chain(qs.iter()).all(|x| x.is_finite()) {
        return None;
    }
    Some((ms, qs, xm, xv))
}

/// The split form: variables (z_C, x⁺, x⁻), functions (w_C, w_F, −w_F), bounds x± ≥ 0.
fn split(
    mcp: &Mcp,
    f: &[usize],
    c: &[usize],
) -> (DMatrix<Real>, DVector<Real>, DVector<Real>, DVector<Real>) {
    let (nc, nf) = (c.len(), f.len());
    let n2 = nc + 2 * nf;
    // Original index and sign of each new variable / row.
    let map = |k: usize| -> (usize, Real) {
        if k < nc {
            (c[k], 1.0)
        } else if k < nc + nf {
            (f[k - nc], 1.0)
        } else {
            (f[k - nc - nf], -1.0)
        }
    };
    let m = DMatrix::from_fn(n2, n2, |i, j| {
        let ((ri, si), (cj, sj)) = (map(i), map(j));
        si * sj * mcp.m[(ri, cj)]
    });
    let q = DVector::from_fn(n2, |i, _| {
        let (ri, si) = map(i);
        si * mcp.q[ri]
    });
    let lo = DVector::from_fn(n2, |i, _| if i < nc { mcp.lower[c[i]] } else { 0.0 });
    let up = DVector::from_fn(n2, |i, _| {
        if i < nc {
            mcp.upper[c[i]]
        } else {
            Real::INFINITY
        }
    });
    (m, q, lo, up)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lemke::{Covering, lemke_mcp};

    /// z_F free, z_C ≥ 0, M = [[0, 1], [−1, 0]], q = (−2, 3): w_F = z_C − 2 = 0 ⇒ z_C = 2,
    /// so w_C = −z_F + 3 = 0 ⇒ z_F = 3. M_FF = 0 is singular: the split form is used.
    #[test]
    fn singular_free_block_is_split_and_solved() {
        let m = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -1.0, 0.0]);
        let mcp = Mcp::mixed(m, DVector::from_column_slice(&[-2.0, 3.0]), 1).unwrap();
        assert_eq!(Reduction::new(&mcp, false).free, FreeHandling::Split);
        let r = lemke_mcp(&mcp, None, Covering::Ones, None, None, None).unwrap();
        assert!(
            (r.z[0] - 3.0).abs() < 1e-12 && (r.z[1] - 2.0).abs() < 1e-12,
            "{}",
            r.z
        );
    }

    /// An invertible free block is eliminated by the Schur complement, and z_F recovered.
    #[test]
    fn invertible_free_block_uses_the_schur_complement() {
        // [[2, 1], [1, 1]], q = (−2, −1): z_F = (2 − z_C)/2, w_C = z_F + z_C − 1 = z_C/2 ≥ 0
        // ⟂ z_C ⇒ z_C = 0, z_F = 1.
        let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 1.0]);
        let mcp = Mcp::mixed(m, DVector::from_column_slice(&[-2.0, -1.0]), 1).unwrap();
        let red = Reduction::new(&mcp, true);
        assert_eq!(red.free, FreeHandling::Schur);
        assert_eq!((red.m.nrows(), red.m[(0, 0)]), (1, 0.5));
        let r = lemke_mcp(&mcp, None, Covering::Ones, None, None, None).unwrap();
        assert!(
            (r.z[0] - 1.0).abs() < 1e-12 && r.z[1].abs() < 1e-12,
            "{}",
            r.z
        );
    }
}
