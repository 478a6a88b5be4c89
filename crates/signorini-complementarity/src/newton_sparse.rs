//! Sparse semismooth Newton (PATH class) for large box MCPs: [`solve_sparse`].
//!
//! Owns: [`solve_sparse`], the kernel [`run`] (used by `solve_mcp` for
//! [`SolverKind::SparseNewton`] on a dense problem converted to CSC), the generalized
//! Jacobian's sparse pattern and faer's sparse LU around it, and the sparse active-set
//! polish. Does not own: the NCP function φ_λ and Billups' bound cases (shared with the dense
//! solver, `fischer_burmeister.rs::row_map`), the problem type (`sparse_problem.rs`).
//!
//! Algorithm: the semismooth algorithm of Munson, Facchinei, Ferris, Fischer & Kanzow, "The
//! semismooth algorithm for large scale complementarity problems", *INFORMS J. Computing*
//! 13(4), 2001 (MFFFK below), on the linear box MCP:
//! - Φ(z) = 0 is the penalized Fischer–Burmeister reformulation (Chen, Chen & Kanzow 2000,
//!   λ = 0.8) with Billups' composition for boxes; MFFFK §2, eqs. (3)–(5). A free variable
//!   has Φ_i = w_i.
//! - Every element of the generalized Jacobian has rows α_i e_iᵀ + β_i M_i, i.e.
//!   H = D_a + D_b M (MFFFK Prop. 2.3 / the procedure after it; at the kink a = b = 0 the
//!   element with ξ = ρ = 1/√2 is used). H is assembled in CSC on the fixed pattern
//!   M ∪ diag, so one symbolic LU (faer, COLAMD column order) serves every iteration;
//!   each iteration refactorises numerically (partial pivoting by rows).
//! - Direction (MFFFK §3, Algorithm 3.1): Newton H d = −Φ; if the LU fails or the direction
//!   is not a sufficient descent direction of Ψ = ½‖Φ‖² (∇Ψᵀd > −ρ‖d‖^p, ρ = 1e-8,
//!   p = 2.1, their eq. (10)), the regularised systems (H + μ D_b) d = −Φ for growing μ
//!   (Levenberg–Marquardt-like: H + μ D_b is the Jacobian of the same reformulation for
//!   M + μI, the regularisation Lemke's fallback chain uses), finally the steepest descent
//!   d = −∇Ψ = −Hᵀ Φ.
//! - Line search: non-monotone Armijo (Grippo–Lampariello–Lucidi; MFFFK §3 use a
//!   non-monotone watchdog) on Ψ, with the reference value the maximum of the last 3 merits.
//! - Finish (not in MFFFK; the "crash"/active-set idea of PATH and of block principal
//!   pivoting, Júdice & Pires 1994): from the best iterate, guess the active set from the
//!   natural map p = mid(l, u, z − w), fix those variables at their bound and solve
//!   w_F = 0 exactly for the rest — the same LU pattern with (α, β) = (1, 0) on active rows
//!   and (0, 1) on free rows. Repeated while the natural residual drops (at most
//!   `POLISH_ROUNDS`); this is what lands on a pivoting method's ~1e-12 answers. The same
//!   step is tried after every full (t = 1) Newton step and ends the solve as soon as it
//!   lands within tolerance: with the right active set one exact solve beats further
//!   Newton steps on the smoothed Φ (PATH, too, finishes on a basis).
//! - Proximal continuation (not in MFFFK; run only when the above ends above tolerance):
//!   the proximal point algorithm (Rockafellar, "Monotone operators and the proximal point
//!   algorithm", *SIAM J. Control Optim.* 14(5), 1976) on the MCP, with a vanishing weight:
//!   from the start point z₀, round k solves the MCP of M + ε_k I and q − ε_k z_k by the
//!   Newton iterations and polish above (warm-started at z_k), then ε_{k+1} = ε_k / 10
//!   (`PROXIMAL_WEIGHT`, `PROXIMAL_DECAY`; at most `PROXIMAL_ROUNDS` rounds and
//!   `PROXIMAL_ITERATIONS` Newton iterations in all). Why: the redundant face-to-face contacts
//!   of PEG's piles make M rank-deficient, so the Jacobians and the polish's active-set
//!   systems are singular (the exact polish failed on every call on a 9,100-unknown island of
//!   the 3D pile of 125 with μ = 0.5) and Newton crawls or stalls. Where M is positive
//!   semidefinite (the frictionless mixed form) M + εI is positive definite, so every system
//!   of a round is nonsingular and the rounds converge to a solution of the original
//!   problem; PEG's frictional rows are not monotone, so nothing is guaranteed there, and
//!   only the original problem's natural residual decides (docs/peg3d.md, item 20).
//!
//! Determinism: faer runs with `Par::Seq`; every sum is in a fixed order; so the result is
//! bit-identical from run to run and whatever the thread count.
//!
//! Work (`SolveParams::work_limit`) is counted in stored matrix entries touched, a
//! deterministic proxy for multiply–adds: each evaluation of w = M z + q charges
//! nnz(M) + n, each numeric LU factorisation and each LU solve charge nnz(H pattern) (faer
//! does not expose the factor sizes of its supernodal LU, so the pattern size stands in for
//! them). The solve stops with [`SolveError::Infeasible`] (reason
//! [`crate::BUDGET_SPENT`]) when the budget is spent.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::lu::{LuRef, NumericLu, SymbolicLu, factorize_symbolic_lu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};
use nalgebra::DVector;
use signorini_math::Real;
use std::time::Instant;

