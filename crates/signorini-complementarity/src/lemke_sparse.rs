//! Lemke's method on a sparse LCP with a factored basis ("revised" Lemke): [`lemke_sparse`].
//!
//! Owns: the revised pivoting kernel (the basis B kept as the sparse LU of a recent basis B₀
//! and the product-form updates since, `Basis`), its lexicographic ratio test, warm starts
//! from a complementary basis (from the kept factors of the last answer when M is held in a
//! [`SparseLemkeMatrix`]), its work budget, and the row check of its answer.
//! Does not own: the LU of a basis (`basis_lu.rs`: its unit columns kept out, faer's
//! simplicial LU of the rest under a reused column order), the dense tableau Lemke
//! (`lemke.rs`, whose rules this one follows), the fallbacks (the caller's), the sparse LU
//! wrapper of the Newton method (`newton_sparse.rs`: a fixed pattern there).
//!
//! Reference: Cottle, Pang & Stone, *The Linear Complementarity Problem* (1992), §4.4 (the
//! method, the lexicographic degeneracy resolution and Example 4.4.16's "z₀ leaves on ties"),
//! in the revised form of the simplex method: Chvátal, *Linear Programming* (1983), ch. 7–8
//! (the basis kept factored, the entering column computed as B⁻¹a, the eta file of
//! product-form updates, refactorisation every few pivots).
//!
//! Why: the dense tableau stores B⁻¹ (n × the number of basic z's) and a pivot touches all of
//! it, so a cold run of n pivots costs O(n³) and n² memory (a 2D pile of 2,500 polygons,
//! 3,500 unknowns: ≈ 10 s per run). Lemke needs only the entering column B⁻¹a and, on ties,
//! a few rows of B⁻¹: with B factored sparse those cost O(nnz of the factors + the updates)
//! each.
//!
//! The system is `w − (M/s) z − d z₀ = q/s` (s = the largest entry of M and q, as in the
//! dense tableau), variables numbered `w_0..w_{n−1}` (0..n), `z_0..z_{n−1}` (n..2n) and the
//! artificial `z₀` (2n). Cold start: d = e. Warm start from a complementary basis B:
//! d = B e, so that B⁻¹d = e and the first pivot makes every basic value non-negative.
//!
//! Determinism: faer runs with `Par::Seq`, every sum is in a fixed order: the same result
//! from run to run, whatever the thread count.

use nalgebra::DVector;
use signorini_math::Real;
use signorini_math::tolerance::{LCP_PIVOT_TOL as PIVOT_TOL, LCP_ROW_TOL as ROW_TOL};

use crate::basis_lu::{BasisLu, LuFailure};
use crate::lemke::ties;
use crate::solve::types::{SolveError, SolverKind};
use crate::{BUDGET_SPENT, CscMatrix};

/// The basis is refactorised after this many product-form updates (and x_B recomputed from
/// the fresh factors, which also removes the drift of the updates).
pub const SPARSE_LEMKE_REFACTOR_EVERY: usize = 48;

/// What a successful [`lemke_sparse`] run returns.
#[derive(Debug, Clone)]
pub struct SparseLemkeInfo {
    /// The solution z.
    pub z: DVector<Real>,
    /// Number of pivots (0 for q ≥ 0 or a feasible warm basis).
    pub pivots: usize,
    /// Number of sparse LU factorisations of a basis.
    pub factorisations: usize,
    /// The final complementary basis: `true` where z_i is basic (a warm start for the next
    /// solve of a nearby problem).
    pub basis: Vec<bool>,
    /// Largest row miss of the answer, max over i of (−w_i)⁺ and (z_i w_i)-free violations as
    /// in the dense Lemke's check: the answer passed `LCP_ROW_TOL` relative to each row.
    pub residual: Real,
    /// Work spent by the whole call, in the units of [`lemke_sparse`]'s `work_limit`.
    pub work: Real,
}

/// Solve LCP(M, q) (w = M z + q, 0 ≤ z ⟂ w ≥ 0) by Lemke's method with a sparse factored
/// basis (module docs). `warm`: `true` where z_i is basic in a complementary basis to start
/// from (ignored if its length is not n or the basis is singular). At most `max_pivots`
/// pivots per run (warm, cold, repair: below) and twice that in all. The answer is checked
/// row by row like the dense Lemke's (each row's miss at most `LCP_ROW_TOL` ×
/// max(|q_i|, ‖M_i·‖∞ ‖z‖∞)).
///
/// `work_limit`: a deterministic budget for the whole call (every run: warm, cold, repair),
/// counted in stored entries touched, a proxy for multiply–adds as the sparse Newton method
/// counts its own: each solve with the LU factors charges n + nnz(L + U) plus the eta file's
/// nnz, each pivot 2n, each refactorisation nnz(B) + 2 nnz(L + U) (and 8 nnz(B) when it
/// orders the columns anew). `None`: no limit but the pivots'. Why a budget: a pivot on an
/// island of 25,000 unknowns costs milliseconds, so a run to a pivot limit of 3n took more
/// than 10 minutes (docs/peg3d.md, item 26); counting work instead of time keeps results
/// bit-identical from machine to machine.
///
/// # Errors
/// [`SolveError::InvalidInput`] for sizes that disagree or a non-finite q;
/// [`SolveError::Ray`] (secondary ray), [`SolveError::MaxIterations`] (pivot limit) and
/// [`SolveError::Inaccurate`] (an answer that misses the row check, or a basis the sparse LU
/// found singular) with the best z known; [`SolveError::Infeasible`] with reason
/// [`crate::BUDGET_SPENT`] and the z of the basis it stopped at when `work_limit` was spent.
///
/// ```
/// use nalgebra::DVector;
/// use signorini_complementarity::{CscMatrix, lemke_sparse};
/// let m = CscMatrix::from_triplets(2, 2, &[(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 2.0)])
///     .unwrap();
/// let q = DVector::from_column_slice(&[-5.0, -6.0]);
/// let info = lemke_sparse(&m, &q, None, 100, None).unwrap();
/// assert!((info.z[0] - 4.0 / 3.0).abs() < 1e-12 && (info.z[1] - 7.0 / 3.0).abs() < 1e-12);
/// ```
pub fn lemke_sparse(
    m: &CscMatrix,
    q: &DVector<Real>,
    warm: Option<&[bool]>,
    max_pivots: usize,
    work_limit: Option<Real>,
) -> Result<SparseLemkeInfo, SolveError> {
    run_all(
        m, q, warm, max_pivots, work_limit, true, &mut None, &mut 0.0,
    )
}

