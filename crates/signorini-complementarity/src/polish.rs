//! Active-set Newton polish: one exact solve on the active set identified by an iterate.
//!
//! Owns: `polish`. Does not own: deciding when to polish (the callers in
//! `fischer_burmeister.rs` and `auto.rs` keep the result only if the residual drops).
//!
//! This is one step of the minimum-map ("Newton-min") method
//! (`docs/formulation-notes.md` §12.3): with p = mid(l, u, z − w), indices where p
//! sits on a bound are fixed there and the others solve w_F = 0:
//! M_FF z_F = −(q_F + M_FA z_A).

use nalgebra::{DMatrix, DVector};
use signorini_math::Real;

use crate::Mcp;
use crate::dense_lu::DenseLu;

/// Candidates of problems up to this size are polished even when within tolerance.
pub const POLISH_ALWAYS_UP_TO: usize = 500;

/// A box MCP by reference: what [`polish`] reads. The problem's own [`Mcp`], or an [`crate::Lcp`]
/// with l = 0 and u = +∞ without copying its matrix (`Lcp::to_mcp` would: an n² allocation
/// per polish, a tenth of a resting tower's step).
struct Boxed<'a> {
    m: &'a DMatrix<Real>,
    q: &'a DVector<Real>,
    lower: &'a DVector<Real>,
    upper: &'a DVector<Real>,
}

impl Boxed<'_> {
    fn w(&self, z: &DVector<Real>) -> DVector<Real> {
        self.m * z + self.q
    }

    /// The same arithmetic as [`Mcp::residual`].
    fn residual(&self, z: &DVector<Real>) -> Real {
        crate::sparse_problem::natural_residual(z, &self.w(z), self.lower, self.upper)
    }
}

/// The polished iterate, or None if the reduced system is singular or gives a non-finite z.
fn polish(mcp: &Boxed, z: &DVector<Real>) -> Option<DVector<Real>> {
    let n = z.len();
    let w = mcp.w(z);
    // Identify the active set from the natural map.
    let mut out = z.clone();
    let mut free = Vec::with_capacity(n);
    for i in 0..n {
        let p = (z[i] - w[i]).clamp(mcp.lower[i], mcp.upper[i]);
        if p == mcp.lower[i] || p == mcp.upper[i] {
            out[i] = p;
        } else {
            free.push(i);
        }
    }
    if free.is_empty() {
        return Some(out);
    }
    // Solve the reduced system on the free set with the active variables fixed.
    let nf = free.len();
    let mff = DMatrix::from_fn(nf, nf, |i, j| mcp.m[(free[i], free[j])]);
    let mut fixed = out.clone();
    for &i in &free {
        fixed[i] = 0.0;
    }
    let rhs_full = mcp.m * &fixed + mcp.q;
    let rhs = DVector::from_fn(nf, |i, _| -rhs_full[free[i]]);
    let zf = DenseLu::new(mff).solve_vec(&rhs)?;
    for (k, &i) in free.iter().enumerate() {
        out[i] = zf[k];
    }
    out.iter().all(|x| x.is_finite()).then_some(out)
}

/// `polish(z)` if it lowers the residual, else z; returns the kept iterate and its residual.
pub(crate) fn polish_if_better(mcp: &Mcp, z: DVector<Real>) -> (DVector<Real>, Real) {
    let b = Boxed {
        m: &mcp.m,
        q: &mcp.q,
        lower: &mcp.lower,
        upper: &mcp.upper,
    };
    boxed_polish_if_better(&b, z)
}

fn boxed_polish_if_better(b: &Boxed, z: DVector<Real>) -> (DVector<Real>, Real) {
    let r0 = b.residual(&z);
    match polish(b, &z) {
        Some(p) => {
            let r1 = b.residual(&p);
            if r1 < r0 { (p, r1) } else { (z, r0) }
        }
        None => (z, r0),
    }
}

/// The polish of a candidate z of a plain LCP, kept if it lowers the natural residual, for
/// problems of at most [`crate::POLISH_ALWAYS_UP_TO`] unknowns (larger ones are returned as
/// they are): what `auto` does to every small candidate, for answers that come from elsewhere
/// (e.g. [`crate::LemkeFactor::resolve`]). Returns the kept z and its residual.
pub fn polish_small_lcp(lcp: &crate::Lcp, z: DVector<Real>) -> (DVector<Real>, Real) {
    if lcp.dim() > POLISH_ALWAYS_UP_TO {
        let r = lcp.residual(&z);
        return (z, r);
    }
    let n = lcp.dim();
    let (lower, upper) = (DVector::zeros(n), DVector::from_element(n, Real::INFINITY));
    let b = Boxed {
        m: &lcp.m,
        q: &lcp.q,
        lower: &lower,
        upper: &upper,
    };
    boxed_polish_if_better(&b, z)
}