use crate::CscMatrix;
use crate::fischer_burmeister::{
    BACKTRACK, MAX_BACKTRACKS, NONMONOTONE_MEMORY, P_EXP, RHO, SIGMA, row_map,
};
use crate::solve::accept::check_tolerance;
use crate::solve::types::{Attempt, SolveError, SolveInfo, SolveParams, SolverKind};
use crate::sparse_problem::{SparseMcp, natural_residual};

/// Newton iteration limit when `SolveParams::max_iterations` is `None`.
pub const DEFAULT_ITERATIONS: usize = 100;
/// Regularisation weights μ / max(1, max|M_ij|) of the fallback systems (H + μ D_b) d = −Φ.
const REGULARISATION: [Real; 3] = [1e-8, 1e-5, 1e-2];
/// At most this many active-set polish rounds.
const POLISH_ROUNDS: usize = 8;
/// First proximal weight ε₀ / max(1, max|M_ij|) of the proximal continuation (module docs).
/// On the dumped islands of the 125-body pile with μ = 0.5 (session 22): kept constant,
/// 1e-5 stopped at 1.6e-7 on three of them (the rounds converge linearly) where the decay
/// below solved them, 1e-4 needed 23 rounds and 1e-3 stopped at 4.8e-7; a first weight of
/// 1e-6 or 1e-7 made the first round as hard as the problem itself (93 Newton iterations,
/// and a failure, against 64 for 1e-5).
const PROXIMAL_WEIGHT: Real = 1e-5;
/// Each proximal round divides the weight by this (vanishing regularisation).
const PROXIMAL_DECAY: Real = 0.1;
/// At most this many proximal rounds.
const PROXIMAL_ROUNDS: usize = 20;
/// At most this many Newton iterations (polishes count one) over all proximal rounds, and
/// never more than twice what the Newton run before them was allowed. On the 125-body pile's
/// nine dumped islands where Newton failed, 100 solved 2 of them and 200 solved 4.
const PROXIMAL_ITERATIONS: usize = 200;

/// Solve the sparse box MCP (l ≤ z ≤ u, w = M z + q, w ⟂ the box) by the sparse semismooth
/// Newton method (module docs).
///
/// Validates the input like [`crate::solve_mcp`]. Starts from `params.warm_start` if it has
/// length n and is finite, else from mid(l, u, 0). At most `params.max_iterations`
/// ([`DEFAULT_ITERATIONS`] if `None`) Newton iterations, then the active-set polish; if that
/// is not a solution, the proximal continuation with at most twice as many iterations (at
/// most `PROXIMAL_ITERATIONS`; `params.proximal`; its success is noted in
/// `SolveInfo::fallbacks`). Solved
/// means natural-map residual ≤ `params.tolerance · max(1, ‖q‖∞)`. Errors carry the best
/// iterate: [`SolveError::MaxIterations`] (iteration limit), [`SolveError::Infeasible`] (work
/// budget spent), [`SolveError::Inaccurate`] (the line search stalled at a point that is not
/// a solution, e.g. a stationary point of Ψ on a non-P0 problem).
///
/// ```
/// use nalgebra::DVector;
/// use signorini_complementarity::{CscMatrix, SolveParams, SparseMcp, solve_sparse};
/// let m = CscMatrix::from_triplets(2, 2, &[(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)])
///     .unwrap();
/// let mcp = SparseMcp::lcp(m, DVector::from_column_slice(&[-5.0, -6.0])).unwrap();
/// let info = solve_sparse(&mcp, &SolveParams::default()).unwrap();
/// assert!((info.z[0] - 4.0 / 3.0).abs() < 1e-12 && info.residual < 1e-12);
/// ```
pub fn solve_sparse(mcp: &SparseMcp, params: &SolveParams) -> Result<SolveInfo, SolveError> {
    let start = Instant::now();
    // Checked in place: copying a large island's matrix for every solve would cost as much
    // as assembling it.
    mcp.validate()
        .map_err(|e| SolveError::InvalidInput(e.to_string()))?;
    check_tolerance(params)?;
    let tol = params.tolerance * mcp.q.amax().max(1.0);
    let attempt = run(mcp, params, tol)?;
    let w = mcp.w(&attempt.z);
    let residual = mcp.residual(&attempt.z);
    Ok(SolveInfo {
        z: attempt.z,
        w,
        solver: SolverKind::SparseNewton,
        iterations: attempt.iterations,
        residual,
        seconds: start.elapsed().as_secs_f64(),
        fallbacks: attempt.fallbacks,
        basis: None,
        factor: None,
        work: attempt.work,
    })
}

