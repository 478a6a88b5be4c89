//! The large problems' route (docs/peg3d.md, "Scaling"): the sparse Lemke on the reduced LCP
//! warm from the last basis (`solve_sparse_lemke`; a warm run alone on the largest islands,
//! [`WorldParams::short_lemke_from`]), the proximal stage (`solve_proximal`: Lemke on
//! LCP(M + εI, q − εz_k), `signorini_complementarity::lemke_proximal`), and the rescue on the
//! sparse mixed LCP (`solve_large`: the sparse semismooth Newton method and block
//! Gauss–Seidel). Does not own: the order in which these are tried (`solve.rs`).

use super::solve::{BestAttempt, best_iterate, record};
use super::space::Space;
use super::world::{APPROXIMATE_TOLERANCE, GenericWorld};
use crate::reduced_cache::ReducedCache;
use crate::report::StepReport;
use nalgebra::{DVector, SVector};
use signorini_complementarity::{
    CscMatrix, ProximalLemkeParams, SolveParams, SolverKind, SparseLemkeMatrix, SparseMcp,
    lcp_natural_residual, lemke_proximal, solve_sparse,
};
use signorini_contact::{BlockGsParams, Formulation, FormulationError};
use signorini_math::Real;

impl<S: Space<D>, const D: usize> GenericWorld<S, D> {
    /// The size from which the sparse Lemke may run ([`WorldParams::sparse_warm_from`] or
    /// [`WorldParams::sparse_lemke_from`], the smaller), and from which the last basis's
    /// basic unknowns are kept for its warm start.
    pub(super) fn sparse_from(&self) -> usize {
        if self.params.sparse_lemke_from == usize::MAX {
            return usize::MAX; // the sparse Lemke off, its warm band with it
        }
        self.params
            .sparse_warm_from
            .min(self.params.sparse_lemke_from)
    }

    /// The sparse Lemke on the reduced LCP assembled sparse, from the complementary basis
    /// `flags` if given; its answer (z, final basis) if it is within the solver tolerance
    /// (the natural residual, as every dense answer is judged), else the reason and the
    /// iterate it stopped at, if any. Records the solver, pivots and residual in `report`.
    pub(super) fn solve_sparse_lemke(
        &self,
        form: &Formulation<D>,
        free: &[SVector<Real, D>],
        flags: Option<&[bool]>,
        reduced: Option<&mut ReducedCache<D>>,
        short: bool,
        report: &mut StepReport,
    ) -> Result<(DVector<Real>, Vec<bool>), SparseLemkeFailure> {
        let failure = |e: FormulationError| (e.to_string(), None);
        // The matrix of the solve before this one when only the gaps changed (the same bits:
        // `reduced_cache.rs`), with the factors of that solve's answer for a warm start from
        // its basis; else built and kept for the next.
        let mut owned;
        let (lm, q) = match reduced {
            Some(cache) => {
                let lm = cache
                    .matrix(form, || {
                        form.reduced_csc(&self.bodies, free).map(|(m, _)| m)
                    })
                    .map_err(failure)?;
                (lm, form.reduced_lcp_q(&self.bodies, free).map_err(failure)?)
            }
            None => {
                let (m, q) = form.reduced_csc(&self.bodies, free).map_err(failure)?;
                owned = SparseLemkeMatrix::new(m);
                (&mut owned, q)
            }
        };
        let n = q.len();
        let limit = self
            .params
            .solve_work_limit
            .map(|w| sparse_lemke_budget(w, n));
        // `short` (`WorldParams::short_lemke_from`): the warm run alone, n pivots.
        let info = if short {
            lm.solve_warm_only(&q, flags, n, limit)
        } else {
            lm.solve(&q, flags, SPARSE_LEMKE_PIVOTS * n, limit)
        };
        let info = info.map_err(|e| {
            report.budget_exhausted |= e.spent_budget();
            let best = e.best().cloned();
            (e.to_string(), best)
        })?;
        let m = lm.matrix();
        let r = lcp_natural_residual(m, &q, &info.z);
        let tol = SolveParams::default().tolerance * q.amax().max(1.0);
        if r > tol {
            let why = format!("residual {r:e} above {tol:e} after {} pivots", info.pivots);
            return Err((why, Some(info.z)));
        }
        report.solver = Some(SolverKind::Lemke);
        report.iterations = info.pivots;
        report.residual = r;
        if info.pivots == 0 && flags.is_some() {
            report.basis_reuses += 1;
        }
        Ok((info.z, info.basis))
    }

