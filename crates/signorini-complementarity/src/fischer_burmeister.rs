//! Semismooth Newton on the penalized Fischer–Burmeister reformulation of a box MCP.
//!
//! Owns: [`solve_fb`] and the kernel [`fb_newton`]. Does not own: the fallback chain
//! (`auto.rs`) or the active-set polish (`polish.rs`, applied to the best iterate).
//!
//! - NCP function (Chen, Chen & Kanzow 2000, *Math. Prog.* 88):
//!   φ_λ(a, b) = λ(√(a²+b²) − a − b) − (1−λ) a₊ b₊, zero iff a ≥ 0, b ≥ 0, ab = 0.
//! - Bounds (Billups 1995, PhD thesis; PETSc `VecFischer`), with F = M z + q:
//!   free: Φ_i = F_i; lower only: φ(z−l, F); upper only: −φ(u−z, −F);
//!   both: φ(z−l, φ(u−z, −F)); fixed (l = u): z − l. Free variables (the velocities of
//!   the Stewart–Trinkle/PEG mixed LCP) are handled directly: no mass-matrix inverse.
//! - Every row of the generalized Jacobian is α_i e_iᵀ + β_i M_i (De Luca, Facchinei &
//!   Kanzow 1996, *Math. Prog.* 75); at the kink a = b = 0 the element with
//!   (ξ, ρ) = (1/√2, 1/√2) is used.
//! - Globalisation (DFK 2000, *COAP* 16; `docs/formulation-notes.md` §12.3): Newton
//!   direction H d = −Φ by dense LU; gradient ∇Ψ = HᵀΦ if the LU fails or
//!   ∇Ψᵀd > −ρ‖d‖^p (ρ = 1e-8, p = 2.1); non-monotone Armijo (Grippo–Lampariello–Lucidi)
//!   on Ψ = ½‖Φ‖² against the maximum of the last `NONMONOTONE_MEMORY` values.

use nalgebra::{DMatrix, DVector};
use signorini_math::Real;

use crate::Mcp;
use crate::dense_lu::DenseLu;
use crate::polish::polish_if_better;
use crate::solve::types::{Attempt, SolveError, SolveParams, SolverKind};

/// Penalty weight λ of φ_λ. DART's default is 0.5; 0.8 keeps more of FB's smooth descent
/// while still keeping level sets bounded on monotone problems (CCK 2000 tried several).
const LAMBDA: Real = 0.8;
/// Descent test constants of DFK (2000): fall back to −∇Ψ if ∇Ψᵀd > −ρ‖d‖^p.
pub(crate) const RHO: Real = 1e-8;
pub(crate) const P_EXP: Real = 2.1;
/// Armijo constant σ and backtracking factor β.
pub(crate) const SIGMA: Real = 1e-4;
pub(crate) const BACKTRACK: Real = 0.5;
/// Maximum number of backtracking halvings per iteration.
pub(crate) const MAX_BACKTRACKS: usize = 40;
/// Non-monotone memory (GLL reference value = max of the last this many merits). 3 rather
/// than 5–10: on the contact-like benches it cut FB-Newton iterations at n = 500 from 161
/// to 51 (the longer memory accepted large merit increases); 1 (monotone) stalled there.
pub(crate) const NONMONOTONE_MEMORY: usize = 3;

/// Problems of at least this many unknowns stop FB-Newton once it stalls: when its best
/// natural residual has not halved over the last [`STALL_WINDOW`] iterations. On the 2D pile
/// of 100 polygons (islands of 250–400 unknowns) the runs that did not converge sat on a
/// plateau (best residual 1e-8 … 2e-6, line searches of t ≈ 1e-3) for 60–90 iterations of a
/// dense LU each, 40 % of the run (`perf`, session 19). Smaller problems, among them every
/// pour2d and pour3d problem, iterate as before.
pub(crate) const STALL_FROM: usize = 200;
/// Iterations over which a stalling FB-Newton run must halve its best residual.
pub(crate) const STALL_WINDOW: usize = 10;

/// Whether a run whose best residual after each iteration is `bests` has stalled: the last
/// one is above half of the one [`STALL_WINDOW`] iterations earlier.
fn stalled(bests: &[Real]) -> bool {
    let n = bests.len();
    n > STALL_WINDOW && bests[n - 1] > 0.5 * bests[n - 1 - STALL_WINDOW]
}

/// Result of the kernel: best iterate by natural-map residual.
pub(crate) struct FbOutcome {
    pub z: DVector<Real>,
    pub residual: Real,
    pub iterations: usize,
}