/// A matrix M held for several sparse Lemke solves of LCP(M, q) with different q, which keeps
/// the factors of each answer's basis for the next solve: [`SparseLemkeMatrix::solve`].
///
/// Why: the gap-correction re-solves of a step change only q, and each warm start factored
/// again the basis the solve before it had just factored for its answer (`Basis::warm`: 6.5 %
/// of the 125-body pile's run, `perf`, session 30; docs/peg3d.md, item 28). Owning M is what
/// makes the kept factors safe to reuse: M cannot change under them.
pub struct SparseLemkeMatrix {
    m: CscMatrix,
    kept: Option<KeptFactors>,
    /// The work of the last solve, failed or not.
    last_work: Real,
}

/// Fresh factors (no updates) of the complementary basis of the last answer, in the slot
/// order they were made in, and the scale s of the system `[I | −M/s]` they factor.
struct KeptFactors {
    lu: BasisLu,
    /// Slot k holds variable `basis[k]` (w_i as i, z_i as n + i).
    basis: Vec<usize>,
    s: Real,
}

impl KeptFactors {
    /// Whether these factor the complementary basis `flags` (z_i basic where true) of the
    /// system scaled by s.
    fn fit(&self, s: Real, flags: &[bool]) -> bool {
        let n = flags.len();
        self.s.to_bits() == s.to_bits()
            && self.basis.len() == n
            && self
                .basis
                .iter()
                .all(|&v| v < 2 * n && (v >= n) == flags[v % n])
    }
}

impl std::fmt::Debug for SparseLemkeMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SparseLemkeMatrix")
            .field("m", &self.m)
            .field("factors_kept", &self.kept.is_some())
            .finish()
    }
}

impl SparseLemkeMatrix {
    /// Hold M (no factors yet).
    pub fn new(m: CscMatrix) -> Self {
        SparseLemkeMatrix {
            m,
            kept: None,
            last_work: 0.0,
        }
    }

    /// The work of the last [`SparseLemkeMatrix::solve`], in the units of `work_limit`,
    /// whether it succeeded or failed (a failure's error does not carry it).
    pub fn last_work(&self) -> Real {
        self.last_work
    }

    /// The matrix.
    pub fn matrix(&self) -> &CscMatrix {
        &self.m
    }

    /// [`lemke_sparse`] on this M. If `warm` is the basis of the last answer of this matrix
    /// (and q has not changed the system's scale s), the warm run starts from that answer's
    /// factors instead of factoring the basis anew. After a success the answer's factors are
    /// kept for the next solve, after a failure nothing is. The kept factors were made under
    /// another run's column order, so an answer may differ from [`lemke_sparse`]'s by
    /// rounding.
    ///
    /// # Errors
    /// As [`lemke_sparse`].
    pub fn solve(
        &mut self,
        q: &DVector<Real>,
        warm: Option<&[bool]>,
        max_pivots: usize,
        work_limit: Option<Real>,
    ) -> Result<SparseLemkeInfo, SolveError> {
        self.runs(q, warm, max_pivots, work_limit, true)
    }

    /// [`SparseLemkeMatrix::solve`] from the warm start alone: no cold run after a failed
    /// warm one (a cold run only when `warm` is `None` or of another size), so a call costs
    /// at most `max_pivots` pivots (plus a repair). For callers with a cheaper fallback than
    /// a cold path: the world's proximal stage on its largest islands, where a cold path took
    /// 3 n pivots and 330 s and the proximal stage 78 s (docs/peg3d.md, item 42).
    ///
    /// # Errors
    /// As [`lemke_sparse`]; a warm basis that cannot be factored ends the call with
    /// [`SolveError::Infeasible`] ("no run could start").
    pub fn solve_warm_only(
        &mut self,
        q: &DVector<Real>,
        warm: Option<&[bool]>,
        max_pivots: usize,
        work_limit: Option<Real>,
    ) -> Result<SparseLemkeInfo, SolveError> {
        self.runs(q, warm, max_pivots, work_limit, false)
    }

    /// [`run_all`] on this M, its factors and its work counter.
    fn runs(
        &mut self,
        q: &DVector<Real>,
        warm: Option<&[bool]>,
        max_pivots: usize,
        work_limit: Option<Real>,
        cold_after_warm: bool,
    ) -> Result<SparseLemkeInfo, SolveError> {
        self.last_work = 0.0;
        run_all(
            &self.m,
            q,
            warm,
            max_pivots,
            work_limit,
            cold_after_warm,
            &mut self.kept,
            &mut self.last_work,
        )
    }
}