/// The solver on a validated problem with the scaled tolerance `tol`: Newton, then polish.
/// Returns an `Attempt` within tolerance, or the error that carries the best iterate.
pub(crate) fn run(mcp: &SparseMcp, params: &SolveParams, tol: Real) -> Result<Attempt, SolveError> {
    let n = mcp.dim();
    let max_iter = params.max_iterations.unwrap_or(DEFAULT_ITERATIONS);
    let mut work = Work {
        spent: 0.0,
        limit: params.work_limit,
    };
    let attempt = |z: DVector<Real>, iterations: usize, work: Real| Attempt {
        z,
        iterations,
        solver: SolverKind::SparseNewton,
        fallbacks: Vec::new(),
        basis: None,
        factor: None,
        accepted_w: None,
        work,
    };
    if n == 0 {
        return Ok(attempt(DVector::zeros(0), 0, 0.0));
    }
    let mut lu = SparseLu::new(Pattern::new(&mcp.m))?;
    let z0 = start_point(mcp, params.warm_start.as_ref());
    // Crash (PATH's crash step, Dirkse & Ferris 1995): from a warm start the active set is
    // often already right (a resting contact stays active from step to step), and one exact
    // active-set solve then ends the solve without a Newton iteration; counted as one
    // iteration. Newton starts from the warm start itself if it does not.
    let used = |w: &DVector<Real>| w.len() == n && w.iter().all(|x| x.is_finite());
    if params.warm_start.as_ref().is_some_and(used) {
        let r0 = mcp.residual(&z0);
        let (z, r) = polish_rounds(mcp, &mut lu, z0.clone(), r0, &mut work);
        if r <= tol {
            return Ok(attempt(z, 1, work.spent));
        }
    }
    let out = newton(mcp, &mut lu, z0.clone(), max_iter, tol, &mut work);
    let (stop, newton_iterations) = (out.stop, out.iterations);
    let (mut z, mut residual) = settle(mcp, &mut lu, out, &mut work);
    if residual <= tol {
        return Ok(attempt(z, newton_iterations, work.spent));
    }
    // Proximal continuation from the start point (module docs); its best iterate replaces
    // Newton's if it is better.
    // (A continuation that cannot even start, e.g. a failed symbolic analysis, leaves
    // Newton's result as it was.)
    if params.proximal
        && stop != Stop::Budget
        && let Ok(prox) = proximal(
            mcp,
            &z0,
            tol,
            (2 * max_iter).min(PROXIMAL_ITERATIONS),
            &mut work,
        )
    {
        let iterations = newton_iterations + prox.iterations;
        if prox.residual <= tol {
            let mut a = attempt(prox.z, iterations, work.spent);
            a.fallbacks.push((
                SolverKind::SparseNewton,
                format!(
                    "stopped at residual {residual:e}; solved by the proximal continuation ({} iterations)",
                    prox.iterations
                ),
            ));
            return Ok(a);
        }
        if prox.residual < residual {
            (z, residual) = (prox.z, prox.residual);
        }
    }
    Err(match stop {
        Stop::Budget => SolveError::Infeasible {
            reason: format!(
                "{} ({:e}) after {} sparse Newton iterations",
                crate::BUDGET_SPENT,
                work.limit.unwrap_or(Real::INFINITY),
                newton_iterations
            ),
            best: Some(z),
            residual,
        },
        Stop::MaxIterations => SolveError::MaxIterations {
            iterations: newton_iterations,
            residual,
            best: z,
        },
        Stop::Converged | Stop::Stalled => SolveError::Inaccurate {
            solver: SolverKind::SparseNewton,
            iterations: newton_iterations,
            residual,
            best: z,
        },
    })
}

