//! After the solve: the gap-correction rounds (`correct_gaps`: re-solves with ψ re-measured at
//! the trial pose, PEG paper Eqs. 48–49 iterated; a round that runs away is undone,
//! [`RUNAWAY_TURN`]), and the position projection that removes what overlap is left
//! (`project_positions`, frictionless, reported per step).
//! Does not own: the solve each round calls (`solve.rs`).

use super::solve::{Solved, Warm};
use super::space::Space;
use super::world::{CORRECTION_TOLERANCE, GenericWorld, Predicted, start_violation};
use crate::basis::{
    Signature, StoredBasis, basic_unknowns, embedding, flags_by_key, keyed_unknowns,
};
use crate::pool::ContactPool;
use crate::reduced_cache::ReducedCache;
use crate::report::{RoundReport, StepReport};
use nalgebra::SVector;
use signorini_complementarity::{FACTOR_RESTART_FROM, SolverKind};
use signorini_contact::{ConstraintSet, ContactRow, DofBody};
use signorini_math::Real;
use std::collections::BTreeMap;
use std::time::Instant;

impl<S: Space<D>, const D: usize> GenericWorld<S, D> {
    /// Stage 5b (split steps, and steps whose gap corrections ended still interpenetrating,
    /// both only with `split_penetration`): position projection. If the configuration reached still
    /// violates the model's constraints by more than [`CORRECTION_TOLERANCE`] (the first
    /// solve's linearisation about the start configuration does not hold for the
    /// centimetre-scale motion that removes a deep penetration), detect the constraints again
    /// *at that configuration*, solve the same subproblem for pseudo-velocities with zero free
    /// velocity (ψ/h only) and move the bodies by h times them, keeping their velocities; at
    /// most `gap_corrections` times. Post-stabilisation (Cline & Pai, ICRA 2003), each pass
    /// re-linearised where the last one ended. Counted in `StepReport::projections`.
    ///
    /// Also run, with the same safeguards, after a step without a split whose gap corrections
    /// ended still interpenetrating, and after a step whose solve failed. The energy reference is the larger of the split depth
    /// and the depth found at the first pass: the projection must remove what it finds, and a
    /// landing step's corrections can end deeper than the step began (3D pile of 27 bodies,
    /// step 69: split depth ≪ 1.6e-3 m found, the projection stopped as "too energetic" and
    /// left 9.4e-7 m³).
    pub(super) fn project_positions(&mut self, report: &mut StepReport) {
        let h = self.params.h;
        let margin = S::detection_distance(&self.params);
        let zeros = vec![SVector::<Real, D>::zeros(); self.bodies.len()];
        let mut reference = report.split;
        // After a failed step the configured solver has just failed on this configuration:
        // the projection's solves use the Auto chain, as the mixed-form retry does.
        let configured = (self.params.solver, self.params.mu);
        if report.failed {
            self.params.solver = SolverKind::Auto;
        }
        // The projection moves bodies out of each other along the constraint normals only
        // (Cline & Pai 2003 project the non-penetration constraints): friction rows would
        // make its subproblem (2 + directions)× larger and, with zero free velocity, only
        // resist the tangential part of the pseudo-velocity. So its solves are frictionless
        // (and take the frictionless dense limit).
        self.params.mu = 0.0;
        for _ in 0..self.params.gap_corrections {
            let now = S::geometry(&self.bodies);
            let pairs = S::candidate_pairs(&self.bodies, &now, &now, margin);
            let mut set = S::detect(&self.params, &self.bodies, &now, &now, &pairs);
            // Interpenetration the detection at this configuration does not see (3D PEG:
            // edges that crossed during the step, no vertex inside) is projected out too.
            for c in S::unseen(&self.params, &self.bodies, &now, &set) {
                set.unilateral.push(set.contacts.len());
                set.contacts.push(c);
            }
            let depth = -start_violation(&set);
            if depth <= CORRECTION_TOLERANCE {
                break;
            }
            let reference = *reference.insert(reference.map_or(depth, |r: Real| r.max(depth)));
            let mut sub = StepReport::default();
            let (from, mut to) = (BTreeMap::new(), BTreeMap::new());
            let warm = Warm::plain(&from, &mut to);
            let v = self.solve(&self.formulate(&set), &set, &zeros, warm, &mut sub);
            report.budget_exhausted |= sub.budget_exhausted;
            report.projection_unknowns = report.projection_unknowns.max(sub.unknowns);
            let (energy, limit) = (
                self.kinetic_energy(&v),
                2.0 * self.penetration_energy(Some(reference)) + 1e-9,
            );
            if sub.failed || energy > limit {
                // Why, with what the pass's solve said (a step of the 2D pile of 2,500 ended
                // with 4e-2 m² of overlap after this line alone; session 36).
                let why = if sub.failed {
                    format!(
                        "its solve failed: {}",
                        sub.failure.as_deref().unwrap_or("no reason given")
                    )
                } else {
                    format!("too energetic: {energy:e} J > {limit:e} J")
                };
                report.fallbacks.push(format!(
                    "position projection stopped at pass {} ({} unknowns, depth {depth:e}): {why}",
                    report.projections + 1,
                    sub.unknowns
                ));
                report.fallbacks.extend(
                    sub.fallbacks
                        .iter()
                        .map(|f| format!("projection pass {}: {f}", report.projections + 1)),
                );
                break;
            }
            for (b, dv) in self.bodies.iter_mut().zip(&v) {
                if !b.is_static() && dv.iter().all(|x| x.is_finite()) {
                    let keep = S::velocity(b);
                    S::integrate(b, dv, h);
                    S::set_velocity(b, &keep);
                }
            }
            report.projections += 1;
        }
        (self.params.solver, self.params.mu) = configured;
    }