/// FB-Newton as a stand-alone solver: start from the warm start (or the projection of 0),
/// iterate, polish the best iterate.
pub(crate) fn solve_fb(mcp: &Mcp, params: &SolveParams, tol: Real) -> Result<Attempt, SolveError> {
    let z0 = start_point(mcp, params.warm_start.as_ref());
    let max_iter = params.max_iterations.unwrap_or(200);
    let out = fb_newton(mcp, z0, max_iter, tol);
    let (z, residual) = polish_if_better(mcp, out.z);
    if residual <= tol {
        return Ok(Attempt {
            z,
            iterations: out.iterations,
            solver: SolverKind::FbNewton,
            fallbacks: Vec::new(),
            basis: None,
            factor: None,
            accepted_w: None,
            work: crate::solve::types::work_estimate(mcp.dim(), 0, out.iterations),
        });
    }
    if out.iterations >= max_iter {
        Err(SolveError::MaxIterations {
            iterations: out.iterations,
            residual,
            best: z,
        })
    } else {
        Err(SolveError::Inaccurate {
            solver: SolverKind::FbNewton,
            iterations: out.iterations,
            residual,
            best: z,
        })
    }
}

/// The warm start if it has the right length and is finite, else mid(l, u, 0).
pub(crate) fn start_point(mcp: &Mcp, warm: Option<&DVector<Real>>) -> DVector<Real> {
    match warm {
        Some(z) if z.len() == mcp.dim() && z.iter().all(|x| x.is_finite()) => z.clone(),
        _ => DVector::from_fn(mcp.dim(), |i, _| 0.0_f64.clamp(mcp.lower[i], mcp.upper[i])),
    }
}

/// φ_λ(a, b) and its partial derivatives (CCK 2000; kink element at a = b = 0).
fn phi(a: Real, b: Real) -> (Real, Real, Real) {
    let r = a.hypot(b);
    // Cancellation-free form of √(a²+b²) − a − b when a + b > 0 (Vanderbei; PETSc).
    let fb = if a + b > 0.0 {
        -2.0 * a * b / (r + a + b)
    } else {
        r - a - b
    };
    let (ga, gb) = if r > 1e-300 {
        (a / r - 1.0, b / r - 1.0)
    } else {
        let s = std::f64::consts::FRAC_1_SQRT_2;
        (s - 1.0, s - 1.0)
    };
    let (ap, bp) = (a.max(0.0), b.max(0.0));
    let pen = 1.0 - LAMBDA;
    let val = LAMBDA * fb - pen * ap * bp;
    let da = LAMBDA * ga - if a > 0.0 { pen * bp } else { 0.0 };
    let db = LAMBDA * gb - if b > 0.0 { pen * ap } else { 0.0 };
    (val, da, db)
}

/// Φ(z) and the row coefficients (α, β) of H = diag(α) + diag(β) M (Billups' bound cases).
fn residual_map(mcp: &Mcp, z: &DVector<Real>) -> (DVector<Real>, Vec<Real>, Vec<Real>) {
    let n = mcp.dim();
    let f = mcp.w(z);
    let mut val = DVector::zeros(n);
    let (mut alpha, mut beta) = (vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let (v, a, b) = row_map(mcp.lower[i], mcp.upper[i], z[i], f[i]);
        val[i] = v;
        alpha[i] = a;
        beta[i] = b;
    }
    (val, alpha, beta)
}

/// One row of Φ for bounds [l, u], variable x and F_i = fi: the value Φ_i and the
/// coefficients (α_i, β_i) of its generalized-Jacobian row α_i e_iᵀ + β_i M_i (Billups'
/// bound cases, module docs). Shared with the sparse solver (`newton_sparse.rs`).
pub(crate) fn row_map(l: Real, u: Real, x: Real, fi: Real) -> (Real, Real, Real) {
    match (l.is_finite(), u.is_finite()) {
        (false, false) => (fi, 0.0, 1.0),
        (true, false) => phi(x - l, fi),
        (false, true) => {
            let (p, pa, pb) = phi(u - x, -fi);
            (-p, pa, pb)
        }
        (true, true) if l == u => (x - l, 1.0, 0.0),
        (true, true) => {
            let (psi, qa, qb) = phi(u - x, -fi);
            let (p, pa, pb) = phi(x - l, psi);
            (p, pa - pb * qa, -pb * qb)
        }
    }
}

fn merit(mcp: &Mcp, z: &DVector<Real>) -> Real {
    let (v, _, _) = residual_map(mcp, z);
    0.5 * v.norm_squared()
}