/// [`lemke_sparse`]'s runs; `cold_after_warm`: whether a failed warm run is followed by a
/// cold one; `kept`: the factors of the last answer on this M, used if they fit the warm
/// basis, and replaced by this answer's (nothing after a failure); `spent`: set to the work
/// of every run, on success or failure.
#[allow(clippy::too_many_arguments)]
fn run_all(
    m: &CscMatrix,
    q: &DVector<Real>,
    warm: Option<&[bool]>,
    max_pivots: usize,
    work_limit: Option<Real>,
    cold_after_warm: bool,
    kept: &mut Option<KeptFactors>,
    spent_work: &mut Real,
) -> Result<SparseLemkeInfo, SolveError> {
    let reuse = kept.take();
    let n = q.len();
    if m.nrows() != n || m.ncols() != n {
        return Err(SolveError::InvalidInput(format!(
            "sparse Lemke: M is {}×{}, q has {n} entries",
            m.nrows(),
            m.ncols()
        )));
    }
    if let Some(i) = q.iter().position(|x| !x.is_finite()) {
        return Err(SolveError::InvalidInput(format!(
            "sparse Lemke: q[{i}] is not finite"
        )));
    }
    if q.iter().all(|&x| x >= 0.0) {
        return Ok(SparseLemkeInfo {
            z: DVector::zeros(n),
            pivots: 0,
            factorisations: 0,
            basis: vec![false; n],
            residual: 0.0,
            work: 0.0,
        });
    }
    // LCP(M/s, q/s) has the same solutions (the dense tableau's scaling).
    let s = m
        .values()
        .iter()
        .chain(q.iter())
        .fold(0.0, |a: Real, x| a.max(x.abs()));
    let s = if s.is_finite() && s > 0.0 { s } else { 1.0 };
    let qs: Vec<Real> = q.iter().map(|x| x / s).collect();
    let mut reuse = match (reuse, warm) {
        (Some(f), Some(flags)) if f.fit(s, flags) => Some(f),
        _ => None,
    };
    // The runs, in order: from the warm basis (if any), cold, and once from the final basis
    // of a run whose answer missed the row check (the dense Lemke's `repair`: its path was
    // led astray by a pivot chosen on a rounded column, and the basis it ended on is right
    // but for a few rows). A warm start's covering vector B e need not be positive, so
    // Lemke's guarantees (CPS §4.4, d > 0) do not cover it: a failed warm run is followed by
    // a cold one. Each run gets the pivot limit, but all runs together at most twice it (a
    // repair after a failed warm run and an inaccurate cold one gets what is left).
    let warm = warm.filter(|f| f.len() == n);
    let mut starts: Vec<Option<Vec<bool>>> = Vec::new();
    if cold_after_warm || warm.is_none() {
        starts.push(None);
    }
    if let Some(flags) = warm {
        starts.push(Some(flags.to_vec()));
    }
    let (mut spent, mut factorisations, mut repaired) = (0, 0, false);
    let mut work = 0.0;
    let limit = work_limit.unwrap_or(Real::INFINITY);
    let mut last_error = None;
    let cap = max_pivots.saturating_mul(2);
    while let Some(start) = starts.pop() {
        let allowed = max_pivots.min(cap.saturating_sub(spent));
        if allowed == 0 {
            break;
        }
        let mut b = Basis::cold(m, s, qs.clone());
        b.work = work;
        b.work_limit = limit;
        let warmed = match &start {
            Some(flags) => {
                let ok = match reuse.take() {
                    Some(f) => b.warm_from(f),
                    None => b.warm(flags),
                };
                if !ok {
                    factorisations += b.factorisations;
                    work = b.work;
                    *spent_work = work;
                    continue;
                }
                ok
            }
            None => false,
        };
        let (result, final_basis) = run(&mut b, m, q, allowed, warmed);
        factorisations += b.factorisations;
        work = b.work;
        *spent_work = work;
        match result {
            Ok(mut info) => {
                info.pivots += spent;
                info.factorisations = factorisations;
                info.work = work;
                *kept = b.into_factors();
                return Ok(info);
            }
            Err(e) => {
                let own = e.iterations();
                spent += own;
                if e.spent_budget() {
                    // The budget is the whole call's: no further run.
                    return Err(e.with_more_iterations(spent - own));
                }
                if let (SolveError::Inaccurate { .. }, Some(flags)) = (&e, final_basis)
                    && !repaired
                {
                    repaired = true;
                    starts.push(Some(flags));
                }
                last_error = Some(e);
            }
        }
    }
    Err(last_error
        .map(|e| {
            let own = e.iterations();
            e.with_more_iterations(spent - own)
        })
        .unwrap_or_else(|| breakdown("no run could start")))
}

/// One run from basis `b` (a warm one if `warmed`) and the row check of its answer; also
/// the final complementary basis when the pivots ended normally (z₀ left).
fn run(
    b: &mut Basis<'_>,
    m: &CscMatrix,
    q: &DVector<Real>,
    max_pivots: usize,
    warmed: bool,
) -> (Result<SparseLemkeInfo, SolveError>, Option<Vec<bool>>) {
    let n = b.n;
    let pivots = match pivot_loop(b, max_pivots, warmed) {
        Ok(p) => p,
        Err(e) => return (Err(e), None),
    };
    let z = b.final_z();
    let basis: Vec<bool> = (0..n).map(|j| b.row_of[n + j] != NONBASIC).collect();
    let result = match row_check(m, q, &z) {
        Ok(residual) => Ok(SparseLemkeInfo {
            z,
            pivots,
            factorisations: b.factorisations,
            basis: basis.clone(),
            residual,
            work: b.work,
        }),
        Err(worst) => Err(SolveError::Inaccurate {
            solver: SolverKind::Lemke,
            iterations: pivots,
            residual: worst,
            best: z,
        }),
    };
    (result, Some(basis))
}