    /// Stage 4b (optional, `gap_corrections`): move to the configuration the velocities lead
    /// to and re-measure. A constraint violated there by more than [`CORRECTION_TOLERANCE`]
    /// triggers a re-solve in which each contact's ψ is lowered by its linearisation error
    /// (actual − linear, when negative); the space's [`Space::refresh`] updates the contact
    /// pool at that configuration (for PEG, feature pairs that only come near there, missed by
    /// the one-step prediction, join the potential contacts) and the constraints are rebuilt.
    /// Keeps the last successful velocities; also says whether the configuration they lead
    /// to still violates a constraint.
    pub(super) fn correct_gaps(
        &self,
        set: ConstraintSet<S::Contact>,
        mut velocities: Vec<SVector<Real, D>>,
        pred: &Predicted<S::Geometry, D>,
        (solved, last): Solved<'_, S::Key>,
        reduced: &mut ReducedCache<D>,
        report: &mut StepReport,
    ) -> (Vec<SVector<Real, D>>, bool) {
        let h = self.params.h;
        let mut set = set;
        let mut pool: ContactPool<S::Key, S::Contact> = set
            .contacts
            .iter()
            .map(|c| (S::key(c), c.clone()))
            .collect();
        // Velocities before the last re-solve and the penetration depth they led to.
        let mut previous: Option<(Vec<SVector<Real, D>>, Real)> = None;
        // Velocities before the last re-solve.
        let mut before_round: Option<Vec<SVector<Real, D>>> = None;
        // Whether the last solve of this island needed the rescue (its dense chain failed).
        let mut rescued = self.needed_rescue(report);
        // Whether the last solve of this island in this step was answered by the proximal
        // stage: the re-solve then starts there (`Warm::proximal_first`).
        let mut proximal = report.proximal_answers > 0;
        let mut proximal_epsilon = report.proximal_epsilon;
        let mut proximal_cut = report.proximal_first_path_cut;
        // Whether the configuration the returned velocities lead to was found violated.
        let mut still_violated = false;
        // The deepest violation at the trial pose of the last velocities checked.
        let mut last_depth: Option<Real> = None;
        for round in 0..=self.params.gap_corrections {
            let trial = S::moved(&self.bodies, &velocities, h);
            let mut actual = vec![Real::INFINITY; set.contacts.len()];
            for (k, c) in set.contacts.iter().enumerate() {
                let Some(gap) = S::remeasure(c, &trial) else {
                    continue; // e.g. corrective contacts have no feature pair to re-measure
                };
                actual[k] = gap;
                let linear = c.gap() + h * c.jacobian().dot_velocity(|b| velocities[b]);
                if let Some(p) = pool.get_mut(&S::key(c)) {
                    *S::gap_mut(p) += (actual[k] - linear).min(0.0);
                }
            }
            // Model-specific: rotation within the step, interpenetration the set does not
            // see, feature pairs that only come near at the trial configuration.
            let unseen = S::refresh(
                &self.params,
                &self.bodies,
                &pred.now,
                &trial,
                &velocities,
                &mut pool,
            );
            // The deepest violation of the set at the trial pose: a U-constraint's gap, or
            // an I/X group's largest (the group is violated only if every member is).
            let deepest = set
                .unilateral
                .iter()
                .map(|&k| actual[k])
                .chain(set.inter.iter().chain(set.cross.iter()).map(|p| {
                    p.secondaries
                        .iter()
                        .fold(actual[p.primary], |m, &s| m.max(actual[s]))
                }))
                .fold(Real::INFINITY, Real::min);
            let violated = unseen || deepest < -CORRECTION_TOLERANCE;
            let depth = (-deepest).max(0.0);
            // Safeguard: a re-solve must not inject energy, else it is undone. Its kinetic
            // energy is compared with the larger of the first solution's and free flight's
            // (ν*): contact impulses at non-negative gaps only remove energy from ν*, so a
            // re-solve may legitimately keep more of it than the first solution did (e.g. a
            // vertex that the first solve stopped at an edge's line now slips past the corner:
            // pour2d set g, h = 0.014 s, step 199); only the ψ/h term of deep penetrations
            // can add energy. With the split impulse these velocities only move the bodies
            // (their energy is not carried on), and removing a start-of-step penetration of
            // depth d needs speeds of order d/h: the reference is then at least the energy of
            // every dynamic body moving at d/h.
            if let Some((v, e)) = previous.take() {
                let now = self.kinetic_energy(&velocities);
                let reference = e
                    .max(self.kinetic_energy(&pred.free))
                    .max(self.penetration_energy(report.split));
                if now > 2.0 * reference + 1e-9 {
                    report.fallbacks.push(format!(
                        "gap correction undone (kinetic energy {now:e} J > 2 x {reference:e} J)"
                    ));
                    return (v, true);
                }
                // The same rule body by body: the rounds are a chord iteration, which
                // diverges where a body turns fast, and one body's runaway hides in a large
                // island's total (docs/peg3d.md, item 29: on the 125-body pile the rounds of
                // one step sped a body up from 27 to 133 rad/s and deepened the violation
                // they were removing from 0.18 to 0.91 m, while the island's energy stayed
                // under twice its reference).
                // A divergence deepens the violation; a round that made it shallower is
                // converging, and a body may have to move fast to get out: removing a
                // violation of depth d in one step takes speeds of d/h (5 m/s for the 2.5 cm
                // of step 389 of the 2D pile of 2,500, h = 5 ms). Undoing such rounds there
                // went back to velocities known to violate by 1–2.5 cm, which the position
                // projection did not clear: 1.5e-3 and 4.0e-2 m² of overlap (docs/peg3d.md,
                // item 39). So the rule undoes only a round that did not lower the depth.
                if let Some((b, now, reference)) =
                    self.runaway_body(&velocities, &v, &pred.free, report.split)
                {
                    if undo_runaway(last_depth, depth) {
                        report.fallbacks.push(format!(
                            "gap correction undone (body {b}: kinetic energy {now:e} J > 2 x {reference:e} J)"
                        ));
                        // Back to the round before this one (it passed both rules).
                        return (before_round.take().unwrap_or(v), true);
                    }
                    report.fallbacks.push(format!(
                        "gap correction kept (body {b}: kinetic energy {now:e} J > 2 x {reference:e} J, but the violation went from {:e} to {depth:e} m)",
                        last_depth.unwrap_or(0.0)
                    ));
                }
                previous = Some((v, e));
            }
            last_depth = Some(depth);
            still_violated = violated;
            if !violated || round == self.params.gap_corrections {
                break;
            }
            set = S::rebuild(&self.params, &self.bodies, &set, &pool);
            let form = self.formulate(&set);
            let signature = Signature::of(&set, S::key);
            let unknowns = keyed_unknowns(&form, &set, S::key);
            let mut sub = StepReport::default();
            let mut next = BTreeMap::new();
            let mut next_factor = None;
            // Contacts that joined at the trial pose: the last basis grows with them (on
            // problems where Lemke restarts from a basis; smaller ones solve cold, as the
            // pour figures were measured).
            let basis_map = last
                .as_ref()
                .filter(|b| b.signature != signature && form.dim() >= FACTOR_RESTART_FROM)
                .and_then(|b| embedding(&b.unknowns, &unknowns));
            // Where the grown basis cannot be formed (a 2D rebuild regrouped a constraint),
            // the sparse Lemke starts from the last basis matched by key.
            let key_flags = last
                .as_ref()
                .filter(|b| {
                    basis_map.is_none()
                        && b.signature != signature
                        && form.dim() >= self.sparse_from()
                })
                .map(|b| flags_by_key(&basic_unknowns(b), &unknowns));
            let warm = Warm {
                basis: last.as_ref().map(|b| b.factor.clone()),
                basis_map,
                key_flags,
                rescue_first: rescued,
                proximal_first: proximal,
                centre: true,
                resume_epsilon: proximal_epsilon,
                long_first: proximal_cut,
                basis_to: self.params.reuse_basis.then_some(&mut next_factor),
                reduced: Some(&mut *reduced),
                ..Warm::plain(solved, &mut next)
            };
            let t = Instant::now();
            let v = self.solve(&form, &set, &pred.free, warm, &mut sub);
            report.rounds.push(RoundReport {
                island: 0,
                round: round + 1,
                unknowns: sub.unknowns,
                depth,
                unseen,
                answer: sub.round_answer(),
                iterations: sub.iterations,
                residual: sub.kept_best.filter(|_| sub.failed).unwrap_or(sub.residual),
                seconds: t.elapsed().as_secs_f64(),
            });
            rescued = self.needed_rescue(&sub);
            proximal = sub.proximal_answers > 0;
            proximal_epsilon = sub.proximal_epsilon;
            proximal_cut = sub.proximal_first_path_cut;
            report.proximal_answers += sub.proximal_answers;
            report.budget_exhausted |= sub.budget_exhausted;
            report.basis_reuses += sub.basis_reuses;
            if sub.failed {
                // Reported, with what each method of the re-solve said: the step keeps the
                // last solved velocities and the projection takes over (a 1,000-body pile
                // step spent 594 s here with nothing in its report; session 29).
                report.fallbacks.push(format!(
                    "gap-correction round {} failed ({} unknowns): {}; the last solved velocities kept",
                    round + 1,
                    sub.unknowns,
                    sub.failure.as_deref().unwrap_or("no reason given")
                ));
                report.fallbacks.extend(
                    sub.fallbacks
                        .iter()
                        .map(|f| format!("gap-correction round {}: {f}", round + 1)),
                );
                break;
            }
            *solved = next;
            *last = next_factor.map(|factor| StoredBasis {
                signature,
                unknowns,
                factor,
            });
            if previous.is_none() {
                previous = Some((velocities.clone(), self.kinetic_energy(&velocities)));
            }
            report.corrections += 1;
            report.counts = set.counts();
            report.unknowns = sub.unknowns;
            report.residual = sub.residual;
            report.iterations += sub.iterations;
            report.normal_impulse = sub.normal_impulse;
            before_round = Some(std::mem::replace(&mut velocities, v));
        }
        (velocities, still_violated)
    }

