//! The proximal-point iteration on a sparse LCP with the sparse Lemke as its inner solver:
//! [`lemke_proximal`].
//!
//! Owns: the regularised matrix M + εI, the outer iteration and its stopping rules.
//! Does not own: the pivoting (`lemke_sparse.rs`, whose kept factors make each outer round a
//! warm start of a few pivots), the acceptance of its answer (the caller's: it returns the
//! best iterate and its residual on the *original* problem, whatever it is).
//!
//! Reference: the proximal point algorithm, Rockafellar, "Monotone operators and the proximal
//! point algorithm", *SIAM J. Control Optim.* 14 (1976); for complementarity problems
//! Billups & Ferris, "QPCOMP: a quadratic programming based solver for mixed complementarity
//! problems", *Math. Programming* 76 (1997); the user guide's row for it:
//! `docs/complementarity.md`.
//!
//! Round k solves LCP(M + εI, q − ε z_k) for z_{k+1}; a fixed point solves LCP(M, q). Each
//! round's problem is better posed than the original: where M is only copositive (the
//! Stewart–Trinkle problems of resting faces, rank 42 of 120 on the tilted cubes of
//! docs/peg3d.md), M + εI is strictly copositive, so Lemke's path on it cannot end on a
//! secondary ray in exact arithmetic, and the tiny pivots of the redundant face rows that
//! break the unregularised path in double precision are lifted by ε.
//!
//! Why (docs/peg3d.md, item 29): on the 125-body pile with μ = 0.5 the sparse Lemke's paths on
//! islands of 6,500 unknowns end inaccurate or on rays, and the sparse Newton method stalls at
//! 5e-6 … 1e-5. One regularised run with ε = 1e-4 · max|M_ii| found a basis in 840 pivots
//! (at ε = 1e-8 and 1e-6 the path broke as the unregularised one does) and the rounds after
//! it took 2–100 pivots each and lowered the original residual from 6e-3 to 5e-8.
//!
//! Convergence is proven for monotone problems only; these are not monotone, so the iterate
//! kept is the one of least residual on the original problem, and the rounds stop when it
//! stalls. After each round that does not lower that residual by 10 %, ε shrinks (× 0.3, to
//! at least 1e-10 · max|M_ii|): the continuation ε_k → 0 of the proximal point method's
//! inexact variants. At a fixed ε, the rounds on the 2D pile of 2,500 settled at residuals of
//! ε ‖z_{k+1} − z_k‖ with a steady step (1.4e-5 … 9.0e-5); shrinking ε took five such islands
//! to 2.2e-8 … 1.9e-7 in 13–20 rounds (docs/peg3d.md, item 32). Each new ε factors its matrix
//! afresh at the last basis; a run at a lowered ε gets at most n/2 pivots by default
//! (`ProximalLemkeParams::nearby_path_pivots`), and if it breaks
//! or is cut the rounds go back to the first ε and the next step down is gentler (factor
//! 0.3 → √0.3 → …; above 0.9 ε stays: docs/peg3d.md, item 34). The first run's path at
//! 1e-4 · max|M_ii| was 0.2 n pivots on the 3D pile's island but 2.5–6.0 n on the 2D pile's:
//! a first path longer than n/2 pivots is cut and made again at 1e-2 · max|M_ii|, whose path
//! is shorter and whose rounds shrink ε as before (docs/peg3d.md, item 33). A nearby problem
//! (a gap-correction re-solve) can start where the last answer was: its z as the first
//! centre and its run's ε as the first run's (`ProximalLemkeParams::start`, `start_epsilon`;
//! item 38). Deterministic: each round is a deterministic sparse Lemke run.

use nalgebra::DVector;
use signorini_math::Real;

use crate::CscMatrix;
use crate::lemke_sparse::SparseLemkeMatrix;
use crate::solve::types::SolveError;
use crate::sparse_problem::lcp_natural_residual;

