//! Stage 4, the solve of one step's problem and its fallback chain: a factored basis of an
//! earlier solve (`resolve_factored`), the sparse Lemke and the proximal stage on large
//! problems (`large.rs`), the dense `auto` chain on the reduced and then the mixed form, the
//! rescue (`solve_large`), and what a failed step continues from (`give_up`,
//! [`WorldParams::keep_best_on_failure`]). Also the warm start a solve is given ([`Warm`]) and
//! its per-solve budget ([`FLOOR_PIVOTS`]).
//! Does not own: the problem (`signorini_contact::Formulation`), the solvers themselves
//! (`signorini-complementarity`), or when a solve is called (`mod.rs`, `corrections.rs`).

use super::params::FLOOR_PIVOTS;
use super::space::Space;
use super::world::{APPROXIMATE_TOLERANCE, GenericWorld};
use crate::basis::StoredBasis;
use crate::reduced_cache::ReducedCache;
use crate::report::StepReport;
use nalgebra::{DVector, SVector};
use signorini_complementarity::{
    Lcp, LemkeFactor, SolveError, SolveParams, SolverKind, polish_small_lcp, solve_mcp,
    work_estimate,
};
use signorini_contact::{ConstraintSet, Formulation};
use signorini_math::Real;
use std::collections::BTreeMap;
use std::sync::Arc;