/// Newton's best iterate and its residual, polished unless the in-loop polish already
/// ended the run.
fn settle(
    mcp: &SparseMcp,
    lu: &mut SparseLu,
    out: Outcome,
    work: &mut Work,
) -> (DVector<Real>, Real) {
    if out.polished {
        (out.z, out.residual)
    } else {
        polish_rounds(mcp, lu, out.z, out.residual, work)
    }
}

/// What the proximal continuation ended with.
struct Proximal {
    z: DVector<Real>,
    residual: Real,
    iterations: usize,
}

/// The proximal continuation (module docs) from z0, with at most `max_iter` Newton iterations
/// (each round's crash polish counts one); returns its best iterate by the natural residual
/// of `mcp` itself.
fn proximal(
    mcp: &SparseMcp,
    z0: &DVector<Real>,
    tol: Real,
    max_iter: usize,
    work: &mut Work,
) -> Result<Proximal, SolveError> {
    let n = mcp.dim();
    let scale = mcp.m.values().iter().fold(1.0, |a: Real, v| a.max(v.abs()));
    let mut eps = PROXIMAL_WEIGHT * scale;
    // M + εI stores every diagonal entry, so one pattern (and symbolic LU) serves all rounds,
    // and a round only rewrites the diagonal values M_jj + ε.
    let mut t = mcp.m.triplets();
    t.extend((0..n).map(|i| (i, i, eps)));
    let m = CscMatrix::from_triplets(n, n, &t)
        .map_err(|e| SolveError::InvalidInput(format!("proximal matrix: {e}")))?;
    let at = (0..n)
        .map(|j| m.diagonal_position(j))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| SolveError::InvalidInput("proximal matrix lost a diagonal".into()))?;
    let base: Vec<Real> = (0..n)
        .map(|j| {
            mcp.m
                .diagonal_position(j)
                .map_or(0.0, |k| mcp.m.values()[k])
        })
        .collect();
    let mut sub = SparseMcp {
        m,
        q: mcp.q.clone(),
        lower: mcp.lower.clone(),
        upper: mcp.upper.clone(),
    };
    let mut lu = SparseLu::new(Pattern::new(&sub.m))?;
    let mut best = Proximal {
        z: z0.clone(),
        residual: mcp.residual(z0),
        iterations: 0,
    };
    let mut z = z0.clone();
    for round in 0..PROXIMAL_ROUNDS {
        if best.residual <= tol || best.iterations >= max_iter || work.exhausted() {
            break;
        }
        if round > 0 {
            eps *= PROXIMAL_DECAY;
            let values = sub.m.values_mut();
            for (&k, &d) in at.iter().zip(&base) {
                values[k] = d + eps;
            }
        }
        sub.q = &mcp.q - eps * &z;
        // The round's start is polished first (the crash of `run`), then Newton.
        let r0 = sub.residual(&z);
        let (crashed, rc) = polish_rounds(&sub, &mut lu, z.clone(), r0, work);
        best.iterations += 1;
        let zr = if rc <= tol {
            crashed
        } else {
            let left = max_iter.saturating_sub(best.iterations).max(1);
            let out = newton(&sub, &mut lu, crashed, left, tol, work);
            best.iterations += out.iterations.max(1);
            settle(&sub, &mut lu, out, work).0
        };
        let r = mcp.residual(&zr);
        let moved = (&zr - &z).amax();
        if r < best.residual {
            best.z = zr.clone();
            best.residual = r;
        }
        if moved == 0.0 {
            break; // a fixed point of the rounds: further rounds repeat it
        }
        z = zr;
    }
    Ok(best)
}

/// The warm start if it has length n and is finite, else mid(l, u, 0).
fn start_point(mcp: &SparseMcp, warm: Option<&DVector<Real>>) -> DVector<Real> {
    match warm {
        Some(z) if z.len() == mcp.dim() && z.iter().all(|x| x.is_finite()) => z.clone(),
        _ => DVector::from_fn(mcp.dim(), |i, _| 0.0_f64.clamp(mcp.lower[i], mcp.upper[i])),
    }
}

/// Deterministic work counter (module docs).
struct Work {
    spent: Real,
    limit: Option<Real>,
}

impl Work {
    fn charge(&mut self, units: usize) {
        self.spent += units as Real;
    }

    fn exhausted(&self) -> bool {
        self.limit.is_some_and(|l| self.spent >= l)
    }
}

// ---------------------------------------------------------------------------------------
// The Jacobian pattern and its LU
// ---------------------------------------------------------------------------------------

/// The pattern of H = D_a + D_b M + μ D_b: M's entries plus the diagonal, canonical CSC.
struct Pattern {
    n: usize,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// For each pattern entry, the index of the entry of M it holds (`None`: a diagonal
    /// entry that M does not store).
    m_src: Vec<Option<usize>>,
    /// For each column j, the position of the diagonal entry (j, j) in the pattern.
    diag: Vec<usize>,
}

