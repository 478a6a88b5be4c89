//! Lemke's complementary pivoting method for LCP(M, q), dense, with an explicit basis inverse.
//!
//! Owns: the pivoting kernel [`lemke_lcp`] (covering vector, lexicographic ratio test with
//! tolerance-aware ties, "z₀ leaves on ties", drift checks with iterative refinement and
//! refactorisation, warm start from a complementary basis, ray and pivot-limit detection).
//! Does not own: box bounds or free variables (see `reduce.rs`, which maps a box MCP to an
//! LCP), fallbacks (`auto.rs`), or the public entry points (`solve.rs`).
//!
//! Reference: Cottle, Pang & Stone, *The Linear Complementarity Problem* (1992), §4.4
//! (Lemke's method and its lexicographic degeneracy resolution; Example 4.4.16 for the
//! "artificial variable leaves on ties" rule). Notes: `docs/formulation-notes.md` §12.2.
//!
//! The system is `w − M z − d z₀ = q`, variables numbered `w_0..w_{n−1}` (0..n),
//! `z_0..z_{n−1}` (n..2n) and the artificial `z₀` (2n). The basis inverse `B⁻¹` is stored
//! row-major, and only its non-unit columns (one per nonbasic w), so that the pivot's row
//! operations and the entering-column dot products run over contiguous memory: one pivot
//! costs about 2·n·k flops, k = number of basic z's (see `Tableau`).

use nalgebra::{DMatrix, DVector};
use signorini_math::Real;
use signorini_math::tolerance::LCP_TIE_TOL;

use std::sync::Arc;

use crate::Mcp;
use crate::basis_reuse::LemkeFactor;
use crate::reduce::{FreeHandling, Reduction};
use crate::solve::types::SolveError;

use signorini_math::tolerance::LCP_PIVOT_TOL as PIVOT_TOL;

/// An answer is accepted only if every row's w_i = (M z + q)_i is feasible (≥ 0, or = 0 for
/// a free variable's row) to within this fraction of that row's own magnitude
/// max(|q_i|, ‖M_i·‖∞ ‖z‖∞) (dimensionless; PATH's default tolerance). The pivoting
/// scales the whole problem by one number, so a row of magnitude 1e-150 beside one of 1e150
/// loses its information to rounding; checking each row against its own terms catches the
/// wrong component that would otherwise pass a tolerance scaled by max |q|.
const ROW_TOL: Real = signorini_math::tolerance::LCP_ROW_TOL;

/// Basis inverses of problems with at least this many unknowns are computed from B's block
/// structure (`Tableau::inverse_structured`). Below it the full LU is cheap, and its
/// round-off is the one every recorded figure of the pour and tower experiments (whose
/// problems are smaller) was measured with.
const STRUCTURED_INVERSE_FROM: usize = 400;

/// A Lemke run restarts from a given factor (`LemkeConfig::factor`: the basis of an earlier
/// solve) only for problems of at least this many unknowns; the stepper grows a basis to a
/// larger problem (`LemkeFactor::embedded`) from the same size on. Below it a cold run is
/// cheap, and the cold runs' answers (on
/// degenerate problems another solution than a restart may find) are the ones every recorded
/// figure of the pour and tower experiments was measured with.
pub const FACTOR_RESTART_FROM: usize = 400;

/// A Lemke answer that misses the row check on a problem of at least this many unknowns is
/// repaired from its final basis ([`repair`]). Below it the answers, and the fallbacks that
/// follow a miss, stay the ones every recorded figure of the pour experiments and the tower
/// was measured with.
const REPAIR_FROM: usize = 400;

/// A drift check (‖B x_B − q‖∞) runs every this many pivots (costs one O(n²) product).
const DRIFT_CHECK_EVERY: usize = 32;

/// Relative drift (‖B x_B − q‖∞ / max(1, ‖q‖∞)) above which `B⁻¹` is recomputed by LU.
const DRIFT_REFACTOR: Real = 1e-9;

/// Which covering vector d > 0 Lemke uses (`docs/formulation-notes.md` §12.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Covering {
    /// d = e (Siconos, Drake, CPS).
    Ones,
    /// d_i = max(1, |q_i|): a different path, tried after a ray.
    ScaledByQ,
}

/// Options of one Lemke run.
#[derive(Debug, Clone)]
pub(crate) struct LemkeConfig {
    /// Pivot limit.
    pub max_pivots: usize,
    /// Covering vector for a cold start.
    pub covering: Covering,
    /// Warm start: `true` where `z_i` is basic in the starting complementary basis.
    pub warm_basis: Option<Vec<bool>>,
    /// The first `n_free` variables are free (mixed LCP): they start basic, never leave,
    /// and their w stays nonbasic (= 0).
    pub n_free: usize,
    /// Restart from the final basis of an earlier solve of the same M (plain LCPs of at
    /// least [`FACTOR_RESTART_FROM`] unknowns; ignored otherwise): its stored inverse is
    /// installed as it is, no factorisation, and the pivots start from there.
    pub factor: Option<Arc<LemkeFactor>>,
}

/// What a successful Lemke run returns.
#[derive(Debug, Clone)]
pub(crate) struct LemkeResult {
    /// The solution z.
    pub z: DVector<Real>,
    /// Number of pivots (0 for q ≥ 0 or a feasible warm basis).
    pub pivots: usize,
    /// The final complementary basis: `true` where z_i is basic (a warm start for the next
    /// solve of a nearby problem).
    pub basis: Vec<bool>,
    /// That basis with its inverse, for re-solves with another q (plain LCPs only: `None`
    /// with free variables).
    pub factor: Option<LemkeFactor>,
}

/// The pivoting state: basis, `B⁻¹`, basic values `x_B = B⁻¹ q`.
///
/// Storage of `B⁻¹`: if w_j is basic in row p, column j of `B⁻¹` is exactly e_p, and it stays
/// so under pivots that keep w_j basic. Only the other columns ("slots", one per nonbasic
/// w_j, at most the number of basic z's plus z₀) are stored, row-major with row stride n, so
/// a pivot costs about 2·n·(slots) flops instead of 2n²; early pivots are nearly free.
struct Tableau<'a> {
    n: usize,
    /// The caller's M, unscaled: the tableau's matrix is M/s (`scale`), each entry divided
    /// where it is read. Entry by entry that is the division a scaled copy would have made
    /// (IEEE division is correctly rounded), so the same bits without an n² copy per run.
    m: &'a DMatrix<Real>,
    /// The s of LCP(M/s, q/s) ([`scaled_q`]; 1 where no scale is usable).
    scale: Real,
    /// q/s.
    q: &'a DVector<Real>,
    d: Vec<Real>,
    /// Stored columns of B⁻¹: entry (i, slot s) at `binv[i * stride + s]`, s < `slots`.
    binv: Vec<Real>,
    /// Row stride of `binv` (≥ `slots`, ≤ n): it grows with the stored columns
    /// ([`Tableau::reserve_slots`]), so a run whose basis holds k z's allocates and touches
    /// n·k entries, not n² (on a 2,700-unknown island with k ≈ 1,100: 24 MB instead of 60).
    stride: usize,
    /// Number of stored columns.
    slots: usize,
    /// Slot of column j of B⁻¹ (NONBASIC if w_j is basic: the column is a unit vector).
    slot_of: Vec<usize>,
    /// Column j of B⁻¹ held in each slot.
    col_of_slot: Vec<usize>,
    xb: Vec<Real>,
    basis: Vec<usize>,
    row_of: Vec<usize>,
    /// Number of free variables (z_0..z_{n_free−1}).
    n_free: usize,
}