impl<S: Space<D>, const D: usize> GenericWorld<S, D> {
    /// Stage 4: reduced LCP with the configured solver; on failure the mixed LCP (Auto); if
    /// that fails too, keep ν* and mark the step failed.
    pub(super) fn solve(
        &self,
        form: &Formulation<D>,
        set: &ConstraintSet<S::Contact>,
        free: &[SVector<Real, D>],
        warm: Warm<'_, S::Key, D>,
        report: &mut StepReport,
    ) -> Vec<SVector<Real, D>> {
        report.unknowns = form.dim();
        let mut best = BestAttempt::default();
        let mut params = SolveParams::default();
        params.solver = self.params.solver;
        params.work_limit = self
            .params
            .solve_work_limit
            .map(|w| solve_budget(w, form.dim()));
        let keys: Vec<S::Key> = form
            .normal_contacts()
            .iter()
            .map(|&c| S::key(&set.contacts[c]))
            .collect();
        // The reduced form's unknowns with the normal impulses of `from` by contact key (0
        // for a contact it does not have, and for every other unknown).
        let by_key = |from: &BTreeMap<S::Key, Real>| {
            let mut z0 = DVector::zeros(form.dim());
            for (k, key) in keys.iter().enumerate() {
                z0[k] = from.get(key).copied().unwrap_or(0.0);
            }
            z0
        };
        if self.params.warm_start && !warm.from.is_empty() {
            params.warm_start = Some(by_key(warm.from));
        }
        let reduced_warm = params.warm_start.clone();
        let Warm {
            from: warm_from,
            to: warm_to,
            basis: reuse,
            basis_map,
            key_flags,
            rescue_first,
            proximal_first,
            centre,
            resume_epsilon,
            long_first,
            basis_to,
            reduced,
        } = warm;
        let mut keep = |z: &[Real]| {
            warm_to.clear();
            warm_to.extend(keys.iter().cloned().zip(z.iter().copied()));
        };
        // The sparse Lemke first (item 25), on the dense route and the large one alike: the
        // same pivoting rules as the dense Lemke without its n × k inverse, from the last
        // basis of this island (grown to new contacts by `basis_map`, or matched by key to
        // the last step's: `key_flags`), which answers with no pivot while it still fits.
        // A frictional re-solve on the sparse route after a rescued solve goes to the rescue
        // first, from that answer's impulses (`needed_rescue`).
        let sparse_rescue_first =
            rescue_first && self.params.mu > 0.0 && form.dim() > self.dense_limit();
        let mut basis_to = basis_to;
        // An answer of a factored basis of these unknowns (`resolve_factored`): its normal
        // impulses kept for the next solve, the basis for the next re-solve.
        macro_rules! reused {
            ($z:expr, $factor:expr) => {{
                let z: DVector<Real> = $z;
                keep(&z.as_slice()[..form.n_normal]);
                if let Some(to) = basis_to.as_deref_mut() {
                    *to = Some($factor.clone());
                }
                return form.velocities_from_lcp(&self.bodies, free, &z);
            }};
        }
        // From `sparse_lemke_from` on, always; from `sparse_warm_from` (the band below it),
        // when it starts warm. A factored basis of these unknowns (a resting stack, a
        // gap-correction re-solve) answers first in the band, as on the dense route, in
        // O(n·k); the sparse Lemke starts from it only when it cannot.
        let band = (self.sparse_from()..self.params.sparse_lemke_from).contains(&form.dim());
        let mut early_lcp = None;
        if let Some(f) = reuse
            .as_ref()
            .filter(|f| band && f.has_inverse() && f.dim() == form.dim())
        {
            let lcp = form.reduced_lcp(&self.bodies, free);
            if let Ok(lcp) = &lcp
                && let Some(z) = resolve_factored(lcp, f, form.n_normal, report)
            {
                reused!(z, f);
            }
            early_lcp = Some(lcp);
        }
        // Its warm start: the basis of this island's last solve (of the same set, or grown
        // to new contacts), else the last step's basic unknowns matched by key.
        let flags = (form.dim() >= self.sparse_from())
            .then(|| {
                reuse
                    .as_ref()
                    .and_then(|f| match &basis_map {
                        Some(map) => grown_flags(f, map, form.dim()),
                        None => (f.dim() == form.dim()).then(|| f.z_basic()),
                    })
                    .or(key_flags)
            })
            .flatten();
        let sparse_lemke = form.dim() >= self.params.sparse_lemke_from || (band && flags.is_some());
        let mut lemke_best = None;
        let mut reduced = reduced;
        // A pivoting answer (the sparse Lemke's or the proximal iteration's): its normal
        // impulses kept for the next solve, its basis for the next warm start.
        macro_rules! answer {
            ($z:expr, $basis:expr) => {{
                let z: DVector<Real> = $z;
                report.normal_impulse = z.iter().take(form.n_normal).sum();
                keep(&z.as_slice()[..form.n_normal]);
                if let Some(to) = basis_to.as_deref_mut() {
                    *to = Some(Arc::new(LemkeFactor::basis_only(&$basis)));
                }
                return form.velocities_from_lcp(&self.bodies, free, &z);
            }};
        }
        // The proximal-point stage (items 29, 30), warm from `flags`: its answer, else on.
        // Run once per solve: a second run would repeat the first, pivot for pivot (same
        // matrix, q and start), as a failed gap-correction re-solve of the 2D pile of 2,500
        // did (`proximal_first`, then again after the rescue: 2 × 109,469 pivots).
        let mut proximal_tried = false;
        // The proximal stage's first centre in a gap-correction re-solve: the previous
        // round's normal impulses by key, whatever `warm_start` says.
        let prox_start = (centre && !warm_from.is_empty()).then(|| by_key(warm_from));
        macro_rules! try_proximal {
            () => {
                if !std::mem::replace(&mut proximal_tried, true) {
                    let cache = reduced.as_deref_mut();
                    let from = (
                        flags.as_deref(),
                        prox_start.as_ref(),
                        resume_epsilon,
                        long_first,
                    );
                    if let Some((z, basis)) =
                        self.solve_proximal(form, free, from, cache, &mut best, report)
                    {
                        answer!(z, basis);
                    }
                }
            };
        }
        if sparse_lemke {
            // A gap-correction re-solve after a proximal answer: the problem differs in q
            // (and in the contacts that joined) from one on which the sparse Lemke and the
            // rescue failed, and the proximal stage starts from that answer's basis; the
            // sparse Lemke and the rescue, whose runs on it cost minutes on the μ = 0.5
            // pile, only if it fails (docs/peg3d.md, item 30).
            if proximal_first {
                try_proximal!();
                report
                    .fallbacks
                    .push("proximal stage first failed: the sparse Lemke".into());
            }
            let cache = reduced.as_deref_mut();
            if !sparse_rescue_first {
                let short = form.dim() >= self.params.short_lemke_from;
                match self.solve_sparse_lemke(form, free, flags.as_deref(), cache, short, report) {
                    Ok((z, basis)) => answer!(z, basis),
                    Err((e, z)) => {
                        report.fallbacks.push(format!("sparse Lemke: {e}"));
                        lemke_best = z.filter(|_| form.dim() >= GS_RESCUE_MIN);
                        if short {
                            // The largest islands: the proximal stage before the rescue.
                            try_proximal!();
                        }
                    }
                }
            }
        }
        // Where Lemke stopped is the rescue's first start: a long path that ends inaccurate
        // has usually found the active set and lost the answer to rounding (items 21, 22).
        let lemke_start: Vec<DVector<Real>> = lemke_best.into_iter().collect();
        let from_lemke = (&lemke_start[..], "the sparse Lemke");
        if form.dim() > self.dense_limit() {
            let mut p = params.clone();
            p.warm_start = if sparse_rescue_first {
                report
                    .fallbacks
                    .push("the last solve needed the rescue: the rescue first".into());
                Some(by_key(warm_from))
            } else {
                reduced_warm.clone()
            };
            if let Some((v, normals)) =
                self.solve_large(form, free, &p, from_lemke, &mut best, report)
            {
                keep(&normals);
                return v;
            }
            if sparse_lemke {
                try_proximal!();
            }
            if form.dim() > DENSE_FALLBACK_LIMIT {
                let why = format!(
                    "sparse solve failed; {} unknowns is beyond the dense fallback's {DENSE_FALLBACK_LIMIT}",
                    form.dim()
                );
                return self.give_up(best, free, why, report);
            }
            report
                .fallbacks
                .push("sparse solve failed: dense chain (reduced, then mixed LCP)".into());
        } else if !lemke_start.is_empty() {
            // The rescue from where the sparse Lemke stopped, before the dense chain (whose
            // runs cost O(n³): 60–80 s at 4,000 unknowns on the 2D pile of 2,500).
            let p = self.rescue_params(&params, reduced_warm.clone());
            if let Some((v, normals)) =
                self.solve_large(form, free, &p, from_lemke, &mut best, report)
            {
                keep(&normals);
                return v;
            }
            try_proximal!();
            report
                .fallbacks
                .push("sparse Lemke failed: dense chain".into());
        } else if rescue_first && form.dim() >= GS_RESCUE_MIN && !sparse_lemke {
            // The last solve of this island in this step defeated the dense chain (Lemke to
            // its pivot limit in both forms, 9 s each at 2,700 unknowns on the 2D pile of
            // 2,500) and the rescue answered it; a gap-correction re-solve is nearly the same
            // problem: the rescue first, from that answer's normal impulses. (Not where the
            // sparse Lemke applies: it fails in milliseconds where the dense chain took
            // seconds, and goes to the rescue itself then.)
            let mut p = params.clone();
            p.warm_start = Some(by_key(warm_from));
            if let Some((v, normals)) =
                self.solve_large(form, free, &p, (&[], ""), &mut best, report)
            {
                keep(&normals);
                return v;
            }
            report
                .fallbacks
                .push("rescue first failed: dense chain (reduced, then mixed LCP)".into());
        }
        // The dense chain's best iterates (of the reduced and of the mixed form), in the
        // reduced form's unknowns: where every dense solve fails, the rescue starts the sparse
        // Newton method from them first, the least residual first (items 21 and 22).
        let mut dense_best: Vec<(DVector<Real>, Real)> = Vec::new();
        // (Built before the sparse Lemke where a factored basis was tried first: that basis
        // could not answer, so it is not tried again below.)
        let resolved = early_lcp.is_some();
        let lcp = match early_lcp.unwrap_or_else(|| form.reduced_lcp(&self.bodies, free)) {
            Ok(l) => Some(l),
            Err(e) => {
                report.fallbacks.push(format!("reduced LCP: {e}"));
                None
            }
        };
        let reuse = match (reuse, &basis_map, &lcp) {
            (Some(f), Some(map), Some(lcp)) => f.embedded(&lcp.m, map).map(Arc::new).or(Some(f)),
            (reuse, _, _) => reuse,
        };
        if let (Some(lcp), Some(f), false) = (&lcp, &reuse, resolved)
            && let Some(z) = resolve_factored(lcp, f, form.n_normal, report)
        {
            reused!(z, f);
        }
        // The basis could not answer this q (it left its invariance region) or is not of
        // this matrix: Lemke restarts from it instead of from scratch (large problems only,
        // `SolveParams::warm_factor`; the pivots repair what changed).
        params.warm_factor = reuse.clone();
        if let Some(lcp) = lcp {
            // PATH's scale of the tolerance, taken before M and q move into the MCP (moved,
            // not copied: `solve_lcp` would copy the dense matrix).
            let scale = lcp.q.amax().max(1.0);
            match solve_mcp(&lcp.into_mcp(), &params) {
                Ok(info) => {
                    record(report, &info);
                    if let Some(to) = basis_to {
                        *to = info.factor.clone();
                    }
                    report.normal_impulse = info.z.iter().take(form.n_normal).sum();
                    keep(&info.z.as_slice()[..form.n_normal]);
                    return form.velocities_from_lcp(&self.bodies, free, &info.z);
                }
                Err(e) => {
                    report.budget_exhausted |= e.spent_budget();
                    report.fallbacks.push(format!("reduced LCP: {e}"));
                    // PATH's default tolerance (1e-6, docs/formulation-notes.md §6) is what the reference runs
                    // accepted; our solvers aim at 1e-8. Accept a best iterate in between.
                    if let Some((z, r)) = best_iterate(&e) {
                        dense_best.push((z.clone(), r));
                        let impulse = z.iter().take(form.n_normal).sum();
                        let v = form.velocities_from_lcp(&self.bodies, free, &z);
                        if r <= APPROXIMATE_TOLERANCE * scale {
                            report.residual = r;
                            report
                                .fallbacks
                                .push(format!("accepted best iterate (residual {r:e})"));
                            report.normal_impulse = impulse;
                            keep(&z.as_slice()[..form.n_normal]);
                            return v;
                        }
                        best.consider(v, r, impulse, "reduced LCP");
                    }
                }
            }
        }
        if !self.params.mixed_fallback {
            return self.give_up(best, free, "reduced LCP failed".into(), report);
        }
        params.solver = SolverKind::Auto;
        let (mcp, dynamic) = match form.mixed_mcp(&self.bodies, free) {
            Ok(m) => m,
            Err(e) => {
                report.fallbacks.push(format!("mixed LCP: {e}"));
                return self.give_up(best, free, format!("mixed LCP: {e}"), report);
            }
        };
        let nv = D * dynamic.len();
        if let Some(z0) = params.warm_start.take() {
            params.warm_start = Some(self.mixed_warm(form, free, &dynamic, &z0));
        }
        match solve_mcp(&mcp, &params) {
            Ok(info) => {
                record(report, &info);
                report.normal_impulse = info.z.iter().skip(nv).take(form.n_normal).sum();
                keep(&info.z.as_slice()[nv..nv + form.n_normal]);
                form.velocities_from_mcp(self.bodies.len(), &dynamic, &info.z)
            }
            Err(e) => {
                report.budget_exhausted |= e.spent_budget();
                report.fallbacks.push(format!("mixed LCP: {e}"));
                if let Some((z, r)) = best_iterate(&e) {
                    let impulse = z.iter().skip(nv).take(form.n_normal).sum();
                    let v = form.velocities_from_mcp(self.bodies.len(), &dynamic, &z);
                    best.consider(v, r, impulse, "mixed LCP");
                    dense_best.push((z.rows(nv, z.len() - nv).into_owned(), r));
                }
                if form.dim() >= GS_RESCUE_MIN {
                    // The rescue (`solve_large`): first the sparse Newton method from the
                    // dense chain's best iterate, where Lemke often found the active set and
                    // lost the answer to rounding, or stopped at its budget near the end
                    // (docs/peg3d.md, item 21). Then the sparse Newton method from the last
                    // step's impulses; with friction with a larger iteration limit
                    // (`FRICTION_RESCUE_ITERATIONS`): these dense failures are rank-deficient
                    // Stewart–Trinkle blocks on which pivoting loses its path (item 19).
                    // (Without friction since item 22: on the 2D pile of 400 bodies' step 293
                    // it reached 2.4e-7 in 100 iterations, where every other stage stopped at
                    // 4e-6 or above.) Then block Gauss–Seidel and Newton from its answer.
                    let p = self.rescue_params(&params, reduced_warm);
                    // Stable: the reduced form's iterate first on a tie.
                    dense_best.sort_by(|a, b| a.1.total_cmp(&b.1));
                    let starts: Vec<DVector<Real>> =
                        dense_best.into_iter().map(|(z, _)| z).collect();
                    if let Some((v, normals)) = self.solve_large(
                        form,
                        free,
                        &p,
                        (&starts, "the dense chain"),
                        &mut best,
                        report,
                    ) {
                        keep(&normals);
                        return v;
                    }
                }
                self.give_up(best, free, format!("all solves failed ({e})"), report)
            }
        }
    }