    /// Whether the solve `report` describes answered a dense-route problem (of at least
    /// [`FACTOR_RESTART_FROM`] unknowns; smaller ones as the pours were measured) only by the
    /// rescue: the dense chain failed and `solve_large`'s sparse Newton method or block
    /// Gauss–Seidel gave the answer.
    pub(super) fn needed_rescue(&self, report: &StepReport) -> bool {
        let rescued = matches!(
            report.solver,
            Some(SolverKind::SparseNewton | SolverKind::Pgs)
        );
        // Dense-route islands; and frictional islands on the sparse route, whose sparse
        // Lemke runs end on rays after thousands of pivots (minutes on the μ = 0.5 pile)
        // before the rescue that answered the last solve (docs/peg3d.md, item 30 (e)).
        rescued
            && ((FACTOR_RESTART_FROM..=self.dense_limit()).contains(&report.unknowns)
                || (self.params.mu > 0.0 && report.unknowns > self.dense_limit()))
    }

    /// ½ Σ m (d/h)² over the dynamic bodies for a split start-of-step penetration of depth d
    /// (0 without a split): the scale of the energy the ψ/h term needs to remove it.
    pub(super) fn penetration_energy(&self, split: Option<Real>) -> Real {
        let Some(depth) = split else {
            return 0.0;
        };
        let mut v = SVector::<Real, D>::zeros();
        v[0] = depth / self.params.h;
        self.bodies
            .iter()
            .filter(|b| !b.is_static())
            .map(|b| S::kinetic_energy(b, &v))
            .sum()
    }