    /// The proximal-point iteration on the reduced LCP ([`lemke_proximal`], docs/peg3d.md
    /// item 29), where the sparse Lemke and the rescue after it failed: Lemke on M + εI,
    /// then rounds on q − ε z_k, each warm from the last basis. Its least-residual iterate is
    /// the answer if within [`APPROXIMATE_TOLERANCE`] × max(1, ‖q‖∞), the acceptance of the
    /// rescue's own iterates. Returns that answer and its basis; an iterate above it goes to
    /// `best`, which a failed step continues from (`give_up`).
    pub(super) fn solve_proximal(
        &self,
        form: &Formulation<D>,
        free: &[SVector<Real, D>],
        (flags, start, resume, long_first): ProximalStart<'_>,
        reduced: Option<&mut ReducedCache<D>>,
        best: &mut BestAttempt<D>,
        report: &mut StepReport,
    ) -> Option<(DVector<Real>, Vec<bool>)> {
        // The matrix of the failed sparse Lemke run (the cache holds it: borrowed, not
        // copied), else built.
        let build = || form.reduced_csc(&self.bodies, free).map(|(m, _)| m);
        let mut built: Option<CscMatrix> = None;
        let matrix = match reduced {
            Some(cache) => cache.matrix(form, build).map(|held| held.matrix()),
            None => build().map(|m| &*built.insert(m)),
        };
        let (m, q) = match matrix.and_then(|m| Ok((m, form.reduced_lcp_q(&self.bodies, free)?))) {
            Ok(x) => x,
            Err(e) => {
                report.fallbacks.push(format!("proximal Lemke: {e}"));
                return None;
            }
        };
        let n = q.len();
        let scale = q.amax().max(1.0);
        let mut p = ProximalLemkeParams::new(n, SolveParams::default().tolerance * scale);
        // A gap-correction re-solve starts where the previous round's answer was: its
        // impulses as the first centre and, if the proximal stage gave it, that run's ε
        // (docs/peg3d.md, item 38: on step 373 of the 2D pile of 2,500 its rounds 4–8 went
        // from 25,000 pivots each to 5–16).
        p.start = start.cloned();
        p.start_epsilon = resume;
        p.max_pivots = SPARSE_LEMKE_PIVOTS * n;
        // The largest islands (`WorldParams::short_lemke_from`): a run from a nearby basis
        // gets n / NEARBY_PATH_DIVISOR pivots instead of n/2.
        if n >= self.params.short_lemke_from {
            p.nearby_path_pivots = n / NEARBY_PATH_DIVISOR;
            // The answer this re-solve starts from had its first path cut: the schedule
            // starts at the larger ε at once (its run at 1e-4 · max|M_ii| is cut at once).
            if long_first {
                p.short_path_pivots = 0;
            }
        }
        p.work_limit = self
            .params
            .solve_work_limit
            .map(|w| sparse_lemke_budget(w, n));
        let mut info = match lemke_proximal(m, &q, flags, &p) {
            Ok(info) => info,
            Err(e) => {
                report.budget_exhausted |= e.spent_budget();
                report.fallbacks.push(format!("proximal Lemke: {e}"));
                return None;
            }
        };
        // The cut first path (docs/peg3d.md, item 33) is a shortcut: its larger ε starts
        // farther from the answer, and on step 361 of the 2D pile of 2,500 its rounds ended
        // at 3.3e-5 against an acceptance of 1.7e-5, where the uncut path reached 1.0e-8
        // (item 35). An answer above the acceptance after a cut is made again without it,
        // and the lesser residual kept.
        let accept = APPROXIMATE_TOLERANCE * scale;
        let left = p.work_limit.map(|w| w - info.work);
        if info.residual > accept && info.first_path_cut && left.is_none_or(|w| w > 0.0) {
            report.fallbacks.push(format!(
                "proximal Lemke after a cut first path (ε = {:e}, {} rounds, {} pivots): residual {:e} above {accept:e}; again without the cut",
                info.epsilon, info.rounds, info.pivots, info.residual
            ));
            let mut uncut = p.clone();
            uncut.long_path_regularisation = uncut.regularisation;
            uncut.work_limit = left;
            match lemke_proximal(m, &q, flags, &uncut) {
                Ok(again) if again.residual < info.residual => info = again,
                Ok(_) => {}
                Err(e) => {
                    report.budget_exhausted |= e.spent_budget();
                    report
                        .fallbacks
                        .push(format!("proximal Lemke without the cut: {e}"));
                }
            }
        }
        let line = format!(
            "proximal Lemke (ε = {:e} … {:e}, {} rounds, {} breaks, {} pivots): residual {:e}",
            info.epsilon, info.last_epsilon, info.rounds, info.breaks, info.pivots, info.residual
        );
        if info.residual > accept {
            report.fallbacks.push(format!("{line} above {accept:e}"));
            // Not accepted, but often the least residual of every stage (5.2e-5 on the 2D
            // pile of 2,500's step 332, where the rescue's best was 2.6e-3): a failed step
            // continues from it.
            let impulse = info.z.iter().take(form.n_normal).sum();
            let v = form.velocities_from_lcp(&self.bodies, free, &info.z);
            best.consider(v, info.residual, impulse, "proximal Lemke");
            return None;
        }
        report.fallbacks.push(format!("accepted {line}"));
        report.proximal_answers += 1;
        report.proximal_epsilon = Some(info.basis_epsilon);
        report.proximal_first_path_cut = info.first_path_cut;
        report.solver = Some(SolverKind::Lemke);
        report.iterations = info.pivots;
        report.residual = info.residual;
        Some((info.z, info.basis))
    }

