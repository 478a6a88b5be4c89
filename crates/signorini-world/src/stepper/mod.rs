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
//! Files: `mod.rs` the world and the stage order (`step_whole`, prediction, formulation, the
//! split impulse, integration); `params.rs` the settings and their defaults; `space.rs` the
//! [`Space`] trait; `solve.rs` the solve and its fallbacks; `large.rs` the large problems'
//! route (sparse Lemke, proximal stage, rescue); `corrections.rs` the gap-correction rounds
//! and the position projection. Islands (`islands.rs`) run `step_whole` on each island.
//! Owns: [`GenericWorld`], [`Space`], [`WorldParams`]. Does not own: the contact models
//! themselves.

mod corrections;
mod large;
mod params;
mod solve;
mod space;

pub use corrections::RUNAWAY_TURN;
use corrections::round_answer;
pub use params::*;
pub use solve::DENSE_FALLBACK_LIMIT;
use solve::Warm;
pub use space::{ContactKey, Space};

use crate::basis::{
    KeyedUnknown, Signature, StoredBasis, basic_unknowns, flags_by_key, keyed_unknowns,
};
use crate::reduced_cache::ReducedCache;
use crate::report::{RoundReport, StageTimes, StepReport};
use nalgebra::SVector;
use signorini_complementarity::LemkeFactor;
use signorini_contact::{ConstraintSet, ContactModel, ContactRow, DofBody, Formulation};
use signorini_dynamics::BodyError;
use signorini_math::Real;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

/// Why a world could not be built or stepped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorldError {
    /// The step size must be finite and positive.
    #[error("step size h must be finite and > 0, got {0}")]
    StepSize(Real),
    /// The friction coefficient must be finite and ≥ 0.
    #[error("friction coefficient must be finite and >= 0, got {0}")]
    Friction(Real),
    /// A body is invalid.
    #[error("body {index}: {source}")]
    Body {
        /// Body index.
        index: usize,
        /// Why.
        source: BodyError,
    },
    /// A [`crate::Checkpoint`] does not fit this world.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
    /// A control input ([`GenericWorld::set_velocity`], [`GenericWorld::apply_wrench`]) was
    /// refused: no such body, a static body, or a non-finite value.
    #[error("control of body {index}: {reason}")]
    Control {
        /// Body index.
        index: usize,
        /// Why.
        reason: &'static str,
    },
}

/// Bodies and the stepper, for any [`Space`].
#[derive(Debug, Clone)]
pub struct GenericWorld<S: Space<D>, const D: usize> {
    /// All bodies (static and dynamic), in insertion order.
    pub bodies: Vec<S::Body>,
    /// Settings.
    pub params: WorldParams,
    /// Steps taken so far.
    pub steps: usize,
    /// Warm starts: the normal impulse (N·s) of each feature pair at the last step's accepted
    /// solve, keyed by feature pair with world body indices ([`WorldParams::warm_start`]).
    pub(crate) warm: BTreeMap<S::Key, Real>,
    /// The Lemke basis of the last step's last solve, with the constraint set it solved
    /// ([`WorldParams::reuse_basis`]; islands keep one per island, see `islands.rs`).
    pub(crate) basis: Option<StoredBasis<S::Key>>,
    /// The same per island, keyed by the island's members (world indices, static ones
    /// included).
    pub(crate) island_bases: BTreeMap<Vec<usize>, StoredBasis<S::Key>>,
    /// The unknowns basic in the last step's bases (world body indices), for a sparse Lemke
    /// warm start when a problem's set changed (`basis::flags_by_key`); empty unless a problem
    /// reached [`WorldParams::sparse_lemke_from`].
    pub(crate) basic: BTreeSet<KeyedUnknown<S::Key>>,
    pub(crate) space: PhantomData<S>,
}

/// A refused control input.
fn control(index: usize, reason: &'static str) -> WorldError {
    WorldError::Control { index, reason }
}

/// Stage 1 output.
struct Predicted<G, const D: usize> {
    now: G,
    next: G,
    free: Vec<SVector<Real, D>>,
    pairs: Vec<(usize, usize)>,
}