const NONBASIC: usize = usize::MAX;

/// Row stride of a fresh tableau's `binv` (columns it holds before it first widens).
const INITIAL_STRIDE: usize = 64;

/// Solve LCP(M, q) by Lemke's method (CPS §4.4). `M` must be square n×n with finite entries.
/// The answer is checked row by row ([`ROW_TOL`]); a row that misses is
/// [`SolveError::Inaccurate`] with the answer as its best iterate.
///
/// A restart from a factor ([`LemkeConfig::factor`]) that fails is followed by a cold run:
/// its covering vector d = B e need not be positive, so Lemke's termination guarantees (CPS
/// §4.4, d > 0) do not hold for it, and it may end on a ray where a cold run would not. (A
/// safety net: on the 3D pile of 125 bodies it never changed an answer; the Lemke failures
/// there are the cold runs' own.) The pivots of both runs are counted.
#[allow(non_snake_case)]
pub(crate) fn lemke_lcp(
    M: &DMatrix<Real>,
    q: &DVector<Real>,
    cfg: &LemkeConfig,
) -> Result<LemkeResult, SolveError> {
    let restarts = cfg.factor.as_deref().is_some_and(|f| {
        f.inverse && cfg.n_free == 0 && f.n == q.len() && q.len() >= FACTOR_RESTART_FROM
    });
    match lemke_checked(M, q, cfg) {
        Err(e) if restarts => {
            let spent = e.iterations();
            // The cold run gets the whole pivot limit: a restart that wandered must not
            // starve the run that Lemke's guarantees cover (the caller's work budget still
            // counts both).
            let cold = LemkeConfig {
                factor: None,
                ..cfg.clone()
            };
            let mut r = lemke_checked(M, q, &cold)?;
            r.pivots += spent;
            Ok(r)
        }
        r => r,
    }
}

/// [`lemke_pivoting`] and the row-by-row check of its answer; an answer that misses on a
/// problem of at least [`REPAIR_FROM`] unknowns is repaired from its own final basis
/// ([`repair`]).
#[allow(non_snake_case)]
fn lemke_checked(
    M: &DMatrix<Real>,
    q: &DVector<Real>,
    cfg: &LemkeConfig,
) -> Result<LemkeResult, SolveError> {
    let r = lemke_pivoting(M, q, cfg)?;
    if q.len() < REPAIR_FROM || r.pivots >= cfg.max_pivots {
        return check(M, q, cfg, r);
    }
    let (pivots, flags) = (r.pivots, r.basis.clone());
    match check(M, q, cfg, r) {
        Err(first @ SolveError::Inaccurate { .. }) => {
            match repair(M, q, cfg, &flags, cfg.max_pivots - pivots) {
                Some(Ok(mut fixed)) => {
                    fixed.pivots += pivots;
                    Ok(fixed)
                }
                // The repair's own failure is reported only if it came closer.
                Some(Err(e)) if closer(&e, &first) => Err(e.with_more_iterations(pivots)),
                _ => Err(first),
            }
        }
        other => other,
    }
}

/// Lemke from the final complementary basis of a run whose answer missed the row check:
/// a fresh inverse of that basis (no accumulated round-off), its basic solution accepted if
/// feasible, else pivots from it as from a warm start (covering d = B e). On the 2D pile of
/// 400 bodies the long runs (1,000–1,500 pivots) end on a basis that is right but for a few
/// rows, whose path a pivot chosen on a rounded column led astray (docs/peg3d.md, item 22).
/// `None` if the basis is singular. The repaired answer goes through the same check.
#[allow(non_snake_case)]
fn repair(
    M: &DMatrix<Real>,
    q: &DVector<Real>,
    cfg: &LemkeConfig,
    flags: &[bool],
    max_pivots: usize,
) -> Option<Result<LemkeResult, SolveError>> {
    let (qs, scale) = scaled_q(q, M.amax().max(q.amax()));
    let mut t = Tableau::cold(M, scale, &qs, cfg.covering);
    t.n_free = cfg.n_free.min(q.len());
    if !t.warm(flags) {
        return None;
    }
    let r = if t.feasible() {
        Ok(t.finish(0, scale))
    } else {
        let limited = LemkeConfig {
            max_pivots,
            ..cfg.clone()
        };
        lemke_pivot_loop(t, &limited, scale)
    };
    Some(r.and_then(|r| check(M, q, cfg, r)))
}

/// Whether failed run `a` ended nearer an answer than `b` (a run without a residual is
/// nowhere near).
fn closer(a: &SolveError, b: &SolveError) -> bool {
    let r = |e: &SolveError| e.residual().unwrap_or(Real::INFINITY);
    r(a) < r(b)
}

/// The row-by-row check of a run's answer ([`ROW_TOL`]).
#[allow(non_snake_case)]
fn check(
    M: &DMatrix<Real>,
    q: &DVector<Real>,
    cfg: &LemkeConfig,
    r: LemkeResult,
) -> Result<LemkeResult, SolveError> {
    let nf = cfg.n_free.min(q.len());
    let mut worst: Real = 0.0;
    let mut bad = false;
    let zmax = r.z.amax();
    // Row sums Σ_j M_ij z_j (j ascending, as a row's dot product adds them) and row maxima,
    // in one pass down the column-major storage: a strided walk along each row costs a cache
    // miss per entry (a tenth of a 64-body pile's time before).
    // (Over the raw column slices, with a compare-and-select for the maxima: nalgebra's
    // column iterators and `f64::max` kept the loop scalar. M is finite, so the same bits.)
    let n = q.len();
    let (mut mz, mut row_max) = (vec![0.0; n], vec![0.0; n]);
    for (col, &zj) in M.as_slice().chunks_exact(n.max(1)).zip(r.z.iter()) {
        for ((s, m), x) in mz.iter_mut().zip(row_max.iter_mut()).zip(col) {
            *s += x * zj;
            let a = x.abs();
            if a > *m {
                *m = a;
            }
        }
    }
    for i in 0..n {
        let w = q[i] + mz[i];
        let scale = q[i].abs().max(row_max[i] * zmax);
        let miss = if i < nf { w.abs() } else { (-w).max(0.0) };
        worst = worst.max(miss);
        bad |= miss > ROW_TOL * scale || !miss.is_finite();
    }
    if bad {
        return Err(SolveError::Inaccurate {
            solver: crate::SolverKind::Lemke,
            iterations: r.pivots,
            residual: worst,
            best: r.z,
        });
    }
    Ok(r)
}

