//! The Stewart–Trinkle velocity-level stepper with ψ/h stabilisation (paper Eqs. 8–9 for the
//! standard model, Eqs. 48–49 for PEG; docs/formulation-notes.md §3–§4), written once for 2D and 3D.
//!
//! Data flow of one step (one function per stage):
//! ```text
//! bodies ──predict_and_broad_phase──▶ (geometry now and at pose + hν, ν*, pairs)
//!        ──detect──────────────────▶ ConstraintSet (contacts; U/I/X by model)
//!        ──formulate───────────────▶ Formulation (unknowns, rows; reduced LCP or mixed LCP)
//!        ──solve───────────────────▶ ν^{ℓ+1} (reduced LCP; fallback mixed LCP; else ν*)
//!        ──correct_gaps────────────▶ ν^{ℓ+1} re-solved with corrected ψ (optional)
//!        ──integrate───────────────▶ x ← x + h v, orientation ← orientation ⊕ h ω
//! ```
//! [`GenericWorld`] owns the stage order, the solver fallbacks, the gap-correction loop and the
//! report; a [`Space`] supplies what depends on the dimension: body and contact types,
//! world-frame geometry at a configuration, the broad phase, detection per contact model,
//! re-measuring a contact's gap, and the position update. [`crate::World`] is the 2D
//! instance ([`crate::Planar`], 3 velocity components per body) and [`crate::World3`] the 3D
//! one ([`crate::Spatial`], 6 components).
//!
//! Files: `mod.rs` the stage order (`step`, `step_whole`: prediction, detection, formulation,
//! the split impulse); `world.rs` the world, its inputs and integration; `params.rs` the
//! settings and their defaults; `space.rs` the [`Space`] trait; `solve.rs` the solve and its
//! fallbacks; `large.rs` the large problems' route (sparse Lemke, proximal stage, rescue);
//! `corrections.rs` the gap-correction rounds and the position projection. Islands
//! (`islands.rs`) run `step_whole` on each island.
//! Owns: [`GenericWorld`], [`Space`], [`WorldParams`]. Does not own: the contact models
//! themselves.

mod corrections;
mod large;
mod params;
mod solve;
mod space;
mod world;

pub use corrections::RUNAWAY_TURN;
pub use params::*;
pub use solve::DENSE_FALLBACK_LIMIT;
use solve::Warm;
pub use space::{ContactKey, Space};
use world::Predicted;
pub use world::{APPROXIMATE_TOLERANCE, CORRECTION_TOLERANCE, GenericWorld, WorldError};
pub(crate) use world::{start_violation, unseen_pairs};

use crate::basis::{Signature, StoredBasis, basic_unknowns, flags_by_key, keyed_unknowns};
use crate::reduced_cache::ReducedCache;
use crate::report::{RoundReport, StageTimes, StepReport};
use nalgebra::SVector;
use signorini_complementarity::LemkeFactor;
use signorini_contact::{ConstraintSet, DofBody, Formulation};
use signorini_math::Real;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

impl<S: Space<D>, const D: usize> GenericWorld<S, D> {
    /// Advance one step of size h; never panics, failures are recorded in the report.
    /// With [`WorldParams::islands`] (the default) the step is split into contact islands
    /// solved in parallel (`islands.rs`); otherwise the whole world is one problem.
    pub fn step(&mut self) -> StepReport {
        if self.params.islands {
            self.step_islands()
        } else {
            self.step_whole()
        }
    }