    /// The rescue's parameters after a failed pivoting solve: started from `warm` (the last
    /// step's impulses in the reduced form), and with friction allowed
    /// [`FRICTION_RESCUE_ITERATIONS`] Newton iterations.
    pub(super) fn rescue_params(
        &self,
        params: &SolveParams,
        warm: Option<DVector<Real>>,
    ) -> SolveParams {
        let mut p = params.clone();
        p.warm_start = warm;
        if self.params.mu > 0.0 {
            p.max_iterations = Some(FRICTION_RESCUE_ITERATIONS);
        }
        p
    }

    /// Islands with more unknowns than this are solved sparse ([`WorldParams::dense_limit`],
    /// lowered to [`WorldParams::friction_dense_limit`] when μ > 0).
    pub(super) fn dense_limit(&self) -> usize {
        if self.params.mu > 0.0 {
            self.params
                .dense_limit
                .min(self.params.friction_dense_limit)
        } else {
            self.params.dense_limit
        }
    }

    /// Every solve failed: mark the step failed and continue from the least-residual attempt
    /// (`keep_best_on_failure`, guarded by kinetic energy) or from free flight ν*.
    pub(super) fn give_up(
        &self,
        best: BestAttempt<D>,
        free: &[SVector<Real, D>],
        why: String,
        report: &mut StepReport,
    ) -> Vec<SVector<Real, D>> {
        report.failed = true;
        if self.params.keep_best_on_failure
            && let Some((v, r, impulse, form)) = best.0
        {
            let (kept, limit) = (
                self.kinetic_energy(&v),
                2.0 * self.kinetic_energy(free) + 1e-9,
            );
            if kept <= limit && v.iter().all(|x| x.iter().all(|c| c.is_finite())) {
                report.kept_best = Some(r);
                report.residual = r;
                report.normal_impulse = impulse;
                report.failure = Some(format!(
                    "{why}; continued from the best {form} iterate (residual {r:e})"
                ));
                return v;
            }
            report.fallbacks.push(format!(
                "best {form} iterate rejected (kinetic energy {kept:e} J > {limit:e} J)"
            ));
        }
        report.failure = Some(format!("{why}; kept free-flight velocities"));
        free.to_vec()
    }
}