/// The pivoting of [`lemke_lcp`], on the problem scaled by its largest entry.
#[allow(non_snake_case)]
fn lemke_pivoting(
    M: &DMatrix<Real>,
    q: &DVector<Real>,
    cfg: &LemkeConfig,
) -> Result<LemkeResult, SolveError> {
    let n = q.len();
    let nf = cfg.n_free.min(n);
    // q ≥ 0: z = 0 solves it, no pivots.
    if nf == 0 && q.iter().all(|&qi| qi >= 0.0) {
        return Ok(LemkeResult {
            z: DVector::zeros(n),
            pivots: 0,
            basis: vec![false; n],
            factor: Some(LemkeFactor {
                n,
                scale: 1.0,
                basis: (0..n).collect(),
                cols: Vec::new(),
                binv: Vec::new(),
                inverse: true,
            }),
        });
    }
    // A restart from an earlier basis of the same M (`LemkeConfig::factor`) works in that
    // solve's scaling, in which its inverse is stored.
    let restart = cfg
        .factor
        .as_deref()
        .filter(|f| f.inverse && nf == 0 && f.n == n && n >= FACTOR_RESTART_FROM);
    // LCP(q/s, M/s) has the same solutions: scale so that the tolerances are meaningful
    // for any magnitude of the data (1e-150 … 1e150).
    let s = restart.map_or_else(|| M.amax().max(q.amax()), |f| f.scale);
    let (qs, scale) = scaled_q(q, s);
    let mut t = Tableau::cold(M, scale, &qs, cfg.covering);
    t.n_free = nf;
    if nf > 0 {
        // Mixed LCP: start from a basis holding every free variable (completed by
        // constrained z's where the free block alone is singular).
        let mut flags = cfg
            .warm_basis
            .clone()
            .filter(|f| f.len() == n)
            .unwrap_or(vec![false; n]);
        flags[..nf].iter_mut().for_each(|f| *f = true);
        if !t.warm_completed(&mut flags) {
            return Err(SolveError::InvalidInput(
                "no nonsingular starting basis holds all free variables".into(),
            ));
        }
        if t.feasible() {
            return Ok(t.finish(0, scale));
        }
    } else if let Some(f) = restart {
        t.install_factor(f);
        if t.feasible() {
            return Ok(t.finish(0, scale));
        }
    } else if let Some(flags) = &cfg.warm_basis
        && flags.len() == n
        && t.warm(flags)
        && t.feasible()
    {
        // Warm start: the guessed basis is nonsingular and already feasible.
        return Ok(t.finish(0, scale));
    }
    lemke_pivot_loop(t, cfg, scale)
}

/// q/s and s for LCP(M/s, q/s), which has the same solutions (s = 1 where s is not a usable
/// scale). M/s is never formed: the tableau divides each entry of M it reads by s.
fn scaled_q(q: &DVector<Real>, s: Real) -> (DVector<Real>, Real) {
    if s.is_finite() && s > 0.0 && s != 1.0 {
        (q / s, s)
    } else {
        (q.clone(), 1.0)
    }
}

/// Lemke's pivots from the tableau's basis (cold, warm or restarted, not feasible): z₀
/// enters at the most infeasible row, then complements enter until z₀ leaves (CPS §4.4).
fn lemke_pivot_loop(
    mut t: Tableau<'_>,
    cfg: &LemkeConfig,
    scale: Real,
) -> Result<LemkeResult, SolveError> {
    let n = t.n;

    // Initial pivot: z₀ enters; the leaving row is the lexicographic minimum of
    // (x_B,i, B⁻¹_i) / |a_i| over rows with a_i < 0 (the most infeasible row).
    let z0 = 2 * n;
    let a = t.column(z0);
    let cand: Vec<usize> = (0..n).filter(|&i| a[i] < 0.0 && t.xb[i] < 0.0).collect();
    if cand.is_empty() {
        // Only possible after a warm start with tiny negative entries: accept.
        return Ok(t.finish(0, scale));
    }
    let r = t.lexmin(&cand, &a, None);
    let mut leaving = t.basis[r];
    t.pivot(r, &a, z0);
    let mut pivots = 1;

    // Main loop: the complement of the variable that just left enters (CPS §4.4).
    while pivots < cfg.max_pivots {
        let entering = complement(leaving, n);
        let a = t.column(entering);
        let amax = a.iter().fold(0.0, |acc: Real, x| acc.max(x.abs()));
        let tol = PIVOT_TOL * amax.max(1.0);
        let cand: Vec<usize> = (0..n)
            .filter(|&i| a[i] > tol && !t.is_free(t.basis[i]))
            .collect();
        if cand.is_empty() {
            return Err(SolveError::Ray { pivot: pivots });
        }
        let r = t.lexmin(&cand, &a, Some(t.row_of[z0]));
        // Snap a rounding-level negative pivot-row value to 0 (see `lexmin`), so the entering
        // variable starts at 0 rather than at x_r / a_r < 0.
        t.xb[r] = t.xb[r].max(0.0);
        leaving = t.basis[r];
        t.pivot(r, &a, entering);
        pivots += 1;
        if leaving == z0 {
            return Ok(t.finish(pivots, scale));
        }
        if pivots.is_multiple_of(DRIFT_CHECK_EVERY) {
            t.check_drift();
        }
    }
    Err(SolveError::MaxIterations {
        iterations: pivots,
        residual: Real::INFINITY,
        best: t.z_from_basis(),
    })
}

/// Solve a box MCP with Lemke through its LCP reduction (`reduce.rs`): Schur complement
/// of an invertible free block, else split free variables; shifted/flipped bounds; box
/// multipliers. Returns z for the original MCP, the pivot count and the final basis of the
/// reduced LCP. Warm start: a `basis` of the reduced LCP's size wins over `warm` (a z).
pub(crate) fn lemke_mcp(
    mcp: &Mcp,
    max_pivots: Option<usize>,
    covering: Covering,
    warm: Option<&DVector<Real>>,
    basis: Option<&[bool]>,
    factor: Option<&Arc<LemkeFactor>>,
) -> Result<LemkeResult, SolveError> {
    // Schur complement, else the mixed Lemke with free variables kept basic; if that fails,
    // the split form (z_F = x⁺ − x⁻) as a last resort.
    let red = Reduction::new(mcp, true);
    let first = lemke_reduced(mcp, &red, max_pivots, covering, warm, basis, factor);
    if red.free == FreeHandling::Kept && first.is_err() {
        let split = Reduction::new(mcp, false);
        return lemke_reduced(mcp, &split, max_pivots, covering, None, None, None);
    }
    first
}