impl Pattern {
    /// Merge each (sorted) column of M with its diagonal entry. M must be canonical.
    fn new(m: &CscMatrix) -> Self {
        let n = m.ncols();
        let (cp, ri) = (m.col_ptr(), m.row_idx());
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::with_capacity(m.nnz() + n);
        let mut m_src = Vec::with_capacity(m.nnz() + n);
        let mut diag = vec![0; n];
        col_ptr.push(0);
        for j in 0..n {
            let mut diag_done = false;
            for (k, &i) in ri.iter().enumerate().take(cp[j + 1]).skip(cp[j]) {
                if !diag_done && i >= j {
                    diag[j] = row_idx.len();
                    diag_done = true;
                    if i > j {
                        row_idx.push(j);
                        m_src.push(None);
                    }
                }
                row_idx.push(i);
                m_src.push(Some(k));
            }
            if !diag_done {
                diag[j] = row_idx.len();
                row_idx.push(j);
                m_src.push(None);
            }
            col_ptr.push(row_idx.len());
        }
        Pattern {
            n,
            col_ptr,
            row_idx,
            m_src,
            diag,
        }
    }

    fn nnz(&self) -> usize {
        self.row_idx.len()
    }

    /// The values of H = D_a + D_b (M + μ I) on the pattern.
    fn values(&self, m: &CscMatrix, alpha: &[Real], beta: &[Real], mu: Real) -> Vec<Real> {
        let mv = m.values();
        let mut v: Vec<Real> = (0..self.nnz())
            .map(|k| self.m_src[k].map_or(0.0, |s| beta[self.row_idx[k]] * mv[s]))
            .collect();
        for j in 0..self.n {
            v[self.diag[j]] += alpha[j] + mu * beta[j];
        }
        v
    }
}

/// faer's sparse LU on a fixed pattern: symbolic analysis once, numeric factorisations on
/// demand, sequential (`Par::Seq`) for bit-identical results.
struct SparseLu {
    pattern: Pattern,
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, Real>,
    factor_mem: MemBuffer,
    solve_mem: MemBuffer,
    factored: bool,
}

impl SparseLu {
    fn new(pattern: Pattern) -> Result<Self, SolveError> {
        let fail = |what: &str, e: String| {
            SolveError::InvalidInput(format!("sparse LU {what} failed: {e}"))
        };
        let n = pattern.n;
        let structure =
            SymbolicSparseColMatRef::new_checked(n, n, &pattern.col_ptr, None, &pattern.row_idx);
        let symbolic = factorize_symbolic_lu(structure, Default::default())
            .map_err(|e| fail("symbolic analysis", format!("{e:?}")))?;
        let factor_mem = MemBuffer::try_new(
            symbolic.factorize_numeric_lu_scratch::<Real>(Par::Seq, Default::default()),
        )
        .map_err(|e| fail("workspace allocation", format!("{e:?}")))?;
        let solve_mem = MemBuffer::try_new(symbolic.solve_in_place_scratch::<Real>(1, Par::Seq))
            .map_err(|e| fail("workspace allocation", format!("{e:?}")))?;
        Ok(SparseLu {
            pattern,
            symbolic,
            numeric: NumericLu::new(),
            factor_mem,
            solve_mem,
            factored: false,
        })
    }

    /// Numeric LU of the pattern with these values; false if they are not finite or the
    /// matrix is (structurally or numerically exactly) singular.
    fn factor(&mut self, values: &[Real], work: &mut Work) -> bool {
        self.factored = false;
        work.charge(self.pattern.nnz());
        if values.len() != self.pattern.nnz() || !values.iter().all(|v| v.is_finite()) {
            return false;
        }
        let n = self.pattern.n;
        let structure = SymbolicSparseColMatRef::new_checked(
            n,
            n,
            &self.pattern.col_ptr,
            None,
            &self.pattern.row_idx,
        );
        let a = SparseColMatRef::new(structure, values);
        let ok = self
            .symbolic
            .factorize_numeric_lu(
                &mut self.numeric,
                a,
                Par::Seq,
                MemStack::new(&mut self.factor_mem),
                Default::default(),
            )
            .is_ok();
        if !ok {
            // Start the next factorisation from a clean numeric object.
            self.numeric = NumericLu::new();
        }
        self.factored = ok;
        ok
    }