/// Lemke's pivots from the current basis (cold: all w; warm: a complementary basis that is
/// not feasible) until z₀ leaves; returns the pivot count.
fn pivot_loop(b: &mut Basis<'_>, max_pivots: usize, warmed: bool) -> Result<usize, SolveError> {
    let n = b.n;
    let z0 = 2 * n;
    b.refresh_xb()?;
    if b.xb.iter().all(|&x| x >= 0.0) {
        return Ok(0); // a feasible warm basis (or q ≥ 0)
    }
    // Covering vector: e cold; B e warm, so that B⁻¹d = e.
    if warmed {
        b.d = b.times_ones();
    }
    // Initial pivot: z₀ enters; the leaving row is the lexicographic minimum of
    // (x_B,i, B⁻¹_i) / |a_i| over rows with a_i < 0 and x_B,i < 0 (the most infeasible).
    let col = b.column(z0);
    let a = b.ftran(col)?;
    let cand: Vec<usize> = (0..n).filter(|&i| a[i] < 0.0 && b.xb[i] < 0.0).collect();
    if cand.is_empty() {
        return Ok(0);
    }
    let r = b.lexmin(&cand, &a, None)?;
    let mut leaving = b.basis[r];
    b.pivot(r, a, z0)?;
    let mut pivots = 1;
    while pivots < max_pivots {
        if b.work > b.work_limit {
            return Err(SolveError::Infeasible {
                reason: format!(
                    "sparse Lemke: {BUDGET_SPENT} ({:e} entries) after {pivots} pivots",
                    b.work_limit
                ),
                best: Some(b.z_from_basis()),
                residual: Real::INFINITY,
            });
        }
        let entering = complement(leaving, n);
        let col = b.column(entering);
        let a = b.ftran(col)?;
        let amax = a.iter().fold(0.0, |acc: Real, x| acc.max(x.abs()));
        let tol = PIVOT_TOL * amax.max(1.0);
        let cand: Vec<usize> = (0..n).filter(|&i| a[i] > tol).collect();
        if cand.is_empty() {
            return Err(SolveError::Ray { pivot: pivots });
        }
        let r = b.lexmin(&cand, &a, Some(b.row_of[z0]))?;
        // A rounding-level negative value in the pivot row counts as 0 (dense `lexmin`).
        b.xb[r] = b.xb[r].max(0.0);
        leaving = b.basis[r];
        b.pivot(r, a, entering)?;
        pivots += 1;
        if leaving == z0 {
            return Ok(pivots);
        }
    }
    Err(SolveError::MaxIterations {
        iterations: pivots,
        residual: Real::INFINITY,
        best: b.z_from_basis(),
    })
}

const NONBASIC: usize = usize::MAX;

/// The error of a failed factorisation.
fn lu_failure(f: LuFailure) -> SolveError {
    breakdown(match f {
        LuFailure::Memory => "no memory for the LU workspace",
        LuFailure::Ordering => "the column ordering of a basis failed",
        LuFailure::Singular => "a basis is singular to the sparse LU",
    })
}

/// A numerical breakdown of the basis factors (a singular basis, a non-finite solve).
fn breakdown(what: &str) -> SolveError {
    SolveError::Infeasible {
        reason: format!("sparse Lemke: {what}"),
        best: None,
        residual: Real::INFINITY,
    }
}

/// The complement of variable v (w_i ↔ z_i).
fn complement(v: usize, n: usize) -> usize {
    if v < n { v + n } else { v - n }
}

/// One product-form update: after the pivot on row r with entering column a = B⁻¹a_e, the
/// new inverse is E⁻¹ B⁻¹ with E the identity whose column r is a.
struct Eta {
    r: usize,
    pivot: Real,
    /// The entries of a off row r.
    col: EtaColumn,
}

/// An eta's column off its pivot row: its nonzeros, or all n entries (with 0 at row r) when
/// more than a quarter are nonzero, which is the rule here: with z₀ basic, B⁻¹a mixes in the
/// covering vector's column and is dense (every eta of step 101 of the 1,000-body pile held
/// ≥ 88 % of n entries), and a dense loop reads half the memory of an indexed one.
enum EtaColumn {
    Sparse { idx: Vec<usize>, val: Vec<Real> },
    Dense(Vec<Real>),
}

impl EtaColumn {
    /// Column a off row r, and the work of applying it (its stored length).
    fn of(a: Vec<Real>, r: usize) -> (Self, usize) {
        let nnz = a
            .iter()
            .enumerate()
            .filter(|&(i, &v)| i != r && v != 0.0)
            .count();
        if 4 * nnz > a.len() {
            let mut a = a;
            a[r] = 0.0;
            let n = a.len();
            (EtaColumn::Dense(a), n)
        } else {
            (EtaColumn::sparse(&a, r), nnz)
        }
    }

    /// The nonzeros of a off row r.
    fn sparse(a: &[Real], r: usize) -> Self {
        let (idx, val) = a
            .iter()
            .enumerate()
            .filter(|&(i, &v)| i != r && v != 0.0)
            .map(|(i, &v)| (i, v))
            .unzip();
        EtaColumn::Sparse { idx, val }
    }

    /// `x −= f · column` (ascending index order).
    fn axpy(&self, f: Real, x: &mut [Real]) {
        match self {
            EtaColumn::Sparse { idx, val } => {
                for (&i, &v) in idx.iter().zip(val) {
                    x[i] -= v * f;
                }
            }
            EtaColumn::Dense(col) => {
                for (xi, &v) in x.iter_mut().zip(col) {
                    *xi -= v * f;
                }
            }
        }
    }

    /// `acc − Σ_l u_l column_l` (ascending index order).
    fn minus_dot(&self, acc: Real, u: &[Real]) -> Real {
        match self {
            EtaColumn::Sparse { idx, val } => {
                idx.iter().zip(val).fold(acc, |s, (&l, &v)| s - u[l] * v)
            }
            EtaColumn::Dense(col) => u.iter().zip(col).fold(acc, |s, (&ul, &v)| s - ul * v),
        }
    }
}