impl<S: Space<D>, const D: usize> GenericWorld<S, D> {
    /// An empty world.
    pub fn new(params: WorldParams) -> Result<Self, WorldError> {
        if !(params.h.is_finite() && params.h > 0.0) {
            return Err(WorldError::StepSize(params.h));
        }
        if !(params.mu.is_finite() && params.mu >= 0.0) {
            return Err(WorldError::Friction(params.mu));
        }
        Ok(GenericWorld {
            bodies: Vec::new(),
            params,
            steps: 0,
            warm: BTreeMap::new(),
            basis: None,
            island_bases: BTreeMap::new(),
            basic: BTreeSet::new(),
            space: PhantomData,
        })
    }

    /// Add a body after validating its state; returns its index.
    pub fn add_body(&mut self, body: S::Body) -> Result<usize, WorldError> {
        let index = self.bodies.len();
        S::validate(&body).map_err(|source| WorldError::Body { index, source })?;
        self.bodies.push(body);
        Ok(index)
    }

    /// The generalized velocity ν of body `id` (2D `(vx, vy, ω)`; 3D `(v, ω)`, world frame),
    /// `None` if there is no such body.
    pub fn velocity(&self, id: usize) -> Option<SVector<Real, D>> {
        self.bodies.get(id).map(S::velocity)
    }

    /// Control input: set the generalized velocity of dynamic body `id` (layout as in
    /// [`GenericWorld::velocity`]) before the next step.
    ///
    /// # Errors
    /// [`WorldError::Control`] for no such body, a static body or a non-finite velocity.
    pub fn set_velocity(&mut self, id: usize, v: SVector<Real, D>) -> Result<(), WorldError> {
        if !v.iter().all(|x| x.is_finite()) {
            return Err(control(id, "non-finite velocity"));
        }
        let body = self.dynamic_body_mut(id)?;
        S::set_velocity(body, &v);
        Ok(())
    }

    /// Control input: apply the wrench `w` (2D `(fx, fy, τ)`; 3D `(f, τ)`: N and N·m, world
    /// frame, about the centre of mass) to dynamic body `id` during the next step, on top of
    /// its constant external force (e.g. gravity). Applied now as the impulse `h w`:
    /// `ν ← ν + h M⁻¹ w`, which is what the next step's free flight `ν + h M⁻¹ (F_ext + w)`
    /// would add (up to rounding). Call it before every step the wrench should act.
    ///
    /// # Errors
    /// [`WorldError::Control`] for no such body, a static body or a non-finite wrench.
    pub fn apply_wrench(&mut self, id: usize, w: SVector<Real, D>) -> Result<(), WorldError> {
        if !w.iter().all(|x| x.is_finite()) {
            return Err(control(id, "non-finite wrench"));
        }
        let h = self.params.h;
        let body = self.dynamic_body_mut(id)?;
        let v = S::velocity(body) + body.inverse_mass_block().mul(&w) * h;
        S::set_velocity(body, &v);
        Ok(())
    }