/// Lemke on one reduction of the MCP; maps the answer back.
fn lemke_reduced(
    mcp: &Mcp,
    red: &Reduction<'_>,
    max_pivots: Option<usize>,
    covering: Covering,
    warm: Option<&DVector<Real>>,
    basis: Option<&[bool]>,
    factor: Option<&Arc<LemkeFactor>>,
) -> Result<LemkeResult, SolveError> {
    let nl = red.q.len();
    let cfg = LemkeConfig {
        max_pivots: max_pivots.unwrap_or(50 * nl + 100),
        covering,
        warm_basis: match (basis, warm) {
            (Some(b), _) if b.len() == nl => Some(b.to_vec()),
            (_, Some(z)) if z.len() == mcp.dim() => Some(red.warm_basis(mcp, z)),
            _ => None,
        },
        n_free: red.n_free(),
        // A factor describes the plain LCP itself (`lemke_lcp`'s `factor`), whose reduction
        // is the identity.
        factor: factor
            .filter(|_| is_plain_lcp(mcp) && nl == mcp.dim())
            .cloned(),
    };
    match lemke_lcp(&red.m, &red.q, &cfg) {
        Ok(r) => Ok(LemkeResult {
            z: red.recover(&r.z, mcp.dim()),
            pivots: r.pivots,
            basis: r.basis,
            // The factor describes LCP(red.m, red.q): handed out only when that is the MCP
            // itself (a plain LCP: every bound [0, ∞)).
            factor: r.factor.filter(|_| is_plain_lcp(mcp) && nl == mcp.dim()),
        }),
        Err(SolveError::MaxIterations {
            iterations, best, ..
        }) => {
            let z = red.recover(&best, mcp.dim());
            Err(SolveError::MaxIterations {
                iterations,
                residual: mcp.residual(&z),
                best: z,
            })
        }
        Err(SolveError::Inaccurate {
            iterations, best, ..
        }) => {
            let z = red.recover(&best, mcp.dim());
            Err(SolveError::Inaccurate {
                solver: crate::SolverKind::Lemke,
                iterations,
                residual: mcp.residual(&z),
                best: z,
            })
        }
        Err(e) => Err(e),
    }
}

/// Every bound is [0, ∞): the MCP is LCP(M, q) and its reduction is the identity.
fn is_plain_lcp(mcp: &Mcp) -> bool {
    mcp.lower.iter().all(|&l| l == 0.0) && mcp.upper.iter().all(|&u| u == Real::INFINITY)
}

/// The complementary partner of variable `v` (w_i ↔ z_i).
fn complement(v: usize, n: usize) -> usize {
    if v < n { v + n } else { v - n }
}

/// Dot product with four accumulators (lets the compiler vectorise it).
fn dot(a: &[Real], b: &[Real]) -> Real {
    let mut s = [0.0; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        s[0] += x[0] * y[0];
        s[1] += x[1] * y[1];
        s[2] += x[2] * y[2];
        s[3] += x[3] * y[3];
    }
    let mut tail = 0.0;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    (s[0] + s[1]) + (s[2] + s[3]) + tail
}

/// [`dot`] over the entries `nz` (ascending) where `b` is nonzero, bit for bit: each term goes
/// to the accumulator (or the tail) that [`dot`] gives it, in the same order, and the terms
/// left out are exact zeros (x · 0 = ±0 for finite x, and adding ±0 to a +0-started
/// accumulator changes nothing).
fn dot_sparse(a: &[Real], b: &[Real], nz: &[usize]) -> Real {
    let body = a.len() - a.len() % 4;
    let mut s = [0.0; 4];
    let mut tail = 0.0;
    for &j in nz {
        let p = a[j] * b[j];
        if j < body {
            s[j % 4] += p;
        } else {
            tail += p;
        }
    }
    (s[0] + s[1]) + (s[2] + s[3]) + tail
}

impl<'a> Tableau<'a> {
    /// Cold start: basis {w}, B⁻¹ = I (no stored columns), x_B = q, covering vector d. The
    /// tableau's matrix is `m / scale` and `q` is already divided by `scale`.
    fn cold(m: &'a DMatrix<Real>, scale: Real, q: &'a DVector<Real>, covering: Covering) -> Self {
        let n = q.len();
        let d = match covering {
            Covering::Ones => vec![1.0; n],
            Covering::ScaledByQ => q.iter().map(|x| x.abs().max(1.0)).collect(),
        };
        let mut row_of = vec![NONBASIC; 2 * n + 1];
        for (i, r) in row_of.iter_mut().enumerate().take(n) {
            *r = i;
        }
        Tableau {
            n,
            m,
            scale,
            q,
            d,
            binv: vec![0.0; n * INITIAL_STRIDE.min(n)],
            stride: INITIAL_STRIDE.min(n),
            slots: 0,
            slot_of: vec![NONBASIC; n],
            col_of_slot: Vec::with_capacity(n),
            xb: q.as_slice().to_vec(),
            basis: (0..n).collect(),
            row_of,
            n_free: 0,
        }
    }

    fn scale_q(&self) -> Real {
        self.q.amax().max(1.0)
    }

    /// Every constrained basic value ≥ 0 up to the pivot tolerance. (The floor is computed
    /// once: `scale_q` is a pass over q, and inside the row loop it made this check O(n²).)
    fn feasible(&self) -> bool {
        let floor = -PIVOT_TOL * self.scale_q();
        (0..self.n).all(|i| self.is_free(self.basis[i]) || self.xb[i] >= floor)
    }

    /// Warm start from a complementary basis (`flags[i]` ⇒ z_i basic, else w_i). Sets the
    /// covering vector to d = B e so that z₀'s column is −e in the new basis (all rows
    /// move together). Returns false (state unchanged) if B is singular.
    fn warm(&mut self, flags: &[bool]) -> bool {
        let n = self.n;
        let basis: Vec<usize> = (0..n).map(|i| if flags[i] { n + i } else { i }).collect();
        let Some(binv) = self.inverse_of(&basis) else {
            return false;
        };
        let mut d = vec![0.0; n];
        for &v in basis.iter().filter(|&&v| !self.is_free(v)) {
            self.add_column(v, 1.0, &mut d);
        }
        self.d = d;
        self.install(basis, &binv);
        true
    }

    /// Install a factor's basis and stored inverse columns as they are (same M and scaling),
    /// with the covering d = B e of a warm start; a refactorisation follows if the basic
    /// solution has drifted (M not quite the factored one).
    fn install_factor(&mut self, f: &LemkeFactor) {
        let n = self.n;
        let k = f.cols.len();
        self.row_of.iter_mut().for_each(|r| *r = NONBASIC);
        for (i, &v) in f.basis.iter().enumerate() {
            self.row_of[v] = i;
        }
        self.basis = f.basis.clone();
        self.col_of_slot = f.cols.clone();
        self.slots = k;
        self.slot_of.iter_mut().for_each(|s| *s = NONBASIC);
        for (s, &j) in f.cols.iter().enumerate() {
            self.slot_of[j] = s;
        }
        self.reserve_slots(k);
        let st = self.stride;
        for i in 0..n {
            self.binv[i * st..i * st + k].copy_from_slice(&f.binv[i * k..(i + 1) * k]);
        }
        let mut d = vec![0.0; n];
        for &v in &f.basis {
            self.add_column(v, 1.0, &mut d);
        }
        self.d = d;
        self.xb = self.apply_binv(self.q.as_slice());
        self.check_drift();
    }