/// The basis: which variable each row holds, B₀'s factors and the updates since.
struct Basis<'a> {
    n: usize,
    /// The caller's M, unscaled (the system's matrix is M/s, divided where read).
    m: &'a CscMatrix,
    s: Real,
    /// q/s.
    q: Vec<Real>,
    /// Covering vector.
    d: Vec<Real>,
    basis: Vec<usize>,
    row_of: Vec<usize>,
    xb: Vec<Real>,
    /// B₀'s factors (`basis_lu.rs`), made on the first refactorisation; their buffers and
    /// column order are reused by the next ones.
    lu: Option<BasisLu>,
    /// Dense vectors of dropped etas, reused as entering columns.
    pool: Vec<Vec<Real>>,
    etas: Vec<Eta>,
    /// Σ nnz of the etas (the work an ftran or a BTRAN row adds to the LU solve).
    eta_nnz: usize,
    factorisations: usize,
    /// Work spent so far, in stored entries touched ([`lemke_sparse`]'s docs).
    work: Real,
    /// The pivots stop once `work` is above this.
    work_limit: Real,
}

impl<'a> Basis<'a> {
    /// All w basic (B = I), covering d = e.
    fn cold(m: &'a CscMatrix, s: Real, q: Vec<Real>) -> Self {
        let n = q.len();
        let mut row_of = vec![NONBASIC; 2 * n + 1];
        (0..n).for_each(|i| row_of[i] = i);
        Basis {
            n,
            m,
            s,
            xb: q.clone(),
            q,
            d: vec![1.0; n],
            basis: (0..n).collect(),
            row_of,
            lu: None,
            pool: Vec::new(),
            etas: Vec::new(),
            eta_nnz: 0,
            factorisations: 0,
            work: 0.0,
            work_limit: Real::INFINITY,
        }
    }

    /// Install the complementary basis with z_i basic where `flags[i]`; false (basis left
    /// cold) if the sparse LU finds it singular.
    fn warm(&mut self, flags: &[bool]) -> bool {
        let n = self.n;
        self.row_of.iter_mut().for_each(|r| *r = NONBASIC);
        for (i, &f) in flags.iter().enumerate() {
            let v = if f { n + i } else { i };
            self.basis[i] = v;
            self.row_of[v] = i;
        }
        self.refactor().is_ok()
    }

    /// Install the basis that `kept` holds the factors of, in its slot order (the caller has
    /// checked that they fit: `KeptFactors::fit`); false if they are not valid.
    fn warm_from(&mut self, kept: KeptFactors) -> bool {
        self.row_of.iter_mut().for_each(|r| *r = NONBASIC);
        for (slot, &v) in kept.basis.iter().enumerate() {
            self.basis[slot] = v;
            self.row_of[v] = slot;
        }
        self.etas.clear();
        self.eta_nnz = 0;
        let valid = kept.lu.is_valid();
        self.lu = Some(kept.lu);
        valid
    }

    /// The factors of the current basis if they are fresh (no updates since), for
    /// [`SparseLemkeMatrix`]; z₀ is not basic after a run that ended normally.
    fn into_factors(self) -> Option<KeptFactors> {
        let fresh = self.factored() && self.etas.is_empty();
        let complementary = self.basis.iter().all(|&v| v < 2 * self.n);
        match self.lu {
            Some(lu) if fresh && complementary => Some(KeptFactors {
                lu,
                basis: self.basis,
                s: self.s,
            }),
            _ => None,
        }
    }

    /// Column of variable v in the system `[I | −M/s | −d]`, dense (in a pooled buffer).
    fn column(&mut self, v: usize) -> Vec<Real> {
        let mut a = self.pool.pop().unwrap_or_default();
        a.clear();
        a.resize(self.n, 0.0);
        self.add_column(v, 1.0, &mut a);
        a
    }

    /// `out += f · column(v)`, touching only the column's nonzeros.
    fn add_column(&self, v: usize, f: Real, out: &mut [Real]) {
        let n = self.n;
        if v < n {
            out[v] += f;
        } else if v < 2 * n {
            let j = v - n;
            let (cp, ri, mv) = (self.m.col_ptr(), self.m.row_idx(), self.m.values());
            for k in cp[j]..cp[j + 1] {
                out[ri[k]] -= f * (mv[k] / self.s);
            }
        } else {
            out.iter_mut().zip(&self.d).for_each(|(x, d)| *x -= f * d);
        }
    }

    /// B e: the sum of the basis columns (the warm start's covering vector, in the system
    /// before z₀'s column is defined by it: z₀ is not basic here).
    fn times_ones(&self) -> Vec<Real> {
        let mut sum = vec![0.0; self.n];
        for &v in &self.basis {
            self.add_column(v, 1.0, &mut sum);
        }
        sum
    }

    /// Factorise the current basis afresh (B₀ := B) and drop the updates (the factors are
    /// invalid if the LU fails). Work charged as `BasisLu::factor` counts it.
    fn refactor(&mut self) -> Result<(), SolveError> {
        let n = self.n;
        for e in self.etas.drain(..) {
            if let EtaColumn::Dense(v) = e.col {
                self.pool.push(v);
            }
        }
        self.eta_nnz = 0;
        self.factorisations += 1;
        let mut lu = match self.lu.take() {
            Some(lu) => lu,
            None => BasisLu::new(n).map_err(lu_failure)?,
        };
        let (m, s, d, basis) = (self.m, self.s, &self.d, &self.basis);
        let (cp, ri, mv) = (m.col_ptr(), m.row_idx(), m.values());
        let result = lu.factor(
            |slot| (basis[slot] < n).then_some(basis[slot]),
            |slot, rows, vals| {
                let v = basis[slot];
                if v < 2 * n {
                    // −M/s's column (M canonical: rows sorted and unique within a column).
                    let j = v - n;
                    for k in cp[j]..cp[j + 1] {
                        rows.push(ri[k]);
                        vals.push(-(mv[k] / s));
                    }
                } else {
                    for (i, &di) in d.iter().enumerate() {
                        if di != 0.0 {
                            rows.push(i);
                            vals.push(-di);
                        }
                    }
                }
            },
        );
        self.lu = Some(lu);
        self.work += result.map_err(lu_failure)?;
        Ok(())
    }

