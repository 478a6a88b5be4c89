//! Block nonsmooth Gauss–Seidel on the reduced LCP, matrix-free, one body pair per block.
//!
//! Owns: [`Formulation::solve_block_gs`], its parameters and result. Does not own: the exact
//! solves of the blocks (`signorini-complementarity`'s `auto` chain) or when this is used (the
//! world's large-island path, as a start and fallback for the sparse Newton method).
//!
//! The reduced LCP `w = A z + q`, `A = G M⁻¹ Cᵀ + E` (module docs of `formulate`) is never
//! formed. Its unknowns are grouped into blocks: the unknowns whose rows or columns touch the
//! same pair of bodies (all contacts, I/X slacks and friction unknowns of one body pair: PEG's
//! I- and X-constraints never span two pairs), joined with every unknown they share an E or μ
//! entry with. The velocities `ν = ν* + M⁻¹ Σ_j c_j z_j` are kept up to date; a sweep visits the
//! blocks in a fixed order and solves each block's small LCP exactly (dense, Lemke first) with
//! the other blocks' impulses held fixed, i.e. nonsmooth Gauss–Seidel with exact block solves
//! (Jean & Moreau's NSCD; Siconos' NSGS; Erleben 2013, §4). Each sweep is O(contacts); sweeps
//! stop when the natural residual of the whole problem is below the tolerance. It converges
//! slowly on deep piles, but every iterate respects each block's complementarity exactly, so it
//! finds the active set that an exact method (the sparse Newton polish) then finishes.

use crate::dim2::contact::MassBlock;
use crate::formulate::{DofBody, Formulation};
use nalgebra::{DMatrix, DVector, SVector};
use signorini_complementarity::{Lcp, SolveParams, solve_lcp};
use signorini_math::{Real, UnionFind};

/// Limits of [`Formulation::solve_block_gs`].
#[derive(Debug, Clone, Copy)]
pub struct BlockGsParams {
    /// Stop when the natural residual is at most this (absolute, in the units of w).
    pub tolerance: Real,
    /// At most this many sweeps.
    pub max_sweeps: usize,
}

/// What [`Formulation::solve_block_gs`] reached.
#[derive(Debug, Clone)]
pub struct BlockGsResult {
    /// The impulses (reduced-LCP unknowns).
    pub z: DVector<Real>,
    /// Natural residual `max_i |min(z_i, w_i)|` of the reduced LCP at `z`.
    pub residual: Real,
    /// Sweeps performed.
    pub sweeps: usize,
    /// Blocks whose exact solve failed in the last sweep (kept at their previous impulses).
    pub failed_blocks: usize,
}

impl<const D: usize> Formulation<D> {
    /// Block nonsmooth Gauss–Seidel on the reduced LCP for free-flight velocities `free`,
    /// starting from `z0` (zeros if `None` or of the wrong length). See the module docs.
    pub fn solve_block_gs<B: DofBody<D>>(
        &self,
        bodies: &[B],
        free: &[SVector<Real, D>],
        z0: Option<&DVector<Real>>,
        limits: &BlockGsParams,
    ) -> BlockGsResult {
        let n = self.dim();
        let inv: Vec<MassBlock<D>> = bodies.iter().map(|b| b.inverse_mass_block()).collect();
        let mut z = match z0 {
            Some(z) if z.len() == n && z.iter().all(|x| x.is_finite()) => z.map(|x| x.max(0.0)),
            _ => DVector::zeros(n),
        };
        let mut v = self.velocities_from_lcp(bodies, free, &z);
        let mut by_row: Vec<Vec<(usize, Real)>> = vec![Vec::new(); n];
        for &(i, j, x) in &self.extra {
            by_row[i].push((j, x));
        }
        let by_row = &by_row;
        let blocks = self.blocks();
        let local: Vec<BlockMatrix> = blocks.iter().map(|b| self.block_matrix(b, &inv)).collect();
        let mut result = BlockGsResult {
            residual: self.natural_residual(&v, &z, by_row),
            z: DVector::zeros(0),
            sweeps: 0,
            failed_blocks: 0,
        };
        while result.residual > limits.tolerance && result.sweeps < limits.max_sweeps {
            result.failed_blocks = 0;
            for (block, m) in blocks.iter().zip(&local) {
                // q of the block with its own impulses removed: w_b = A_bb z_b + q_b.
                let zb = DVector::from_iterator(block.len(), block.iter().map(|&j| z[j]));
                let wb = DVector::from_iterator(
                    block.len(),
                    block.iter().map(|&i| self.row_value(i, &v, &z, by_row)),
                );
                let q = wb - &m.a * &zb;
                let Some(new) = solve_block(&m.a, q, &zb) else {
                    result.failed_blocks += 1;
                    continue;
                };
                for (k, &j) in block.iter().enumerate() {
                    let dz = new[k] - z[j];
                    if dz != 0.0 {
                        for (b, g) in &self.cols[j].blocks {
                            v[*b] += inv[*b].mul(g) * dz;
                        }
                        z[j] = new[k];
                    }
                }
            }
            result.sweeps += 1;
            result.residual = self.natural_residual(&v, &z, by_row);
        }
        result.z = z;
        result
    }