    /// A warm start of the mixed form from one of the reduced form: the velocities
    /// `ν* + M⁻¹ Σ_j c_j z_j` of the dynamic bodies, then `z`.
    pub(super) fn mixed_warm(
        &self,
        form: &Formulation<D>,
        free: &[SVector<Real, D>],
        dynamic: &[usize],
        z0: &DVector<Real>,
    ) -> DVector<Real> {
        let v = form.velocities_from_lcp(&self.bodies, free, z0);
        let nv = D * dynamic.len();
        let mut z = DVector::zeros(nv + z0.len());
        for (k, &b) in dynamic.iter().enumerate() {
            z.rows_mut(D * k, D).copy_from(&v[b]);
        }
        z.rows_mut(nv, z0.len()).copy_from(z0);
        z
    }

    /// Stage 4, large problems (more than [`WorldParams::dense_limit`] unknowns; with friction
    /// more than [`WorldParams::friction_dense_limit`] if that is smaller): the mixed
    /// LCP assembled sparse ([`Formulation::mixed_triplets`], O(bodies + contacts) entries,
    /// never a dense matrix) and solved by the sparse semismooth Newton method
    /// ([`solve_sparse`], faer's sparse LU). Returns the velocities and normal impulses, or
    /// `None` (the reason in the report's fallbacks, a best iterate offered to `best`).
    /// Order: a sparse Newton run from each of `starts` (reduced-form unknowns: the rescue's
    /// dense iterates, items 21 and 22, or the sparse Lemke's, item 25; with the name of what
    /// they come from, for the report), one from `params.warm_start` (the last step's
    /// impulses), block Gauss–Seidel and a run from its answer.
    pub(super) fn solve_large(
        &self,
        form: &Formulation<D>,
        free: &[SVector<Real, D>],
        params: &SolveParams,
        starts: (&[DVector<Real>], &str),
        best: &mut BestAttempt<D>,
        report: &mut StepReport,
    ) -> Option<(Vec<SVector<Real, D>>, Vec<Real>)> {
        let assembled = form.mixed_triplets(&self.bodies, free).and_then(|t| {
            let m = CscMatrix::from_triplets(t.n, t.n, &t.triplets)?;
            Ok((SparseMcp::mixed(m, t.q.clone(), t.n_free)?, t))
        });
        let (mcp, t) = match assembled {
            Ok(x) => x,
            Err(e) => {
                report.fallbacks.push(format!("sparse mixed LCP: {e}"));
                return None;
            }
        };
        let mut params = params.clone();
        params.solver = SolverKind::SparseNewton;
        // The proximal continuation only with friction, where it was shown to help; on a
        // frictionless stack it moved one step's answer by 4.5e-4 m/s from the dense
        // chain's (docs/peg3d.md, item 20).
        params.proximal = self.params.mu > 0.0;
        let reduced_start = params.warm_start.take();
        if let Some(z0) = &reduced_start {
            params.warm_start = Some(self.mixed_warm(form, free, &t.dynamic, z0));
        }
        let scale = mcp.q.amax().max(1.0);
        let (nv, nn) = (t.n_free, form.n_normal);
        let read = |z: &DVector<Real>| {
            let normals = z.as_slice()[nv..nv + nn].to_vec();
            let v = form.velocities_from_mcp(self.bodies.len(), &t.dynamic, z);
            (v, normals)
        };
        // One sparse Newton run: its velocities and normal impulses (noted in the fallbacks as
        // `done`, if given), or its error (noted after `failed`).
        let newton =
            |p: &SolveParams, report: &mut StepReport, done: Option<&str>, failed: &str| {
                match solve_sparse(&mcp, p) {
                    Ok(info) => {
                        record(report, &info);
                        if let Some(done) = done {
                            report.fallbacks.push(done.into());
                        }
                        let (v, normals) = read(&info.z);
                        report.normal_impulse = normals.iter().sum();
                        Ok((v, normals))
                    }
                    Err(e) => {
                        report.budget_exhausted |= e.spent_budget();
                        report.fallbacks.push(format!("{failed}: {e}"));
                        Err(e)
                    }
                }
            };
        // From the dense chain's iterates, the best first. The second is the other form's:
        // on the 2D pile of 400 bodies (step 219) Lemke cycled to its pivot limit in both
        // forms, and Newton failed from the reduced form's iterate (residual 2.0e-2) but
        // solved from the mixed form's (6.0e-2) in 17 iterations (docs/peg3d.md, item 22).
        let mut from_dense = Vec::new();
        let (starts, origin) = starts;
        for (k, z0) in starts.iter().enumerate() {
            let mut p = params.clone();
            p.warm_start = Some(self.mixed_warm(form, free, &t.dynamic, z0));
            let which = if k == 0 { "best" } else { "next" };
            let done = format!("sparse Newton from {origin}'s {which} iterate");
            let failed = format!("sparse mixed LCP from {origin}'s {which} iterate");
            match newton(&p, report, Some(&done), &failed) {
                Ok(answer) => return Some(answer),
                Err(e) => from_dense.push(e),
            }
        }
        let first_error = match newton(&params, report, None, "sparse mixed LCP") {
            Ok(answer) => return Some(answer),
            Err(e) => e,
        };
        // Block Gauss–Seidel finds the active set; the sparse Newton method, started there,
        // finishes it to full accuracy.
        let gs = form.solve_block_gs(
            &self.bodies,
            free,
            reduced_start.as_ref(),
            &BlockGsParams {
                tolerance: params.tolerance * scale,
                max_sweeps: BLOCK_GS_SWEEPS,
            },
        );
        report.fallbacks.push(format!(
            "block Gauss–Seidel: {} sweeps, residual {:e}, {} failed blocks",
            gs.sweeps, gs.residual, gs.failed_blocks
        ));
        params.warm_start = Some(self.mixed_warm(form, free, &t.dynamic, &gs.z));
        let done = "sparse Newton from the block Gauss–Seidel answer";
        let failed = "sparse mixed LCP after block Gauss–Seidel";
        let after_gs = match newton(&params, report, Some(done), failed) {
            Ok(answer) => return Some(answer),
            Err(e) => e,
        };
        let v = form.velocities_from_lcp(&self.bodies, free, &gs.z);
        let normals = gs.z.as_slice()[..form.n_normal].to_vec();
        let impulse = normals.iter().sum();
        if gs.residual <= APPROXIMATE_TOLERANCE * scale {
            report.residual = gs.residual;
            report.iterations = gs.sweeps;
            report.solver = Some(SolverKind::Pgs);
            report.normal_impulse = impulse;
            report.fallbacks.push(format!(
                "accepted the block Gauss–Seidel answer (residual {:e})",
                gs.residual
            ));
            return Some((v, normals));
        }
        best.consider(v, gs.residual, impulse, "block Gauss–Seidel");
        // The sparse Newton iterates, the one from the block Gauss–Seidel answer included:
        // on the 2D pile of 400 bodies it stopped at 1.5e-6 where the Gauss–Seidel answer it
        // started from had 2.2e-2, and the step went on from the latter.
        let (z, r) = from_dense
            .iter()
            .chain([&first_error, &after_gs])
            .filter_map(best_iterate)
            .min_by(|a, b| a.1.total_cmp(&b.1))?;
        let (v, normals) = read(&z);
        let impulse = normals.iter().sum();
        if r <= APPROXIMATE_TOLERANCE * scale {
            report.residual = r;
            report.solver = Some(SolverKind::SparseNewton);
            report
                .fallbacks
                .push(format!("accepted best sparse iterate (residual {r:e})"));
            report.normal_impulse = impulse;
            return Some((v, normals));
        }
        best.consider(v, r, impulse, "sparse mixed LCP");
        None
    }
}