    /// Whether B₀'s factors are of the current basis (but for the updates).
    fn factored(&self) -> bool {
        self.lu.as_ref().is_some_and(BasisLu::is_valid)
    }

    /// B₀⁻¹ v (or B₀⁻ᵀ v) in place (`BasisLu::solve`); an error if there are no factors or
    /// the result is not finite. Work charged: n + `BasisLu::solve_work`.
    fn solve0(&mut self, v: &mut [Real], transpose: bool) -> Result<(), SolveError> {
        let lu = match self.lu.as_mut() {
            Some(lu) if lu.is_valid() => lu,
            _ => return Err(breakdown("no factors of the basis")),
        };
        self.work += (self.n + lu.solve_work()) as Real;
        lu.solve(v, transpose);
        if v.iter().all(|x| x.is_finite()) {
            Ok(())
        } else {
            Err(breakdown("a solve with the basis factors is not finite"))
        }
    }

    /// B⁻¹ a: B₀⁻¹ a, then each update in order (row r: a_r / pivot; others −= their entry
    /// times it).
    fn ftran(&mut self, mut a: Vec<Real>) -> Result<Vec<Real>, SolveError> {
        if !self.factored() {
            self.refactor()?;
        }
        self.solve0(&mut a, false)?;
        self.work += self.eta_nnz as Real;
        for e in &self.etas {
            let ar = a[e.r] / e.pivot;
            a[e.r] = ar;
            if ar != 0.0 {
                e.col.axpy(ar, &mut a);
            }
        }
        Ok(a)
    }

    /// Row i of B⁻¹: e_iᵀ E_k⁻¹ ⋯ E_1⁻¹ B₀⁻¹ (the updates in reverse as row operations, then
    /// B₀⁻ᵀ).
    fn btran_row(&mut self, i: usize) -> Result<Vec<Real>, SolveError> {
        let mut u = vec![0.0; self.n];
        u[i] = 1.0;
        self.work += self.eta_nnz as Real;
        for e in self.etas.iter().rev() {
            // uᵀE⁻¹ changes only entry r: (u_r − Σ_{l≠r} u_l a_l) / pivot.
            let ur = e.col.minus_dot(u[e.r], &u);
            u[e.r] = ur / e.pivot;
        }
        self.solve0(&mut u, true)?;
        Ok(u)
    }

    /// x_B = B⁻¹ q/s from fresh factors (factored now unless they are fresh already).
    fn refresh_xb(&mut self) -> Result<(), SolveError> {
        if !self.factored() || !self.etas.is_empty() {
            self.refactor()?;
        }
        let mut x = self.q.clone();
        self.solve0(&mut x, false)?;
        self.xb = x;
        Ok(())
    }

    /// Lexicographic ratio test (CPS §4.4) over candidate rows: minimise
    /// (x_B,i, B⁻¹_{i,0}, …, B⁻¹_{i,n−1}) / |a_i| with the dense tableau's tie tolerance;
    /// z₀'s row wins a tie of ratios (CPS Ex. 4.4.16). Rows of B⁻¹ are computed only for
    /// the rows still tied.
    fn lexmin(
        &mut self,
        cand: &[usize],
        a: &[Real],
        z0_row: Option<usize>,
    ) -> Result<usize, SolveError> {
        let clamp = z0_row.is_some();
        let xb = &self.xb;
        let ratio = |i: usize| {
            let x = if clamp { xb[i].max(0.0) } else { xb[i] };
            x / a[i].abs()
        };
        let tied = ties(cand, ratio);
        if let Some(r0) = z0_row
            && tied.contains(&r0)
        {
            return Ok(r0);
        }
        if tied.len() == 1 {
            return Ok(tied[0]);
        }
        // The rows of B⁻¹ / |a_i| compared column by column, the first differing column
        // deciding. Column k of B⁻¹ is the unit vector of w_k's row while w_k is basic (w_k's
        // column of the matrix is e_k): no solve. Another column costs one ftran, which
        // serves every tied row; once as many ftrans as there are rows left were spent, those
        // rows of B⁻¹ (one btran each) serve every later column. On a degenerate pivot of
        // the 2D pile of 2,500 (step 327, docs/peg3d.md item 32), a btran for each of the
        // tied rows made one gap-correction re-solve run for more than 20 minutes.
        let mut left = tied;
        let mut ftrans = 0;
        let mut k = 0;
        while left.len() > 1 && k < self.n {
            if self.row_of[k] != NONBASIC {
                let j = self.row_of[k];
                left = ties(&left, |i| if i == j { 1.0 / a[i].abs() } else { 0.0 });
            } else if ftrans < left.len() {
                ftrans += 1;
                let e_k = self.column(k); // w_k's column of the matrix
                let col = self.ftran(e_k)?;
                left = ties(&left, |i| col[i] / a[i].abs());
                self.pool.push(col);
            } else {
                // The rows left, from column k on.
                let rows: Vec<(usize, Vec<Real>)> = left
                    .iter()
                    .map(|&i| self.btran_row(i).map(|row| (i, row)))
                    .collect::<Result<_, _>>()?;
                let mut at: Vec<usize> = (0..rows.len()).collect();
                while at.len() > 1 && k < self.n {
                    at = ties(&at, |t| rows[t].1[k] / a[rows[t].0].abs());
                    k += 1;
                }
                return Ok(rows[at[0]].0);
            }
            k += 1;
        }
        Ok(left[0])
    }