    /// Whether variable v is a free z.
    fn is_free(&self, v: usize) -> bool {
        v >= self.n && v < self.n + self.n_free
    }

    /// `warm(flags)`; if that basis is singular, make constrained z's basic, greedily keeping
    /// each one that lowers the rank deficiency of the principal submatrix of M on the basic
    /// z's (the basis is nonsingular exactly when that submatrix is).
    fn warm_completed(&mut self, flags: &mut [bool]) -> bool {
        if self.warm(flags) {
            return true;
        }
        let mut set: Vec<usize> = (0..self.n).filter(|&j| flags[j]).collect();
        let mut def = self.deficiency(&set);
        let nf = self.n_free;
        for (k, flag) in flags.iter_mut().enumerate().skip(nf) {
            if def == 0 {
                break;
            }
            if *flag {
                continue;
            }
            set.push(k);
            let d = self.deficiency(&set);
            if d < def {
                def = d;
                *flag = true;
            } else {
                set.pop();
            }
        }
        def == 0 && self.warm(flags)
    }

    /// size − numerical rank of the principal submatrix M[set, set] (SVD, relative 1e-12).
    fn deficiency(&self, set: &[usize]) -> usize {
        let k = set.len();
        let sub = DMatrix::from_fn(k, k, |i, j| self.m[(set[i], set[j])] / self.scale);
        let sv = sub.svd(false, false).singular_values;
        let tol = 1e-12 * sv.max();
        k - sv.iter().filter(|&&x| x > tol).count()
    }

    /// Install a basis and its full row-major inverse: keep the non-unit columns, recompute
    /// x_B = B⁻¹ q.
    fn install(&mut self, basis: Vec<usize>, full: &[Real]) {
        let n = self.n;
        self.row_of.iter_mut().for_each(|r| *r = NONBASIC);
        for (i, &v) in basis.iter().enumerate() {
            self.row_of[v] = i;
        }
        self.basis = basis;
        self.xb = (0..n)
            .map(|i| dot(&full[i * n..(i + 1) * n], self.q.as_slice()))
            .collect();
        self.col_of_slot = (0..n).filter(|&j| self.row_of[j] == NONBASIC).collect();
        self.slots = self.col_of_slot.len();
        self.reserve_slots(self.slots);
        let st = self.stride;
        self.slot_of.iter_mut().for_each(|s| *s = NONBASIC);
        for (s, &j) in self.col_of_slot.iter().enumerate() {
            self.slot_of[j] = s;
            for i in 0..n {
                self.binv[i * st + s] = full[i * n + j];
            }
        }
    }

    /// Make room for `k` stored columns: widen `binv`'s rows (stride doubled, at most n)
    /// and move the stored entries. Amortised O(n·k) over a run; no entry changes.
    fn reserve_slots(&mut self, k: usize) {
        if k <= self.stride {
            return;
        }
        let n = self.n;
        let wide = k.max(2 * self.stride).min(n);
        // (An install may have set `slots` before it makes room: only stored entries move.)
        let keep = self.slots.min(self.stride);
        let mut binv = vec![0.0; n * wide];
        for (new, old) in binv
            .chunks_exact_mut(wide)
            .zip(self.binv.chunks_exact(self.stride))
        {
            new[..keep].copy_from_slice(&old[..keep]);
        }
        self.binv = binv;
        self.stride = wide;
    }

    /// Entry (i, k) of B⁻¹.
    fn binv_at(&self, i: usize, k: usize) -> Real {
        match self.slot_of[k] {
            NONBASIC => Real::from(u8::from(self.row_of[k] == i)),
            s => self.binv[i * self.stride + s],
        }
    }

    /// B⁻¹ v for a full-length vector v.
    ///
    /// An entering z's column is a column of M, which on a large island is sparse (a contact
    /// couples only with the contacts of its two bodies): where at most a quarter of the
    /// gathered entries are nonzero, each row's product visits only those
    /// ([`dot_sparse`], the same sums in the same order as [`dot`], so the same bits).
    fn apply_binv(&self, v: &[Real]) -> Vec<Real> {
        let n = self.n;
        let g: Vec<Real> = self.col_of_slot.iter().map(|&j| v[j]).collect();
        let nz: Vec<usize> = (0..g.len()).filter(|&s| g[s] != 0.0).collect();
        let sparse = 4 * nz.len() <= g.len();
        (0..n)
            .map(|i| {
                let unit = if self.basis[i] < n {
                    v[self.basis[i]]
                } else {
                    0.0
                };
                let row = &self.binv[i * self.stride..i * self.stride + self.slots];
                unit + if sparse {
                    dot_sparse(row, &g, &nz)
                } else {
                    dot(row, &g)
                }
            })
            .collect()
    }

    /// `out += s · column(v)` for the original column of variable v.
    fn add_column(&self, v: usize, s: Real, out: &mut [Real]) {
        let n = self.n;
        if v < n {
            out[v] += s;
        } else if v < 2 * n {
            // The raw column slice (column-major storage): nalgebra's view iterator kept
            // this loop scalar.
            let col = &self.m.as_slice()[(v - n) * n..(v - n + 1) * n];
            let scale = self.scale;
            for (o, c) in out.iter_mut().zip(col) {
                *o -= s * (c / scale);
            }
        } else {
            for (o, c) in out.iter_mut().zip(&self.d) {
                *o -= s * c;
            }
        }
    }

    /// Row-major inverse of the basis matrix, or None if it is (numerically) singular.
    /// Problems of at least [`STRUCTURED_INVERSE_FROM`] unknowns use the block structure of
    /// B (`inverse_structured`); smaller ones the full LU (`inverse_full`).
    fn inverse_of(&self, basis: &[usize]) -> Option<Vec<Real>> {
        if self.n >= STRUCTURED_INVERSE_FROM {
            self.inverse_structured(basis)
        } else {
            self.inverse_full(basis)
        }
    }

