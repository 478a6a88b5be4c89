//! The `Auto` fallback chain and the Lemke entry used by the dispatcher.
//!
//! Owns: [`run_lemke`] and [`solve_auto`]. Does not own the algorithms themselves.
//!
//! Chain (`docs/formulation-notes.md` §12.5, §12.2):
//! 1. Lemke with d = e (warm-started if a start is given);
//! 2. after a ray, Lemke again with d_i = max(1, |q_i|) (another path);
//! 3. FB-Newton from the best iterate so far, then from mid(l, u, 0) (or the warm start);
//! 4. regularised retries: Lemke on M + εI for ε = 1e-10, 1e-8, …, 1e-2 (times max(1, ‖M‖∞)),
//!    each answer polished and then FB-Newton-refined on the *original* problem
//!    (the RPI simulator doubles ε from 1e-16; decades are enough here).
//!
//! Every candidate outside the tolerance (and every candidate of a problem of at most 500
//! unknowns) gets one active-set Newton polish (`polish.rs`) if that lowers the residual. The first candidate within tolerance wins; its solver is reported, and
//! `fallbacks` lists why the earlier ones failed. If none succeeds, the best iterate is
//! returned inside `SolveError::Infeasible` (for Lemke's ray on a problem that every
//! fallback also fails, "no solution" is the likely truth: `lcp_Pang_isolated_sol_perturbed`).

use nalgebra::DVector;
use signorini_math::Real;

use crate::Mcp;
use crate::basis_reuse::LemkeFactor;
use crate::fischer_burmeister::{fb_newton, start_point};
use crate::lemke::{Covering, lemke_mcp};
use crate::polish::polish_if_better;
use crate::reduce::schur_lcp_size;
use crate::solve::accept::{rows_within, rows_within_w};
use crate::solve::types::{Attempt, SolveError, SolveParams, SolverKind, work_estimate};
use std::sync::Arc;

/// Marker in the reason of a [`SolveError::Infeasible`] from a solve whose
/// `SolveParams::work_limit` was spent.
pub const BUDGET_SPENT: &str = "work budget spent";

pub use crate::polish::POLISH_ALWAYS_UP_TO;

/// FB-Newton iteration limit inside the chain.
const FB_ITERATIONS: usize = 100;
/// Regularisation weights ε / max(1, ‖M‖∞) tried in turn.
const REGULARISATION: [Real; 5] = [1e-10, 1e-8, 1e-6, 1e-4, 1e-2];

/// Lemke (d = e) on the MCP, through its LCP reduction.
/// If the answer misses the tolerance (an ill-conditioned reduction, e.g. a Schur complement
/// of a nearly singular free block), one active-set Newton step on the original problem is
/// tried (`polish.rs`).
pub(crate) fn run_lemke(mcp: &Mcp, params: &SolveParams, tol: Real) -> Result<Attempt, SolveError> {
    let budget = Budget::new(mcp, params.work_limit);
    let r = lemke_mcp(
        mcp,
        budget.pivots(params.max_iterations),
        Covering::Ones,
        params.warm_start.as_ref(),
        params.warm_basis.as_deref(),
        params.warm_factor.as_ref(),
    )?;
    let z = if mcp.residual(&r.z) > tol {
        polish_if_better(mcp, r.z).0
    } else {
        r.z
    };
    Ok(Attempt {
        z,
        iterations: r.pivots,
        solver: SolverKind::Lemke,
        fallbacks: Vec::new(),
        basis: Some(r.basis),
        work: work_estimate(budget.lemke_n, r.pivots, 0),
        factor: r.factor.map(Arc::new),
        accepted_w: None,
    })
}

/// The work budget of one solve (`SolveParams::work_limit`): what has been spent and the
/// pivot / iteration limits that keep the next stage within what is left.
struct Budget {
    n: usize,
    /// Size of the LCP that Lemke pivots on (`reduce.rs`, `schur_lcp_size`): a pivot costs
    /// it squared. Charging a mixed problem's pivots by n (velocities included) cut the 2D
    /// pile of 400 bodies' mixed-form Lemke runs to a third of the pivots the budget pays for
    /// (docs/peg3d.md, item 21).
    lemke_n: usize,
    limit: Option<Real>,
    spent: Real,
}

impl Budget {
    fn new(mcp: &Mcp, limit: Option<Real>) -> Self {
        Budget {
            n: mcp.dim(),
            lemke_n: schur_lcp_size(mcp),
            limit,
            spent: 0.0,
        }
    }

    fn left(&self) -> Real {
        self.limit.map_or(Real::INFINITY, |l| l - self.spent)
    }

    fn exhausted(&self) -> bool {
        self.left() <= 0.0
    }