/// Sweeps of the block Gauss–Seidel fallback of a large island (`solve_large`).
pub const BLOCK_GS_SWEEPS: usize = 200;

/// On islands of at least [`WorldParams::short_lemke_from`](crate::WorldParams::short_lemke_from)
/// unknowns, the proximal stage's runs from a nearby basis (each run at a lowered ε and the
/// gap-correction re-solve's resumed first run, [`ProximalLemkeParams::nearby_path_pivots`])
/// get n / 25 pivots. They
/// end in a few pivots or not at all: on step 122 of the 1,000-body pile (24,593 unknowns)
/// 61 ended in 2–317 pivots and 5 ran to the n/2 cut, 62,000 of the step's 105,000 pivots
/// (docs/peg3d.md, item 43). n/25 (984 there) is three times the longest that ended. Smaller
/// islands keep n/2: no other scene was measured.
pub(super) const NEARBY_PATH_DIVISOR: usize = 25;

/// Where the proximal stage starts (`GenericWorld::solve_proximal`): the warm basis as z-basic
/// flags, the first centre (`ProximalLemkeParams::start`), the ε to resume at
/// (`ProximalLemkeParams::start_epsilon`), and whether the schedule skips its run at
/// 1e-4 · max|M_ii| (`Warm::long_first`).
pub(super) type ProximalStart<'a> = (
    Option<&'a [bool]>,
    Option<&'a DVector<Real>>,
    Option<Real>,
    bool,
);