    /// B⁻¹ from its block structure. Order B's rows as W (rows whose w is basic) then R (the
    /// rest) and its columns as the unit columns e_v (v ∈ W) then the k non-unit columns C
    /// (basic z's and z₀): B = [[I, C_W], [0, C_R]], so
    /// B⁻¹ = [[I, −C_W C_R⁻¹], [0, C_R⁻¹]] with C_R square (k×k, |R| = k for any basis).
    /// Cost: one k×k LU and inverse plus an (n−k)×k×k product, O(n k²) instead of the full
    /// LU's O(n³) — the warm start of a large island (k ≪ n) or a refactorisation.
    /// faer's dense LU (blocked, sequential: faer is built without rayon, so bit-identical
    /// from run to run) instead of nalgebra's unblocked one: ~10× faster at k ≈ 1,000.
    fn inverse_structured(&self, basis: &[usize]) -> Option<Vec<Real>> {
        use faer::linalg::solvers::DenseSolveCore;
        let n = self.n;
        let mut in_w = vec![false; n];
        let mut nonunit: Vec<usize> = Vec::new();
        for (p, &v) in basis.iter().enumerate() {
            if v < n {
                in_w[v] = true;
            } else {
                nonunit.push(p);
            }
        }
        let rows_r: Vec<usize> = (0..n).filter(|&i| !in_w[i]).collect();
        let rows_w: Vec<usize> = (0..n).filter(|&i| in_w[i]).collect();
        let k = nonunit.len();
        if rows_r.len() != k {
            return None; // a unit column twice: B is singular
        }
        let cols: Vec<Vec<Real>> = nonunit
            .iter()
            .map(|&p| {
                let mut c = vec![0.0; n];
                self.add_column(basis[p], 1.0, &mut c);
                c
            })
            .collect();
        let c_r = faer::Mat::from_fn(k, k, |a, t| cols[t][rows_r[a]]);
        let lu = c_r.partial_piv_lu();
        let u = lu.U();
        if (0..k).any(|i| u[(i, i)] == 0.0) {
            return None;
        }
        let x = lu.inverse();
        let c_w = faer::Mat::from_fn(rows_w.len(), k, |a, t| cols[t][rows_w[a]]);
        let y = &c_w * &x;
        let mut w_index = vec![usize::MAX; n];
        for (a, &v) in rows_w.iter().enumerate() {
            w_index[v] = a;
        }
        let mut full = vec![0.0; n * n];
        let mut t = 0;
        for (p, &v) in basis.iter().enumerate() {
            let row = &mut full[p * n..(p + 1) * n];
            if v < n {
                row[v] = 1.0;
                let a = w_index[v];
                for (c, &r) in rows_r.iter().enumerate() {
                    row[r] = -y[(a, c)];
                }
            } else {
                for (c, &r) in rows_r.iter().enumerate() {
                    row[r] = x[(t, c)];
                }
                t += 1;
            }
        }
        full.iter().all(|x| x.is_finite()).then_some(full)
    }

    /// Row-major inverse of the basis matrix by one LU of the full n×n B.
    fn inverse_full(&self, basis: &[usize]) -> Option<Vec<Real>> {
        let n = self.n;
        let mut b = DMatrix::zeros(n, n);
        for (k, &v) in basis.iter().enumerate() {
            let mut col = vec![0.0; n];
            self.add_column(v, 1.0, &mut col);
            b.column_mut(k).copy_from_slice(&col);
        }
        let inv = b.lu().try_inverse()?;
        if !inv.iter().all(|x| x.is_finite()) {
            return None;
        }
        // nalgebra is column-major: the transpose's storage is B⁻¹ row-major.
        Some(inv.transpose().as_slice().to_vec())
    }

    /// The entering column a = B⁻¹ · column(v).
    fn column(&self, v: usize) -> Vec<Real> {
        let n = self.n;
        if v < n {
            // w_v is nonbasic, so its column of B⁻¹ is stored.
            let s = self.slot_of[v];
            return (0..n).map(|i| self.binv[i * self.stride + s]).collect();
        }
        let mut col = vec![0.0; n];
        self.add_column(v, 1.0, &mut col);
        self.apply_binv(&col)
    }

    /// Lexicographic ratio test (CPS §4.4) over candidate rows: minimise
    /// (x_B,i, B⁻¹_{i,0}, …, B⁻¹_{i,n−1}) / |a_i|, comparing with relative tolerance
    /// `LCP_TIE_TOL` (exact comparison cycles on `lcp_tobenna`). If the row of z₀ is among
    /// the ratio ties it wins (CPS Ex. 4.4.16).
    fn lexmin(&self, cand: &[usize], a: &[Real], z0_row: Option<usize>) -> usize {
        let n = self.n;
        // In the main loop x_B ≥ 0 holds up to rounding: a basic value at −1e-11 must count as
        // 0, or its negative ratio wins and the entering variable becomes negative (seen on
        // Siconos `deltasigma_mlcp`). The initial z₀ step ranks genuinely negative values.
        let clamp = z0_row.is_some();
        let ratio = |i: usize| {
            let x = if clamp {
                self.xb[i].max(0.0)
            } else {
                self.xb[i]
            };
            x / a[i].abs()
        };
        let mut tied = ties(cand, ratio);
        if let Some(r0) = z0_row
            && tied.contains(&r0)
        {
            return r0;
        }
        let mut k = 0;
        while tied.len() > 1 && k < n {
            tied = ties(&tied, |i| self.binv_at(i, k) / a[i].abs());
            k += 1;
        }
        tied[0]
    }

    /// Pivot on row r with entering column a (already B⁻¹-transformed).
    fn pivot(&mut self, r: usize, a: &[Real], entering: usize) {
        let n = self.n;
        let leaving = self.basis[r];
        // A leaving w_p turns column p of B⁻¹ (currently e_r) into a stored column.
        if leaving < n {
            let s = self.slots;
            self.reserve_slots(s + 1);
            let st = self.stride;
            for i in 0..n {
                self.binv[i * st + s] = Real::from(u8::from(i == r));
            }
            self.slot_of[leaving] = s;
            self.col_of_slot.push(leaving);
            self.slots += 1;
        }
        let width = self.slots;
        let st = self.stride;
        let inv = 1.0 / a[r];
        self.xb[r] *= inv;
        let xr = self.xb[r];
        // Scale the pivot row, then eliminate it from every other row (contiguous axpy).
        self.binv[r * st..r * st + width]
            .iter_mut()
            .for_each(|x| *x *= inv);
        Elimination {
            binv: &mut self.binv,
            stride: st,
            r,
            width,
            a,
            xb: &mut self.xb,
            xr,
        }
        .run();
        // An entering w_j: its column is now e_r; drop the stored copy (swap-remove).
        if entering < n {
            let s = self.slot_of[entering];
            let last = self.slots - 1;
            if s != last {
                for i in 0..n {
                    self.binv[i * st + s] = self.binv[i * st + last];
                }
                let moved = self.col_of_slot[last];
                self.col_of_slot[s] = moved;
                self.slot_of[moved] = s;
            }
            self.col_of_slot.pop();
            self.slot_of[entering] = NONBASIC;
            self.slots -= 1;
        }
        self.row_of[leaving] = NONBASIC;
        self.row_of[entering] = r;
        self.basis[r] = entering;
    }

    /// ‖B x_B − q‖∞.
    fn drift(&self, xb: &[Real]) -> Real {
        let mut r: Vec<Real> = self.q.iter().map(|x| -x).collect();
        for (i, &v) in self.basis.iter().enumerate() {
            self.add_column(v, xb[i], &mut r);
        }
        r.iter().fold(0.0, |acc: Real, x| acc.max(x.abs()))
    }

    /// Drift check; refactor B⁻¹ by LU if x_B has drifted (keeps the old one if singular).
    fn check_drift(&mut self) {
        if self.drift(&self.xb) > DRIFT_REFACTOR * self.scale_q()
            && let Some(binv) = self.inverse_of(&self.basis)
        {
            let basis = self.basis.clone();
            self.install(basis, &binv);
        }
    }