    /// Kinetic energy ½ Σ νᵀ M ν of the dynamic bodies for the given velocities (J).
    /// The first dynamic body that turns by more than [`RUNAWAY_TURN`] in the step under `now`
    /// and whose kinetic energy there is more than twice (+1 nJ) its reference, the larger of
    /// its energy under `first` (the first solution), under `free` (ν*) and of the split
    /// penetration's d/h ([`Self::penetration_energy`] for one body): its index, energy and
    /// reference.
    pub(super) fn runaway_body(
        &self,
        now: &[SVector<Real, D>],
        first: &[SVector<Real, D>],
        free: &[SVector<Real, D>],
        split: Option<Real>,
    ) -> Option<(usize, Real, Real)> {
        let mut depth = SVector::<Real, D>::zeros();
        depth[0] = split.unwrap_or(0.0) / self.params.h;
        self.bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.is_static())
            .find_map(|(k, b)| {
                let e = S::kinetic_energy(b, &now[k]);
                let reference = S::kinetic_energy(b, &first[k])
                    .max(S::kinetic_energy(b, &free[k]))
                    .max(S::kinetic_energy(b, &depth));
                let turning = S::turn_rate(&now[k]) * self.params.h > RUNAWAY_TURN;
                (turning && e > 2.0 * reference + 1e-9).then_some((k, e, reference))
            })
    }
}

/// Rotation in one step (rad) above which a gap-correction round that doubled a body's kinetic
/// energy is taken for the chord iteration's divergence and undone ([`GenericWorld`]'s
/// `runaway_body`). The rounds correct ψ with start-of-step Jacobians, whose error grows with
/// the square of the turn; in the runaways seen (docs/peg3d.md, item 29) the bodies turned by
/// 0.12–0.48 rad per step, while the same doubling on the pours (bodies turning by 0.004 rad,
/// legitimate corrections of bodies nearly at rest) must not be undone.
pub const RUNAWAY_TURN: Real = 0.1;

/// Whether a gap-correction round whose body sped up past the runaway rule
/// ([`RUNAWAY_TURN`]) is undone, given the deepest violation before it (`None`: unknown) and
/// at its own trial pose: only if it did not make the violation shallower (a diverging chord
/// iteration deepens it; docs/peg3d.md, items 29 and 39).
pub(super) fn undo_runaway(before: Option<Real>, after: Real) -> bool {
    !before.is_some_and(|d| after < d)
}