    /// Pivot on row r with entering column a = B⁻¹a_e: update x_B, record the update (or
    /// refactorise after `SPARSE_LEMKE_REFACTOR_EVERY` of them).
    fn pivot(&mut self, r: usize, a: Vec<Real>, entering: usize) -> Result<(), SolveError> {
        let pivot = a[r];
        let theta = self.xb[r] / pivot;
        // x_B's update and the ratio test's scan, the eta's gathering: 2n.
        self.work += 2.0 * self.n as Real;
        for (x, &ai) in self.xb.iter_mut().zip(&a) {
            *x -= theta * ai;
        }
        self.xb[r] = theta;
        let leaving = self.basis[r];
        self.row_of[leaving] = NONBASIC;
        self.row_of[entering] = r;
        self.basis[r] = entering;
        if self.etas.len() + 1 >= SPARSE_LEMKE_REFACTOR_EVERY {
            self.pool.push(a);
            // Fresh factors of the new basis; x_B from them (clears the updates' drift).
            let kept = self.xb.clone();
            if let Err(e) = self.refresh_xb() {
                self.xb = kept;
                return Err(e);
            }
            return Ok(());
        }
        let (col, nnz) = EtaColumn::of(a, r);
        self.eta_nnz += nnz;
        self.etas.push(Eta { r, pivot, col });
        Ok(())
    }

    /// z read from the basis (z_j = x_B at z_j's row, 0 if nonbasic).
    fn z_from_basis(&self) -> DVector<Real> {
        let n = self.n;
        DVector::from_fn(n, |j, _| match self.row_of[n + j] {
            NONBASIC => 0.0,
            r => self.xb[r],
        })
    }

    /// The final z from fresh factors of the final basis, with one step of iterative
    /// refinement x_B += B⁻¹(q − B x_B); the updated x_B if the factorisation fails.
    fn final_z(&mut self) -> DVector<Real> {
        let updated = self.xb.clone();
        if self.refresh_xb().is_ok() {
            let mut res = self.q.clone();
            for (k, &v) in self.basis.iter().enumerate() {
                if self.xb[k] != 0.0 {
                    self.add_column(v, -self.xb[k], &mut res);
                }
            }
            if self.solve0(&mut res, false).is_ok() {
                self.xb.iter_mut().zip(&res).for_each(|(x, c)| *x += c);
            }
        } else {
            self.xb = updated;
        }
        self.z_from_basis()
    }
}