    /// Solve with the last factorisation: x = A⁻¹ b. None if there is none or x is not finite.
    fn solve(&mut self, b: &DVector<Real>, work: &mut Work) -> Option<DVector<Real>> {
        if !self.factored || b.len() != self.pattern.n {
            return None;
        }
        work.charge(self.pattern.nnz());
        let mut x = b.clone();
        let rhs = MatMut::from_column_major_slice_mut(x.as_mut_slice(), b.len(), 1);
        LuRef::new_unchecked(&self.symbolic, &self.numeric).solve_in_place_with_conj(
            Conj::No,
            rhs,
            Par::Seq,
            MemStack::new(&mut self.solve_mem),
        );
        x.iter().all(|v| v.is_finite()).then_some(x)
    }
}

// ---------------------------------------------------------------------------------------
// The Newton kernel
// ---------------------------------------------------------------------------------------

/// Φ, the Jacobian row coefficients and the merit at one iterate.
struct Eval {
    z: DVector<Real>,
    w: DVector<Real>,
    phi: DVector<Real>,
    alpha: Vec<Real>,
    beta: Vec<Real>,
    psi: Real,
}

fn eval(mcp: &SparseMcp, z: DVector<Real>, work: &mut Work) -> Eval {
    let n = mcp.dim();
    work.charge(mcp.m.nnz() + n);
    let w = mcp.w(&z);
    let mut phi = DVector::zeros(n);
    let (mut alpha, mut beta) = (vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let (v, a, b) = row_map(mcp.lower[i], mcp.upper[i], z[i], w[i]);
        phi[i] = v;
        alpha[i] = a;
        beta[i] = b;
    }
    let psi = 0.5 * phi.norm_squared();
    Eval {
        z,
        w,
        phi,
        alpha,
        beta,
        psi,
    }
}

/// Why the Newton loop stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Converged,
    MaxIterations,
    Budget,
    Stalled,
}

/// Best iterate (by natural residual) of the Newton loop.
struct Outcome {
    z: DVector<Real>,
    residual: Real,
    iterations: usize,
    stop: Stop,
    /// `z` is already the exact solution of its active set (the in-loop polish ended).
    polished: bool,
}

/// Semismooth Newton iterations from z0 (module docs); returns the best iterate.
fn newton(
    mcp: &SparseMcp,
    lu: &mut SparseLu,
    z0: DVector<Real>,
    max_iter: usize,
    tol: Real,
    work: &mut Work,
) -> Outcome {
    let mut cur = eval(mcp, z0, work);
    let mut best = Outcome {
        residual: natural_residual(&cur.z, &cur.w, &mcp.lower, &mcp.upper),
        z: cur.z.clone(),
        iterations: 0,
        stop: Stop::MaxIterations,
        polished: false,
    };
    let mut history: Vec<Real> = Vec::with_capacity(NONMONOTONE_MEMORY);
    for it in 0..max_iter {
        best.iterations = it;
        if best.residual <= tol {
            best.stop = Stop::Converged;
            return best;
        }
        if work.exhausted() {
            best.stop = Stop::Budget;
            return best;
        }
        if !cur.psi.is_finite() || cur.psi == 0.0 {
            best.stop = Stop::Stalled;
            return best;
        }
        if history.len() == NONMONOTONE_MEMORY {
            history.remove(0);
        }
        history.push(cur.psi);
        let reference = history.iter().copied().fold(cur.psi, Real::max);

        // Direction: Newton, regularised Newton, steepest descent (module docs).
        let grad = gradient(mcp, &cur);
        let d = direction(mcp, lu, &cur, &grad, work);
        let slope = grad.dot(&d);

        // Non-monotone Armijo backtracking on Ψ.
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..MAX_BACKTRACKS {
            let trial = eval(mcp, &cur.z + t * &d, work);
            if trial.psi.is_finite() && trial.psi <= reference + SIGMA * t * slope {
                accepted = Some(trial);
                break;
            }
            t *= BACKTRACK;
        }
        best.iterations = it + 1;
        let Some(next) = accepted else {
            best.stop = Stop::Stalled;
            return best;
        };
        cur = next;
        let r = natural_residual(&cur.z, &cur.w, &mcp.lower, &mcp.upper);
        if r < best.residual {
            best.residual = r;
            best.z = cur.z.clone();
        }
        // Early finish: after a full step (the local, fast regime) the active set is often
        // already right; one exact active-set solve then ends the solve (a rejected polish
        // leaves the iterate alone).
        if t == 1.0
            && r > tol
            && let Some(p) = polish(mcp, lu, &cur.z, work)
        {
            let rp = mcp.residual(&p);
            if rp <= tol {
                best.residual = rp;
                best.z = p;
                best.stop = Stop::Converged;
                best.polished = true;
                return best;
            }
        }
    }
    best.stop = if best.residual <= tol {
        Stop::Converged
    } else {
        Stop::MaxIterations
    };
    best
}