/// Settings of [`lemke_proximal`].
#[derive(Debug, Clone)]
pub struct ProximalLemkeParams {
    /// ε as a multiple of max_i |M_ii| (of max |M_ij| if the diagonal is zero).
    pub regularisation: Real,
    /// The first run at `regularisation` gets at most this many pivots (per run of the
    /// sparse Lemke: a failed warm run and the cold one after it, each). If it fails, it is
    /// made again at `long_path_regularisation`.
    pub short_path_pivots: usize,
    /// A run from a nearby basis — every run at an ε the continuation has lowered, and the
    /// first run at [`ProximalLemkeParams::start_epsilon`] — gets at most this many pivots
    /// (counted as `short_path_pivots`). If a lowered run fails, ε goes back to the first
    /// run's; if the resumed first run fails, the schedule runs as without it. Default n/2,
    /// as `short_path_pivots`. Such runs either end in a few pivots or not at all: on step
    /// 122 of the 1,000-body pile (24,593 unknowns) 61 of them ended in 2–317 pivots and 5
    /// ran to the n/2 cut, 62,000 pivots of the step's 105,000 (docs/peg3d.md, item 43).
    pub nearby_path_pivots: usize,
    /// ε of the first run when the one at `regularisation` was cut short or failed, as a
    /// multiple of max_i |M_ii| (as `regularisation`).
    pub long_path_regularisation: Real,
    /// Stop when the original problem's natural residual is at most this (absolute).
    pub tolerance: Real,
    /// At most this many rounds after the first run.
    pub max_rounds: usize,
    /// Stop after this many rounds in a row that did not lower the best residual by 10 %.
    pub stall_rounds: usize,
    /// ε is multiplied by this after each such round (the continuation ε_k → 0; `1.0`: a
    /// fixed ε), down to [`ProximalLemkeParams::min_regularisation`].
    pub shrink: Real,
    /// The least ε, as a multiple of max_i |M_ii| (as `regularisation`).
    pub min_regularisation: Real,
    /// Pivot limit of each sparse Lemke run.
    pub max_pivots: usize,
    /// Work budget of the whole call, in `lemke_sparse`'s units (`None`: no limit).
    pub work_limit: Option<Real>,
    /// The proximal iteration's first centre z_0: the first run solves
    /// LCP(M + εI, q − ε z_0) instead of LCP(M + εI, q) (`None`, or one of another length or
    /// not finite: z_0 = 0). An answer near the solution (the last step's impulses, the
    /// re-solve's previous answer) starts the rounds near their fixed point.
    pub start: Option<DVector<Real>>,
    /// ε of a first run tried before the schedule above (absolute, not a multiple): the ε
    /// at which `warm`'s basis answered an earlier, nearby problem (a gap-correction
    /// re-solve's previous round, [`ProximalLemkeInfo::basis_epsilon`]). From that basis and
    /// [`ProximalLemkeParams::start`] its path is short; it gets the cut
    /// [`ProximalLemkeParams::nearby_path_pivots`], and if it fails the schedule runs as
    /// without it.
    pub start_epsilon: Option<Real>,
}

impl ProximalLemkeParams {
    /// The settings measured on the 125-body pile (ε = 1e-4 · max|M_ii|, 200 rounds, 20 to
    /// stall) and the 2D pile of 2,500 (ε × 0.3 after a stalled round, down to
    /// 1e-10 · max|M_ii|; a first path longer than n/2 pivots made again at 1e-2 · max|M_ii|),
    /// for an LCP of `n` unknowns: 3 n pivots per run, no work limit, tolerance `tolerance`.
    pub fn new(n: usize, tolerance: Real) -> Self {
        ProximalLemkeParams {
            regularisation: 1e-4,
            short_path_pivots: n / 2,
            nearby_path_pivots: n / 2,
            long_path_regularisation: 1e-2,
            tolerance,
            max_rounds: 200,
            stall_rounds: 20,
            shrink: 0.3,
            min_regularisation: 1e-10,
            max_pivots: 3 * n,
            work_limit: None,
            start: None,
            start_epsilon: None,
        }
    }
}

/// What [`lemke_proximal`] returns: its least-residual iterate.
#[derive(Debug, Clone)]
pub struct ProximalLemkeInfo {
    /// The iterate of least residual on LCP(M, q).
    pub z: DVector<Real>,
    /// Its natural-map residual on LCP(M, q) (as [`lcp_natural_residual`]).
    pub residual: Real,
    /// The complementary basis of the regularised run that gave `z` (`true`: z_i basic).
    pub basis: Vec<bool>,
    /// ε of that run (absolute): where a nearby problem can start
    /// ([`ProximalLemkeParams::start_epsilon`]).
    pub basis_epsilon: Real,
    /// ε of the first run.
    pub epsilon: Real,
    /// ε of the last round (below `epsilon` where the continuation lowered it).
    pub last_epsilon: Real,
    /// Rounds after the first regularised run.
    pub rounds: usize,
    /// Runs at a lowered ε that broke or were cut, after which ε went back up.
    pub breaks: usize,
    /// Whether the first run at `regularisation` was cut and made again at
    /// `long_path_regularisation` (item 33 of docs/peg3d.md).
    pub first_path_cut: bool,
    /// Pivots of every run.
    pub pivots: usize,
    /// Work of every run, in `lemke_sparse`'s units.
    pub work: Real,
}