    /// One step of the whole world as one complementarity problem (also the step of each
    /// island, on a world holding only the island's bodies).
    pub(crate) fn step_whole(&mut self) -> StepReport {
        let mut report = StepReport {
            step: self.steps,
            ..Default::default()
        };
        let mut times = StageTimes::default();
        let t = Instant::now();
        let pred = self.predict_and_broad_phase();
        times.broad_phase = t.elapsed().as_secs_f64();
        report.pairs = pred.pairs.len();

        let t = Instant::now();
        let set = S::detect(
            &self.params,
            &self.bodies,
            &pred.now,
            &pred.next,
            &pred.pairs,
        );
        times.detection = t.elapsed().as_secs_f64();
        report.counts = set.counts();

        let t = Instant::now();
        let form = (!set.is_empty()).then(|| self.formulate(&set));
        times.formulation = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let mut solved = BTreeMap::new();
        let mut factor = None;
        // The last step's basis, if this step's set has the same unknowns (a pile at rest).
        let signature = Signature::of(&set, S::key);
        let previous = self
            .basis
            .take()
            .filter(|b| self.params.reuse_basis && b.signature == signature)
            .map(|b| b.factor);
        // Another set than the last step's: the sparse Lemke may still start from the last
        // step's basis, matched by what each unknown stands for.
        // (The keyed unknowns are computed once: the stored basis below needs them too.)
        let mut keyed = None;
        // The sparse reduced matrix, shared by this step's solves of one configuration.
        let mut reduced = ReducedCache::default();
        let key_flags = form.as_ref().and_then(|f| {
            (previous.is_none() && !self.basic.is_empty() && f.dim() >= self.sparse_from())
                .then(|| flags_by_key(&self.basic, keyed.insert(keyed_unknowns(f, &set, S::key))))
        });
        let mut velocities = match &form {
            None => pred.free.clone(),
            Some(f) => {
                let warm = Warm {
                    basis: previous,
                    key_flags,
                    basis_to: self.params.reuse_basis.then_some(&mut factor),
                    reduced: Some(&mut reduced),
                    ..Warm::plain(&self.warm, &mut solved)
                };
                self.solve(f, &set, &pred.free, warm, &mut report)
            }
        };
        times.solve = t.elapsed().as_secs_f64();
        if let Some(f) = &form {
            // Round 0: the step's first solve, reported as the rounds after it are (on the
            // 1,000-body pile it can take minutes with nothing else to say which method ran).
            report.rounds.push(RoundReport {
                island: 0,
                round: 0,
                unknowns: f.dim(),
                depth: 0.0,
                unseen: false,
                answer: report.round_answer(),
                iterations: report.iterations,
                residual: report
                    .kept_best
                    .filter(|_| report.failed)
                    .unwrap_or(report.residual),
                seconds: times.solve,
            });
        }

        let t = Instant::now();
        let (mut carried, mut still_violated) = (None, false);
        let mut last = factor.zip(form.as_ref()).map(|(factor, f)| StoredBasis {
            signature,
            unknowns: keyed
                .take()
                .unwrap_or_else(|| keyed_unknowns(f, &set, S::key)),
            factor,
        });
        if form.is_some() && !report.failed {
            let first = last.as_ref().map(|b| b.factor.clone());
            carried = self.split_velocities(
                &set,
                &pred.free,
                (&solved, &first),
                &mut reduced,
                &mut report,
            );
            (velocities, still_violated) = self.correct_gaps(
                set,
                velocities,
                &pred,
                (&mut solved, &mut last),
                &mut reduced,
                &mut report,
            );
        }
        self.basis = last.filter(|_| !report.failed);
        self.basic = self
            .basis
            .as_ref()
            .filter(|b| b.factor.dim() >= self.sparse_from())
            .map(basic_unknowns)
            .unwrap_or_default();
        self.warm = solved;
        times.gap_corrections = t.elapsed().as_secs_f64();

        let (t, mut projection) = (Instant::now(), 0.0);
        self.integrate(&velocities);
        if let Some(carried) = carried {
            for (b, v) in self.bodies.iter_mut().zip(&carried) {
                if !b.is_static() && v.iter().all(|x| x.is_finite()) {
                    S::set_velocity(b, v);
                }
            }
            let tp = Instant::now();
            self.project_positions(&mut report);
            projection = tp.elapsed().as_secs_f64();
        } else if (still_violated || report.failed) && self.params.split_penetration {
            // The gap corrections ended with the step still interpenetrating (their rounds
            // ran out, a re-solve failed, or one injected energy and was undone), or the
            // step's solve failed and no correction ran: project the positions out now
            // rather than let the next step's split remove it. (A failed step that skipped
            // this let the 2D pile of 400 bodies sink into itself: 31 failed steps and
            // 4.7e-2 m² of overlap by step 284.)
            let tp = Instant::now();
            self.project_positions(&mut report);
            projection = tp.elapsed().as_secs_f64();
        }
        times.integration = t.elapsed().as_secs_f64() - projection;
        times.gap_corrections += projection;
        report.times = times;
        report.largest_unknowns = report.unknowns;
        report.islands = usize::from(report.unknowns > 0);
        report.largest_island = self.bodies.iter().filter(|b| !b.is_static()).count();
        report.failed_islands = usize::from(report.failed);
        self.steps += 1;
        report
    }