    /// Row i of `w = A z + q` at velocities `v` (which already include `M⁻¹ C z`).
    fn row_value(
        &self,
        i: usize,
        v: &[SVector<Real, D>],
        z: &DVector<Real>,
        by_row: &[Vec<(usize, Real)>],
    ) -> Real {
        let extra: Real = by_row[i].iter().map(|&(j, x)| x * z[j]).sum();
        self.rows[i].dot_velocity(|b| v[b]) + self.row_const[i] + extra
    }

    /// `max_i |min(z_i, w_i)|`.
    fn natural_residual(
        &self,
        v: &[SVector<Real, D>],
        z: &DVector<Real>,
        by_row: &[Vec<(usize, Real)>],
    ) -> Real {
        (0..self.dim())
            .map(|i| z[i].min(self.row_value(i, v, z, by_row)).abs())
            .fold(0.0, Real::max)
    }

    /// The blocks: unknowns grouped by the body pair of their row (or column) Jacobian and by
    /// shared E / μ entries; each block sorted, blocks ordered by their first unknown.
    fn blocks(&self) -> Vec<Vec<usize>> {
        let n = self.dim();
        let mut sets = UnionFind::new(n);
        let mut by_pair = std::collections::BTreeMap::new();
        for i in 0..n {
            let jac = if self.rows[i].blocks.is_empty() {
                &self.cols[i]
            } else {
                &self.rows[i]
            };
            if jac.blocks.is_empty() {
                continue;
            }
            let mut pair: Vec<usize> = jac.blocks.iter().map(|(b, _)| *b).collect();
            pair.sort_unstable();
            let first = *by_pair.entry(pair).or_insert(i);
            sets.union(first, i);
        }
        for &(i, j, _) in &self.extra {
            sets.union(i, j);
        }
        sets.groups(0..n)
    }

    /// The dense block `A_bb` (rows × columns of the block, plus its E / μ entries).
    fn block_matrix(&self, block: &[usize], inv: &[MassBlock<D>]) -> BlockMatrix {
        let k = block.len();
        let mut a = DMatrix::zeros(k, k);
        for (r, &i) in block.iter().enumerate() {
            for (c, &j) in block.iter().enumerate() {
                if !self.rows[i].blocks.is_empty() && !self.cols[j].blocks.is_empty() {
                    a[(r, c)] = self.rows[i].weighted_dot(&self.cols[j], |b| inv[b]);
                }
            }
        }
        for &(i, j, x) in &self.extra {
            if let (Ok(r), Ok(c)) = (block.binary_search(&i), block.binary_search(&j)) {
                a[(r, c)] += x;
            }
        }
        BlockMatrix { a }
    }
}

struct BlockMatrix {
    a: DMatrix<Real>,
}

/// The block's LCP solved exactly (the `auto` chain, warm-started from its current impulses);
/// `None` if it fails or is not finite.
fn solve_block(
    a: &DMatrix<Real>,
    q: DVector<Real>,
    start: &DVector<Real>,
) -> Option<DVector<Real>> {
    let lcp = Lcp::new(a.clone(), q).ok()?;
    let mut params = SolveParams::default();
    params.warm_start = Some(start.clone());
    params.work_limit = Some(1e7);
    let info = solve_lcp(&lcp, &params).ok()?;
    info.z.iter().all(|x| x.is_finite()).then_some(info.z)
}