    /// The result: refined z, the complementary basis (z₀ has left) and, for a plain LCP,
    /// that basis with its inverse (`scale`: the s of LCP(M/s, q/s) this tableau holds).
    fn finish(&mut self, pivots: usize, scale: Real) -> LemkeResult {
        let n = self.n;
        let z = self.refined_z();
        let factor = (self.n_free == 0).then(|| {
            let (k, st) = (self.slots, self.stride);
            let mut binv = Vec::with_capacity(n * k);
            for i in 0..n {
                binv.extend_from_slice(&self.binv[i * st..i * st + k]);
            }
            LemkeFactor {
                n,
                scale,
                basis: self.basis.clone(),
                cols: self.col_of_slot.clone(),
                binv,
                inverse: true,
            }
        });
        LemkeResult {
            z,
            pivots,
            basis: (0..n).map(|j| self.row_of[n + j] != NONBASIC).collect(),
            factor,
        }
    }

    /// z read from the basis (z_j = x_B at z_j's row, 0 if nonbasic).
    fn z_from_basis(&self) -> DVector<Real> {
        let n = self.n;
        DVector::from_fn(n, |j, _| match self.row_of[n + j] {
            NONBASIC => 0.0,
            r => self.xb[r],
        })
    }

    /// The final z after one step of iterative refinement x_B += B⁻¹ (q − B x_B), and a full
    /// refactorisation if that did not bring the drift down.
    fn refined_z(&mut self) -> DVector<Real> {
        let mut res: Vec<Real> = self.q.as_slice().to_vec();
        for (i, &v) in self.basis.iter().enumerate() {
            self.add_column(v, -self.xb[i], &mut res);
        }
        let corr = self.apply_binv(&res);
        for (x, c) in self.xb.iter_mut().zip(corr) {
            *x += c;
        }
        if self.drift(&self.xb) > DRIFT_REFACTOR * self.scale_q() {
            self.check_drift();
        }
        self.z_from_basis()
    }
}

/// One pivot's elimination over the row-major `binv` (row stride `stride`, first `width`
/// entries):
/// every row i ≠ r gets `row_i −= a_i · row_r` and `x_i −= a_i · x_r`. Most of Lemke's time on
/// large islands.
struct Elimination<'t> {
    binv: &'t mut [Real],
    stride: usize,
    r: usize,
    width: usize,
    a: &'t [Real],
    xb: &'t mut [Real],
    xr: Real,
}

impl Elimination<'_> {
    /// On x86-64 processors with AVX2 the loop is compiled for 4-wide vectors (chosen at run
    /// time; the default build targets SSE2's 2-wide ones). Only the width changes: each entry
    /// is still one multiplication and one subtraction, rounded as before (AVX2 does not bring
    /// fused multiply–add, and Rust never contracts `a − f·b` into one), so the bits are the
    /// same. (An AVX-512 version measured no faster: the loop is bound by memory at that width.)
    fn run(self) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            #[allow(unsafe_code)]
            // SAFETY: `run_avx2` is safe Rust compiled with the AVX2 instruction set enabled;
            // calling it is sound exactly when the processor supports AVX2, which
            // `is_x86_feature_detected!` has just checked at run time. It runs the same
            // bounds-checked loop as `run_portable`.
            unsafe {
                return self.run_avx2();
            }
        }
        self.run_portable();
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn run_avx2(self) {
        self.run_portable();
    }

    /// The loop, inlined into each instruction-set version.
    #[inline(always)]
    fn run_portable(self) {
        let Elimination {
            binv,
            stride,
            r,
            width,
            a,
            xb,
            xr,
        } = self;
        let (head, rest) = binv.split_at_mut(r * stride);
        let (row_r, tail) = rest.split_at_mut(stride);
        let row_r = &row_r[..width];
        for (i, row) in head.chunks_exact_mut(stride).enumerate() {
            eliminate(&mut row[..width], row_r, a[i], &mut xb[i], xr);
        }
        for (j, row) in tail.chunks_exact_mut(stride).enumerate() {
            let i = r + 1 + j;
            eliminate(&mut row[..width], row_r, a[i], &mut xb[i], xr);
        }
    }
}

/// `row −= f · row_r`, `x −= f · x_r` (skipped when f = 0: rows untouched by this pivot).
#[inline(always)]
fn eliminate(row: &mut [Real], row_r: &[Real], f: Real, x: &mut Real, xr: Real) {
    if f != 0.0 {
        *x -= f * xr;
        for (a, b) in row.iter_mut().zip(row_r) {
            *a -= f * b;
        }
    }
}

/// The candidates whose key is within the relative tie tolerance of the minimum key.
pub(crate) fn ties(cand: &[usize], key: impl Fn(usize) -> Real) -> Vec<usize> {
    let min = cand.iter().map(|&i| key(i)).fold(Real::INFINITY, Real::min);
    let tol = LCP_TIE_TOL * min.abs().max(1.0);
    let tied: Vec<usize> = cand
        .iter()
        .copied()
        .filter(|&i| key(i) <= min + tol)
        .collect();
    if tied.is_empty() {
        cand[..1].to_vec()
    } else {
        tied
    }
}

#[cfg(test)]
mod dot_tests {
    use super::{dot, dot_sparse};
    use proptest::prelude::*;

    proptest! {
        /// The sparse product skips only exact zeros and keeps every sum's order: the same
        /// bits as the dense one (what keeps `apply_binv`'s two paths interchangeable).
        #[test]
        fn the_sparse_dot_has_the_dense_dots_bits(
            pairs in proptest::collection::vec((-1e3..1e3f64, -1e3..1e3f64, 0..3u8), 0..40)
        ) {
            let a: Vec<f64> = pairs.iter().map(|p| p.0).collect();
            // About a third of b exactly zero, some of them negative zeros.
            let b: Vec<f64> = pairs
                .iter()
                .map(|p| match p.2 { 0 => 0.0, 1 if p.1 < 0.0 => -0.0, _ => p.1 })
                .collect();
            let nz: Vec<usize> = (0..b.len()).filter(|&j| b[j] != 0.0).collect();
            prop_assert_eq!(dot(&a, &b).to_bits(), dot_sparse(&a, &b, &nz).to_bits());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(m: &[Real], q: &[Real]) -> Result<LemkeResult, SolveError> {
        let n = q.len();
        let m = DMatrix::from_row_slice(n, n, m);
        let q = DVector::from_column_slice(q);
        let cfg = LemkeConfig {
            max_pivots: 1000,
            covering: Covering::Ones,
            warm_basis: None,
            n_free: 0,
            factor: None,
        };
        lemke_lcp(&m, &q, &cfg)
    }

    #[test]
    fn cps_example_4_4_16_needs_z0_to_leave_on_ties() {
        // CPS Ex. 4.4.16 (Drake "TestPSD"): M = [[1,−1],[−1,1]], q = (1,−1) → z = (0,1).
        let r = run(&[1.0, -1.0, -1.0, 1.0], &[1.0, -1.0]).unwrap();
        assert!(
            (r.z[0] - 0.0).abs() < 1e-12 && (r.z[1] - 1.0).abs() < 1e-12,
            "{}",
            r.z
        );
    }

    #[test]
    fn drake_cycling_example_is_solved() {
        let r = run(&[1., 2., 0., 0., 1., 2., 2., 0., 1.], &[-1.0; 3]).unwrap();
        for i in 0..3 {
            assert!((r.z[i] - 1.0 / 3.0).abs() < 1e-12, "{}", r.z);
        }
    }

    #[test]
    fn unsolvable_scalar_is_a_ray() {
        assert!(matches!(
            run(&[-1.0], &[-1.0]),
            Err(SolveError::Ray { pivot: 1 })
        ));
    }

    #[test]
    fn warm_start_from_the_solution_basis_takes_zero_pivots() {
        let m = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 2.0]);
        let q = DVector::from_column_slice(&[-5.0, -6.0]);
        let cfg = LemkeConfig {
            max_pivots: 100,
            covering: Covering::Ones,
            warm_basis: Some(vec![true, true]),
            n_free: 0,
            factor: None,
        };
        let r = lemke_lcp(&m, &q, &cfg).unwrap();
        assert_eq!(r.pivots, 0);
        assert!((r.z[0] - 4.0 / 3.0).abs() < 1e-12 && (r.z[1] - 7.0 / 3.0).abs() < 1e-12);
    }
}