/// The best iterate a failed solve carries, with its residual.
pub(super) fn best_iterate(e: &SolveError) -> Option<(nalgebra::DVector<Real>, Real)> {
    Some((e.best()?.clone(), e.residual()?))
}

/// What a solve leaves for the next: the normal impulses by key and the stored basis.
pub(super) type Solved<'a, K> = (&'a mut BTreeMap<K, Real>, &'a mut Option<StoredBasis<K>>);

/// Warm start of one solve: the normal impulses to start from and where the solve's own go
/// (both keyed by feature pair; see [`WorldParams::warm_start`]).
pub(super) struct Warm<'a, K, const D: usize> {
    pub(super) from: &'a BTreeMap<K, Real>,
    pub(super) to: &'a mut BTreeMap<K, Real>,
    /// The Lemke basis of an earlier solve of this step whose problem differs from this one
    /// only in q (the gap-correction and split re-solves): tried first (O(n·k)), and kept
    /// only if its answer's residual is within tolerance.
    pub(super) basis: Option<Arc<LemkeFactor>>,
    /// Where `basis`'s unknowns sit in this problem when it has more
    /// (`basis::embedding`): the basis is then grown to it
    /// ([`LemkeFactor::embedded`], the new unknowns' w basic) once its matrix is formed.
    pub(super) basis_map: Option<Vec<usize>>,
    /// A complementary basis for the sparse Lemke when `basis` is of another set (the last
    /// step's, matched by key: `basis::flags_by_key`).
    pub(super) key_flags: Option<Vec<bool>>,
    /// The solve before this one, on this island within this step, needed the rescue
    /// (`solve_large` after the dense chain failed): start with the rescue, from that solve's
    /// normal impulses (`from`).
    pub(super) rescue_first: bool,
    /// The solve before this one, on this island within this step, was answered by the
    /// proximal stage (the sparse Lemke and the rescue had failed): where the sparse Lemke
    /// applies, start with the proximal stage, warm from that answer's basis.
    pub(super) proximal_first: bool,
    /// The proximal stage's iteration starts from `from` (`ProximalLemkeParams::start`): the
    /// gap-correction re-solves, whose previous round's answer is near theirs.
    pub(super) centre: bool,
    /// ε of the run whose basis answered the solve before this one by the proximal stage
    /// (`StepReport::proximal_epsilon`): the stage's first run here is tried at it
    /// (`ProximalLemkeParams::start_epsilon`).
    pub(super) resume_epsilon: Option<Real>,
    /// The answer of the solve before this one, by the proximal stage, had its first path
    /// cut (`StepReport::proximal_first_path_cut`): on the largest islands the stage's
    /// schedule here starts at the larger ε.
    pub(super) long_first: bool,
    /// Where the basis of this solve's answer goes (`None` if it was not a plain Lemke
    /// solve).
    pub(super) basis_to: Option<&'a mut Option<Arc<LemkeFactor>>>,
    /// The step's sparse reduced matrix, reused by a solve that formulates the same one and
    /// replaced by one that does not (`reduced_cache.rs`; `None`: build it).
    pub(super) reduced: Option<&'a mut ReducedCache<D>>,
}