/// The Newton (or gradient) direction at z for Φ, α, β.
fn direction(
    mcp: &Mcp,
    phi_v: &DVector<Real>,
    alpha: &[Real],
    beta: &[Real],
) -> (DVector<Real>, DVector<Real>) {
    let n = mcp.dim();
    let mut h = DMatrix::from_fn(n, n, |i, j| beta[i] * mcp.m[(i, j)]);
    for i in 0..n {
        h[(i, i)] += alpha[i];
    }
    let grad = h.tr_mul(phi_v);
    let newton = DenseLu::new(h)
        .solve_vec(&(-phi_v))
        .filter(|d| d.iter().all(|x| x.is_finite()));
    let d = match newton {
        Some(d) if grad.dot(&d) <= -RHO * d.norm().powf(P_EXP) => d,
        _ => -&grad,
    };
    (d, grad)
}

/// The semismooth Newton kernel: at most `max_iter` iterations from z; returns the best
/// iterate by natural-map residual. Stops at residual ≤ tol or when no step decreases Ψ.
pub(crate) fn fb_newton(mcp: &Mcp, mut z: DVector<Real>, max_iter: usize, tol: Real) -> FbOutcome {
    let mut best = FbOutcome {
        residual: mcp.residual(&z),
        z: z.clone(),
        iterations: 0,
    };
    let mut history: Vec<Real> = Vec::with_capacity(NONMONOTONE_MEMORY);
    // best.residual after each iteration, for the stall test.
    let mut bests: Vec<Real> = Vec::new();
    for it in 0..max_iter {
        best.iterations = it;
        if best.residual <= tol {
            break;
        }
        if mcp.dim() >= STALL_FROM && stalled(&bests) {
            break;
        }
        let (phi_v, alpha, beta) = residual_map(mcp, &z);
        let psi = 0.5 * phi_v.norm_squared();
        if !psi.is_finite() || psi == 0.0 {
            break;
        }
        if history.len() == NONMONOTONE_MEMORY {
            history.remove(0);
        }
        history.push(psi);
        let reference = history.iter().copied().fold(psi, Real::max);
        let (d, grad) = direction(mcp, &phi_v, &alpha, &beta);
        let slope = grad.dot(&d);
        // Non-monotone Armijo backtracking on Ψ.
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..MAX_BACKTRACKS {
            let trial = &z + t * &d;
            let psi_t = merit(mcp, &trial);
            if psi_t.is_finite() && psi_t <= reference + SIGMA * t * slope {
                accepted = Some(trial);
                break;
            }
            t *= BACKTRACK;
        }
        let Some(next) = accepted else {
            best.iterations = it + 1;
            break;
        };
        z = next;
        let r = mcp.residual(&z);
        if r < best.residual {
            best.residual = r;
            best.z = z.clone();
        }
        bests.push(best.residual);
        best.iterations = it + 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_has_stalled_when_its_best_residual_has_not_halved_in_the_window() {
        // Converging linearly by 0.9 per iteration: halves within 7 iterations, never stalls.
        let linear: Vec<Real> = (0..40).map(|k| 0.9_f64.powi(k)).collect();
        assert!((1..=linear.len()).all(|n| !stalled(&linear[..n])));
        // A plateau (the 2D pile's runs at 1.6e-8 … 2.4e-8) stalls once the window is full.
        let mut plateau = vec![1e-2, 1e-4, 5e-8];
        plateau.extend(std::iter::repeat_n(4.9e-8, 20));
        let first = (1..=plateau.len()).find(|&n| stalled(&plateau[..n]));
        assert_eq!(first, Some(3 + STALL_WINDOW));
        // Too short a history never stalls.
        assert!(!stalled(&[1.0; STALL_WINDOW]));
    }

    #[test]
    fn phi_vanishes_exactly_on_complementary_pairs() {
        for (a, b) in [(0.0, 3.0), (2.0, 0.0), (0.0, 0.0)] {
            assert!(phi(a, b).0.abs() < 1e-15, "{a} {b}");
        }
        for (a, b) in [(1.0, 1.0), (-1.0, 2.0), (0.5, -0.1)] {
            assert!(phi(a, b).0.abs() > 1e-3, "{a} {b}");
        }
    }

    #[test]
    fn phi_derivatives_match_finite_differences() {
        let (a, b, h) = (0.7, -0.3, 1e-7);
        let (_, da, db) = phi(a, b);
        let fda = (phi(a + h, b).0 - phi(a - h, b).0) / (2.0 * h);
        let fdb = (phi(a, b + h).0 - phi(a, b - h).0) / (2.0 * h);
        assert!((da - fda).abs() < 1e-6 && (db - fdb).abs() < 1e-6);
        let (a, b) = (0.4, 0.9);
        let (_, da, db) = phi(a, b);
        let fda = (phi(a + h, b).0 - phi(a - h, b).0) / (2.0 * h);
        let fdb = (phi(a, b + h).0 - phi(a, b - h).0) / (2.0 * h);
        assert!((da - fda).abs() < 1e-6 && (db - fdb).abs() < 1e-6);
    }
}