/// The proximal-point iteration for LCP(M, q) (module docs), the first run warm-started from
/// `warm` (`true` where z_i is basic). Returns the least-residual iterate on the original
/// problem, whether or not it meets `params.tolerance`: the caller decides.
///
/// # Errors
/// [`SolveError::InvalidInput`] for an M that is zero or does not match q; the first
/// regularised run's own error if it fails (no iterate to return).
///
/// ```
/// use nalgebra::DVector;
/// use signorini_complementarity::{CscMatrix, ProximalLemkeParams, lemke_proximal};
/// // Singular PSD M (rank 1): many solutions; z = (t, 1 − t), 0 ≤ t ≤ 1.
/// let m = CscMatrix::from_triplets(2, 2, &[(0, 0, 1.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 1.0)])
///     .unwrap();
/// let q = DVector::from_column_slice(&[-1.0, -1.0]);
/// let info = lemke_proximal(&m, &q, None, &ProximalLemkeParams::new(2, 1e-12)).unwrap();
/// assert!(info.residual <= 1e-12 && (info.z[0] + info.z[1] - 1.0).abs() <= 1e-12);
/// ```
pub fn lemke_proximal(
    m: &CscMatrix,
    q: &DVector<Real>,
    warm: Option<&[bool]>,
    params: &ProximalLemkeParams,
) -> Result<ProximalLemkeInfo, SolveError> {
    let n = q.len();
    if m.nrows() != n || m.ncols() != n {
        return Err(SolveError::InvalidInput(format!(
            "proximal Lemke: M is {}×{}, q has {n} entries",
            m.nrows(),
            m.ncols()
        )));
    }
    // M's entries, read once: for ε and for M + εI.
    let entries = m.triplets();
    let scale = diagonal_scale(&entries);
    let mut epsilon = params.regularisation * scale;
    let least = params.min_regularisation * scale;
    if !(epsilon > 0.0 && epsilon.is_finite()) {
        return Err(SolveError::InvalidInput(format!(
            "proximal Lemke: no regularisation from M (ε = {epsilon:e})"
        )));
    }
    let mut held = regularised(&entries, n, epsilon)?;
    // The first run. At ε = 1e-4 · max|M_ii| Lemke's path from the warm basis took 0.2 n
    // pivots on an island of 7,175 unknowns of the 125-body pile with μ = 0.5, but 5.4 n on
    // one of 6,041 of the 2D pile of 2,500 (32,507 pivots, 20 s), where 1e-2 took 0.9 n (4 s)
    // and its rounds reached the same residual (docs/peg3d.md, item 33). A larger ε is a
    // better-conditioned M + εI and a shorter path, but a first iterate farther from the
    // answer: 1e-2 from the start made the 3D island 3.8× slower. So a path longer than
    // `short_path_pivots` is cut and made again at the larger ε.
    let (mut pivots, mut work) = (0, 0.0);
    let long = params.long_path_regularisation * scale;
    // The cuts: of the first path, and of a run from a nearby basis (the resumed first run
    // and every run at a lowered ε).
    let cut = params.short_path_pivots.min(params.max_pivots);
    let near = params.nearby_path_pivots.min(params.max_pivots);
    let short = (long > epsilon).then_some(cut);
    // The first centre z_0 (`ProximalLemkeParams::start`): q − ε z_0.
    let start = params
        .start
        .as_ref()
        .filter(|z| z.len() == n && z.iter().all(|x| x.is_finite()));
    let centred = |epsilon: Real| match start {
        Some(z0) => q - z0 * epsilon,
        None => q.clone(),
    };
    // A nearby problem's ε first (`start_epsilon`), from its basis and centre.
    let resumed = params
        .start_epsilon
        .filter(|&e| e > 0.0 && e.is_finite() && warm.is_some())
        .and_then(|e| {
            let at = regularised(&entries, n, e).ok()?;
            Some((e, at))
        })
        .and_then(
            |(e, mut at)| match at.solve(&centred(e), warm, near, params.work_limit) {
                Ok(run) => Some((e, at, run)),
                Err(err) => {
                    pivots += err.iterations();
                    work += at.last_work();
                    None
                }
            },
        );
    let mut cut_first = false;
    let mut first = match resumed {
        Some((e, at, run)) => {
            epsilon = e;
            held = at;
            Ok(run)
        }
        None => held.solve(
            &centred(epsilon),
            warm,
            short.unwrap_or(params.max_pivots),
            params.work_limit.map(|w| w - work),
        ),
    };
    if let (Err(e), Some(_)) = (&first, short)
        && !e.spent_budget()
    {
        pivots += e.iterations();
        work += held.last_work();
        epsilon = long;
        cut_first = true;
        held = regularised(&entries, n, epsilon)?;
        let left = params.work_limit.map(|w| w - work);
        first = held.solve(&centred(epsilon), warm, params.max_pivots, left);
    }
    let first = first.map_err(|e| e.with_more_iterations(pivots))?;
    pivots += first.pivots;
    work += first.work;
    let mut best = ProximalLemkeInfo {
        residual: lcp_natural_residual(m, q, &first.z),
        z: first.z.clone(),
        basis: first.basis.clone(),
        basis_epsilon: epsilon,
        epsilon,
        last_epsilon: epsilon,
        rounds: 0,
        breaks: 0,
        first_path_cut: cut_first,
        pivots,
        work,
    };
    let mut last = first;
    let mut stalled = 0;
    // The continuation's factor (1: ε fixed), the first ε and the last ε that answered.
    let mut factor = params.shrink.min(1.0);
    let (start, mut answered) = (epsilon, epsilon);
    for round in 1..=params.max_rounds {
        if best.residual <= params.tolerance || stalled >= params.stall_rounds {
            break;
        }
        let left = params.work_limit.map(|w| w - work);
        if left.is_some_and(|w| w <= 0.0) {
            break;
        }
        // The proximal step: LCP(M + εI, q − ε z_k), warm from z_k's basis (whose factors
        // the held matrix kept, or which a new ε's matrix factors afresh). A run at a lowered
        // ε starts from the last answer's basis and should be short; it gets the nearby
        // runs' cut.
        let used = epsilon;
        let shifted = q - &last.z * epsilon;
        let limit = if epsilon < answered {
            near
        } else {
            params.max_pivots
        };
        let next = match held.solve(&shifted, Some(&last.basis), limit, left) {
            Ok(next) => next,
            // A run broke or was cut, as the unregularised path breaks (an island of 7,175
            // unknowns of the 125-body pile with μ = 0.5, at ε = 6.6e-5 · max|M_ii| after
            // 1.4e-6; docs/peg3d.md, items 32 and 34): back to the first ε, whose runs from
            // a later basis answered on every island measured (going back only to the last ε
            // that answered broke again there, 7 to 10 times, and took 9× longer), and the
            // next step down is gentler (factor → √factor): a continuation shortens its step
            // after a failure; above 0.9, ε stays. (Keeping the first ε after one break left
            // the 2D pile of 2,500 and the 1,000-body pile at 1e-2 · max|M_ii| once item 33
            // had raised it, stalled at 1.2e-4 and 4.1e-4.) A cut run costs at most the cut.
            Err(e) => {
                pivots += e.iterations();
                work += held.last_work();
                if epsilon >= start || e.spent_budget() {
                    break;
                }
                best.breaks += 1;
                factor = factor.sqrt();
                if factor > 0.9 {
                    factor = 1.0;
                }
                epsilon = start;
                answered = start;
                held = regularised(&entries, n, epsilon)?;
                stalled += 1;
                continue;
            }
        };
        answered = used;
        pivots += next.pivots;
        work += next.work;
        let r = lcp_natural_residual(m, q, &next.z);
        if r < 0.9 * best.residual {
            stalled = 0;
        } else {
            stalled += 1;
            // The continuation. On the 2D pile of 2,500 (docs/peg3d.md, item 32) the rounds
            // at a fixed ε settle where the residual is ε times a steady step ‖z_{k+1} − z_k‖
            // (1.4e-5 … 9.0e-5 on five islands of 6,041–6,598 unknowns):
            // a smaller ε lowers it, and the last basis keeps the new ε's runs short.
            let smaller = (epsilon * factor).max(least);
            if smaller < epsilon {
                epsilon = smaller;
                held = regularised(&entries, n, epsilon)?;
            }
        }
        if r < best.residual {
            best.residual = r;
            best.z = next.z.clone();
            best.basis = next.basis.clone();
            best.basis_epsilon = used;
        }
        best.rounds = round;
        best.last_epsilon = used;
        last = next;
    }
    best.pivots = pivots;
    best.work = work;
    Ok(best)
}