    /// Lemke pivot limit: the caller's (or Lemke's default, 50n + 100) cut to the budget.
    fn pivots(&self, requested: Option<usize>) -> Option<usize> {
        let per_pivot = work_estimate(self.lemke_n, 1, 0).max(1.0);
        let fit = (self.left() / per_pivot).floor();
        if fit.is_finite() {
            let default = requested.unwrap_or(50 * self.n + 100);
            Some(default.min(fit.max(1.0) as usize))
        } else {
            requested
        }
    }

    /// FB-Newton iteration limit cut to the budget.
    fn newton(&self, requested: usize) -> usize {
        let per_iteration = work_estimate(self.n, 0, 1).max(1.0);
        let fit = (self.left() / per_iteration).floor();
        if fit.is_finite() {
            requested.min(fit.max(1.0) as usize)
        } else {
            requested
        }
    }

    fn charge(&mut self, pivots: usize, newton: usize) {
        self.spent += work_estimate(self.lemke_n, pivots, 0) + work_estimate(self.n, 0, newton);
    }
}

/// A candidate within tolerance ([`Chain::offer`]).
struct Accepted {
    residual: Real,
    z: DVector<Real>,
    solver: SolverKind,
    iterations: usize,
    /// M z + q where `offer` computed it for its test (large candidates; `Attempt::accepted_w`).
    w: Option<DVector<Real>>,
}

/// The best candidate so far and the failure log.
struct Chain {
    best: Option<(Real, DVector<Real>, SolverKind, usize)>,
    log: Vec<(SolverKind, String)>,
    tol: Real,
    /// The basis of the first (unregularised) Lemke run that terminated, if any.
    basis: Option<Vec<bool>>,
    /// That run's basis with its inverse (plain LCPs only).
    factor: Option<Arc<LemkeFactor>>,
    budget: Budget,
}

impl Chain {
    /// Offer a candidate (polished first). Returns it if it is within tolerance (the answer);
    /// otherwise keeps it as the best so far if its residual is lower, and returns `None`.
    fn offer(
        &mut self,
        mcp: &Mcp,
        z: DVector<Real>,
        solver: SolverKind,
        iterations: usize,
    ) -> Option<Accepted> {
        // A large candidate already within tolerance is kept as it is: the polish's dense LU
        // of the active set (O(k³), a tenth of a 900-unknown solve) would only move it within
        // the tolerance. Small ones are still polished to rounding level. Within tolerance
        // means the residual scaled by max(1, ‖q‖∞) and every row against its own magnitude.
        let ok = |z: &DVector<Real>, r: Real| r <= self.tol && rows_within(mcp, z);
        if mcp.dim() > POLISH_ALWAYS_UP_TO {
            // One product M z for both checks (each a dense n² pass on a large island).
            let w = mcp.w(&z);
            let r0 = mcp.residual_with(&z, &w);
            if r0 <= self.tol && rows_within_w(mcp, &z, &w) {
                return Some(Accepted {
                    residual: r0,
                    z,
                    solver,
                    iterations,
                    w: Some(w),
                });
            }
        }
        let (z, r) = polish_if_better(mcp, z);
        // An accepted candidate is the answer even if a rejected one had a lower residual.
        if ok(&z, r) {
            return Some(Accepted {
                residual: r,
                z,
                solver,
                iterations,
                w: None,
            });
        }
        if self.best.as_ref().is_none_or(|b| r < b.0) {
            self.best = Some((r, z, solver, iterations));
        }
        None
    }

    fn fail(&mut self, solver: SolverKind, why: String) {
        self.log.push((solver, why));
    }

    /// The attempt that answers the solve with the accepted candidate `a`.
    fn done(self, a: Accepted) -> Attempt {
        let Accepted {
            z,
            solver,
            iterations,
            w,
            ..
        } = a;
        Attempt {
            z,
            iterations,
            solver,
            fallbacks: self.log,
            basis: if solver == SolverKind::Lemke {
                self.basis
            } else {
                None
            },
            factor: self.factor.filter(|_| solver == SolverKind::Lemke),
            work: self.budget.spent,
            accepted_w: w,
        }
    }

    fn best_z(&self, mcp: &Mcp, warm: Option<&DVector<Real>>) -> DVector<Real> {
        match &self.best {
            Some(b) => b.1.clone(),
            None => start_point(mcp, warm),
        }
    }
}