    /// Body `id` if it exists and is dynamic.
    fn dynamic_body_mut(&mut self, id: usize) -> Result<&mut S::Body, WorldError> {
        match self.bodies.get_mut(id) {
            None => Err(control(id, "no such body")),
            Some(b) if b.is_static() => Err(control(id, "static body")),
            Some(b) => Ok(b),
        }
    }

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
                    from: &self.warm,
                    to: &mut solved,
                    basis: previous,
                    basis_map: None,
                    key_flags,
                    rescue_first: false,
                    proximal_first: false,
                    centre: false,
                    resume_epsilon: None,
                    basis_to: self.params.reuse_basis.then_some(&mut factor),
                    reduced: Some(&mut reduced),
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
                answer: round_answer(&report),
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
        let warm = Warm {
            from: first,
            to: &mut BTreeMap::new(),
            basis: factor.clone(),
            basis_map: None,
            key_flags: None,
            rescue_first: false,
            proximal_first: false,
            centre: false,
            resume_epsilon: None,
            basis_to: None,
            reduced: Some(reduced),
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

    fn kinetic_energy(&self, velocities: &[SVector<Real, D>]) -> Real {
        self.bodies
            .iter()
            .zip(velocities)
            .filter(|(b, _)| !b.is_static())
            .map(|(b, v)| S::kinetic_energy(b, v))
            .sum()
    }

    /// Stage 5: accept the velocities (non-finite ones are replaced by ν* and the step is
    /// marked failed by the caller's report only if a solve failed) and update positions.
    fn integrate(&mut self, velocities: &[SVector<Real, D>]) {
        let h = self.params.h;
        for (b, v) in self.bodies.iter_mut().zip(velocities) {
            if b.is_static() {
                continue;
            }
            S::integrate(b, v, h);
        }
    }
}

pub use signorini_math::tolerance::APPROXIMATE_RESIDUAL_TOL as APPROXIMATE_TOLERANCE;

/// The most negative constraint value of a set at the current configuration: a U-constraint's
/// gap, an I/X-constraint's largest gap over its primary and secondaries (paper Eqs. 11, 15,
/// 16: the constraint holds iff that value is ≥ 0). +∞ for an empty set.
pub(crate) fn start_violation<C: ContactRow<D>, const D: usize>(set: &ConstraintSet<C>) -> Real {
    constraint_gaps(set).fold(Real::INFINITY, |m, (_, gap)| m.min(gap))
}

/// Each constraint's gap with its (primary) contact's index: a U-constraint's ψ, an I- or
/// X-constraint's largest member ψ (the constraint holds when any member does).
/// The body pairs (lower index first) of `set` with a constraint violated beyond
/// [`CORRECTION_TOLERANCE`] (a member of an I- or X-constraint may read negative while the
/// constraint holds): the pairs that [`Space::unseen`] leaves to the constraints.
fn violated_pairs<S: Space<D>, const D: usize>(
    set: &ConstraintSet<S::Contact>,
) -> std::collections::BTreeSet<(usize, usize)> {
    constraint_gaps(set)
        .filter(|&(_, gap)| gap < -CORRECTION_TOLERANCE)
        .map(|(k, _)| {
            let (a, b) = S::key_bodies(&S::key(&set.contacts[k]));
            (a.min(b), a.max(b))
        })
        .collect()
}

/// PEG's candidate pairs that interpenetrate (`overlaps(i, j)`, each dimension's exact
/// measure) while no constraint of `set` between them is violated: the pairs that
/// [`Space::unseen`] gives the corrective detector's contacts (both dimensions; none for the
/// other models, which detect by distance or overlap already).
pub(crate) fn unseen_pairs<S: Space<D>, const D: usize>(
    params: &WorldParams,
    bodies: &[S::Body],
    geometry: &S::Geometry,
    set: &ConstraintSet<S::Contact>,
    overlaps: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    if params.model != ContactModel::Peg {
        return Vec::new();
    }
    let seen = violated_pairs::<S, D>(set);
    let eps = S::detection_distance(params);
    S::candidate_pairs(bodies, geometry, geometry, eps)
        .into_iter()
        .filter(|&(i, j)| !seen.contains(&(i.min(j), i.max(j))) && overlaps(i, j))
        .collect()
}

pub(crate) fn constraint_gaps<C: ContactRow<D>, const D: usize>(
    set: &ConstraintSet<C>,
) -> impl Iterator<Item = (usize, Real)> + '_ {
    let unilateral = set.unilateral.iter().map(|&k| (k, set.contacts[k].gap()));
    let pairs = set.inter.iter().chain(set.cross.iter()).map(|p| {
        let gap = p
            .secondaries
            .iter()
            .fold(set.contacts[p.primary].gap(), |m, &s| {
                m.max(set.contacts[s].gap())
            });
        (p.primary, gap)
    });
    unilateral.chain(pairs)
}

pub use signorini_math::tolerance::GAP_CORRECTION_TOL as CORRECTION_TOLERANCE;

#[cfg(test)]
mod rescue_tests;