/// ∇Ψ = Hᵀ Φ = D_a Φ + Mᵀ (D_b Φ).
fn gradient(mcp: &SparseMcp, ev: &Eval) -> DVector<Real> {
    let n = mcp.dim();
    let bphi = DVector::from_fn(n, |i, _| ev.beta[i] * ev.phi[i]);
    let mut g = mcp.m.tr_mul_vec(&bphi);
    for i in 0..n {
        g[i] += ev.alpha[i] * ev.phi[i];
    }
    g
}

/// Newton direction H d = −Φ if it is a sufficient descent direction, else the first such
/// direction of (H + μ D_b) d = −Φ for the `REGULARISATION` weights, else −∇Ψ.
fn direction(
    mcp: &SparseMcp,
    lu: &mut SparseLu,
    ev: &Eval,
    grad: &DVector<Real>,
    work: &mut Work,
) -> DVector<Real> {
    let scale = mcp.m.values().iter().fold(1.0, |a: Real, v| a.max(v.abs()));
    let rhs = -&ev.phi;
    let shifts = std::iter::once(0.0).chain(REGULARISATION.iter().map(|r| r * scale));
    for mu in shifts {
        let values = lu.pattern.values(&mcp.m, &ev.alpha, &ev.beta, mu);
        if !lu.factor(&values, work) {
            continue;
        }
        if let Some(d) = lu.solve(&rhs, work)
            && grad.dot(&d) <= -RHO * d.norm().powf(P_EXP)
        {
            return d;
        }
    }
    -grad
}

// ---------------------------------------------------------------------------------------
// Active-set polish
// ---------------------------------------------------------------------------------------

/// One active-set Newton step from z (module docs): variables whose natural-map projection
/// p = mid(l, u, z − w) sits on a bound are fixed there, the others solve w_F = 0 with the
/// same LU pattern. None if that system is singular or gives a non-finite z.
fn polish(
    mcp: &SparseMcp,
    lu: &mut SparseLu,
    z: &DVector<Real>,
    work: &mut Work,
) -> Option<DVector<Real>> {
    let n = mcp.dim();
    work.charge(mcp.m.nnz() + n);
    let w = mcp.w(z);
    let (mut alpha, mut beta) = (vec![0.0; n], vec![0.0; n]);
    let mut rhs = DVector::zeros(n);
    for i in 0..n {
        let (l, u) = (mcp.lower[i], mcp.upper[i]);
        let p = (z[i] - w[i]).clamp(l, u);
        if p == l || p == u {
            alpha[i] = 1.0;
            rhs[i] = p;
        } else {
            beta[i] = 1.0;
            rhs[i] = -mcp.q[i];
        }
    }
    let values = lu.pattern.values(&mcp.m, &alpha, &beta, 0.0);
    if !lu.factor(&values, work) {
        return None;
    }
    lu.solve(&rhs, work)
}