impl<'a, K, const D: usize> Warm<'a, K, D> {
    /// A solve from the impulses `from` (its own go to `to`) with nothing else to start
    /// from: no basis, no flags, no cache. Callers set what they have and take the rest from
    /// here (`..Warm::plain(from, to)`).
    pub(super) fn plain(from: &'a BTreeMap<K, Real>, to: &'a mut BTreeMap<K, Real>) -> Self {
        Warm {
            from,
            to,
            basis: None,
            basis_map: None,
            key_flags: None,
            rescue_first: false,
            proximal_first: false,
            centre: false,
            resume_epsilon: None,
            long_first: false,
            basis_to: None,
            reduced: None,
        }
    }
}

/// The least-residual failed attempt of a step: (velocities, residual, Σ normal impulses,
/// which form).
pub(super) struct BestAttempt<const D: usize>(
    pub(super) Option<(Vec<SVector<Real, D>>, Real, Real, &'static str)>,
);

impl<const D: usize> Default for BestAttempt<D> {
    fn default() -> Self {
        BestAttempt(None)
    }
}

impl<const D: usize> BestAttempt<D> {
    pub(super) fn consider(
        &mut self,
        v: Vec<SVector<Real, D>>,
        residual: Real,
        impulse: Real,
        form: &'static str,
    ) {
        if residual.is_finite() && self.0.as_ref().is_none_or(|b| residual < b.1) {
            self.0 = Some((v, residual, impulse, form));
        }
    }
}

/// A problem of at least this many unknowns on which every dense solve failed gets the large
/// problems' rescue (block Gauss–Seidel, then the sparse Newton method from its answer) before
/// the step is given up.
pub const GS_RESCUE_MIN: usize = 100;

/// Iteration limit of the sparse Newton method when it rescues a frictional problem on which
/// every dense solve failed (it goes first there, before block Gauss–Seidel). Such problems
/// are no larger than the friction dense limit ([`DEFAULT_FRICTION_DENSE_LIMIT`] = 1000
/// unknowns by default), so an iteration is cheap; on
/// their degenerate solutions the method converges slowly (residual 1e-4 … 1e-6 after the
/// large islands' 100 iterations). Two columns of three tilted cubes, μ = 0.5, 100 steps
/// (docs/peg3d.md, item 19): five layouts failed 31 steps in all with the old rescue (block
/// Gauss–Seidel first, 100 iterations), 5 with the sparse Newton method first at 100
/// iterations and 2 at 1000; the five runs took 100, 105 and 308 s.
pub const FRICTION_RESCUE_ITERATIONS: usize = 1000;

/// A large problem whose sparse solve failed is retried by the dense chain only up to this
/// many unknowns (a dense matrix of 6000² f64 is 288 MB and Lemke's O(n³) work is tens of
/// seconds); beyond it the step fails and continues from the best iterate.
pub const DENSE_FALLBACK_LIMIT: usize = 6000;

/// The answer of a factored basis ([`LemkeFactor::resolve`]) to this LCP, polished like the
/// Auto chain's own small answers so that a reused answer is as exact as the Lemke run it
/// replaces, and recorded in `report` (a basis reuse); `None` where the basis cannot answer
/// this q (it left its invariance region) or is not of this matrix. (Skipping the polish when
/// the answer is already within 1e-14 made the resting tower's step 40 % cheaper, but doubled
/// pour3d's round-off-level medians, 2.4e-18 -> 4.3e-18 m³ at h = 0.014: kept.)
pub(super) fn resolve_factored(
    lcp: &Lcp,
    f: &LemkeFactor,
    n_normal: usize,
    report: &mut StepReport,
) -> Option<DVector<Real>> {
    let z = f.resolve(&lcp.m, &lcp.q, BASIS_REFINEMENTS)?;
    let (z, r) = polish_small_lcp(lcp, z);
    if r > REUSE_TOLERANCE * lcp.q.amax().max(1.0) {
        return None;
    }
    report.solver = Some(SolverKind::Lemke);
    report.iterations = 0;
    report.residual = r;
    report.basis_reuses += 1;
    report.normal_impulse = z.iter().take(n_normal).sum();
    Some(z)
}

/// The complementary basis of factor `f` grown into a problem of `n` unknowns by `map` (where
/// each old unknown sits now; the new unknowns' w basic), as z-basic flags.
pub(super) fn grown_flags(f: &LemkeFactor, map: &[usize], n: usize) -> Option<Vec<bool>> {
    let old = f.z_basic();
    if old.len() != map.len() || map.iter().any(|&i| i >= n) {
        return None;
    }
    let mut flags = vec![false; n];
    for (j, &i) in map.iter().enumerate() {
        flags[i] = old[j];
    }
    Some(flags)
}

/// At most this many iterative-refinement steps when an earlier solve's Lemke basis answers
/// a solve ([`LemkeFactor::resolve`], which stops as soon as the residual is at rounding
/// level): for a re-solve within a step the matrix is the same and one step restores full
/// accuracy; one step later, the old inverse of a pile at rest is a good preconditioner of
/// the new basis matrix and a few steps converge.
pub(super) const BASIS_REFINEMENTS: usize = 8;

use signorini_math::tolerance::BASIS_REUSE_RESIDUAL_TOL as REUSE_TOLERANCE;

/// The work budget of one solve of `n` unknowns under [`WorldParams::solve_work_limit`] =
/// `limit`: at least [`FLOOR_PIVOTS`]·n Lemke pivots.
pub(super) fn solve_budget(limit: Real, n: usize) -> Real {
    limit.max(work_estimate(n, FLOOR_PIVOTS * n, 0))
}

pub(super) fn record(report: &mut StepReport, info: &signorini_complementarity::SolveInfo) {
    report.solver = Some(info.solver);
    report.iterations = info.iterations;
    report.residual = info.residual;
    report.fallbacks.extend(
        info.fallbacks
            .iter()
            .map(|(k, why)| format!("{k:?}: {why}")),
    );
}