/// Run the chain (module docs).
pub(crate) fn solve_auto(
    mcp: &Mcp,
    params: &SolveParams,
    tol: Real,
) -> Result<Attempt, SolveError> {
    let mut chain = Chain {
        basis: None,
        factor: None,
        best: None,
        log: Vec::new(),
        tol,
        budget: Budget::new(mcp, params.work_limit),
    };
    let warm = params.warm_start.as_ref();

    // 1–2. Lemke, d = e, then (after a ray) d scaled by |q|.
    let mut coverings = vec![Covering::Ones];
    for k in 0..2 {
        let covering = coverings[k.min(coverings.len() - 1)];
        if k >= coverings.len() || chain.budget.exhausted() {
            break;
        }
        let result = lemke_mcp(
            mcp,
            chain.budget.pivots(params.max_iterations),
            covering,
            warm.filter(|_| k == 0),
            params.warm_basis.as_deref().filter(|_| k == 0),
            params.warm_factor.as_ref().filter(|_| k == 0),
        );
        chain.budget.charge(
            result
                .as_ref()
                .map_or_else(SolveError::iterations, |r| r.pivots),
            0,
        );
        match result {
            Ok(r) => {
                chain.basis = Some(r.basis);
                chain.factor = r.factor.map(Arc::new);
                if let Some(a) = chain.offer(mcp, r.z, SolverKind::Lemke, r.pivots) {
                    return Ok(chain.done(a));
                }
                let res = chain.best.as_ref().map_or(Real::INFINITY, |b| b.0);
                chain.fail(
                    SolverKind::Lemke,
                    format!(
                        "terminated ({covering:?} covering) with residual {res:e} above tolerance"
                    ),
                );
            }
            Err(e) => {
                if let Some(z) = e.best()
                    && let Some(a) = chain.offer(mcp, z.clone(), SolverKind::Lemke, 0)
                {
                    // Within tolerance, but from a failed run: not returned; FB-Newton below
                    // starts from it (the best iterate).
                    chain.best = Some((a.residual, a.z, a.solver, a.iterations));
                }
                if matches!(e, SolveError::Ray { .. }) && k == 0 {
                    coverings.push(Covering::ScaledByQ);
                }
                chain.fail(SolverKind::Lemke, format!("{e} ({covering:?} covering)"));
            }
        }
    }

    // 3. FB-Newton from the best iterate so far, then from the plain start point (a wrong
    //    Lemke active set can trap Newton near a non-solution stationary point).
    let starts = [chain.best_z(mcp, warm), start_point(mcp, warm)];
    for (k, z0) in starts.into_iter().enumerate() {
        if chain.budget.exhausted() {
            break;
        }
        let fb = fb_newton(mcp, z0, chain.budget.newton(FB_ITERATIONS), tol);
        chain.budget.charge(0, fb.iterations.max(1));
        if let Some(a) = chain.offer(mcp, fb.z, SolverKind::FbNewton, fb.iterations) {
            return Ok(chain.done(a));
        }
        let from = if k == 0 {
            "best iterate"
        } else {
            "start point"
        };
        chain.fail(
            SolverKind::FbNewton,
            format!(
                "from the {from}: stopped after {} iterations at residual {:e}",
                fb.iterations, fb.residual
            ),
        );
    }

    // 4. Regularised Lemke (M + εI), refined by FB-Newton on the original problem.
    let scale = mcp.m.amax().max(1.0);
    for eps in REGULARISATION.iter().map(|e| e * scale) {
        if chain.budget.exhausted() {
            break;
        }
        let mut reg = mcp.clone();
        for i in 0..reg.dim() {
            reg.m[(i, i)] += eps;
        }
        let result = lemke_mcp(
            &reg,
            chain.budget.pivots(params.max_iterations),
            Covering::Ones,
            None,
            None,
            None,
        );
        chain.budget.charge(
            result
                .as_ref()
                .map_or_else(SolveError::iterations, |r| r.pivots),
            0,
        );
        match result {
            Ok(r) => {
                if let Some(a) = chain.offer(mcp, r.z.clone(), SolverKind::Lemke, r.pivots) {
                    chain.log.push((
                        SolverKind::Lemke,
                        format!("(note) the answer comes from Lemke on M + εI, ε = {eps:e}, polished on the original problem"),
                    ));
                    return Ok(chain.done(a));
                }
                let fb = fb_newton(mcp, r.z, chain.budget.newton(FB_ITERATIONS), tol);
                chain.budget.charge(0, fb.iterations.max(1));
                if let Some(a) = chain.offer(mcp, fb.z, SolverKind::FbNewton, fb.iterations) {
                    return Ok(chain.done(a));
                }
                chain.fail(
                    SolverKind::Lemke,
                    format!(
                        "regularised ε = {eps:e}: answer misses tolerance on the original problem"
                    ),
                );
            }
            Err(e) => chain.fail(SolverKind::Lemke, format!("regularised ε = {eps:e}: {e}")),
        }
    }

    if chain.budget.exhausted() {
        let limit = chain.budget.limit.unwrap_or(Real::INFINITY);
        chain.fail(
            SolverKind::Auto,
            format!("{BUDGET_SPENT} ({limit:e}); remaining fallbacks skipped"),
        );
    }
    // Nothing within tolerance: report the best iterate.
    let (residual, best) = match chain.best {
        Some((r, z, _, _)) => (r, Some(z)),
        None => (Real::INFINITY, None),
    };
    let reason = chain
        .log
        .iter()
        .map(|(s, w)| format!("{s:?}: {w}"))
        .collect::<Vec<_>>()
        .join("; ");
    Err(SolveError::Infeasible {
        reason: format!("no solver reached the tolerance ({reason})"),
        best,
        residual,
    })
}