/// Why the world's sparse Lemke gave no answer, and the iterate it stopped at (if any): the
/// rescue's first start.
pub(super) type SparseLemkeFailure = (String, Option<DVector<Real>>);

/// The sparse Lemke's pivot limit, per unknown. 3 until session 29 (what the dense chain's
/// work budget pays for in dense pivots); but a sparse pivot on a 2D island of 4,300 unknowns
/// costs milliseconds, and step 280 of the 2D pile of 2,500 (resumed from the state after
/// step 275) needed more than 3n: at 3n it failed after 717 s of rescues, at 10n the sparse
/// Lemke answered in 92 s. The pivot cap (twice this per call) and the work budget
/// ([`sparse_lemke_budget`]) grow with it.
pub(super) const SPARSE_LEMKE_PIVOTS: usize = 10;

/// The sparse Lemke's work per pivot on a problem of n unknowns, in its units (stored entries
/// touched, `lemke_sparse`'s docs), as a multiple of n: measured 39 n on the 1,000-body pile's
/// step 101 (13,860 unknowns, 4,140 pivots: 2.2e9), where every eta is dense, and 475 n on
/// the 125-body pile with μ = 0.5 (step 167 of session 28's run, 6,972 unknowns: a budget of
/// 40 n per pivot stopped it after 3,498 pivots, half a run); the frictional figure, so that
/// the budget stops only calls far beyond their pivot limit's usual cost.
pub(super) const SPARSE_LEMKE_WORK_PER_PIVOT: Real = 500.0;

/// The work budget of one sparse Lemke call on n unknowns under
/// [`WorldParams::solve_work_limit`] = `limit`: at least what two runs of
/// `SPARSE_LEMKE_PIVOTS`·n pivots cost at `SPARSE_LEMKE_WORK_PER_PIVOT` (a failed warm run and
/// the cold run after it; `lemke_sparse` also caps the pivots of all its runs at twice the
/// limit: warm, cold and repair runs each had the whole limit before, more than 10 minutes per
/// call at 25,000 unknowns). A backstop for pivots far dearer than usual (long lexicographic
/// ties); the pivot cap is what bounds a call in practice.
pub(super) fn sparse_lemke_budget(limit: Real, n: usize) -> Real {
    let n = n as Real;
    let pivots = SPARSE_LEMKE_PIVOTS as Real * n;
    limit.max(2.0 * pivots * SPARSE_LEMKE_WORK_PER_PIVOT * n)
}