/// The sparse Lemke's matrix M + εI, from M's (row, column, value) entries.
fn regularised(
    entries: &[(usize, usize, Real)],
    n: usize,
    epsilon: Real,
) -> Result<SparseLemkeMatrix, SolveError> {
    let mut triplets = Vec::with_capacity(entries.len() + n);
    triplets.extend_from_slice(entries);
    triplets.extend((0..n).map(|i| (i, i, epsilon)));
    CscMatrix::from_triplets(n, n, &triplets)
        .map(SparseLemkeMatrix::new)
        .map_err(|e| SolveError::InvalidInput(format!("proximal Lemke: {e}")))
}

/// max_i |M_ii|, or max |M_ij| if the diagonal is zero, from M's (row, column, value) entries.
fn diagonal_scale(entries: &[(usize, usize, Real)]) -> Real {
    let diagonal = entries
        .iter()
        .filter(|&&(i, j, _)| i == j)
        .fold(0.0, |a: Real, &(_, _, v)| a.max(v.abs()));
    if diagonal > 0.0 {
        diagonal
    } else {
        entries
            .iter()
            .fold(0.0, |a: Real, &(_, _, v)| a.max(v.abs()))
    }
}

#[cfg(test)]
#[path = "lemke_proximal_tests.rs"]
mod tests;