    /// Stage 1: geometry now and at the predicted pose (pose + hν), free-flight velocities
    /// ν* = ν + hM⁻¹F, and candidate pairs (boxes of the current ∪ predicted geometry inflated
    /// by the detection distance; static–static pairs skipped).
    fn predict_and_broad_phase(&self) -> Predicted<S::Geometry, D> {
        let h = self.params.h;
        let now = S::geometry(&self.bodies);
        let current: Vec<SVector<Real, D>> = self.bodies.iter().map(S::velocity).collect();
        let next = S::moved(&self.bodies, &current, h);
        let free = self
            .bodies
            .iter()
            .map(|b| {
                if b.is_static() {
                    SVector::zeros()
                } else {
                    S::free_velocity(b, h, &self.params)
                }
            })
            .collect();
        let margin = S::detection_distance(&self.params);
        let pairs = S::candidate_pairs(&self.bodies, &now, &next, margin);
        Predicted {
            now,
            next,
            free,
            pairs,
        }
    }

    /// Stage 3: the complementarity subproblem of a constraint set.
    fn formulate(&self, set: &ConstraintSet<S::Contact>) -> Formulation<D> {
        Formulation::build_with_directions(
            set,
            self.params.h,
            self.params.mu,
            self.params.friction_directions,
        )
    }

    /// Stage 4a (optional, [`WorldParams::split_penetration`]): if the set is violated at the
    /// current configuration by more than [`CORRECTION_TOLERANCE`], the velocities to carry to
    /// the next step, solved with every gap clamped to ψ⁺ = max(ψ, 0). `None` if not needed
    /// or if that solve fails (then the step behaves as without the split).
    fn split_velocities(
        &self,
        set: &ConstraintSet<S::Contact>,
        free: &[SVector<Real, D>],
        (first, factor): (&BTreeMap<S::Key, Real>, &Option<Arc<LemkeFactor>>),
        reduced: &mut ReducedCache<D>,
        report: &mut StepReport,
    ) -> Option<Vec<SVector<Real, D>>> {
        let depth = -start_violation(set);
        if !self.params.split_penetration || depth <= CORRECTION_TOLERANCE {
            return None;
        }
        let mut clamped = set.clone();
        for c in &mut clamped.contacts {
            let g = S::gap_mut(c);
            *g = g.max(0.0);
        }
        let mut sub = StepReport::default();
        let mut not_kept = BTreeMap::new(); // the split solve's impulses are not kept
        let warm = Warm {
            basis: factor.clone(),
            reduced: Some(reduced),
            ..Warm::plain(first, &mut not_kept)
        };
        let v = self.solve(&self.formulate(&clamped), &clamped, free, warm, &mut sub);
        report.budget_exhausted |= sub.budget_exhausted;
        report.basis_reuses += sub.basis_reuses;
        if sub.failed {
            report
                .fallbacks
                .push(format!("split impulse skipped: {:?}", sub.failure));
            return None;
        }
        report.split = Some(depth);
        report.iterations += sub.iterations;
        Some(v)
    }
}

#[cfg(test)]
mod rescue_tests;