/// The dense Lemke's row check on the original problem: each row's miss (−w_i)⁺ at most
/// `LCP_ROW_TOL` × max(|q_i|, ‖M_i·‖∞ ‖z‖∞), and z ≥ 0 to the same scale. Returns the
/// worst miss, or it as the error if a row fails.
fn row_check(m: &CscMatrix, q: &DVector<Real>, z: &DVector<Real>) -> Result<Real, Real> {
    let n = q.len();
    let (cp, ri, mv) = (m.col_ptr(), m.row_idx(), m.values());
    let mut w = q.clone();
    let mut row_max = vec![0.0; n];
    for j in 0..n {
        for k in cp[j]..cp[j + 1] {
            w[ri[k]] += mv[k] * z[j];
            let a: Real = mv[k].abs();
            if a > row_max[ri[k]] {
                row_max[ri[k]] = a;
            }
        }
    }
    let zmax = z.amax();
    let (mut worst, mut bad) = (0.0, false);
    for i in 0..n {
        let scale: Real = q[i].abs().max(row_max[i] * zmax);
        let miss = (-w[i]).max(-z[i]).max(0.0);
        worst = Real::max(worst, miss);
        bad |= miss > ROW_TOL * scale.max(Real::MIN_POSITIVE) || !miss.is_finite();
    }
    if bad { Err(worst) } else { Ok(worst) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csc(n: usize, rows: &[Real]) -> CscMatrix {
        let mut t = Vec::new();
        for i in 0..n {
            for j in 0..n {
                if rows[i * n + j] != 0.0 {
                    t.push((i, j, rows[i * n + j]));
                }
            }
        }
        CscMatrix::from_triplets(n, n, &t).unwrap()
    }

    #[test]
    fn cps_example_4_4_16_needs_z0_to_leave_on_ties() {
        // CPS Example 4.4.16 (psd M, degenerate q): without the z₀ rule Lemke cycles or
        // ends on a ray.
        let m = csc(3, &[1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0]);
        let q = DVector::from_column_slice(&[-1.0, -1.0, -1.0]);
        let info = lemke_sparse(&m, &q, None, 100, None).unwrap();
        let w = m.mul_vec(&info.z) + &q;
        for i in 0..3 {
            assert!(w[i] >= -1e-12 && info.z[i] >= 0.0 && (w[i] * info.z[i]).abs() < 1e-12);
        }
    }

    #[test]
    fn degenerate_ties_are_broken_without_cycling() {
        // Many tied ratios at every pivot: q has runs of equal entries and zeros, and M has
        // repeated rows (rank-deficient, PSD: M = I + B Bᵀ with B's columns repeating). The
        // lexicographic test (`Basis::lexmin`) must still reach a complementary solution.
        for n in [12, 40, 90] {
            let mut t = Vec::new();
            for i in 0..n {
                t.push((i, i, 1.0));
                for j in 0..n {
                    // B = the indicator of i % 4 == j % 4 (blocks of identical rows).
                    if i % 4 == j % 4 {
                        t.push((i, j, 1.0));
                    }
                }
            }
            let m = CscMatrix::from_triplets(n, n, &t).unwrap();
            let q = DVector::from_fn(n, |i, _| match i % 3 {
                0 => -1.0,
                1 => 0.0,
                _ => -2.0,
            });
            let info = lemke_sparse(&m, &q, None, 10 * n, None).unwrap();
            let w = m.mul_vec(&info.z) + &q;
            for i in 0..n {
                assert!(
                    w[i] >= -1e-10 && info.z[i] >= -1e-12,
                    "n {n}, {i}: {} {}",
                    w[i],
                    info.z[i]
                );
                assert!((w[i] * info.z[i]).abs() <= 1e-10, "n {n}, {i}");
            }
        }
    }

    #[test]
    fn an_unsolvable_scalar_is_a_ray() {
        let m = csc(1, &[-1.0]);
        let q = DVector::from_column_slice(&[-1.0]);
        assert!(matches!(
            lemke_sparse(&m, &q, None, 100, None),
            Err(SolveError::Ray { .. })
        ));
    }

    #[test]
    fn a_warm_start_from_the_answers_basis_takes_no_pivot() {
        let m = csc(2, &[2.0, 1.0, 1.0, 2.0]);
        let q = DVector::from_column_slice(&[-5.0, -6.0]);
        let cold = lemke_sparse(&m, &q, None, 100, None).unwrap();
        assert!(cold.pivots > 0);
        let warm = lemke_sparse(&m, &q, Some(&cold.basis), 100, None).unwrap();
        assert_eq!(warm.pivots, 0);
        assert!((&warm.z - &cold.z).amax() < 1e-14);
    }

    /// `solve_warm_only` runs the warm start alone: from a basis that cannot be factored it
    /// fails where `solve` goes on cold and answers; from a good one both give the answer.
    #[test]
    fn a_warm_only_call_does_not_fall_back_to_a_cold_run() {
        let m = csc(2, &[0.0, 0.0, 0.0, 1.0]);
        let q = DVector::from_column_slice(&[1.0, -1.0]);
        let singular = [true, false]; // z₀ basic: its column −M e₀ is zero
        let mut a = SparseLemkeMatrix::new(m.clone());
        let cold = a.solve(&q, Some(&singular), 100, None).unwrap();
        assert!((cold.z[1] - 1.0).abs() < 1e-14 && cold.z[0] == 0.0);
        let mut b = SparseLemkeMatrix::new(m.clone());
        let err = b
            .solve_warm_only(&q, Some(&singular), 100, None)
            .unwrap_err();
        assert!(err.to_string().contains("no run could start"), "{err}");
        let mut c = SparseLemkeMatrix::new(m);
        let warm = c.solve_warm_only(&q, Some(&cold.basis), 100, None).unwrap();
        assert_eq!(warm.pivots, 0);
        assert_eq!(warm.z, cold.z);
    }

    #[test]
    fn many_pivots_go_through_refactorisations_and_stay_exact() {
        // A diagonally dominant tridiagonal P-matrix with every q_i < 0: every z_i ends
        // basic, so the run takes more pivots than one eta file holds.
        let n = 3 * SPARSE_LEMKE_REFACTOR_EVERY;
        let (m, q) = tridiagonal(n);
        let info = lemke_sparse(&m, &q, None, 10 * n, None).unwrap();
        assert!(info.pivots >= n && info.factorisations >= 3);
        let w = m.mul_vec(&info.z) + &q;
        assert!(w.amax() < 1e-12, "w should vanish: {}", w.amax());
    }

    /// The tridiagonal P-matrix problem of `many_pivots_go_through_refactorisations_and_stay_exact`.
    fn tridiagonal(n: usize) -> (CscMatrix, DVector<Real>) {
        let mut t = Vec::new();
        for i in 0..n {
            t.push((i, i, 4.0));
            if i + 1 < n {
                t.push((i, i + 1, -1.0));
                t.push((i + 1, i, -1.0));
            }
        }
        let m = CscMatrix::from_triplets(n, n, &t).unwrap();
        let q = DVector::from_fn(n, |i, _| -1.0 - (i % 7) as Real);
        (m, q)
    }

    #[test]
    fn the_work_budget_stops_the_pivots_and_an_ample_one_changes_nothing() {
        let n = 2 * SPARSE_LEMKE_REFACTOR_EVERY;
        let (m, q) = tridiagonal(n);
        let free = lemke_sparse(&m, &q, None, 10 * n, None).unwrap();
        assert!(free.work > 0.0 && free.pivots >= n);
        // A budget of exactly the work spent: the same answer, bit for bit.
        let ample = lemke_sparse(&m, &q, None, 10 * n, Some(free.work)).unwrap();
        assert_eq!(ample.pivots, free.pivots);
        assert_eq!(ample.z.as_slice(), free.z.as_slice());
        // A tenth of it: stopped, with the basis's z and the reason, the same way every time.
        let short = |_| lemke_sparse(&m, &q, None, 10 * n, Some(free.work / 10.0));
        let (a, b) = (short(()), short(()));
        for e in [&a, &b] {
            assert!(
                matches!(e, Err(SolveError::Infeasible { reason, best: Some(_), .. })
                    if reason.contains(BUDGET_SPENT)),
                "{e:?}"
            );
        }
        let (Err(a), Err(b)) = (a, b) else {
            unreachable!()
        };
        assert_eq!(a.best().unwrap().as_slice(), b.best().unwrap().as_slice());
        assert!(
            a.best().unwrap().iter().any(|&z| z == 0.0),
            "stopped before the end"
        );
    }

    #[test]
    fn dense_and_sparse_eta_columns_apply_the_same_bits() {
        let n = 40;
        let a: Vec<Real> = (0..n)
            .map(|i| {
                if i % 3 == 0 {
                    0.1 * i as Real - 1.3
                } else {
                    0.0
                }
            })
            .collect();
        let r = 6;
        let (dense, _) = EtaColumn::of(a.clone(), r);
        assert!(matches!(dense, EtaColumn::Dense(_)));
        let sparse = EtaColumn::sparse(&a, r);
        let u: Vec<Real> = (0..n).map(|i| (i as Real * 0.37).sin()).collect();
        let (mut x, mut y) = (u.clone(), u.clone());
        dense.axpy(0.7, &mut x);
        sparse.axpy(0.7, &mut y);
        assert_eq!(x, y);
        assert_eq!(x[r], u[r], "row r is not the column's");
        assert_eq!(dense.minus_dot(2.0, &u), sparse.minus_dot(2.0, &u));
        // Below a quarter nonzero the column is kept sparse.
        let few: Vec<Real> = (0..n).map(|i| if i == 3 { 1.0 } else { 0.0 }).collect();
        assert!(matches!(EtaColumn::of(few, r).0, EtaColumn::Sparse { .. }));
    }
}