/// Polish while the natural residual drops (at most `POLISH_ROUNDS` rounds, and no round
/// after the first once the work budget is spent); returns the kept iterate and its
/// residual.
fn polish_rounds(
    mcp: &SparseMcp,
    lu: &mut SparseLu,
    mut z: DVector<Real>,
    mut residual: Real,
    work: &mut Work,
) -> (DVector<Real>, Real) {
    for round in 0..POLISH_ROUNDS {
        if residual == 0.0 || (round > 0 && work.exhausted()) {
            break;
        }
        let Some(p) = polish(mcp, lu, &z, work) else {
            break;
        };
        let r = mcp.residual(&p);
        // NaN counts as no improvement.
        if r.partial_cmp(&residual) != Some(std::cmp::Ordering::Less) {
            break;
        }
        z = p;
        residual = r;
    }
    (z, residual)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_adds_missing_diagonal_entries_in_row_order() {
        // Column 0 holds rows 1, 2 (no diagonal); column 1 holds row 1; column 2 rows 0, 2.
        let m = CscMatrix::from_triplets(
            3,
            3,
            &[
                (1, 0, 1.0),
                (2, 0, 2.0),
                (1, 1, 3.0),
                (0, 2, 4.0),
                (2, 2, 5.0),
            ],
        )
        .unwrap();
        let p = Pattern::new(&m);
        assert_eq!(p.col_ptr, vec![0, 3, 4, 6]);
        assert_eq!(p.row_idx, vec![0, 1, 2, 1, 0, 2]);
        assert_eq!(p.diag, vec![0, 3, 5]);
        let v = p.values(&m, &[10.0, 20.0, 30.0], &[1.0, 2.0, 3.0], 0.5);
        // Row scaling by β, then α + μβ on the diagonal.
        assert_eq!(v, vec![10.5, 2.0, 6.0, 6.0 + 21.0, 4.0, 15.0 + 31.5]);
    }

    /// A 2D body (mass 1, inertia 1) falling at 0.1 m/s onto six contacts along its flat
    /// bottom (normal +y, at x = −0.5 … 0.5), as a mixed LCP: z = (ν, λ), rows
    /// M ν − G λ − M ν* = 0 and Gᵀ ν ≥ 0 ⊥ λ ≥ 0. G (3 × 6) has rank 2: the redundant contacts
    /// of a face resting on a face.
    fn six_coplanar_contacts() -> SparseMcp {
        let xs = [-0.5, -0.3, -0.1, 0.1, 0.3, 0.5];
        let mut t = vec![(0, 0, 1.0), (1, 1, 1.0), (2, 2, 1.0)];
        for (k, &x) in xs.iter().enumerate() {
            let c = 3 + k;
            t.extend([(1, c, -1.0), (2, c, -x), (c, 1, 1.0), (c, 2, x)]);
        }
        let m = CscMatrix::from_triplets(9, 9, &t).unwrap();
        let mut q = DVector::zeros(9);
        q[1] = 0.1; // −M ν* with ν* = (0, −0.1, 0)
        SparseMcp::mixed(m, q, 3).unwrap()
    }

    #[test]
    fn proximal_continuation_lands_on_a_solution_of_a_rank_deficient_problem() {
        let mcp = six_coplanar_contacts();
        let mut work = Work {
            spent: 0.0,
            limit: None,
        };
        // At a solution (at rest, the weight shared evenly) every contact is in the free
        // set, and that system is singular: the exact polish cannot land there.
        let mut at_rest = DVector::from_element(9, 0.1 / 6.0);
        at_rest.rows_mut(0, 3).fill(0.0);
        assert!(mcp.residual(&at_rest) < 1e-15);
        let mut lu = SparseLu::new(Pattern::new(&mcp.m)).unwrap();
        let polished = polish(&mcp, &mut lu, &at_rest, &mut work);
        assert!(polished.is_none_or(|p| mcp.residual(&p) > 1e-12));
        // From a cold start the continuation reaches a solution.
        let tol = 1e-12;
        let p = proximal(
            &mcp,
            &DVector::zeros(9),
            tol,
            PROXIMAL_ITERATIONS,
            &mut work,
        )
        .unwrap();
        assert!(p.residual <= tol, "residual {:e}", p.residual);
        assert!(p.iterations <= PROXIMAL_ITERATIONS);
        // At rest, the contact impulses carry the momentum 0.1 with no net moment.
        let lambda = p.z.rows(3, 6);
        assert!(p.z.rows(0, 3).amax() < 1e-12, "{}", p.z);
        assert!(lambda.iter().all(|&l| l >= 0.0));
        assert!((lambda.sum() - 0.1).abs() < 1e-12);
        let xs = [-0.5, -0.3, -0.1, 0.1, 0.3, 0.5];
        let moment: Real = xs.iter().zip(lambda.iter()).map(|(x, l)| x * l).sum();
        assert!(moment.abs() < 1e-12, "moment {moment:e}");
    }

    #[test]
    fn lu_solves_and_reports_singular_matrices() {
        let m = CscMatrix::from_triplets(2, 2, &[(0, 0, 4.0), (1, 0, 1.0), (0, 1, 2.0)]).unwrap();
        let mut lu = SparseLu::new(Pattern::new(&m)).unwrap();
        let mut work = Work {
            spent: 0.0,
            limit: None,
        };
        // [[4, 2], [1, 3]] x = [8, 7] → x = [1, 2].
        assert!(lu.factor(&[4.0, 1.0, 2.0, 3.0], &mut work));
        let x = lu
            .solve(&DVector::from_column_slice(&[8.0, 7.0]), &mut work)
            .unwrap();
        assert!(
            (x[0] - 1.0).abs() < 1e-15 && (x[1] - 2.0).abs() < 1e-15,
            "{x}"
        );
        // [[4, 2], [2, 1]] is singular; the failure is reported, not a panic or NaN answer.
        let singular = lu.factor(&[4.0, 2.0, 2.0, 1.0], &mut work)
            && lu
                .solve(&DVector::from_column_slice(&[1.0, 1.0]), &mut work)
                .is_some();
        assert!(!singular);
        assert!(!lu.factor(&[Real::NAN, 1.0, 2.0, 3.0], &mut work));
        assert!(lu.solve(&DVector::zeros(2), &mut work).is_none());
        assert!(work.spent > 0.0);
    }
}