#[cfg(test)]
mod structured_inverse {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The block-structured inverse equals the full LU's, for bases mixing w's, z's and z₀,
    /// and both report a singular basis.
    #[test]
    fn equals_the_full_inverse() {
        let n = 14;
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let m = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
        let q = DVector::from_fn(n, |_, _| rng.random_range(-1.0..1.0));
        let t = Tableau::cold(&m, 1.0, &q, Covering::Ones);
        for trial in 0..20 {
            let mut basis: Vec<usize> = (0..n)
                .map(|i| if rng.random_bool(0.5) { n + i } else { i })
                .collect();
            if trial % 3 == 0 {
                basis[trial % n] = 2 * n; // z₀ in the basis
            }
            let full = t.inverse_full(&basis).expect("random basis is nonsingular");
            let structured = t.inverse_structured(&basis).expect("same basis");
            let err = full
                .iter()
                .zip(&structured)
                .fold(0.0, |a: Real, (x, y)| a.max((x - y).abs()));
            let size = full.iter().fold(0.0, |a: Real, x| a.max(x.abs()));
            assert!(err <= 1e-10 * size.max(1.0), "trial {trial}: {err:e}");
        }
        // w_0 twice: singular either way.
        let mut bad: Vec<usize> = (0..n).collect();
        bad[1] = 0;
        assert!(t.inverse_structured(&bad).is_none());
    }
}

#[cfg(test)]
mod factor_restart {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn cfg(factor: Option<Arc<LemkeFactor>>) -> LemkeConfig {
        LemkeConfig {
            max_pivots: 100_000,
            covering: Covering::Ones,
            warm_basis: None,
            n_free: 0,
            factor,
        }
    }

    /// A restart from the basis of a nearby q reaches the (unique, M positive definite)
    /// solution of the new problem in fewer pivots than a cold run; below the size threshold
    /// the factor is ignored (the cold run's pivots exactly).
    #[test]
    fn restart_from_a_factor_takes_fewer_pivots_and_finds_the_same_answer() {
        for (n, restarts) in [(FACTOR_RESTART_FROM, true), (40, false)] {
            let mut rng = ChaCha8Rng::seed_from_u64(11);
            // Sparse-ish positive definite M = A Aᵀ + I, A with 6 entries per row.
            let mut a = DMatrix::zeros(n, n);
            for i in 0..n {
                for _ in 0..6 {
                    a[(i, rng.random_range(0..n))] = rng.random_range(-1.0..1.0);
                }
            }
            let m = &a * a.transpose() + DMatrix::identity(n, n);
            let q1 = DVector::from_fn(n, |_, _| rng.random_range(-1.0..1.0));
            let first = lemke_lcp(&m, &q1, &cfg(None)).unwrap();
            let q2 = &q1 + DVector::from_fn(n, |_, _| rng.random_range(-0.3..0.3));
            let cold = lemke_lcp(&m, &q2, &cfg(None)).unwrap();
            let f = Arc::new(first.factor.unwrap());
            assert!(
                f.resolve(&m, &q2, 2).is_none(),
                "q2 must leave the invariance region"
            );
            let warm = lemke_lcp(&m, &q2, &cfg(Some(f))).unwrap();
            assert!((&warm.z - &cold.z).amax() < 1e-9, "n = {n}");
            if restarts {
                assert!(
                    warm.pivots * 4 < cold.pivots,
                    "n = {n}: {} restart pivots against {} cold",
                    warm.pivots,
                    cold.pivots
                );
            } else {
                assert_eq!(warm.pivots, cold.pivots);
                assert_eq!(warm.z, cold.z);
            }
        }
    }
}

#[cfg(test)]
mod repair_from_final_basis {
    use super::*;

    /// A symmetric positive definite M of n = REPAIR_FROM unknowns (a unique solution) and a
    /// q that makes about half the z's positive.
    fn spd(n: usize) -> (DMatrix<Real>, DVector<Real>) {
        let a = DMatrix::from_fn(n, n, |i, j| {
            (((i * 31 + j * 17) % 23) as Real - 11.0) / 23.0
        });
        let m = &a * a.transpose() / n as Real + DMatrix::identity(n, n);
        let q = DVector::from_fn(n, |i, _| if i % 2 == 0 { -1.0 } else { 0.5 });
        (m, q)
    }

    #[test]
    fn a_basis_that_strayed_from_the_solution_by_a_few_rows_is_repaired_in_few_pivots() {
        let n = REPAIR_FROM;
        let (m, q) = spd(n);
        let cfg = LemkeConfig {
            max_pivots: 50 * n,
            covering: Covering::Ones,
            warm_basis: None,
            n_free: 0,
            factor: None,
        };
        let cold = lemke_lcp(&m, &q, &cfg).unwrap();
        // The solution's basis with four rows swapped (z ↔ w): what a pivot chosen on a
        // rounded column leaves at the end of a long path.
        let mut flags = cold.basis.clone();
        for i in [3, 50, 51, 200] {
            flags[i] = !flags[i];
        }
        let fixed = repair(&m, &q, &cfg, &flags, n)
            .expect("nonsingular")
            .unwrap();
        assert!((&fixed.z - &cold.z).amax() < 1e-10);
        assert!(
            fixed.pivots < cold.pivots / 10,
            "{} pivots against a cold run's {}",
            fixed.pivots,
            cold.pivots
        );
        // The solution's own basis is accepted with no pivot.
        let same = repair(&m, &q, &cfg, &cold.basis, n).unwrap().unwrap();
        assert_eq!(same.pivots, 0);
    }
}
